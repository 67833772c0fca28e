"""Property tests of the parser (Hypothesis).

Random programs are rendered to text by a small precedence-aware ``unparse``; parsing the text
must give the program back, and must agree with CPython's own parser on the same text (every
grad script is valid Python). Random text and bytes must either parse or raise a
ScriptSyntaxError with a valid span: never any other exception.
"""

from __future__ import annotations

import ast
import dataclasses
import warnings
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli.language import program as P
from gradcli.errors import ScriptSyntaxError, Span
from gradcli.language.parser import parse, parse_bytes

S = Span(1, 1, 1, 1)  # spans of generated nodes do not matter: strip() drops them
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---- unparse: program -> text with as few parentheses as Python needs ------------------------

PREC = {
    "or": 1,
    "and": 2,
    "not": 3,
    "cmp": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "/": 6,
    "@": 6,
    "unary": 7,
    "**": 8,
    "atom": 9,
}


def prec(e: Any) -> int:
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


def _u(e: Any) -> str:
    if isinstance(e, P.Number):
        return repr(e.value)
    if isinstance(e, P.String):
        body = e.value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
        return f"'{body}'"
    if isinstance(e, P.Name):
        return e.id
    if isinstance(e, P.ListExpr):
        return "[" + ", ".join(u(i) for i in e.items) + "]"
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
    if isinstance(e, P.Call):
        args = [u(a) for a in e.args] + [f"{k}={u(v)}" for k, v in e.kwargs]
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


def unparse(body: tuple, indent: str = "") -> str:
    """Statements as text, one per line, blocks indented by four spaces."""
    out = []
    for s in body:
        if isinstance(s, P.Assign):
            out.append(f"{indent}{s.target} = {u(s.value)}\n")
        elif isinstance(s, P.AugAssign):
            out.append(f"{indent}{s.target} {s.op}= {u(s.value)}\n")
        elif isinstance(s, P.ExprStmt):
            out.append(f"{indent}{u(s.value)}\n")
        elif isinstance(s, P.Pass):
            out.append(f"{indent}pass\n")
        elif isinstance(s, P.Return):
            out.append(f"{indent}return" + ("" if s.value is None else f" {u(s.value)}") + "\n")
        elif isinstance(s, P.For):
            args = ", ".join(u(a) for a in s.args)
            out.append(
                f"{indent}for {s.var} in range({args}):\n" + unparse(s.body, indent + "    ")
            )
        elif isinstance(s, P.With):
            out.append(f"{indent}with {u(s.context)}:\n" + unparse(s.body, indent + "    "))
        elif isinstance(s, P.FunctionDef):
            head = f"{indent}def {s.name}({', '.join(s.params)}):\n"
            out.append(head + unparse(s.body, indent + "    "))
        elif isinstance(s, P.If):
            for k, (cond, branch) in enumerate(s.branches):
                out.append(f"{indent}{'if' if k == 0 else 'elif'} {u(cond)}:\n")
                out.append(unparse(branch, indent + "    "))
            if s.orelse:
                out.append(f"{indent}else:\n" + unparse(s.orelse, indent + "    "))
    return "".join(out)


def strip(x: Any) -> Any:
    """A node with every span replaced by None, for comparison."""
    if isinstance(x, tuple):
        return tuple(strip(i) for i in x)
    if dataclasses.is_dataclass(x) and not isinstance(x, Span):
        return (
            type(x).__name__,
            *(strip(getattr(x, f.name)) for f in dataclasses.fields(x) if f.name != "span"),
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
    st.sampled_from([True, False, None]),
).map(lambda v: P.Number(v, S))
leaves = st.one_of(
    NAMES.map(lambda n: P.Name(n, S)),
    numbers,
    st.text("ab #'\"\\\n", max_size=5).map(lambda t: P.String(t, S)),
)


def _extend(inner: st.SearchStrategy) -> st.SearchStrategy:
    ops = st.sampled_from(["+", "-", "*", "/", "@", "**"])
    cmp = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])
    part = st.one_of(st.none(), inner)
    slices = st.builds(lambda a, b, c: P.Slice(a, b, c, S), part, part, part)
    kwargs = st.dictionaries(st.sampled_from(["dim", "keepdim", "k"]), inner, max_size=2)
    return st.one_of(
        st.builds(lambda o, x: P.Unary(o, x, S), st.sampled_from(["-", "+", "not"]), inner),
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
        st.builds(lambda x, a: P.Attribute(x, a, S), inner, ATTRS),
        st.builds(
            lambda x, i: P.Subscript(x, tuple(i), S),
            inner,
            st.lists(st.one_of(inner, slices), min_size=1, max_size=3),
        ),
        st.builds(lambda xs: P.ListExpr(tuple(xs), S), st.lists(inner, max_size=3)),
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


def simple_stmts(in_def: bool) -> st.SearchStrategy:
    options = [
        st.builds(lambda n, v: P.Assign(n, v, is_literal(v), S), NAMES, exprs),
        st.builds(lambda n, o, v: P.AugAssign(n, o, v, S), NAMES, st.sampled_from("+-*/"), exprs),
        st.builds(lambda v: P.ExprStmt(v, S), exprs),
        st.just(P.Pass(S)),
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
    ctx = st.sampled_from(["no_grad", "enable_grad"]).map(lambda n: P.Call(P.Name(n, S), (), (), S))
    compound = st.one_of(
        st.builds(
            lambda v, a, b: P.For(v, tuple(a), b, S),
            NAMES,
            st.lists(exprs, min_size=1, max_size=3),
            body,
        ),
        st.builds(lambda c, b: P.With(c, b, S), ctx, body),
        st.builds(
            lambda bs, o: P.If(tuple(bs), o, S),
            st.lists(st.tuples(exprs, body), min_size=1, max_size=3),
            st.one_of(st.just(()), body),
        ),
        st.builds(
            lambda n, ps, b: P.FunctionDef(n, tuple(ps), b, (), S),
            NAMES,
            st.lists(NAMES, unique=True, max_size=3),
            stmts(depth - 1, in_def=True),
        ),
    )
    return st.lists(st.one_of(simple, compound), min_size=1, max_size=4).map(tuple)


# ---- CPython's reading of the same text, in strip() form --------------------------------------

_PY_OPS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.MatMult: "@",
    ast.Pow: "**",
    ast.USub: "-",
    ast.UAdd: "+",
    ast.Not: "not",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.And: "and",
    ast.Or: "or",
}


def py(e: ast.expr) -> Any:
    """A CPython expression node as strip() would show the gradcli node."""
    if isinstance(e, ast.Constant):
        kind = "String" if isinstance(e.value, str) else "Number"
        return (kind, (type(e.value).__name__, e.value))
    if isinstance(e, ast.Name):
        return ("Name", ("str", e.id))
    if isinstance(e, ast.List):
        return ("ListExpr", tuple(py(i) for i in e.elts))
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
        kwargs = tuple((("str", k.arg), py(k.value)) for k in e.keywords)
        return ("Call", py(e.func), tuple(py(a) for a in e.args), kwargs)
    if isinstance(e, ast.Attribute):
        return ("Attribute", py(e.value), ("str", e.attr))
    if isinstance(e, ast.Subscript):
        items = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        return ("Subscript", py(e.value), tuple(py(i) for i in items))
    if isinstance(e, ast.Slice):
        parts = (e.lower, e.upper, e.step)
        return ("Slice", *(("NoneType", None) if x is None else py(x) for x in parts))
    raise TypeError(ast.dump(e))


# ---- properties -------------------------------------------------------------------------------


@SETTINGS
@given(exprs)
def test_expressions_round_trip_and_agree_with_cpython(e: Any) -> None:
    text = u(e) + "\n"
    (stmt,) = parse(text).body
    assert strip(stmt.value) == strip(e), text
    (py_stmt,) = ast.parse(text).body
    assert strip(stmt.value) == py(py_stmt.value), text


@SETTINGS
@given(stmts(depth=2))
def test_programs_round_trip(body: tuple) -> None:
    text = unparse(body)
    with warnings.catch_warnings():  # CPython warns of `1(2)`; it is still Python
        warnings.simplefilter("ignore", SyntaxWarning)
        compile(text, "<generated>", "exec")  # the text is Python, as SPEC §2 says of scripts
    prog = parse(text)
    assert strip(prog.body) == strip(body), text


def _check_spans(node: Any, lines: list[str]) -> None:
    if isinstance(node, tuple):
        for item in node:
            _check_spans(item, lines)
    elif dataclasses.is_dataclass(node) and not isinstance(node, Span):
        s = node.span
        assert 1 <= s.line <= s.end_line <= len(lines)
        assert (s.line, s.column) < (s.end_line, s.end_column)
        if isinstance(node, P.Name):
            assert lines[s.line - 1][s.column - 1 : s.end_column - 1] == node.id
        for f in dataclasses.fields(node):
            _check_spans(getattr(node, f.name), lines)


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
        assert e.kind == "SyntaxError"
    else:
        assert isinstance(prog, P.Program)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join))
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
