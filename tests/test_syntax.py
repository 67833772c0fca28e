"""The grad language's syntax: every form of SPEC §2.2/§2.3 parses to the right dataclasses, and
every rejected text gives a worded ScriptSyntaxError at the right line and column."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gradcli.errors import ScriptSyntaxError
from gradcli.language import grammar
from gradcli.language import parser as syntax
from gradcli.language import program as P
from gradcli.language.parser import parse, parse_bytes
from gradcli.language.program import MAX_EXPR_DEPTH


def dump(e: object) -> str:
    """An S-expression of a node without spans, e.g. ``(+ x 1)``."""
    d = dump
    if isinstance(e, P.Number | P.String):
        return repr(e.value)
    if isinstance(e, P.Name):
        return e.id
    if isinstance(e, P.ListExpr):
        return "[" + " ".join(map(d, e.items)) + "]"
    if isinstance(e, P.Unary):
        return f"({e.op} {d(e.operand)})"
    if isinstance(e, P.Binary):
        return f"({e.op} {d(e.left)} {d(e.right)})"
    if isinstance(e, P.Compare):
        parts = [d(e.operands[0])]
        for op, x in zip(e.ops, e.operands[1:], strict=True):
            parts += [op, d(x)]
        return "(cmp " + " ".join(parts) + ")"
    if isinstance(e, P.BoolOp):
        return f"({e.op} " + " ".join(map(d, e.values)) + ")"
    if isinstance(e, P.Call):
        args = [d(a) for a in e.args] + [f"{k}={d(v)}" for k, v in e.kwargs]
        return "(call " + " ".join([d(e.func), *args]) + ")"
    if isinstance(e, P.Attribute):
        return f"(. {d(e.value)} {e.attr})"
    if isinstance(e, P.Subscript):
        return "(idx " + " ".join([d(e.value), *map(d, e.index)]) + ")"
    if isinstance(e, P.Slice):
        parts = ["_" if x is None else d(x) for x in (e.start, e.stop, e.step)]
        return "(: " + " ".join(parts) + ")"
    raise TypeError(e)


def expr(text: str) -> str:
    """The dump of one expression statement."""
    (stmt,) = parse(text + "\n").body
    assert isinstance(stmt, P.ExprStmt)
    return dump(stmt.value)


def error(text: str) -> ScriptSyntaxError:
    with pytest.raises(ScriptSyntaxError) as info:
        parse(text)
    return info.value


# ---- expressions: precedence and associativity (SPEC §2.3) ----------------------------------


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("-x**2", "(- (** x 2))"),
        ("2**3**2", "(** 2 (** 3 2))"),
        ("2**-1", "(** 2 (- 1))"),
        ("(-x)**2", "(** (- x) 2)"),
        ("a - b - c", "(- (- a b) c)"),
        ("a / b * c", "(* (/ a b) c)"),
        ("a + b * c", "(+ a (* b c))"),
        ("a @ b * c", "(* (@ a b) c)"),
        ("a * b @ c", "(@ (* a b) c)"),
        ("(a + b) * c", "(* (+ a b) c)"),
        ("-a * b", "(* (- a) b)"),
        ("+a", "(+ a)"),
        ("--a", "(- (- a))"),
        ("not a == b", "(not (cmp a == b))"),
        ("not not a", "(not (not a))"),
        ("a < b <= c", "(cmp a < b <= c)"),
        ("a == b != c > d >= e", "(cmp a == b != c > d >= e)"),
        ("a + 1 < b * 2", "(cmp (+ a 1) < (* b 2))"),
        ("a and b or c and d", "(or (and a b) (and c d))"),
        ("a or b or c", "(or a b c)"),
        ("(a or b) or c", "(or (or a b) c)"),
        ("a and not b", "(and a (not b))"),
        ("f(a, k=v)", "(call f a k=v)"),
        ("f()", "(call f)"),
        ("f(a,)", "(call f a)"),
        ("x.f()", "(call (. x f))"),
        ("x.grad.zero_()", "(call (. (. x grad) zero_))"),
        ("-x.grad", "(- (. x grad))"),
        ("f(x)(y)", "(call (call f x) y)"),
        ("x[0]", "(idx x 0)"),
        ("x[:, 1]", "(idx x (: _ _ _) 1)"),
        ("x[1:3]", "(idx x (: 1 3 _))"),
        ("x[::2]", "(idx x (: _ _ 2))"),
        ("x[1:]", "(idx x (: 1 _ _))"),
        ("x[:-1]", "(idx x (: _ (- 1) _))"),
        ("x[a:b:c, ::]", "(idx x (: a b c) (: _ _ _))"),
        ("x[0][1]", "(idx (idx x 0) 1)"),
        ("x.shape[0]", "(idx (. x shape) 0)"),
        ("[[1, 2], [3, 4]]", "[[1 2] [3 4]]"),
        ("[1, 2,]", "[1 2]"),
        ("[]", "[]"),
        ("[\n  1,\n  2\n]", "[1 2]"),
        ("f(1,\n  2)", "(call f 1 2)"),
        ("x \\\n + 1", "(+ x 1)"),
    ],
)
def test_expression_tree(text: str, tree: str) -> None:
    assert expr(text) == tree


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("0", 0),
        ("2.5", 2.5),
        ("1e-3", 1e-3),
        ("1E3", 1000.0),
        (".5", 0.5),
        ("1.", 1.0),
        ("1_000", 1000),
        ("True", True),
        ("False", False),
        ("None", None),
    ],
)
def test_number_literals(text: str, value: object) -> None:
    (stmt,) = parse(text).body
    assert isinstance(stmt.value, P.Number)
    assert stmt.value.value == value and type(stmt.value.value) is type(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("'abc'", "abc"),
        ('"abc"', "abc"),
        ("'it\\'s'", "it's"),
        ('"a\\nb\\t\\\\"', "a\nb\t\\"),
        ("'a' \"b\"", "ab"),
        ("'\\x41\\u00e9\\N{GREEK SMALL LETTER ALPHA}\\q'", "A\u00e9\u03b1\\q"),
        ("r'\\d+'", "\\d+"),
        ("'''a\nb'''", "a\nb"),
        ('"""say "hi"\n"""', 'say "hi"\n'),
        ("'#not a comment'", "#not a comment"),
    ],
)
def test_string_literals(text: str, value: str) -> None:
    (stmt,) = parse(text).body
    assert stmt.value == P.String(value, stmt.value.span)


# ---- statements (SPEC §2.2) -------------------------------------------------------------------


def test_statement_forms() -> None:
    src = (
        "x = 1; y = x * 2\n"
        "y += 1\ny -= 1\ny *= 2\ny /= 2\n"
        "L.backward()\n"
        "for i in range(3):\n    x = x + i\n"
        "for i in range(1, 10, 2): pass\n"
        "if x > 1:\n    pass\nelif x < 0:\n    y = 0\nelse:\n    y = 1\n"
        "with no_grad():\n    w -= 0.1 * w.grad\n"
        "with enable_grad(): z = w * 2\n"
        "def f(a, b):\n    return a * b\n"
        "def g():\n    return\n"
        "pass\n"
    )
    body = parse(src).body
    kinds = [type(s).__name__ for s in body]
    assert kinds == ["Assign", "Assign", "AugAssign", "AugAssign", "AugAssign", "AugAssign",
                     "ExprStmt", "For", "For", "If", "With", "With", "FunctionDef",
                     "FunctionDef", "Pass"]  # fmt: skip
    assert [s.op for s in body[2:6]] == ["+", "-", "*", "/"]
    loop = body[7]
    assert loop.target.id == "i" and dump(loop.iter) == "(call range 3)"
    assert dump(body[8].iter) == "(call range 1 10 2)"
    assert isinstance(body[8].body[0], P.Pass)
    branch = body[9]
    assert [dump(c) for c, _ in branch.branches] == ["(cmp x > 1)", "(cmp x < 0)"]
    assert isinstance(branch.branches[1][1][0], P.Assign)
    assert branch.orelse[0].target == "y"
    assert dump(body[10].context) == "(call no_grad)"
    assert dump(body[11].context) == "(call enable_grad)"
    f = body[12]
    assert (f.name, f.params.names) == ("f", ("a", "b"))
    assert dump(f.body[0].value) == "(* a b)"
    assert body[13].body == (P.Return(None, body[13].body[0].span),)


def test_if_without_else_has_empty_orelse() -> None:
    (stmt,) = parse("if a:\n    pass\n").body
    assert stmt.orelse == () and len(stmt.branches) == 1


def test_nested_blocks_and_dedent_to_outer_level() -> None:
    src = "for i in range(2):\n  if i:\n    for j in range(2):\n      x = j\n  y = i\nz = 1\n"
    loop, z = parse(src).body
    assert [type(s).__name__ for s in loop.body] == ["If", "Assign"]
    inner = loop.body[0].branches[0][1][0]
    assert isinstance(inner, P.For) and inner.body[0].target == "x"
    assert z.target == "z"


def test_comments_and_blank_lines() -> None:
    src = "# head\n\nx = 1  # one\n   # indented comment\n\nif x:\n    # inside\n\n    y = 2\n"
    x, cond = parse(src).body
    assert x.target == "x" and cond.branches[0][1][0].target == "y"


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("x1 = 1", True),
        ("x = 2.5", True),
        ("x = -1", True),
        ("v = [1.0, 2.0]", True),
        ("m = [[1, -2], [3, 4]]", True),
        ("m = -[[1, 2]]", True),
        ("e = []", True),
        ("x = +3", True),
        ("x = True", False),
        ("x = None", False),
        ("x = [1, y]", False),
        ("x = 1 + 2", False),
        ("x = -y", False),
        ("x = param(1)", False),
        ("x = not 1", False),
        ("x = 'a'", False),
        ("x = [True]", False),
    ],
)
def test_literal_flag(text: str, literal: bool) -> None:
    (stmt,) = parse(text).body
    assert stmt.literal is literal


# ---- input hygiene ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment", "  \n# c\n   # d\n"])
def test_empty_scripts(text: str) -> None:
    prog = parse(text, "empty.grad")
    assert prog.body == () and prog.filename == "empty.grad"


def test_crlf_cr_bom_and_missing_final_newline() -> None:
    want = [dump(s.value) for s in parse("x = 1\nif x:\n  y = 2\n").body[:1]]
    for text in (
        "\ufeffx = 1\r\nif x:\r\n  y = 2\r\n",
        "x = 1\rif x:\r  y = 2",
        "x = 1\nif x:\n  y = 2",
    ):
        prog = parse(text)
        assert [dump(prog.body[0].value)] == want
        assert prog.body[1].branches[0][1][0].span.line == 3
        assert "\r" not in prog.source and not prog.source.startswith("\ufeff")


def test_parse_bytes() -> None:
    assert parse_bytes(b"\xef\xbb\xbfx = 1\r\n").body[0].target == "x"
    with pytest.raises(ScriptSyntaxError) as info:
        parse_bytes(b"x = 1\ny = '\xff'\n")
    assert "UTF-8" in info.value.message
    assert (info.value.span.line, info.value.span.column) == (2, 6)


# ---- rejected text: message, line and column --------------------------------------------------

REJECTED = [
    # (source, message, line, column)
    ("x = (1 + 2\n", "'(' was never closed", 1, 5),
    ("x = (1 + 2\ny = 3\n", "'(' was never closed", 1, 5),
    ("x = [1,\n  2,\n", "'[' was never closed", 1, 5),
    ("f(g(1)\n", "'(' was never closed", 1, 2),
    ("x = 1)\n", "unmatched ')'", 1, 6),
    ("f(1, 2]\n", "closing parenthesis ']' does not match opening parenthesis '('", 1, 7),
    ("x = 1 +\n", "expected an expression", 1, 8),
    ("x =\n", "expected an expression", 1, 4),
    ("y = f(,)\n", "expected an expression", 1, 7),
    ("if x\n    pass\n", "expected ':'", 1, 5),
    ("for i in range(3)\n    pass\n", "expected ':'", 1, 18),
    ("def f()\n    pass\n", "expected ':'", 1, 8),
    ("if x:\n  break\n", "'break' outside loop", 2, 3),
    ("def f():\n  continue\n", "'continue' not properly in loop", 2, 3),
    ("class A:\n  return 1\n", "'return' outside function", 2, 3),
    ("class A:\n  break\n", "'break' outside loop", 2, 3),
    ("class A(*b):\n  pass\n", ("gradcli does not support unpacking (* or **) or a generator in "
     "a class's bases"), 1, 9),
    ("class A(k=1, B):\n  pass\n", "positional argument follows keyword argument", 1, 14),
    ("class A(k=1, k=2):\n  pass\n", "keyword argument repeated: k", 1, 14),
    ("def f():\n  class A:\n    from m import *\n", "import * only allowed at module level", 3,
     5),
    ("try:\n  pass\n", "invalid syntax: unexpected end of file", 2, 7),
    ("nonlocal x\n", "unsupported statement 'nonlocal' (gradcli scripts have no nonlocal)", 1, 1),
    (
        "def f():\n  yield 1\n",
        "unsupported statement 'yield' (gradcli scripts have no generators)",
        2,
        3,
    ),
    (
        "async def f():\n  pass\n",
        "unsupported statement 'async' (gradcli scripts have no async)",
        1,
        1,
    ),
    ("for i in range(3):\n  def g():\n    break\n", "'break' outside loop", 3, 5),
    ("x = a is is b\n", "expected an expression", 1, 10),
    ("x = a if b\n", "expected 'else'", 1, 11),
    ("__x = 1\n", "names starting with '__' are not allowed", 1, 1),
    ("y = x.__class__\n", ("gradcli does not give scripts '__class__': it reaches the "
     "interpreter's internals"), 1, 7),
    ("y = f.__globals__\n", ("gradcli does not give scripts '__globals__': it reaches the "
     "interpreter's internals"), 1, 7),
    ("y = A.__subclasses__()\n", ("gradcli does not give scripts '__subclasses__': it reaches "
     "the interpreter's internals"), 1, 7),
    ("y = __builtins__\n", ("gradcli does not give scripts '__builtins__': it reaches the "
     "interpreter's internals"), 1, 5),
    ("class A:\n  def __new__(cls):\n    pass\n", "gradcli does not support '__new__'", 2, 7),
    ("y = x.__init__x\n", "names starting with '__' are not allowed", 1, 7),
    ("__namex = 1\n", "names starting with '__' are not allowed", 1, 1),
    ("f() = 1\n", "cannot assign to function call here. Maybe you meant '==' instead of '='?",
     1, 1),
    ("x + 1 += 2\n", "'expression' is an illegal expression for augmented assignment", 1, 1),
    ("True = 1\n", "cannot assign to True", 1, 1),
    ("None = 1\n", "cannot assign to None", 1, 1),
    ("x = 1 2\n", "invalid syntax: unexpected number 2", 1, 7),
    ("x = y z\n", "invalid syntax: unexpected name 'z'", 1, 7),
    ("if x = 1:\n  pass\n", "invalid syntax: unexpected '='", 1, 6),
    ("x = 1 /// 2\n", "expected an expression", 1, 9),
    ("x = $\n", "invalid syntax", 1, 5),
    ("x = é\n", "invalid character 'é' (U+00E9)", 1, 5),
    ("x = 'abc\n", "unterminated string literal (detected at line 1)", 1, 5),
    ("x = '''a\nb\n", "unterminated triple-quoted string literal (detected at line 2)", 1, 5),
    ("x = '\\x4'\n", ("(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2:"
     " truncated \\xXX escape"), 1, 6),
    ("x = b'a'\n", "bytes literals are not supported", 1, 5),
    ("x = ur'a'\n", "invalid syntax", 1, 5),
    ("x = f'{}'\n", "f-string: empty expression not allowed", 1, 8),
    ("x = f'{a!z}'\n", "f-string: invalid conversion character: expected 's', 'r', or 'a'", 1,
     10),
    ("x = f'}'\n", "f-string: single '}' is not allowed", 1, 7),
    ("x = f'{a'\n", "f-string: expecting '}'", 1, 9),
    ("x = f'{a:{b:{c}}}'\n", "f-string: expressions nested too deeply", 1, 13),
    ("x = f'{a#}'\n", "f-string expression part cannot include '#'", 1, 9),
    ("x = f'{a +}'\n", "expected an expression", 1, 11),
    ("x = 0x10\n", "invalid number literal", 1, 5),
    ("x = 007\n", "leading zeros in decimal integer literals are not permitted", 1, 5),
    ("x = 1 if y else\n", "expected an expression", 1, 16),
    ("else:\n  pass\n", "unexpected 'else' (no 'if' before it at this indentation)", 1, 1),
    (
        "with no_grad():\n  pass\nelse:\n  pass\n",
        "unexpected 'else' (no 'if' before it at this indentation)",
        3,
        1,
    ),
    ("x = 1; if y: pass\n", "'if' must start on a new line", 1, 8),
    ("if x: for i in range(3): pass\n", "'for' must start on a new line", 1, 7),
    ("for i range(3):\n  pass\n", "invalid syntax: unexpected name 'range'", 1, 7),
    ("for 1 in range(3):\n  pass\n", "cannot assign to literal", 1, 5),
    ("def f:\n  pass\n", "expected '('", 1, 6),
    ("x = \\y\n", "unexpected character after line continuation character", 1, 5),
    ("x = 1\0\n", "source code cannot contain null bytes", 1, 6),
]


@pytest.mark.parametrize(("text", "message", "line", "column"), REJECTED)
def test_rejected(text: str, message: str, line: int, column: int) -> None:
    err = error(text)
    assert err.message == message
    assert (err.span.line, err.span.column) == (line, column)
    assert err.kind == "SyntaxError" and err.exit_code == 3
    assert err.span.end_line >= err.span.line and err.span.end_column >= err.span.column


# ---- indentation: CPython 3.11's error class, text, line and column ---------------------------

_E, _T = "IndentationError", "TabError"
_BLOCK = "expected an indented block after "
_UNINDENT = "unindent does not match any outer indentation level"
_MIXED = "inconsistent use of tabs and spaces in indentation"
INDENTATION = [
    # (source, class, message, line, column): compile() in CPython 3.11 says the same
    ("if x:\ny = 1\n", _E, _BLOCK + "'if' statement on line 1", 2, 1),
    ("if x:\n", _E, _BLOCK + "'if' statement on line 1", 1, 6),
    ("x = 1\nfor i in range(3):\nx = 2\n", _E, _BLOCK + "'for' statement on line 2", 3, 1),
    ("def f(a):\nreturn a\n", _E, _BLOCK + "function definition on line 1", 2, 1),
    ("class A:\npass\n", _E, _BLOCK + "class definition on line 1", 2, 1),
    ("with no_grad():\n\n", _E, _BLOCK + "'with' statement on line 1", 2, 1),
    ("if a:\n  pass\nelse:\nz = 1\n", _E, _BLOCK + "'else' statement on line 3", 4, 1),
    ("while x:\n    pass\nelse:\ny\n", _E, _BLOCK + "'else' statement on line 3", 4, 1),
    ("try:\nx\n", _E, _BLOCK + "'try' statement on line 1", 2, 1),
    ("try:\n  x\nexcept ValueError:\nx\n", _E, _BLOCK + "'except' statement on line 3", 4, 1),
    ("try:\n  x\nfinally:\nx\n", _E, _BLOCK + "'finally' statement on line 3", 4, 1),
    ("if 1:\n x\nelif 2:\ny\n", _E, _BLOCK + "'elif' statement on line 3", 4, 1),
    # at the end of the file: after the last character of its last line
    ("if x:  # c\n", _E, _BLOCK + "'if' statement on line 1", 1, 11),
    ("if x:\n  for i in y:\n", _E, _BLOCK + "'for' statement on line 2", 2, 14),
    ("if x:\n  for i in y:\n    # c\n\n", _E, _BLOCK + "'for' statement on line 2", 4, 1),
    # at the indentation's last character
    (" x = 1\n", _E, "unexpected indent", 1, 1),
    ("\tx = 1\n", _E, "unexpected indent", 1, 1),
    ("x = 1\n    y = 2\n", _E, "unexpected indent", 2, 4),
    ("x = 1\n\n  # c\n    y = 2\n", _E, "unexpected indent", 4, 4),
    ("\f x = 1\n", _E, "unexpected indent", 1, 2),
    ("if 1:\n\tx = 1\n        \ty = 2\n", _E, "unexpected indent", 3, 9),
    # after the last character of the line
    ("if x:\n    a = 1\n  b = 2\n", _E, _UNINDENT, 3, 8),
    ("if 1:\n\tx = 1\n    y = 2\n", _E, _UNINDENT, 3, 10),
    ("if 1:\n    x\n  y = 1   # hi\n", _E, _UNINDENT, 3, 15),
    ("if 1:\n    x\n  y = (1,\n 2)\n", _E, _UNINDENT, 3, 10),
    # tabs to multiples of 8 and tabs as 1 order the line differently against its block
    ("if 1:\n\tx = 1\n        y = 2\n", _T, _MIXED, 3, 1),
    ("if 1:\n        x = 1\n\ty = 2\n", _T, _MIXED, 3, 1),
    ("if 1:\n\tx = 1\n  \ty = 2\n", _T, _MIXED, 3, 1),
    ("if 1:\n    if 2:\n\tx = 1\n", _T, _MIXED, 3, 1),
    ("if 1:\n\tif 2:\n\t\tx = 1\n        y = 2\n", _T, _MIXED, 4, 1),
    ("if 1:\n  \tx = 1\n        y = 2\n", _T, _MIXED, 3, 1),  # 8 columns, 3 and 8 as 1
    ("".join(" " * i + "if x:\n" for i in range(100)) + " " * 100 + "pass\n", _E,
     "too many levels of indentation", 101, 1),
]


@pytest.mark.parametrize(("text", "kind", "message", "line", "column"), INDENTATION)
def test_indentation_errors_are_cpythons(text: str, kind: str, message: str, line: int,
                                         column: int) -> None:
    err = error(text)
    assert (err.kind, err.message) == (kind, message)
    assert (err.span.line, err.span.column) == (line, column) and err.exit_code == 3


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the table is CPython 3.11's")
@pytest.mark.parametrize(("text", "kind", "message", "line", "column"), INDENTATION)
def test_the_indentation_table_is_what_cpython_says(text: str, kind: str, message: str,
                                                    line: int, column: int) -> None:
    with pytest.raises(SyntaxError) as info:
        compile(text, "prog.py", "exec")
    e = info.value
    assert (type(e).__name__, e.msg, e.lineno, e.offset) == (kind, message, line, column)


def test_a_dedent_to_column_0_is_reported_at_column_1() -> None:
    """CPython reports "expected an indented block" at a dedent to no indentation at column 0;
    a gradcli span is 1-based, so it says 1 (the line is CPython's)."""
    err = error("if x:\n  for i in y:\nz = 1\n")
    assert (err.kind, err.span.line, err.span.column) == ("IndentationError", 3, 1)


@pytest.mark.parametrize("text", [
    "if x:\n\ty = 1\n",
    "if x:\n\tif y:\n\t\tz = 1\n\tw = 2\nv = 3\n",
    "if x:\n       \ty = 1\n        z = 2\n",  # 7 spaces and a tab: 8 columns either way
    "if x:\n\ty = 1\n\n  \t# a comment's indentation does not count\n\tz = 2\n",
    "\fx = 1\nif x:\n  y = 1\n\f  z = 2\n",  # a form feed starts the columns again
    "def f(\n\ta):\n\treturn a\n",
    "if x:\n\ty = (1,\n  2)\n\tz = 3\n",
])
def test_tab_indentation_as_cpython_reads_it(text: str) -> None:
    compile(text, "prog.py", "exec")  # CPython accepts it too
    assert parse(text).body


def test_a_tab_block_has_the_statements_cpython_gives_it() -> None:
    """Seven spaces and a tab, then eight spaces: one block of two statements, then one."""
    body = parse("if x:\n       \ty = 1\n        z = 2\nw = 3\n").body
    assert len(body) == 2 and len(body[0].branches[0][1]) == 2


def test_error_reports_the_first_problem_in_source_order() -> None:
    err = error("x = 1 +\nimport os\n")
    assert (err.message, err.span.line) == ("expected an expression", 1)


# ---- safety limits (SPEC §6): never a RecursionError ------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "(" * 5000 + "1" + ")" * 5000,
        "x = " + "[" * 5000 + "1" + "]" * 5000,
        "x = " + "-" * 5000 + "1",
        "x = " + "not " * 5000 + "1",
        "x = " + "**".join(["2"] * 5000),
        "x = " + "+".join(["a"] * 5000),
        "x = a" + ".b" * 5000,
        "x = f" + "()" * 5000,
        "x = [" + ",\n".join(["-" * (MAX_EXPR_DEPTH + 100) + "1"]) + "]",
    ],
)
def test_deep_expressions_are_rejected_clearly(text: str) -> None:
    err = error(text)
    assert err.message == f"expression nested too deeply (limit {MAX_EXPR_DEPTH})"


def test_depth_limit_is_exact() -> None:
    n = MAX_EXPR_DEPTH
    parse("x = " + "(" * n + "1" + ")" * n)
    parse("x = " + "-" * (n - 1) + "1")  # n - 1 minus signs and the number: depth n
    assert "too deeply" in error("x = " + "(" * (n + 1) + "1" + ")" * (n + 1)).message
    assert "too deeply" in error("x = " + "-" * n + "1").message


def test_deep_blocks_are_rejected_clearly() -> None:
    deep = "".join(" " * i + "if x:\n" for i in range(1000)) + " " * 1000 + "pass\n"
    err = error(deep)
    assert (err.kind, err.message) == ("IndentationError", "too many levels of indentation")
    assert err.span.line == 101  # CPython's limit: 99 nested blocks
    ok = "".join(" " * i + "if x:\n" for i in range(99)) + " " * 99 + "pass\n"
    assert isinstance(parse(ok).body[0], P.If)


def test_long_flat_programs_parse() -> None:
    src = "".join(f"x{i} = x{i - 1} * 2 + 1\n" for i in range(1, 20_000))
    assert len(parse(src).body) == 19_999


# ---- the parser tables and their cache --------------------------------------------------------


def test_tables_cache_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADCLI_CACHE_DIR", str(tmp_path))
    sample = "x = -a**2 + f(1, k=2)[1:, ::2]\nif x < y:\n    with no_grad():\n        pass\n"
    want = parse(sample).body

    def parsed_with(tables: grammar.Tables) -> tuple:
        return tuple(syntax._Parser(tables).run(sample))

    built = grammar.load()  # compiles and writes the cache
    (cached,) = list(tmp_path.glob("grad-*.json"))
    assert parsed_with(built) == want
    assert parsed_with(grammar.load()) == want  # read back from the cache
    cached.write_text("{not json")
    assert parsed_with(grammar.load()) == want  # a damaged cache is rebuilt
    assert json.loads(cached.read_text())["format"] == grammar.FORMAT


def test_grammar_file_is_the_source_of_truth() -> None:
    text = grammar.grammar_text()
    assert "-> binary" in text and "%declare _INDENT _DEDENT" in text
    data = grammar.compile_tables(text)
    assert data["keywords"]["if"] == "IF" and data["operators"]["**"] == "DOUBLESTAR"


def test_tables_refuse_a_unit_rule_over_a_terminal() -> None:
    # The parser runs unit rules as part of a goto, so none may reduce right after a shift.
    text = 'start: a "+"\n?a: {}\nb: NAME\nNAME: /[a-z]+/\n'
    assert grammar.compile_tables(text.format("b"))["rules"]
    with pytest.raises(ValueError, match=r"a unit rule of \?a reduces in state \d+, entered by"):
        grammar.compile_tables(text.format("NAME"))
