"""The expression half of the compiler's reductions (``compiler.Compiler`` inherits it).

One method per expression alias of ``grammars/grad.lark``, given the rule's children (tokens
as tuples, sub-expressions as program nodes), returning a program node; see ``compiler``.
"""

from __future__ import annotations

from typing import Any

from ..errors import Span
from . import program as P
from .checks import DoubleStar, GenArg, Kwarg, check_target, error, number_value, single
from .fstrings import Literal, decode, parse_fstring
from .nodes import attribute as _attribute
from .nodes import call as _call
from .nodes import call_at as _call_at
from .nodes import join as _join
from .nodes import new as _new
from .nodes import number as _number
from .nodes import respan, setters
from .nodes import span as _span
from .nodes import subscript as _subscript
from .nodes import tuple_new as _tuple_new
from .nodes import unary as _unary
from .program import Attribute, Binary, Call, Expr, Name, Number, Subscript, Unary

# The three hottest reductions (names, numbers, binary operators: most of a script's nodes)
# write their node's slots inline rather than through a ``nodes.spanned`` constructor.
_name_id, _name_span = setters(Name)
_number_value, _number_span = setters(Number)
_binary_op, _binary_left, _binary_right, _binary_span = setters(Binary)


class ExpressionReductions:
    """The reductions of expressions (a mixin of ``compiler.Compiler``)."""

    parse_expr: Any  # the parser's own, for f-string fields

    def tuple(self, c: list[Any]) -> P.Tuple:
        return P.Tuple(tuple(c[::2]), _join(c[0], c[-1]))

    def starred(self, c: list[Any]) -> P.Starred:
        return P.Starred(c[1], _join(c[0], c[1]))

    def or_op(self, c: list[Any]) -> P.BoolOp:
        return P.BoolOp("or", tuple(c[::2]), _join(c[0], c[-1]))

    def and_op(self, c: list[Any]) -> P.BoolOp:
        return P.BoolOp("and", tuple(c[::2]), _join(c[0], c[-1]))

    def not_op(self, c: list[Any]) -> Unary:
        t, operand = c
        s = operand.span
        return _unary("not", operand, t[2], t[3], s.end_line, s.end_column)

    def compare(self, c: list[Any]) -> P.Compare:
        return P.Compare(tuple(c[1::2]), tuple(c[::2]), _join(c[0], c[-1]))

    def comp_op(self, c: list[Any]) -> str:
        return " ".join(t[1] for t in c)  # "<", "in", "not in", "is", "is not"

    def if_exp(self, c: list[Any]) -> P.IfExp:
        body, _, test, _, orelse = c
        return P.IfExp(test, body, orelse, _join(body, orelse))

    # NOTE: _lalr.c makes binary, name and number nodes itself (its reduce()), slot by slot
    # as these three do: a change here is a change there (tests/test_parser_driver.py)
    def binary(self, c: list[Any]) -> Binary:
        left, op, right = c
        ls = left.span
        rs = right.span
        o = _new(Binary)
        _binary_op(o, op[1])
        _binary_left(o, left)
        _binary_right(o, right)
        _binary_span(o, _tuple_new(Span, (ls[0], ls[1], rs[2], rs[3])))
        return o

    def unary(self, c: list[Any]) -> Unary:
        op, operand = c
        s = operand.span
        return _unary(op[1], operand, op[2], op[3], s.end_line, s.end_column)

    def name(self, c: list[Any]) -> Name:
        t = c[0]
        o = _new(Name)
        _name_id(o, t[1])
        _name_span(o, _tuple_new(Span, (t[2], t[3], t[2], t[4])))
        return o

    def number(self, c: list[Any]) -> Number:
        t = c[0]
        o = _new(Number)
        _number_value(o, number_value(t))
        _number_span(o, _tuple_new(Span, (t[2], t[3], t[2], t[4])))
        return o

    def string(self, c: list[Any]) -> P.String | P.FString:
        lits = [Literal(t) for t in c]
        span = _join(c[0], c[-1])
        if not any("f" in lit.prefix for lit in lits):
            return P.String("".join(decode(lit.body, "r" in lit.prefix, lit.line, lit.col)
                                    for lit in lits), span)
        parts: list[Any] = []
        for lit in lits:
            more = parse_fstring(lit, self.parse_expr) if "f" in lit.prefix else \
                [decode(lit.body, "r" in lit.prefix, lit.line, lit.col)]
            for p in more:
                if type(p) is str and parts and type(parts[-1]) is str:
                    parts[-1] += p
                elif p != "":
                    parts.append(p)
        return P.FString(tuple(parts), span)

    def const(self, c: list[Any]) -> Number:
        t = c[0]
        value = {"True": True, "False": False, "None": None, "...": ...}[t[1]]
        return _number(value, t[2], t[3], t[2], t[4])

    def paren(self, c: list[Any]) -> Expr:
        inner = single(c[1])
        # The node's span grows to cover the parentheses, so that an enclosing node's span
        # (taken from its first and last children) covers them too.
        return respan(inner, _join(c[0], c[2]))

    def empty_tuple(self, c: list[Any]) -> P.Tuple:
        return P.Tuple((), _join(c[0], c[1]))

    def list_expr(self, c: list[Any]) -> P.ListExpr:
        return P.ListExpr(tuple(c[1:-1:2]), _join(c[0], c[-1]))

    def set_expr(self, c: list[Any]) -> P.SetExpr:
        return P.SetExpr(tuple(c[1:-1:2]), _join(c[0], c[-1]))

    def dict_expr(self, c: list[Any]) -> P.DictExpr:
        items = c[1:-1:2]
        return P.DictExpr(tuple(k for k, _ in items), tuple(v for _, v in items),
                          _join(c[0], c[-1]))

    def dict_item(self, c: list[Any]) -> tuple[Expr | None, Expr]:
        if len(c) == 2:  # ** mapping
            return (None, c[1])
        return (single(c[0]), single(c[2]))

    def _comprehension(self, kind: str, c: list[Any], element: Expr,
                       value: Expr | None) -> P.Comprehension:
        return P.Comprehension(kind, single(element), value, c[-2], _join(c[0], c[-1]))

    def genexp(self, c: list[Any]) -> P.Comprehension:
        return self._comprehension("gen", c, c[1], None)

    def listcomp(self, c: list[Any]) -> P.Comprehension:
        return self._comprehension("list", c, c[1], None)

    def setcomp(self, c: list[Any]) -> P.Comprehension:
        return self._comprehension("set", c, c[1], None)

    def dictcomp(self, c: list[Any]) -> P.Comprehension:
        return self._comprehension("dict", c, c[1], single(c[3]))

    def comp_for(self, c: list[Any]) -> tuple[P.CompFor, ...]:
        gens: list[P.CompFor] = []
        clauses = [("FOR", c[1], c[3], _join(c[0], c[3])), *c[4:]]
        for clause in clauses:
            if clause[0] == "FOR":
                check_target(clause[1])
                gens.append(P.CompFor(clause[1], clause[2], (), clause[3]))
            else:
                g = gens[-1]
                gens[-1] = P.CompFor(g.target, g.iter, (*g.ifs, clause[1]),
                                     _join(g, clause[1]))
        return tuple(gens)

    def comp_clause(self, c: list[Any]) -> tuple:
        if c[0][0] == "FOR":
            return ("FOR", c[1], c[3], _join(c[0], c[3]))
        return ("IF", c[1])

    def call(self, c: list[Any]) -> Call | P.CallUnpack:
        func = c[0]
        s = func.span
        end = c[-1]
        items = c[2:-1:2]
        for a in items:
            if type(a) is Kwarg or type(a) is DoubleStar or type(a) is GenArg or \
                    type(a) is P.Starred:
                break
        else:  # positional arguments only: the common case
            if not items and type(func) is Name and func.id == "super":
                return P.SuperCall(_span(s.line, s.column, end[2], end[4]))
            return _call_at(func, tuple(items), (), s.line, s.column, end[2], end[4])
        span = _span(s.line, s.column, end[2], end[4])
        args: list[Any] = []
        kwargs: list[tuple[str | None, Expr]] = []
        unpack = False
        for a in items:
            t = type(a)
            if t is GenArg:
                if len(c) != 4:  # f(x for x in y) only: no other argument, no comma
                    raise error("Generator expression must be parenthesized", a)
                args.append(a.value)
            elif t is Kwarg:
                if any(k == a.name for k, _ in kwargs):
                    raise error(f"keyword argument repeated: {a.name}", a)
                kwargs.append((a.name, a.value))
            elif t is DoubleStar:
                unpack = True
                kwargs.append((None, a.value))
            elif t is P.Starred:
                if any(k is None for k, _ in kwargs):
                    raise error("iterable argument unpacking follows keyword argument "
                                "unpacking", a)
                unpack = True
                args.append(a)
            elif kwargs:
                after = "keyword argument unpacking" if any(k is None for k, _ in kwargs) \
                    else "keyword argument"
                raise error(f"positional argument follows {after}", a)
            else:
                args.append(a)
        make = P.CallUnpack if unpack else _call
        return make(func, tuple(args), tuple(kwargs), span)

    def kwarg(self, c: list[Any]) -> Kwarg:
        return Kwarg(c[0][1], single(c[2]), _join(c[0], c[2]))

    def genexp_arg(self, c: list[Any]) -> GenArg:
        return GenArg(P.Comprehension("gen", single(c[0]), None, c[1], _join(c[0], c[1][-1])))

    def star_arg(self, c: list[Any]) -> Any:
        if c[0][0] == "STAR":
            return P.Starred(c[1], _join(c[0], c[1]))
        return DoubleStar(c[1], _join(c[0], c[1]))

    def attribute(self, c: list[Any]) -> Attribute:
        value = c[0]
        s = value.span
        t = c[2]
        return _attribute(value, t[1], s.line, s.column, t[2], t[4])

    def subscript(self, c: list[Any]) -> Subscript:
        value = c[0]
        s = value.span
        end = c[-1]
        return _subscript(value, tuple(c[2:-1:2]), s.line, s.column, end[2], end[4])

    def slice(self, c: list[Any]) -> P.Slice:
        parts: list[Any] = [None, None, None]
        k = 0
        for x in c:
            if type(x) is tuple:
                k += 1
            else:
                parts[k] = x
        return P.Slice(parts[0], parts[1], parts[2], _join(c[0], c[-1]))
