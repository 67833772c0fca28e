"""The compiled driver loop (language/_lalr.c) against parser.py's own loop.

Both drivers walk the same tables, call the same compiler and raise through the same error
helpers, so every text must give both the same program (spans included) or the same syntax
error (message, kind, span, hint): every script in the repository, the syntax tests' rejected
texts, and random texts made of the grammar's tokens, layout and stray characters (Hypothesis).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_syntax import INDENTATION, REJECTED

from gradcli.errors import ScriptSyntaxError
from gradcli.language import grammar, parser

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    parser._lalr is None,
    reason="the compiled parser loop is not built (no C compiler at install time, or "
           "GRADCLI_PURE is set)")


def outcome(text: str) -> Any:
    """What parsing ``text`` gives: the program, or the syntax error's visible parts."""
    try:
        return parser.parse(text, "t.grad")
    except ScriptSyntaxError as err:
        return ("error", err.message, err.kind, err.span, err.hint)


@pytest.fixture(scope="module")
def drivers() -> Any:
    """A function that parses a text with the compiled loop, then with the Python one."""
    compiled = parser._get_parser()
    pure = parser._Parser(grammar.load())
    pure.compiled = None
    assert compiled.compiled is not None

    def both(text: str) -> tuple[Any, Any]:
        first = outcome(text)
        saved, parser._parser = parser._parser, pure
        try:
            return first, outcome(text)
        finally:
            parser._parser = saved

    return both


SCRIPTS = sorted(p for folder in ("samples", "tests/corpus", "tests/scenarios", "tests/python",
                                  "tests/fixtures/export")
                 for p in (ROOT / folder).rglob("*") if p.suffix in (".grad", ".py"))


def test_the_repository_has_scripts_to_compare() -> None:
    assert len(SCRIPTS) >= 300


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_script_parses_the_same(drivers: Any, path: Path) -> None:
    compiled, pure = drivers(path.read_text(encoding="utf-8"))
    assert compiled == pure


@pytest.mark.parametrize("text", [case[0] for case in REJECTED + INDENTATION])
def test_rejected_texts_fail_the_same(drivers: Any, text: str) -> None:
    compiled, pure = drivers(text)
    assert compiled[0] == "error"
    assert compiled == pure


EDGES = [
    "", "\n", "x = 1", "x = (" * 120 + "1" + ")" * 120, "x = [" * 300 + "]" * 300,
    "if x:\n" + "".join("    " * i + "if x:\n" for i in range(1, 120)) + "    " * 120 + "y\n",
    "x = 1 + \\\n    2\n", "x = 1 \\", "s = '\U0001f600' + 'é'\n", "\U0001d465 = 1\n",
    "f'{x!r}{y:{w}}{z=}'\n", "f'{f\"{x}\"}'\n", "x = '''never closed\n", "x = 'open\n",
    "x = 1\r\ny = 2\r\n", "\fx = 1\n", "if x:\n\ty = 1\n        z = 2\n",
    "def f():\n    return (\n\n        1)\n", "x = (1,\n# c\n 2)\n", ")", "x = 1)\n",
    "x = (1]\n", "class C:\n  def f(self): pass\n pass\n", "lambda: (yield)\n",
    "x = 10 ** 400\n", "x = 0b102\n", "x = 1__0\n", "print('a' 'b' f'c')\n",
    "s = '''a\nb''' + x\nif s:\n    t = '''c\n\n'''\n",
    # the C lexer's own scan (names, plain numbers, operators) at the edges of what it takes
    "x.y = a.b.c\n", "a = 1.5.real\n", "x = 1.e5 + 1. + .5 + 1.5j + 0x1F + 1_0\n",
    "x = rb'a' + Rb\"b\" + f'c' + u'd' + fr'e' + rbf\n", "x = __y__ + _z + __w + __\n",
    "aé = 1\n", "é = a\u00e9b\n", "x = 1if y else 2\n", "x=1;y=2\t\n", "a >>= b <<= c\n",
    "f(*a, **k) -> x ... y\n", "x = a!b\n", "x = 1 $ 2\n", "x = 12abc\n", "1..2\n",
]


@pytest.mark.parametrize("text", EDGES)
def test_edge_cases_agree(drivers: Any, text: str) -> None:
    compiled, pure = drivers(text)
    assert compiled == pure


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_any_text_agrees(drivers: Any, text: str) -> None:
    compiled, pure = drivers(text)
    assert compiled == pure


PIECES = [
    "x", "y1", "def", "return", "if", "else", "elif", "for", "in", "while", "lambda", "not",
    "and", "with", "as", "class", "pass", "import", "torch", "yield", "match", "True", "None",
    "0", "1.5", "2e-3", "0x1F", "1_000", "3j", ".5", "'s'", '"t"', "f'{x}'", "f'{x!r:>4}'",
    "'''a\nb'''", '"""doc"""', "b'x'", "r'\\d'",
    "+", "-", "*", "/", "//", "%", "**", "@", "=", "==", "!=", "<", ">=", "+=", "**=", "->",
    ":=", ".", ",", ":", ";", "...", "~", "&", "|", "^", "<<",
    "(", ")", "[", "]", "{", "}",
    " ", "  ", "\n", "\n    ", "\n        ", "\n\t", "\n  \t", "\\\n", "# c\n", "\f", "$", "?",
    "é", "\u00a0",
    "_", "__", "__x__", "rb", "Br", "u", "F", "1.", "9", "e5", "j", "!", ">>=", "&=", "|=",
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_random_token_texts_agree(drivers: Any, pieces: list[str]) -> None:
    compiled, pure = drivers("".join(pieces))
    assert compiled == pure


LINES = st.sampled_from([
    "x = 1", "y = x * 2 + w", "def f(a, b=2):", "    return a * b", "if x > 0:", "else:",
    "    y = -x", "for i in range(3):", "    for j in [1, 2]:", "        s += i * j",
    "while x < 3:", "    x += 1", "    break", "class M(nn.Module):", "    def forward(self, x):",
    "        return self.l(x)", "print(f'{x:.3f}', y)", "L = (x +", "     y)", "z = [1,",
    "  2]", "s = '''a", "b'''", "\tq = 1", "        pass", "", "# comment", "with torch.no_grad():",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, min_size=1, max_size=25))
def test_random_line_texts_agree(drivers: Any, lines: list[str]) -> None:
    compiled, pure = drivers("\n".join(lines) + "\n")
    assert compiled == pure
