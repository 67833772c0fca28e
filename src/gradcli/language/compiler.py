"""Parse-tree reductions to program dataclasses, and the static checks of the language.

``Compiler`` has one method per rule alias of ``grammars/grad.lark`` (the expressions' in
``exprs.ExpressionReductions``, which it inherits). The LALR driver in ``parser`` calls it at
each reduction with the rule's children, all of them kept in order: tokens are plain tuples
``(type, value, line, column, end_column)`` and nonterminals are what the methods returned (an
Expr, a Stmt, or a list of Stmts). Nothing is evaluated here and built-in names are not
resolved (the runtime does that); what is static is checked, with CPython's messages:
assignment and deletion targets, ``return``/``break`` outside their blocks, parameters, call
arguments, f-strings, literals, and how deep expressions nest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..errors import Span
from . import program as P
from .checks import (
    DoubleStar,
    GenArg,
    Kwarg,
    check_aug_target,
    check_del_target,
    check_depth,
    check_globals,
    check_loop_jumps,
    check_returns,
    check_star_imports,
    check_target,
    error,
    is_literal,
    single,
)
from .exprs import ExpressionReductions
from .nodes import Token, setters, tok_span
from .nodes import assign_to as _assign_to
from .nodes import aug as _aug
from .nodes import expr_stmt as _expr_stmt
from .nodes import flatten as _flatten
from .nodes import join as _join
from .nodes import new as _new
from .nodes import span as _span
from .nodes import tuple_new as _tuple_new
from .program import Attribute, Expr, ExprStmt, Name, Stmt, Subscript


class _Alias(NamedTuple):
    """A name in an import statement, its ``as`` alias (or None) and where it stands."""

    name: str
    alias: str | None
    span: Span


class Param(NamedTuple):
    """A parameter while its function is being compiled: kind ("", "*" or "**"), the name
    token (None for a bare ``*``) and the default."""

    kind: str
    name: Token | None
    default: Expr | None
    span: Span


# `name = value`, the most common statement, writes its node's slots inline (as exprs.name)
_assign_target, _assign_value, _assign_literal, _assign_span = setters(P.Assign)


def _params(items: list[Any], where: Any) -> P.Params:
    """A parameter list from ``param`` reductions, with CPython's checks and messages."""
    names: list[str] = []
    defaults: list[Expr] = []
    kwonly: list[str] = []
    kw_defaults: list[Expr | None] = []
    vararg = kwarg = None
    star: Param | None = None
    seen: set[str] = set()
    for p in items:
        if type(p) is not Param:
            continue  # the commas
        if kwarg is not None:
            raise error("arguments cannot follow var-keyword argument", p.span)
        if p.name is not None:
            name = p.name[1]
            if name in seen:
                raise error(f"duplicate argument '{name}' in function definition", p.name)
            seen.add(name)
        if p.kind == "**":
            kwarg = p.name[1]
        elif p.kind == "*":
            if star is not None:
                raise error("* argument may appear only once", p.span)
            star = p
            vararg = p.name[1] if p.name is not None else None
        elif star is not None:
            kwonly.append(p.name[1])
            kw_defaults.append(p.default)
        else:
            if p.default is not None:
                defaults.append(p.default)
            elif defaults:
                raise error("non-default argument follows default argument", p.name)
            names.append(p.name[1])
    if star is not None and star.name is None and not kwonly:
        raise error("named arguments must follow bare *", star.span)
    return P.Params(tuple(names), tuple(defaults), vararg, tuple(kwonly), tuple(kw_defaults),
                    kwarg, where)


def _bodies(c: list[Any], i: int) -> tuple[tuple[Stmt, ...], tuple[Stmt, ...]]:
    """The ``else:`` suite that may follow a loop's body at ``c[i]``, and the last statement."""
    if len(c) > i + 1:  # ELSE COLON suite
        return c[i + 3], c[i + 3]
    return (), c[i]


class Compiler(ExpressionReductions):
    """The reductions: one method per grammar alias, each given the rule's children."""

    def __init__(self, parse_expr: Callable[[str, int, int], Expr] | None = None) -> None:
        # f-string fields are parsed by the parser itself (it holds the tables)
        self.parse_expr = parse_expr
        # The scope checks of `global` and `import *` walk every block: only scripts that
        # have such a statement pay for them (once set, for good: parses may run in threads).
        self.scoped = False
        # Likewise the checks of `return`, `break` and `continue` (where each may stand).
        self.jumps = False

    # ---- statements ----

    def module(self, c: list[Any]) -> list[Stmt]:
        body = _flatten(c)
        if self.jumps:
            check_returns(body)
            check_loop_jumps(body, in_loop=False)
        if self.scoped:
            check_globals(body)
        return body

    def simple_stmts(self, c: list[Any]) -> list[Stmt]:
        # NOTE: _lalr.c's reduce() does the first branch itself (R_SIMPLE)
        if len(c) == 2:
            return c[0] if type(c[0]) is list else [c[0]]  # an annotated assignment: two
        return _flatten(c)

    def suite(self, c: list[Any]) -> tuple[Stmt, ...]:
        return tuple(c[0]) if len(c) == 1 else tuple(_flatten(c))

    def expr_stmt(self, c: list[Any]) -> ExprStmt:
        e = single(c[0])
        check_depth(e)
        return _expr_stmt(e, e.span)

    # NOTE: _lalr.c makes `name = value` itself for a value of parser._describe's
    # plain_values (its reduce()), as the first branch here does
    def assign(self, c: list[Any]) -> Stmt:
        value = single(c[-1])
        check_depth(value)
        target = c[0]
        vs = value.span
        ts = target.span
        if len(c) == 3 and type(target) is Name:  # `name = value`: most statements
            t = type(value)
            o = _new(P.Assign)
            _assign_target(o, target.id)
            _assign_value(o, value)
            _assign_literal(o, (t is P.Number or t is P.Unary or t is P.ListExpr)
                            and is_literal(value))
            _assign_span(o, _tuple_new(Span, (ts[0], ts[1], vs[2], vs[3])))
            return o
        span = _span(ts.line, ts.column, vs.end_line, vs.end_column)
        targets = tuple(c[:-1:2])
        for t in targets:
            check_target(t, statement=True)
            check_depth(t)
        literal = all(type(t) is Name for t in targets) and is_literal(value)
        return _assign_to(targets, value, literal, span)

    def aug_assign(self, c: list[Any]) -> Stmt:
        target = c[0]
        check_aug_target(target)
        value = single(c[2])
        check_depth(value)
        op = c[1][1][:-1]
        if type(target) is Name:
            return _aug(target.id, op, value, _join(target, value))
        check_depth(target)
        return P.AugAssignTo(target, op, value, _join(target, value))

    def ann_assign(self, c: list[Any]) -> Stmt:
        target = c[0]
        t = type(target)
        if t is P.Tuple or t is P.ListExpr:
            kind = "tuple" if t is P.Tuple else "list"
            raise error(f"only single target (not {kind}) can be annotated", target)
        if not (t is Name or t is Attribute or t is Subscript):
            raise error("illegal target for annotation", target)
        annotation = single(c[2])
        check_depth(annotation)
        if t is not Name:  # Python evaluates only a simple name's annotation (and keeps it)
            if len(c) == 3:
                return P.Pass(_join(target, c[2]))
            return self.assign([target, c[3], c[4]])
        note = P.Annotation(target.id, annotation, _join(target, c[2]))
        if len(c) == 3:
            return note
        return [note, self.assign([target, c[3], c[4]])]

    def return_stmt(self, c: list[Any]) -> P.Return:
        self.jumps = True
        if len(c) == 1:
            return P.Return(None, tok_span(c[0]))
        value = single(c[1])
        check_depth(value)
        return P.Return(value, _join(c[0], value))

    def pass_stmt(self, c: list[Any]) -> P.Pass:
        return P.Pass(tok_span(c[0]))

    def break_stmt(self, c: list[Any]) -> P.Break:
        self.jumps = True
        return P.Break(tok_span(c[0]))

    def continue_stmt(self, c: list[Any]) -> P.Continue:
        self.jumps = True
        return P.Continue(tok_span(c[0]))

    def raise_stmt(self, c: list[Any]) -> P.Raise:
        exc = c[1] if len(c) > 1 else None
        cause = c[3] if len(c) > 3 else None
        for e in (exc, cause):
            if e is not None:
                check_depth(e)
        return P.Raise(exc, cause, _join(c[0], c[-1]))

    def assert_stmt(self, c: list[Any]) -> P.Assert:
        msg = c[3] if len(c) > 3 else None
        check_depth(c[1])
        if msg is not None:
            check_depth(msg)
        return P.Assert(c[1], msg, _join(c[0], c[-1]))

    def del_stmt(self, c: list[Any]) -> P.Delete:
        x = c[1]
        targets = tuple(x.items) if type(x) is P.Tuple else (x,)
        for t in targets:
            check_del_target(t)
        return P.Delete(targets, _join(c[0], x))

    def global_stmt(self, c: list[Any]) -> P.Global:
        self.scoped = True
        return P.Global(tuple(t[1] for t in c[1::2]), _join(c[0], c[-1]))

    def import_stmt(self, c: list[Any]) -> P.Import:
        names = [x for x in c[1:] if type(x) is _Alias]
        return P.Import(tuple((a.name, a.alias) for a in names), _join(c[0], names[-1]))

    def dotted_as_name(self, c: list[Any]) -> _Alias:
        alias = c[2][1] if len(c) == 3 else None
        return _Alias(c[0].name, alias, _join(c[0], c[-1]))

    def dotted_name(self, c: list[Any]) -> _Alias:
        return _Alias(".".join(t[1] for t in c[::2]), None, _join(c[0], c[-1]))

    def import_from(self, c: list[Any]) -> P.ImportFrom:
        names = [x for x in c[3] if type(x) is _Alias]
        last = c[3][-1]
        return P.ImportFrom(c[1].name, tuple((a.name, a.alias) for a in names),
                            _join(c[0], last))

    def import_names(self, c: list[Any]) -> list[Any]:
        if c[0][0] == "STAR":
            self.scoped = True
            return [_Alias("*", None, tok_span(c[0]))]
        return c

    def import_as_name(self, c: list[Any]) -> _Alias:
        return _Alias(c[0][1], c[2][1] if len(c) == 3 else None, _join(c[0], c[-1]))

    def while_stmt(self, c: list[Any]) -> P.While:
        test = single(c[1])
        check_depth(test)
        orelse, last = _bodies(c, 3)
        return P.While(test, c[3], orelse, _join(c[0], last[-1]))

    def if_stmt(self, c: list[Any]) -> P.If:
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
        return P.If(tuple(branches), orelse, _join(c[0], last))

    def for_stmt(self, c: list[Any]) -> P.For:
        target = c[1]
        check_target(target)
        it = single(c[3])
        check_depth(it)
        orelse, last = _bodies(c, 5)
        return P.For(target, it, c[5], orelse, _join(c[0], last[-1]))

    def with_stmt(self, c: list[Any]) -> P.With:
        body = c[-1]
        items = [x for x in c[1:-2] if type(x) is not tuple or len(x) == 2]
        span = _join(c[0], body[-1])
        for ctx, target in reversed(items):
            body = (P.With(ctx, target, body, span),)
        return body[0]

    def with_item(self, c: list[Any]) -> tuple[Expr, Expr | None]:
        ctx = single(c[0])
        check_depth(ctx)
        target = c[2] if len(c) == 3 else None
        if target is not None:
            check_target(target)
        return (ctx, target)

    def try_stmt(self, c: list[Any]) -> P.Try:
        body = c[2]
        handlers: list[P.Handler] = []
        orelse: tuple[Stmt, ...] = ()
        final: tuple[Stmt, ...] = ()
        i = 3
        while i < len(c):
            x = c[i]
            if type(x) is P.Handler:
                handlers.append(x)
                i += 1
            elif x[0] == "ELSE":
                orelse = c[i + 2]
                i += 3
            else:  # FINALLY
                final = c[i + 2]
                i += 3
        for h in handlers[:-1]:
            if h.type is None:
                raise error("default 'except:' must be last", h)
        last = (final or orelse or handlers[-1].body)[-1]
        return P.Try(body, tuple(handlers), orelse, final, _join(c[0], last))

    def except_clause(self, c: list[Any]) -> P.Handler:
        body = c[-1]
        kind = c[1] if len(c) > 3 else None
        if kind is not None:
            check_depth(kind)
        name = c[3][1] if len(c) == 6 else None
        return P.Handler(kind, name, body, _join(c[0], body[-1]))

    def decorated(self, c: list[Any]) -> P.FunctionDef | P.ClassDef:
        d = c[-1]
        if type(d) is P.ClassDef:
            return P.ClassDef(d.name, d.bases, d.keywords, d.body, tuple(c[:-1]), d.span)
        return P.FunctionDef(d.name, d.params, d.body, tuple(c[:-1]), d.span)

    def decorator(self, c: list[Any]) -> Expr:
        check_depth(c[1])
        return c[1]

    def param(self, c: list[Any]) -> Param:
        default = None
        if len(c) > 1 and c[-2][0] == "EQUAL":
            default = single(c[-1])
            check_depth(default)
        return Param("", c[0], default, _join(c[0], c[-1]))

    def star_param(self, c: list[Any]) -> Param:
        kind = "*" if c[0][0] == "STAR" else "**"
        return Param(kind, c[1] if len(c) > 1 else None, None, _join(c[0], c[-1]))

    def funcdef(self, c: list[Any]) -> P.FunctionDef:
        close = next(i for i in range(3, len(c)) if type(c[i]) is tuple and c[i][0] == "RPAR")
        params = _params(c[3:close], _join(c[2], c[close]))
        body = c[-1]
        if self.scoped:
            check_globals(body)
            check_star_imports(body)
        return P.FunctionDef(c[1][1], params, body, (), _join(c[0], body[-1]))

    def classdef(self, c: list[Any]) -> P.ClassDef:
        body = c[-1]
        bases: list[Expr] = []
        keywords: list[tuple[str, Expr]] = []
        for a in c[3:-3] if len(c) > 4 else ():
            t = type(a)
            if t is tuple:  # the commas
                continue
            if t is Kwarg:
                if any(k == a.name for k, _ in keywords):
                    raise error(f"keyword argument repeated: {a.name}", a)
                keywords.append((a.name, a.value))
            elif t is P.Starred or t is DoubleStar or t is GenArg:
                raise error("gradcli does not support unpacking (* or **) or a generator in a "
                            "class's bases", a)
            elif keywords:
                raise error("positional argument follows keyword argument", a)
            else:
                check_depth(a)
                bases.append(a)
        if self.scoped:
            check_globals(body)
            check_star_imports(body)
        return P.ClassDef(c[1][1], tuple(bases), tuple(keywords), body, (),
                          _join(c[0], body[-1]))

    # ---- expressions ----

    def lambdef(self, c: list[Any]) -> P.Lambda:
        body = single(c[-1])
        where = _join(c[0], c[-2])
        return P.Lambda(_params(c[1:-2], where), body, _join(c[0], body))
