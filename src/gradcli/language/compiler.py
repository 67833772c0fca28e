"""Parse-tree reductions to program dataclasses, and the static checks of the language.

``Compiler`` has one method per rule alias of ``grammars/grad.lark``. The LALR driver in
``parser`` calls it at each reduction with the rule's children, all of them kept in
order: tokens are plain tuples ``(type, value, line, column, end_column)`` and nonterminals are
what the methods returned (an Expr, a Stmt, or a list of Stmts). Nothing is evaluated here and
built-in names are not resolved (the runtime does that); what is static is checked: assignment
targets, ``return`` outside a function, parameters, call arguments, ``for``/``with`` headers,
literals, and how deep expressions nest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, NamedTuple

from .checks import (
    CONTEXTS,
    Kwarg,
    TupleSyntax,
    assign_target,
    check_depth,
    check_loop_jumps,
    check_returns,
    error,
    is_literal,
    number_value,
    single,
    string_value,
)
from ..errors import Span
from .program import (
    Assign,
    Attribute,
    AugAssign,
    Binary,
    BoolOp,
    Call,
    Compare,
    Expr,
    ExprStmt,
    Break,
    Continue,
    For,
    FunctionDef,
    If,
    IfExp,
    ListExpr,
    Name,
    Number,
    Pass,
    While,
    Return,
    Slice,
    Stmt,
    String,
    Subscript,
    Unary,
    With,
)

Token = tuple  # (type, value, line, column, end_column); a token never spans lines


def _fast(cls: type) -> Callable[..., Any]:
    """A positional constructor for a frozen slots dataclass that skips the frozen __init__.

    The generated __init__ of a frozen dataclass goes through object.__setattr__ per field
    (about 1 us per node); writing the slots directly is about 3x faster, and the
    parser builds ~10 nodes and spans per line, so this is a large share of parse time.
    """
    new = object.__new__
    setters = [getattr(cls, f.name).__set__ for f in fields(cls)]
    if len(setters) == 2:
        s0, s1 = setters

        def make2(a: Any, b: Any) -> Any:
            o = new(cls)
            s0(o, a)
            s1(o, b)
            return o

        return make2
    if len(setters) == 3:
        s0, s1, s2 = setters

        def make3(a: Any, b: Any, c: Any) -> Any:
            o = new(cls)
            s0(o, a)
            s1(o, b)
            s2(o, c)
            return o

        return make3
    s0, s1, s2, s3 = setters

    def make4(a: Any, b: Any, c: Any, d: Any) -> Any:
        o = new(cls)
        s0(o, a)
        s1(o, b)
        s2(o, c)
        s3(o, d)
        return o

    return make4


_span = _fast(Span)
_name = _fast(Name)
_number = _fast(Number)
_binary = _fast(Binary)
_unary = _fast(Unary)
_call = _fast(Call)
_attribute = _fast(Attribute)
_subscript = _fast(Subscript)
_assign = _fast(Assign)
_aug = _fast(AugAssign)
_expr_stmt = _fast(ExprStmt)


def tok_span(t: Token) -> Span:
    """The span of one token."""
    return _span(t[2], t[3], t[2], t[4])


def _join(first: Any, last: Any) -> Span:
    """The span from the start of ``first`` to the end of ``last`` (tokens or nodes)."""
    if type(first) is tuple:
        line, col = first[2], first[3]
    else:
        line, col = first.span.line, first.span.column
    if type(last) is tuple:
        return _span(line, col, last[2], last[4])
    s = last.span
    return _span(line, col, s.end_line, s.end_column)


def _flatten(items: list[Any]) -> list[Stmt]:
    """Statements from a mix of tokens, statement lists and statements."""
    out: list[Stmt] = []
    for x in items:
        t = type(x)
        if t is list:
            out.extend(x)
        elif t is not tuple:
            out.append(x)
    return out


class Param(NamedTuple):
    """A ``def`` parameter while its function is being compiled: the name token and default."""

    name: Token
    default: Expr | None


class Compiler:
    """The reductions: one method per grammar alias, each given the rule's children."""

    # ---- statements ----

    def module(self, c: list[Any]) -> list[Stmt]:
        body = _flatten(c)
        check_returns(body)
        check_loop_jumps(body, in_loop=False)
        return body

    def simple_stmts(self, c: list[Any]) -> list[Stmt]:
        if len(c) == 2:
            return [c[0]]
        return [x for x in c if type(x) is not tuple]

    def suite(self, c: list[Any]) -> tuple[Stmt, ...]:
        return tuple(c[0]) if len(c) == 1 else tuple(_flatten(c))

    def expr_stmt(self, c: list[Any]) -> ExprStmt:
        e = single(c[0])
        check_depth(e)
        return _expr_stmt(e, e.span)

    def assign(self, c: list[Any]) -> Assign:
        if len(c) > 3:
            raise error(
                "chained assignment (a = b = ...) is not supported", c[3], "assign one at a time"
            )
        target, _, value = c
        name = target.id if type(target) is Name else assign_target(target)
        value = single(value)
        check_depth(value)
        ts = target.span
        vs = value.span
        span = _span(ts.line, ts.column, vs.end_line, vs.end_column)
        return _assign(name, value, is_literal(value), span)

    def aug_assign(self, c: list[Any]) -> AugAssign:
        name = assign_target(c[0])
        value = single(c[2])
        check_depth(value)
        return _aug(name, c[1][1][:-1], value, _join(c[0], value))

    def return_stmt(self, c: list[Any]) -> Return:
        if len(c) == 1:
            return Return(None, tok_span(c[0]))
        value = single(c[1])
        check_depth(value)
        return Return(value, _join(c[0], value))

    def pass_stmt(self, c: list[Any]) -> Pass:
        return Pass(tok_span(c[0]))

    def break_stmt(self, c: list[Any]) -> Break:
        return Break(tok_span(c[0]))

    def continue_stmt(self, c: list[Any]) -> Continue:
        return Continue(tok_span(c[0]))

    def while_stmt(self, c: list[Any]) -> While:
        test = single(c[1])
        check_depth(test)
        body = c[3]
        return While(test, body, _join(c[0], body[-1]))

    def if_stmt(self, c: list[Any]) -> If:
        branches = []
        orelse: tuple[Stmt, ...] = ()
        i, n = 0, len(c)
        while i < n:
            kind = c[i][0]
            if kind == "ELSE":
                orelse = c[i + 2]
                i += 3
            else:
                cond = single(c[i + 1])
                check_depth(cond)
                branches.append((cond, c[i + 3]))
                i += 4
        last = orelse[-1] if orelse else branches[-1][1][-1]
        return If(tuple(branches), orelse, _join(c[0], last))

    def for_stmt(self, c: list[Any]) -> For:
        it = single(c[3])
        check_depth(it)
        if not (type(it) is Call and type(it.func) is Name and it.func.id == "range"):
            raise error("for loops iterate over range(...) only", it, "write: for i in range(n):")
        if it.kwargs or not 1 <= len(it.args) <= 3:
            raise error("range() in a for loop takes 1 to 3 positional arguments", it)
        body = c[5]
        return For(c[1][1], it.args, body, _join(c[0], body[-1]))

    def with_stmt(self, c: list[Any]) -> With:
        ctx = single(c[1])
        if not (type(ctx) is Call and type(ctx.func) is Name and ctx.func.id in CONTEXTS):
            raise error(
                "'with' supports only no_grad() and enable_grad()",
                ctx,
                "write: with no_grad():",
            )
        if ctx.args or ctx.kwargs:
            raise error(f"{ctx.func.id}() takes no arguments", ctx)
        body = c[3]
        return With(ctx, body, _join(c[0], body[-1]))

    def param(self, c: list[Any]) -> Param:
        default = None
        if len(c) > 1:
            default = single(c[2])
            check_depth(default)
        return Param(c[0], default)

    def funcdef(self, c: list[Any]) -> FunctionDef:
        params: list[str] = []
        defaults: list[Expr] = []
        for p in c[3:-3]:
            if type(p) is not Param:
                continue  # the commas
            t = p.name
            if t[1] in params:
                raise error(f"duplicate argument '{t[1]}' in function definition", t)
            if p.default is not None:
                defaults.append(p.default)
            elif defaults:
                raise error("non-default argument follows default argument", t)
            params.append(t[1])
        body = c[-1]
        return FunctionDef(c[1][1], tuple(params), body, tuple(defaults), _join(c[0], body[-1]))

    # ---- expressions ----

    def tuple(self, c: list[Any]) -> TupleSyntax:
        return TupleSyntax(c[::2], _join(c[0], c[-1]))

    def or_op(self, c: list[Any]) -> BoolOp:
        return BoolOp("or", tuple(c[::2]), _join(c[0], c[-1]))

    def and_op(self, c: list[Any]) -> BoolOp:
        return BoolOp("and", tuple(c[::2]), _join(c[0], c[-1]))

    def not_op(self, c: list[Any]) -> Unary:
        return _unary("not", c[1], _join(c[0], c[1]))

    def compare(self, c: list[Any]) -> Compare:
        return Compare(tuple(c[1::2]), tuple(c[::2]), _join(c[0], c[-1]))

    def comp_op(self, c: list[Any]) -> str:
        return " ".join(t[1] for t in c)  # "<", "in", "not in", "is", "is not"

    def if_exp(self, c: list[Any]) -> IfExp:
        body, _, test, _, orelse = c
        return IfExp(test, body, orelse, _join(body, orelse))

    def binary(self, c: list[Any]) -> Binary:
        left, op, right = c
        ls = left.span
        rs = right.span
        return _binary(op[1], left, right, _span(ls.line, ls.column, rs.end_line, rs.end_column))

    def unary(self, c: list[Any]) -> Unary:
        op, operand = c
        s = operand.span
        return _unary(op[1], operand, _span(op[2], op[3], s.end_line, s.end_column))

    def name(self, c: list[Any]) -> Name:
        t = c[0]
        return _name(t[1], _span(t[2], t[3], t[2], t[4]))

    def number(self, c: list[Any]) -> Number:
        t = c[0]
        return _number(number_value(t), _span(t[2], t[3], t[2], t[4]))

    def string(self, c: list[Any]) -> String:
        return String("".join(string_value(t) for t in c), _join(c[0], c[-1]))

    def const(self, c: list[Any]) -> Number:
        t = c[0]
        value = True if t[1] == "True" else False if t[1] == "False" else None
        return _number(value, tok_span(t))

    def paren(self, c: list[Any]) -> Expr:
        inner = single(c[1])
        # The node's span grows to cover the parentheses, so that an enclosing node's span
        # (taken from its first and last children) covers them too.
        new = object.__new__(type(inner))
        for f in fields(inner):
            getattr(type(inner), f.name).__set__(new, getattr(inner, f.name))
        type(inner).span.__set__(new, _join(c[0], c[2]))
        return new

    def list_expr(self, c: list[Any]) -> ListExpr:
        return ListExpr(tuple(c[1:-1:2]), _join(c[0], c[-1]))

    def call(self, c: list[Any]) -> Call:
        func = c[0]
        s = func.span
        end = c[-1]
        span = _span(s.line, s.column, end[2], end[4])
        items = c[2:-1:2]
        for a in items:
            if type(a) is Kwarg:
                break
        else:  # positional arguments only: the common case
            return _call(func, tuple(items), (), span)
        args: list[Expr] = []
        kwargs: list[tuple[str, Expr]] = []
        for a in items:
            if type(a) is Kwarg:
                if any(k == a.name for k, _ in kwargs):
                    raise error(f"keyword argument repeated: {a.name}", a)
                kwargs.append((a.name, a.value))
            elif kwargs:
                raise error("positional argument follows keyword argument", a)
            else:
                args.append(a)
        return _call(func, tuple(args), tuple(kwargs), span)

    def kwarg(self, c: list[Any]) -> Kwarg:
        return Kwarg(c[0][1], c[2], _join(c[0], c[2]))

    def attribute(self, c: list[Any]) -> Attribute:
        value = c[0]
        s = value.span
        t = c[2]
        return _attribute(value, t[1], _span(s.line, s.column, t[2], t[4]))

    def subscript(self, c: list[Any]) -> Subscript:
        value = c[0]
        s = value.span
        end = c[-1]
        return _subscript(value, tuple(c[2:-1:2]), _span(s.line, s.column, end[2], end[4]))

    def slice(self, c: list[Any]) -> Slice:
        parts: list[Any] = [None, None, None]
        k = 0
        for x in c:
            if type(x) is tuple:
                k += 1
            else:
                parts[k] = x
        return Slice(parts[0], parts[1], parts[2], _join(c[0], c[-1]))
