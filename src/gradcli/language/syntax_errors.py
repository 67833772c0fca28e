"""Syntax errors in words: what the parser was stuck on, said the way Python says it.

The parser hands over the token it could not shift, the terminals the LALR state expected,
and the value stack (tokens of statements still open, such as an ``if`` header waiting for
its block). These functions turn that into one ``ScriptSyntaxError`` with a 1-based span.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ScriptSyntaxError, Span

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKETS = re.compile(r"#[^\n]*|'(?:[^'\\\n]|\\.)*'?|\"(?:[^\"\\\n]|\\.)*\"?|[()\[\]]")

_NO_STATEMENT = {
    "nonlocal": "nonlocal",
    "yield": "generators",
    "async": "async",
    "await": "async",
}
RESERVED_WORDS = frozenset(_NO_STATEMENT)
# The sandbox (docs/language.md and docs/commands.md): the names that reach the interpreter's internals, and the parts of
# Python's object machinery gradcli does not have, refused wherever a script names them (the
# lexer) or asks for one by a string (getattr, str.format's fields: script/classes.refuse).
_INTERNALS = frozenset({
    "__class__", "__dict__", "__globals__", "__subclasses__", "__bases__", "__base__",
    "__mro__", "__code__", "__builtins__", "__closure__", "__func__", "__self__",
    "__reduce__", "__reduce_ex__", "__weakref__", "__traceback__", "__import__", "__loader__",
    "__spec__", "__file__", "__defaults__", "__kwdefaults__", "__wrapped__", "__objclass__",
    "__getstate__", "__setstate__", "__path__", "__package__", "__cached__", "__orig_bases__",
    "__type_params__", "__annotations__", "__qualname__", "__module__", "__sizeof__",
})
_UNSUPPORTED = frozenset({
    "__new__", "__init_subclass__", "__subclasshook__", "__getattribute__", "__prepare__",
    "__set_name__", "__slots__", "__class_getitem__", "__instancecheck__",
    "__subclasscheck__", "__del__", "__dir__", "__format__", "__setattr__", "__delattr__",
})
REFUSED_NAMES = _INTERNALS | _UNSUPPORTED
_HINTS = {
    "yield": "build a list and return it",
}
_HEADERS = {
    "IF": "'if' statement",
    "ELIF": "'elif' statement",
    "ELSE": "'else' statement",
    "FOR": "'for' statement",
    "WHILE": "'while' statement",
    "WITH": "'with' statement",
    "DEF": "function definition",
    "CLASS": "class definition",
    "TRY": "'try' statement",
    "EXCEPT": "'except' statement",
    "FINALLY": "'finally' statement",
}
_EXPR_NEEDED = {"NAME", "NUMBER", "LPAR"}
_EXPR_START = {
    "NAME",
    "NUMBER",
    "STRING",
    "TRUE",
    "FALSE",
    "NONE",
    "LPAR",
    "LSQB",
    "PLUS",
    "MINUS",
    "NOT",
    "LBRACE",
    "LAMBDA",
    "TILDE",
    "ELLIPSIS",
    "LONGSTRING",
}


def _err(
    message: str, line: int, col: int, end: int | None = None, hint: str | None = None,
    kind: str | None = None,
) -> ScriptSyntaxError:
    return ScriptSyntaxError(message, kind=kind, span=Span(line, col, line, end or col + 1),
                             hint=hint)


def bad_character(text: str, pos: int, line: int, line_start: int) -> ScriptSyntaxError:
    """No terminal matches at ``pos``: say what is there instead."""
    while text[pos] in " \t\f":
        pos += 1
    col = pos - line_start + 1
    c = text[pos]
    if text.startswith("__", pos):
        end = col + len(_WORD.match(text, pos).group())
        return _err("names starting with '__' are not allowed", line, col, end)
    if c in "'\"":
        if pos >= 2 and text.startswith(c * 3, pos - 2):  # lexed as '' then an open '
            last = line + text.count("\n", pos, len(text.rstrip("\n")))
            return _err(f"unterminated triple-quoted string literal (detected at line {last})",
                        line, col - 2, col + 1)
        return _err(f"unterminated string literal (detected at line {line})", line, col)
    if c == "\\":
        return _err("unexpected character after line continuation character", line, col)
    if c in "!$?`":
        return _err("invalid syntax", line, col)
    if c.isprintable() and c.isascii():
        return _err(f"invalid character '{c}'", line, col)
    return _err(f"invalid character {c!r} (U+{ord(c):04X})", line, col)


def _reserved(tok: tuple) -> ScriptSyntaxError:
    """A Python keyword that the language does not have."""
    w, line, col, end = tok[1], tok[2], tok[3], tok[4]
    return _err(
        f"unsupported statement '{w}' (gradcli scripts have no {_NO_STATEMENT[w]})",
        line,
        col,
        end,
        _HINTS.get(w),
    )


def refused_message(name: str) -> str:
    """Why a script may not name ``name`` (one of REFUSED_NAMES)."""
    if name in _UNSUPPORTED:
        return f"gradcli does not support '{name}'"
    return f"gradcli does not give scripts '{name}': it reaches the interpreter's internals"


def refused_hint(name: str) -> str | None:
    """What to write instead of a refused name, where there is something."""
    return {"__class__": "type(x) is x's class", "__dict__": "vars() is not available either; "
            "read the attributes by name (getattr)", "__qualname__": "__name__ is available",
            "__module__": "classes are in '__main__'"}.get(name)


def never_closed(opener: tuple) -> ScriptSyntaxError:
    """An opening bracket with no closing one before the end of the script."""
    return _err(f"'{opener[1]}' was never closed", opener[2], opener[3])


def _still_open(brackets: list[tuple], text: str, pos: int) -> tuple | None:
    """The innermost bracket still open at the end of the text, scanning on from ``pos``."""
    stack: list[Any] = list(brackets)
    for m in _BRACKETS.finditer(text, pos):
        s = m.group()
        if s in "([":
            stack.append(m.start())
        elif s in ")]" and stack:
            stack.pop()
    if not stack:
        return None
    top = stack[-1]
    if isinstance(top, int):
        line = text.count("\n", 0, top) + 1
        col = top - (text.rfind("\n", 0, top) + 1) + 1
        return ("LPAR", text[top], line, col, col + 1)
    return top


def _is_token(v: Any) -> bool:
    """Whether a value-stack entry is a token (a block's statements are a tuple too)."""
    return type(v) is tuple and len(v) == 5 and type(v[0]) is str


def _describe(tok: tuple) -> str:
    kind, value = tok[0], tok[1]
    if kind == "NAME":
        return f"name '{value}'"
    if kind == "NUMBER":
        return f"number {value}"
    if kind == "STRING":
        return f"string {value if len(value) <= 24 else value[:20] + '...' + value[-1]}"
    return {
        "_NEWLINE": "end of line",
        "$END": "end of file",
        "_INDENT": "indent",
        "_DEDENT": "unindent",
    }.get(kind, f"'{value}'")


def unexpected_token(
    tok: tuple, expected: set[str], values: list[Any], brackets: list[tuple], text: str, pos: int
) -> ScriptSyntaxError:
    """The parser cannot go on at ``tok``: explain why, most specific reason first."""
    if brackets:
        opener = _still_open(brackets, text, pos)
        if opener is not None:
            return never_closed(opener)
    kind, line, col = tok[0], tok[2], max(tok[3], 1)  # a dedent to no indentation: CPython's
    end = max(tok[4], col + 1)                        # column 0 is the line's first column here
    if kind == "_INDENT":
        return _err("unexpected indent", line, col, kind="IndentationError")
    if kind == "RESERVED":
        return _reserved(tok)
    if kind == "REFUSED":
        return _err(refused_message(tok[1]), line, col, end, refused_hint(tok[1]))
    if "_INDENT" in expected:
        header = next((v for v in reversed(values) if _is_token(v) and v[0] in _HEADERS), None)
        after = f" after {_HEADERS[header[0]]} on line {header[2]}" if header else ""
        return _err(f"expected an indented block{after}", line, col, end,
                    kind="IndentationError")
    prev = values[-1] if values and _is_token(values[-1]) else None
    adjacent = prev is not None and prev[2] == line and prev[4] == col
    if kind == "EQUAL":
        hint = "a keyword argument is name=value; " if brackets else ""
        return _err("invalid syntax: unexpected '='", line, col, end, hint + "compare with '=='")
    if "ELSE" in expected and "COLON" not in expected and kind in ("_NEWLINE", "$END", "RPAR"):
        return _err("expected 'else'", line, col, end,
                    "a conditional expression reads: a if condition else b")
    if ("COLON" in expected and kind in ("_NEWLINE", "$END")) or expected == {"COLON"}:
        return _err("expected ':'", line, col)
    if kind == "NAME" and adjacent and prev[0] == "NUMBER":
        return _err(
            "invalid number literal",
            line,
            prev[3],
            end,
            "only decimal numbers such as 12, 0.5 or 1e-3 are supported",
        )
    for terminal, word in (("IN", "'in'"), ("NAME", "a name"), ("LPAR", "'('")):
        if expected == {terminal}:
            return _err(f"expected {word}", line, col, end)
    if kind in ("ELSE", "ELIF"):
        return _err(
            f"unexpected '{tok[1]}' (no 'if' before it at this indentation)", line, col, end
        )
    if kind in _HEADERS and prev is not None and prev[0] in ("SEMICOLON", "COLON"):
        return _err(f"'{tok[1]}' must start on a new line", line, col, end)
    if _EXPR_NEEDED <= expected and kind not in _EXPR_START:
        return _err("expected an expression", line, col, end)
    return _err(f"invalid syntax: unexpected {_describe(tok)}", line, col, end)
