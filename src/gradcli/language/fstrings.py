"""String literals: prefixes, escapes, and f-strings split into text and formatted fields.

An f-string's fields are found here with CPython 3.11's rules (``{{`` and ``}}``, ``!r``,
``:spec`` with nested fields, ``{x=}``, brackets and quotes inside an expression) and each
field's expression text is handed to ``parse_expr`` (the parser itself, given by the caller, so
that this module does not import it) at its own line and column, so errors point into the string.
"""

from __future__ import annotations

import codecs
import warnings
from collections.abc import Callable
from typing import Any

from ..errors import ScriptSyntaxError, Span
from .program import FormattedValue, FString

ParseExpr = Callable[[str, int, int], Any]  # (text, line, column) -> Expr
_PREFIXES = {"", "r", "u", "f", "b", "br", "rb", "fr", "rf"}
_CONVERSIONS = "sra"
_MAX_NESTING = 2  # f"{x:{y:{z}}}" is too deep for CPython 3.11
_CLOSE = {"(": ")", "[": "]", "{": "}"}


class Literal:
    """A string token taken apart: its prefix letters, quote and the text between the quotes."""

    __slots__ = ("body", "col", "line", "prefix", "quote")

    def __init__(self, tok: tuple) -> None:
        text = tok[1]
        i = 0
        while text[i] not in "'\"":
            i += 1
        self.prefix = text[:i].lower()
        q = text[i]
        self.quote = q * 3 if text.startswith(q * 3, i) and len(text) >= i + 6 else q
        self.body = text[i + len(self.quote):len(text) - len(self.quote)]
        self.line = tok[2]
        self.col = tok[3] + i + len(self.quote)  # column of the body's first character
        if self.prefix not in _PREFIXES:
            raise _err("invalid syntax", tok[2], tok[3], tok[3] + i)
        if "b" in self.prefix:
            raise _err("bytes literals are not supported", tok[2], tok[3], tok[3] + i + 1,
                       "gradcli strings are text: drop the b prefix")


def _err(message: str, line: int, col: int, end: int | None = None,
         hint: str | None = None) -> ScriptSyntaxError:
    return ScriptSyntaxError(message, span=Span(line, col, line, end or col + 1), hint=hint)


def decode(body: str, raw: bool, line: int, col: int) -> str:
    """The value of a string body: escapes decoded as Python does (kept as written if raw)."""
    if raw or "\\" not in body:
        return body
    try:
        with warnings.catch_warnings():  # '\q' stays '\q', silently, as in Python 3.11
            warnings.simplefilter("ignore")
            return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except UnicodeDecodeError as exc:
        raise _err(f"(unicode error) 'unicodeescape' codec can't decode bytes in position "
                   f"{exc.start}-{exc.end - 1}: {exc.reason}", line, col) from None


def _position(body: str, i: int, line: int, col: int) -> tuple[int, int]:
    """Source line and column of ``body[i]`` when ``body[0]`` sits at (line, col)."""
    newlines = body.count("\n", 0, i)
    if not newlines:
        return line, col + i
    return line + newlines, i - body.rfind("\n", 0, i)


def parse_fstring(lit: Literal, parse_expr: ParseExpr) -> list[str | FormattedValue]:
    """The parts of an f-string literal: decoded text and formatted fields, in order."""
    return _Scanner(lit, parse_expr).parts(0, len(lit.body), 0)


class _Scanner:
    def __init__(self, lit: Literal, parse_expr: ParseExpr) -> None:
        self.lit = lit
        self.body = lit.body
        self.raw = "r" in lit.prefix
        self.parse_expr = parse_expr

    def where(self, i: int) -> tuple[int, int]:
        return _position(self.body, i, self.lit.line, self.lit.col)

    def fail(self, message: str, i: int) -> ScriptSyntaxError:
        line, col = self.where(i)
        return _err(message, line, col)

    def parts(self, i: int, end: int, depth: int) -> list[str | FormattedValue]:
        """Text and fields of ``body[i:end]`` (the whole string, or a format spec)."""
        body = self.body
        out: list[str | FormattedValue] = []
        text: list[str] = []
        start = i
        while i < end:
            c = body[i]
            if c == "{":
                if i + 1 < end and body[i + 1] == "{" and depth == 0:
                    text.append(body[start:i + 1])
                    i += 2
                    start = i
                    continue
                text.append(body[start:i])
                if text:
                    self._flush(text, out)
                field, i = self.field(i, end, depth)
                out.extend(field)
                start = i
                continue
            if c == "}":
                if i + 1 < end and body[i + 1] == "}" and depth == 0:
                    text.append(body[start:i + 1])
                    i += 2
                    start = i
                    continue
                raise self.fail("f-string: single '}' is not allowed", i)
            i += 1
        text.append(body[start:end])
        self._flush(text, out)
        return out

    def _flush(self, text: list[str], out: list[str | FormattedValue]) -> None:
        s = "".join(text)
        text.clear()
        if not s:
            return
        line, col = self.where(0)
        s = decode(s, self.raw, line, col)
        if out and isinstance(out[-1], str):
            out[-1] += s
        else:
            out.append(s)

    def field(self, i: int, end: int, depth: int) -> tuple[list[str | FormattedValue], int]:
        """The field opening at ``body[i]`` (a ``{``): its parts and the index after its ``}``."""
        if depth >= _MAX_NESTING:
            raise self.fail("f-string: expressions nested too deeply", i)
        body = self.body
        j = i + 1
        stack: list[str] = []
        quote: str | None = None
        while True:
            if j >= end:
                raise self.fail("f-string: expecting '}'", j)
            c = body[j]
            if quote is not None:
                if body.startswith(quote, j):
                    j += len(quote)
                    quote = None
                    continue
            elif c in "'\"":
                quote = c * 3 if body.startswith(c * 3, j) else c
                j += len(quote)
                continue
            elif c == "\\":
                raise self.fail("f-string expression part cannot include a backslash", j)
            elif c == "#":
                raise self.fail("f-string expression part cannot include '#'", j)
            elif c in "([{":
                stack.append(_CLOSE[c])
            elif stack:
                if c in ")]}" and c != stack.pop():
                    raise self.fail(f"f-string: unmatched '{c}'", j)
            elif c == "}" or c == ":" or c == "!" and not body.startswith("!=", j):
                break
            elif c == "=" and body[j + 1:j + 2] != "=" and body[j - 1] not in "=!<>":
                break  # {x=}, not x == y, x <= y or x != y
            elif c in ")]":
                raise self.fail(f"f-string: unmatched '{c}'", j)
            j += 1
        expr_text = body[i + 1:j]
        if not expr_text.strip():
            raise self.fail("f-string: empty expression not allowed", j)
        line, col = self.where(i + 1)
        value = self.parse_expr(expr_text, line, col)
        out: list[str | FormattedValue] = []
        conversion = None
        if body[j] == "=":  # {x=}: the text of the expression, then its repr
            j += 1
            while j < end and body[j].isspace():
                j += 1
            out.append(body[i + 1:j])
        if j < end and body[j] == "!":
            if j + 1 >= end or body[j + 1] not in _CONVERSIONS or \
                    (j + 2 < end and body[j + 2] not in ":}"):
                raise self.fail("f-string: invalid conversion character: expected 's', 'r', "
                                "or 'a'", j + 1)
            conversion = body[j + 1]
            j += 2
        spec = None
        if j < end and body[j] == ":":
            k = j + 1
            nested = 0
            while k < end and (body[k] != "}" or nested):
                if body[k] == "{":
                    nested += 1
                elif body[k] == "}":
                    nested -= 1
                k += 1
            if k >= end:
                raise self.fail("f-string: expecting '}'", k)
            spec_parts = self.parts(j + 1, k, depth + 1)
            sl, sc = self.where(j)
            el, ec = self.where(k)
            spec = FString(tuple(spec_parts), Span(sl, sc, el, ec))
            j = k
        if j >= end or body[j] != "}":
            raise self.fail("f-string: expecting '}'", j)
        if out and conversion is None and spec is None:
            conversion = "r"
        sl, sc = self.where(i)
        el, ec = self.where(j + 1)
        out.append(FormattedValue(value, conversion, spec, Span(sl, sc, el, ec)))
        return out, j + 1
