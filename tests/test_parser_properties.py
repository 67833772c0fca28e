"""Property tests of the parser (Hypothesis).

Random programs are rendered to text by a small precedence-aware ``unparse``; parsing the text
must give the program back, and must agree with CPython's own parser on the same text (every
script is valid Python). Random text and bytes must either parse or raise a
ScriptSyntaxError with a valid span: never any other exception.
"""

from __future__ import annotations

import ast
import sys
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gradcli.errors import ScriptSyntaxError, Span
from gradcli.language import program as P
from gradcli.language.parser import parse, parse_bytes

S = Span(1, 1, 1, 1)  # spans of generated nodes do not matter: strip() drops them
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---- unparse: program -> text with as few parentheses as Python needs ------------------------

PREC = {
    "lambda": 0,
    "if": 1,
    "or": 2,
    "and": 3,
    "not": 4,
    "cmp": 5,
    "|": 6,
    "^": 7,
    "&": 8,
    "<<": 9,
    ">>": 9,
    "+": 10,
    "-": 10,
    "*": 11,
    "/": 11,
    "//": 11,
    "%": 11,
    "@": 11,
    "unary": 12,
    "**": 13,
    "atom": 14,
}


def prec(e: Any) -> int:
    if isinstance(e, P.Lambda):
        return PREC["lambda"]
    if isinstance(e, P.IfExp):
        return PREC["if"]
    if isinstance(e, P.BoolOp):
        return PREC[e.op]
    if isinstance(e, P.Unary):
        return PREC["not"] if e.op == "not" else PREC["unary"]
    if isinstance(e, P.Compare):
        return PREC["cmp"]
    if isinstance(e, P.Binary):
        return PREC[e.op]
    return PREC["atom"]


def u(e: Any, need: int = 0) -> str:
    """``e`` as text, parenthesised if it binds less tightly than ``need``."""
    text = _u(e)
    return f"({text})" if prec(e) < need else text


def _params(p: P.Params) -> str:
    out = []
    k = len(p.names) - len(p.defaults)
    for i, n in enumerate(p.names):
        out.append(n if i < k else f"{n}={u(p.defaults[i - k])}")
    if p.vararg or p.kwonly:
        out.append("*" + (p.vararg or ""))
    for n, d in zip(p.kwonly, p.kw_defaults):
        out.append(n if d is None else f"{n}={u(d)}")
    if p.kwarg:
        out.append("**" + p.kwarg)
    return ", ".join(out)


def _fstring_body(parts: tuple) -> str:
    out = []
    for p in parts:
        if isinstance(p, str):
            out.append(p.replace("{", "{{").replace("}", "}}"))
        else:
            conv = "" if p.conversion is None else "!" + p.conversion
            spec = "" if p.spec is None else ":" + _fstring_body(p.spec.parts)
            out.append("{" + u(p.value, PREC["atom"]) + conv + spec + "}")
    return "".join(out)


def _item(e: Any) -> str:
    """A display's item: ``*x`` or an expression."""
    return f"*{u(e.value, PREC['|'])}" if isinstance(e, P.Starred) else u(e)


def _u(e: Any) -> str:
    if isinstance(e, P.Number):
        return "..." if e.value is Ellipsis else repr(e.value)
    if isinstance(e, P.String):
        body = e.value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
        return f"'{body}'"
    if isinstance(e, P.FString):
        return "f'" + _fstring_body(e.parts) + "'"
    if isinstance(e, P.Name):
        return e.id
    if isinstance(e, P.ListExpr):
        return "[" + ", ".join(_item(i) for i in e.items) + "]"
    if isinstance(e, P.Tuple):
        if len(e.items) == 1:
            return f"({_item(e.items[0])},)"
        return "(" + ", ".join(_item(i) for i in e.items) + ")"
    if isinstance(e, P.SetExpr):
        return "{" + ", ".join(_item(i) for i in e.items) + "}"
    if isinstance(e, P.DictExpr):
        items = [f"**{u(v, PREC['|'])}" if k is None else f"{u(k)}: {u(v)}"
                 for k, v in zip(e.keys, e.values)]
        return "{" + ", ".join(items) + "}"
    if isinstance(e, P.Comprehension):
        clauses = []
        for g in e.generators:
            clauses.append(f"for {_target(g.target)} in {u(g.iter, PREC['or'])}")
            clauses += [f"if {u(c, PREC['or'])}" for c in g.ifs]
        element = u(e.element) if e.kind != "dict" else f"{u(e.element)}: {u(e.value)}"
        inner = f"{element} {' '.join(clauses)}"
        return {"list": "[{}]", "set": "{{{}}}", "dict": "{{{}}}", "gen": "({})"}[e.kind] \
            .format(inner)
    if isinstance(e, P.Lambda):
        params = _params(e.params)
        return f"lambda {params}: {u(e.body)}" if params else f"lambda: {u(e.body)}"
    if isinstance(e, P.IfExp):
        return f"{u(e.body, PREC['or'])} if {u(e.test, PREC['or'])} else {u(e.orelse, PREC['if'])}"
    if isinstance(e, P.Unary):
        if e.op == "not":
            return "not " + u(e.operand, PREC["not"])
        return e.op + u(e.operand, PREC["unary"])
    if isinstance(e, P.Binary):
        if e.op == "**":  # right-assoc; its left side is a primary, its right side a factor
            return f"{u(e.left, PREC['atom'])} ** {u(e.right, PREC['unary'])}"
        p = PREC[e.op]
        return f"{u(e.left, p)} {e.op} {u(e.right, p + 1)}"
    if isinstance(e, P.Compare):
        parts = [u(e.operands[0], PREC["cmp"] + 1)]
        for op, x in zip(e.ops, e.operands[1:], strict=True):
            parts += [op, u(x, PREC["cmp"] + 1)]
        return " ".join(parts)
    if isinstance(e, P.BoolOp):
        return f" {e.op} ".join(u(v, PREC[e.op] + 1) for v in e.values)
    if isinstance(e, (P.Call, P.CallUnpack)):
        args = [_item(a) for a in e.args]
        args += [f"**{u(v)}" if k is None else f"{k}={u(v)}" for k, v in e.kwargs]
        return f"{u(e.func, PREC['atom'])}({', '.join(args)})"
    if isinstance(e, P.Attribute):
        base = u(e.value, PREC["atom"])
        return f"({base}).{e.attr}" if isinstance(e.value, P.Number) else f"{base}.{e.attr}"
    if isinstance(e, P.Subscript):
        return f"{u(e.value, PREC['atom'])}[{', '.join(map(_u_index, e.index))}]"
    raise TypeError(e)


def _u_index(i: Any) -> str:
    if isinstance(i, P.Slice):
        parts = ["" if x is None else u(x) for x in (i.start, i.stop, i.step)]
        return f"{parts[0]}:{parts[1]}" + ("" if i.step is None else f":{parts[2]}")
    return u(i)


def _target(t: Any) -> str:
    """An assignment target: names, unpackings, attributes, subscripts."""
    if isinstance(t, P.Tuple):
        return "(" + ", ".join(_target(i) for i in t.items) + ("," if len(t.items) == 1 else "") \
            + ")"
    if isinstance(t, P.Starred):
        return "*" + _target(t.value)
    return u(t, PREC["atom"])


def unparse(body: tuple, indent: str = "") -> str:
    """Statements as text, one per line, blocks indented by four spaces."""
    out = []
    inner = indent + "    "
    for s in body:
        if isinstance(s, P.Assign):
            out.append(f"{indent}{s.target} = {u(s.value)}\n")
        elif isinstance(s, P.AssignTo):
            targets = " = ".join(_target(t) for t in s.targets)
            out.append(f"{indent}{targets} = {u(s.value)}\n")
        elif isinstance(s, P.AugAssign):
            out.append(f"{indent}{s.target} {s.op}= {u(s.value)}\n")
        elif isinstance(s, P.AugAssignTo):
            out.append(f"{indent}{_target(s.target)} {s.op}= {u(s.value)}\n")
        elif isinstance(s, P.ExprStmt):
            out.append(f"{indent}{u(s.value)}\n")
        elif isinstance(s, P.Pass):
            out.append(f"{indent}pass\n")
        elif isinstance(s, P.Return):
            out.append(f"{indent}return" + ("" if s.value is None else f" {u(s.value)}") + "\n")
        elif isinstance(s, P.Raise):
            text = "raise" + ("" if s.exc is None else f" {u(s.exc)}")
            text += "" if s.cause is None else f" from {u(s.cause)}"
            out.append(f"{indent}{text}\n")
        elif isinstance(s, P.Assert):
            msg = "" if s.msg is None else f", {u(s.msg)}"
            out.append(f"{indent}assert {u(s.test)}{msg}\n")
        elif isinstance(s, P.Delete):
            out.append(f"{indent}del {', '.join(_target(t) for t in s.targets)}\n")
        elif isinstance(s, P.Global):
            out.append(f"{indent}global {', '.join(s.names)}\n")
        elif isinstance(s, P.Import):
            names = ", ".join(n if a is None else f"{n} as {a}" for n, a in s.names)
            out.append(f"{indent}import {names}\n")
        elif isinstance(s, P.ImportFrom):
            names = ", ".join(n if a is None else f"{n} as {a}" for n, a in s.names)
            out.append(f"{indent}from {s.module} import {names}\n")
        elif isinstance(s, P.For):
            out.append(f"{indent}for {_target(s.target)} in {u(s.iter)}:\n" + unparse(s.body, inner))
            if s.orelse:
                out.append(f"{indent}else:\n" + unparse(s.orelse, inner))
        elif isinstance(s, P.While):
            out.append(f"{indent}while {u(s.test)}:\n" + unparse(s.body, inner))
            if s.orelse:
                out.append(f"{indent}else:\n" + unparse(s.orelse, inner))
        elif isinstance(s, P.With):
            target = "" if s.target is None else f" as {_target(s.target)}"
            out.append(f"{indent}with {u(s.context)}{target}:\n" + unparse(s.body, inner))
        elif isinstance(s, P.Try):
            out.append(f"{indent}try:\n" + unparse(s.body, inner))
            for h in s.handlers:
                head = "except" + ("" if h.type is None else f" {u(h.type)}")
                head += "" if h.name is None else f" as {h.name}"
                out.append(f"{indent}{head}:\n" + unparse(h.body, inner))
            if s.orelse:
                out.append(f"{indent}else:\n" + unparse(s.orelse, inner))
            if s.finalbody:
                out.append(f"{indent}finally:\n" + unparse(s.finalbody, inner))
        elif isinstance(s, P.FunctionDef):
            decorators = "".join(f"{indent}@{u(d)}\n" for d in s.decorators)
            head = f"{indent}def {s.name}({_params(s.params)}):\n"
            out.append(decorators + head + unparse(s.body, inner))
        elif isinstance(s, P.If):
            for k, (cond, branch) in enumerate(s.branches):
                out.append(f"{indent}{'if' if k == 0 else 'elif'} {u(cond)}:\n")
                out.append(unparse(branch, inner))
            if s.orelse:
                out.append(f"{indent}else:\n" + unparse(s.orelse, inner))
    return "".join(out)


def strip(x: Any) -> Any:
    """A node with every span replaced by None, for comparison."""
    if isinstance(x, tuple):
        return tuple(strip(i) for i in x)
    if isinstance(x, P._Node):
        return (
            type(x).__name__,
            *(strip(getattr(x, f)) for f in x.__match_args__ if f != "span"),
        )
    if isinstance(x, Span):
        return None
    return (type(x).__name__, x)  # 1 and True and 1.0 differ


# ---- strategies -------------------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "x1", "w", "y_2", "grad_", "_t", "If", "Nonex", "forward"])
ATTRS = st.sampled_from(["grad", "T", "shape", "backward", "sum", "item"])
numbers = st.one_of(
    st.integers(0, 10**12),
    st.floats(min_value=0, allow_nan=False, allow_infinity=False),
    st.sampled_from([True, False, None, ...]),
).map(lambda v: P.Number(v, S))
TEXT = st.text("ab #'\"\\\n{}%", max_size=5)
leaves = st.one_of(
    NAMES.map(lambda n: P.Name(n, S)),
    numbers,
    TEXT.map(lambda t: P.String(t, S)),
)
names_only = NAMES.map(lambda n: P.Name(n, S))
targets = st.one_of(
    names_only,
    st.lists(names_only, min_size=1, max_size=3).map(lambda xs: P.Tuple(tuple(xs), S)),
)


def _fstring(inner: st.SearchStrategy) -> st.SearchStrategy:
    """f-strings whose parts are already in the compiler's merged form."""
    field = st.builds(
        lambda v, c, spec: P.FormattedValue(v, c, spec, S),
        names_only,
        st.sampled_from([None, "r", "s", "a"]),
        st.one_of(st.none(), st.sampled_from([".4f", ">6", ""]).map(
            lambda t: P.FString((t,) if t else (), S))),
    )
    text = st.text("ab %:", min_size=1, max_size=4)

    def merged(parts: list) -> P.FString:
        out: list = []
        for part in parts:
            if isinstance(part, str) and out and isinstance(out[-1], str):
                out[-1] += part
            else:
                out.append(part)
        return P.FString(tuple(out), S)

    return st.lists(st.one_of(field, text), max_size=3).map(merged)


def _params_strategy() -> st.SearchStrategy:
    def build(names: list, n_defaults: int, vararg: str | None, kwonly: list, kwarg: str | None):
        used = set(names) | set(kwonly)
        vararg = vararg if vararg not in used else None
        kwarg = kwarg if kwarg not in used and kwarg != vararg else None
        n_defaults = min(n_defaults, len(names))
        defaults = tuple(P.Number(i, S) for i in range(n_defaults))
        kw_defaults = tuple(P.Number(1, S) if i % 2 else None for i in range(len(kwonly)))
        return P.Params(tuple(names), defaults, vararg, tuple(kwonly), kw_defaults, kwarg, S)

    return st.builds(
        build,
        st.lists(st.sampled_from(["p", "q", "r"]), unique=True, max_size=3),
        st.integers(0, 3),
        st.one_of(st.none(), st.sampled_from(["args", "p"])),
        st.lists(st.sampled_from(["k", "m"]), unique=True, max_size=2),
        st.one_of(st.none(), st.sampled_from(["kw", "q"])),
    )


def _extend(nested: st.SearchStrategy) -> st.SearchStrategy:
    inner = st.deferred(lambda: nested)  # a short repr: the nested one's grows exponentially
    ops = st.sampled_from(["+", "-", "*", "/", "@", "**", "//", "%", "|", "&", "^", "<<", ">>"])
    cmp = st.sampled_from(["<", "<=", ">", ">=", "==", "!=", "in", "not in", "is", "is not"])
    part = st.one_of(st.none(), inner)
    slices = st.builds(lambda a, b, c: P.Slice(a, b, c, S), part, part, part)
    kwargs = st.dictionaries(st.sampled_from(["dim", "keepdim", "k"]), inner, max_size=2)
    starred = inner.map(lambda x: P.Starred(x, S))
    items = st.lists(st.one_of(inner, inner, starred), max_size=3)
    gens = st.lists(st.builds(lambda t, it, ifs: P.CompFor(t, it, tuple(ifs), S),
                              targets, inner, st.lists(inner, max_size=2)),
                    min_size=1, max_size=2).map(tuple)
    return st.one_of(
        st.builds(lambda o, x: P.Unary(o, x, S), st.sampled_from(["-", "+", "not", "~"]), inner),
        st.builds(lambda o, x, y: P.Binary(o, x, y, S), ops, inner, inner),
        st.integers(1, 3).flatmap(
            lambda n: st.builds(
                lambda os, xs: P.Compare(tuple(os), tuple(xs), S),
                st.lists(cmp, min_size=n, max_size=n),
                st.lists(inner, min_size=n + 1, max_size=n + 1),
            )
        ),
        st.builds(
            lambda o, vs: P.BoolOp(o, tuple(vs), S),
            st.sampled_from(["and", "or"]),
            st.lists(inner, min_size=2, max_size=3),
        ),
        st.builds(
            lambda f, a, k: P.Call(f, tuple(a), tuple(k.items()), S),
            inner,
            st.lists(inner, max_size=3),
            kwargs,
        ),
        st.builds(
            lambda f, a, star, k, dd: P.CallUnpack(
                f, (*a, P.Starred(star, S)), (*k.items(), (None, dd)), S),
            inner, st.lists(inner, max_size=2), inner, kwargs, inner,
        ),
        st.builds(lambda x, a: P.Attribute(x, a, S), inner, ATTRS),
        st.builds(
            lambda x, i: P.Subscript(x, tuple(i), S),
            inner,
            # x[(a, b)] and x[a, b] are the same to CPython's ast, not to gradcli's program
            st.lists(st.one_of(inner, slices), min_size=1, max_size=3).filter(
                lambda i: not (len(i) == 1 and isinstance(i[0], P.Tuple))),
        ),
        items.map(lambda xs: P.ListExpr(tuple(xs), S)),
        items.map(lambda xs: P.Tuple(tuple(xs), S)),
        items.filter(bool).map(lambda xs: P.SetExpr(tuple(xs), S)),
        st.lists(st.tuples(st.one_of(st.none(), inner), inner), max_size=3).map(
            lambda kv: P.DictExpr(tuple(k for k, _ in kv), tuple(v for _, v in kv), S)),
        st.builds(lambda kind, el, gs: P.Comprehension(kind, el, None, gs, S),
                  st.sampled_from(["list", "set", "gen"]), inner, gens),
        st.builds(lambda k, v, gs: P.Comprehension("dict", k, v, gs, S), inner, inner, gens),
        st.builds(lambda p, b: P.Lambda(p, b, S), _params_strategy(), inner),
        st.builds(lambda b, t, o: P.IfExp(t, b, o, S), inner, inner, inner),
        _fstring(inner),
    )


exprs = st.recursive(leaves, _extend, max_leaves=12)


def is_literal(e: Any) -> bool:
    """SPEC §2.4: a number, or a list of them, optionally negated (bools are not numbers)."""
    if isinstance(e, P.Number):
        return type(e.value) in (int, float)
    if isinstance(e, P.Unary):
        return e.op in "+-" and is_literal(e.operand)
    if isinstance(e, P.ListExpr):
        return all(is_literal(i) for i in e.items)
    return False


_ASSIGNABLE = st.one_of(
    targets,
    st.builds(lambda x, a: P.Attribute(x, a, S), names_only, ATTRS),
    st.builds(lambda x, i: P.Subscript(x, (i,), S), names_only, exprs),
)


def _assign_to(ts: list, v: Any) -> Any:
    literal = all(isinstance(t, P.Name) for t in ts) and is_literal(v)
    if len(ts) == 1 and isinstance(ts[0], P.Name):
        return P.Assign(ts[0].id, v, is_literal(v), S)
    return P.AssignTo(tuple(ts), v, literal, S)


def simple_stmts(in_def: bool) -> st.SearchStrategy:
    options = [
        st.builds(lambda n, v: P.Assign(n, v, is_literal(v), S), NAMES, exprs),
        st.builds(_assign_to, st.lists(_ASSIGNABLE, min_size=1, max_size=2), exprs),
        st.builds(lambda n, o, v: P.AugAssign(n, o, v, S), NAMES,
                  st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "@", "|"]), exprs),
        st.builds(lambda t, o, v: P.AugAssignTo(t, o, v, S),
                  st.one_of(st.builds(lambda x, a: P.Attribute(x, a, S), names_only, ATTRS),
                            st.builds(lambda x, i: P.Subscript(x, (i,), S), names_only, exprs)),
                  st.sampled_from("+-*/"), exprs),
        st.builds(lambda v: P.ExprStmt(v, S), exprs),
        st.just(P.Pass(S)),
        st.builds(lambda e, c: P.Raise(e, c, S), st.one_of(st.none(), exprs),
                  st.none()).filter(lambda r: r.exc is not None or r.cause is None),
        st.builds(lambda t, m: P.Assert(t, m, S), exprs, st.one_of(st.none(), exprs)),
        st.builds(lambda ts: P.Delete(tuple(ts), S), st.lists(names_only, min_size=1, max_size=2)),
        st.sampled_from([P.Import((("torch", None), ("torch.nn.functional", "F")), S),
                         P.ImportFrom("torch.autograd", (("grad", None), ("Variable", "V")), S),
                         *([] if in_def else [P.ImportFrom("math", (("*", None),), S)])]),
    ]
    if in_def:
        options.append(st.builds(lambda v: P.Return(v, S), st.one_of(st.none(), exprs)))
    return st.one_of(*options)


def stmts(depth: int, in_def: bool = False) -> st.SearchStrategy:
    """Lists of statements, blocks nested at most ``depth`` deep."""
    simple = simple_stmts(in_def)
    if depth == 0:
        return st.lists(simple, min_size=1, max_size=3).map(tuple)
    body = stmts(depth - 1, in_def)
    maybe = st.one_of(st.just(()), body)
    ctx = st.sampled_from(["no_grad", "enable_grad"]).map(lambda n: P.Call(P.Name(n, S), (), (), S))
    handler = st.builds(lambda t, n, b: P.Handler(t, n if t is not None else None, b, S),
                        st.one_of(st.none(), names_only), st.one_of(st.none(), NAMES), body)
    compound = st.one_of(
        st.builds(lambda t, it, b, o: P.For(t, it, b, o, S), targets, exprs, body, maybe),
        st.builds(lambda t, b, o: P.While(t, b, o, S), exprs, body, maybe),
        st.builds(lambda c, t, b: P.With(c, t, b, S), ctx, st.one_of(st.none(), names_only), body),
        st.builds(
            lambda bs, o: P.If(tuple(bs), o, S),
            st.lists(st.tuples(exprs, body), min_size=1, max_size=3),
            maybe,
        ),
        st.builds(
            lambda b, hs, o, f: P.Try(b, tuple(sorted(hs, key=lambda h: h.type is None)),
                                      o if hs else (), f if hs else f or (P.Pass(S),), S),
            body, st.lists(handler, max_size=2), maybe, maybe,
        ).filter(lambda t: sum(h.type is None for h in t.handlers) <= 1),
        st.builds(
            lambda n, ps, b, ds: P.FunctionDef(n, ps, b, tuple(ds), S),
            NAMES,
            _params_strategy(),
            stmts(depth - 1, in_def=True),
            st.lists(st.one_of(names_only, ctx), max_size=2),
        ),
    )
    return st.lists(st.one_of(simple, compound), min_size=1, max_size=4).map(tuple)


# ---- CPython's reading of the same text, in strip() form --------------------------------------

_PY_OPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.MatMult: "@", ast.Pow: "**", ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^",
    ast.LShift: "<<", ast.RShift: ">>", ast.USub: "-", ast.UAdd: "+", ast.Not: "not",
    ast.Invert: "~", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
    ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
    ast.And: "and", ast.Or: "or",
}  # fmt: skip
_KIND = {ast.ListComp: "list", ast.SetComp: "set", ast.GeneratorExp: "gen", ast.DictComp: "dict"}


def _py_items(items: list) -> tuple:
    return tuple(("Starred", py(i.value)) if isinstance(i, ast.Starred) else py(i) for i in items)


def _py_params(a: ast.arguments) -> Any:
    return ("Params", tuple(("str", x.arg) for x in a.args), tuple(py(d) for d in a.defaults),
            ("str", a.vararg.arg) if a.vararg else ("NoneType", None),
            tuple(("str", x.arg) for x in a.kwonlyargs),
            tuple(("NoneType", None) if d is None else py(d) for d in a.kw_defaults),
            ("str", a.kwarg.arg) if a.kwarg else ("NoneType", None))


def _py_fstring(e: ast.JoinedStr) -> Any:
    parts = []
    for v in e.values:
        if isinstance(v, ast.Constant):
            parts.append(("str", v.value))
        else:
            conv = ("NoneType", None) if v.conversion == -1 else ("str", chr(v.conversion))
            spec = ("NoneType", None) if v.format_spec is None else _py_fstring(v.format_spec)
            parts.append(("FormattedValue", py(v.value), conv, spec))
    return ("FString", tuple(parts))


def py(e: ast.expr) -> Any:
    """A CPython expression node as strip() would show the gradcli node."""
    if isinstance(e, ast.Constant):
        kind = "String" if isinstance(e.value, str) else "Number"
        return (kind, (type(e.value).__name__, e.value))
    if isinstance(e, ast.Name):
        return ("Name", ("str", e.id))
    if isinstance(e, ast.List):
        return ("ListExpr", _py_items(e.elts))
    if isinstance(e, ast.Tuple):
        return ("Tuple", _py_items(e.elts))
    if isinstance(e, ast.Set):
        return ("SetExpr", _py_items(e.elts))
    if isinstance(e, ast.Dict):
        return ("DictExpr", tuple(("NoneType", None) if k is None else py(k) for k in e.keys),
                tuple(py(v) for v in e.values))
    if isinstance(e, tuple(_KIND)):
        gens = tuple(("CompFor", py(g.target), py(g.iter), tuple(py(c) for c in g.ifs))
                     for g in e.generators)
        if isinstance(e, ast.DictComp):
            return ("Comprehension", ("str", "dict"), py(e.key), py(e.value), gens)
        return ("Comprehension", ("str", _KIND[type(e)]), py(e.elt), ("NoneType", None), gens)
    if isinstance(e, ast.Lambda):
        return ("Lambda", _py_params(e.args), py(e.body))
    if isinstance(e, ast.IfExp):
        return ("IfExp", py(e.test), py(e.body), py(e.orelse))
    if isinstance(e, ast.JoinedStr):
        return _py_fstring(e)
    if isinstance(e, ast.UnaryOp):
        return ("Unary", ("str", _PY_OPS[type(e.op)]), py(e.operand))
    if isinstance(e, ast.BinOp):
        return ("Binary", ("str", _PY_OPS[type(e.op)]), py(e.left), py(e.right))
    if isinstance(e, ast.Compare):
        ops = tuple(("str", _PY_OPS[type(o)]) for o in e.ops)
        return ("Compare", ops, tuple(py(x) for x in [e.left, *e.comparators]))
    if isinstance(e, ast.BoolOp):
        return ("BoolOp", ("str", _PY_OPS[type(e.op)]), tuple(py(v) for v in e.values))
    if isinstance(e, ast.Call):
        unpack = any(isinstance(a, ast.Starred) for a in e.args) or \
            any(k.arg is None for k in e.keywords)
        kwargs = tuple(((("NoneType", None) if k.arg is None else ("str", k.arg)), py(k.value))
                       for k in e.keywords)
        return ("CallUnpack" if unpack else "Call", py(e.func), _py_items(e.args), kwargs)
    if isinstance(e, ast.Attribute):
        return ("Attribute", py(e.value), ("str", e.attr))
    if isinstance(e, ast.Subscript):
        items = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        return ("Subscript", py(e.value), tuple(py(i) for i in items))
    if isinstance(e, ast.Slice):
        parts = (e.lower, e.upper, e.step)
        return ("Slice", *(("NoneType", None) if x is None else py(x) for x in parts))
    if isinstance(e, ast.Starred):
        return ("Starred", py(e.value))
    raise TypeError(ast.dump(e))


# ---- properties -------------------------------------------------------------------------------


@SETTINGS
@given(exprs)
def test_expressions_round_trip_and_agree_with_cpython(e: Any) -> None:
    text = u(e) + "\n"
    with warnings.catch_warnings():  # CPython warns of `1(2)` and `'\q'`; it is still Python
        warnings.simplefilter("ignore")
        (py_stmt,) = ast.parse(text).body
    (stmt,) = parse(text).body
    assert strip(stmt.value) == strip(e), text
    assert strip(stmt.value) == py(py_stmt.value), text


@SETTINGS
@given(stmts(depth=2))
def test_programs_round_trip(body: tuple) -> None:
    text = unparse(body)
    with warnings.catch_warnings():  # CPython warns of `1(2)`; it is still Python
        warnings.simplefilter("ignore")
        compile(text, "<generated>", "exec")  # the text is Python, as SPEC §2 says of scripts
    prog = parse(text)
    assert strip(prog.body) == strip(body), text


def _check_spans(node: Any, lines: list[str]) -> None:
    if isinstance(node, tuple):
        for item in node:
            _check_spans(item, lines)
    elif isinstance(node, P._Node):
        s = node.span
        assert 1 <= s.line <= s.end_line <= len(lines)
        assert (s.line, s.column) < (s.end_line, s.end_column)
        if isinstance(node, P.Name):
            assert lines[s.line - 1][s.column - 1 : s.end_column - 1] == node.id
        for f in node.__match_args__:
            _check_spans(getattr(node, f), lines)


@SETTINGS
@given(stmts(depth=2))
def test_spans_lie_inside_the_source(body: tuple) -> None:
    text = unparse(body)
    _check_spans(parse(text).body, text.split("\n"))


FRAGMENTS = [
    "x",
    "y1",
    " ",
    "  ",
    "    ",
    "\t",
    "\n",
    "\n    ",
    "\r\n",
    "=",
    "+=",
    "+",
    "-",
    "*",
    "**",
    "/",
    "@",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    ";",
    ".",
    "1",
    "2.5",
    "1e-3",
    ".5",
    "'s'",
    '"',
    "'",
    "#c",
    "if ",
    "elif ",
    "else",
    "for ",
    " in ",
    "range(3)",
    "with ",
    "no_grad()",
    "def ",
    "return",
    "pass",
    "not ",
    " and ",
    " or ",
    "<",
    "==",
    "True",
    "None",
    "import",
    "lambda",
    "__x",
    "\\",
    "\\\n",
    "$",
    "é",
    "\x00",
    "\ufeff",
    "{",
    "0x1",
    "f(",
    "x.grad",
    "if x:\n    ",
    "for i in range(2):\n  ",
    "def f(a):\n  return a\n",
    "with no_grad():\n  pass\n",
    "else:\n  ",
    "elif y:\n ",
    "x[:, 1:]",
    "a, b",
    "*",
    "**",
    "{1: 2}",
    "{a, b}",
    "}",
    "[x for x in y]",
    "(x for x in y if x)",
    "lambda x: ",
    "f'{",
    "f'{x!r:>4}'",
    "'''",
    '"""a\nb"""',
    "r'\\d'",
    "b'",
    "try:\n  ",
    "except E as e:\n  ",
    "finally:\n  ",
    "raise ",
    "assert ",
    "del ",
    "global x\n",
    "import torch\n",
    "from torch import nn\n",
    "@",
    "@torch.no_grad()\n",
    "->",
    "...",
    "|",
    "&",
    "~",
    "<<",
    "__name__",
    ": int",
]


def _parses_or_reports(text: str) -> None:
    try:
        prog = parse(text)
    except ScriptSyntaxError as e:
        s = e.span
        n_lines = text.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 2
        assert s is not None and 1 <= s.line <= s.end_line <= n_lines
        assert s.column >= 1 and (s.line, s.column) <= (s.end_line, s.end_column)
        assert e.message and "Token(" not in e.message and "$END" not in e.message
        assert e.kind in ("SyntaxError", "IndentationError", "TabError")
    else:
        assert isinstance(prog, P.Program)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join))
@example("try:\n  @torch.no_grad()\nx")  # an unexpected dedent to no indentation: column 1
def test_any_token_soup_parses_or_raises_a_syntax_error(text: str) -> None:
    _parses_or_reports(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_text_parses_or_raises_a_syntax_error(text: str) -> None:
    _parses_or_reports(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=60))
def test_any_bytes_parse_or_raise_a_syntax_error(data: bytes) -> None:
    try:
        parse_bytes(data)
    except ScriptSyntaxError as e:
        assert e.span is not None and e.span.line >= 1 and e.span.column >= 1


# ---- indentation: the layout against CPython's tokenizer --------------------------------------

_INDENTS = [" ", "  ", "    ", "        ", "\t", "\t ", " \t", "\t\t", "\f"]
_LINES = ["if x:", "for i in y:", "while z:", "def f():", "x = 1", "pass", "# c", "",
          "x = [1,", "  2]"]


def _outcome(text: str) -> tuple | None:
    """How CPython's compile() ends on ``text``: None, or (class, text, line, column)."""
    try:
        compile(text, "<generated>", "exec")
    except SyntaxError as e:
        return type(e).__name__, e.msg, e.lineno, e.offset
    return None


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="CPython 3.11's texts")
@SETTINGS
@given(st.lists(st.tuples(st.lists(st.sampled_from(_INDENTS), max_size=3).map("".join),
                          st.sampled_from(_LINES)), min_size=1, max_size=7))
def test_indentation_agrees_with_cpython(lines: list) -> None:
    """Lines of blocks and statements under any mix of spaces, tabs and form feeds: gradcli
    parses what CPython compiles, and fails where it fails with its class, text and position
    (an error at a dedent to no indentation is column 0 in CPython, 1 in gradcli)."""
    text = "".join(indent + line + "\n" for indent, line in lines)
    want = _outcome(text)
    if want is not None and want[0] == "SyntaxError":
        return  # a bracket's error: not the layout's
    try:
        parse(text)
        got = None
    except ScriptSyntaxError as e:
        got = e.kind, e.message, e.span.line, e.span.column
    if want is not None and want[3] == 0:
        want = (*want[:3], 1)
    assert got == want
