"""The compiler's static checks and literal values: what is rejected before anything runs."""

from __future__ import annotations

import re
import sys
from typing import Any

from ..errors import ScriptSyntaxError, Span
from .program import (
    MAX_EXPR_DEPTH,
    Attribute,
    Binary,
    BoolOp,
    Call,
    Compare,
    Expr,
    Break,
    Continue,
    For,
    FunctionDef,
    While,
    If,
    IfExp,
    ListExpr,
    Name,
    Number,
    Return,
    Slice,
    Subscript,
    Unary,
    With,
)

CONTEXTS = ("no_grad", "enable_grad")  # the only context managers `with` accepts


def error(message: str, where: Any, hint: str | None = None) -> ScriptSyntaxError:
    """A syntax error at a Span, a token tuple, or anything with a ``span``."""
    if isinstance(where, Span):
        span = where
    elif type(where) is tuple:
        span = Span(where[2], where[3], where[2], where[4])
    else:
        span = where.span
    return ScriptSyntaxError(message, span=span, hint=hint)


# ---- what the compiler rejects -------------------------------------------------------------


class TupleSyntax:
    """``a, b`` somewhere an expression list may stand; never part of a program."""

    __slots__ = ("items", "span")

    def __init__(self, items: list[Any], span: Span) -> None:
        self.items = items
        self.span = span


class Kwarg:
    """``name=value`` inside a call's parentheses."""

    __slots__ = ("name", "span", "value")

    def __init__(self, name: str, value: Expr, span: Span) -> None:
        self.name = name
        self.value = value
        self.span = span


def single(x: Any) -> Expr:
    """``x`` as a single expression: a bare tuple is an error."""
    if type(x) is TupleSyntax:
        raise error("tuples are not supported", x, "use a list [a, b] or separate statements; "
                    "a shape is written zeros(2, 3) or zeros([2, 3])")
    return x


def assign_target(x: Any) -> str:
    """The name an assignment binds, or a clear error for anything else."""
    t = type(x)
    if t is Name:
        return x.id
    if t is Number and (x.value is None or type(x.value) is bool):
        raise error(f"cannot assign to {x.value}", x)
    if t is Subscript:
        hint = "gradcli assigns names only; item assignment (x[0] = ...) is not supported"
    elif t is Attribute:
        hint = "gradcli assigns names only; attributes such as x.grad cannot be assigned"
    elif t is TupleSyntax:
        hint = "assign one name per statement: a = 1; b = 2"
    else:
        hint = "only a plain name can stand left of '='"
    raise error("invalid assignment target", x, hint)


# ---- nesting depth ----------------------------------------------------------------------------


def _subexprs(e: Any) -> tuple[Any, ...]:
    t = type(e)
    if t is Binary:
        return (e.left, e.right)
    if t is Unary:
        return (e.operand,)
    if t is Attribute:
        return (e.value,)
    if t is Call:
        return (e.func, *e.args, *(v for _, v in e.kwargs))
    if t is Subscript:
        return (e.value, *e.index)
    if t is Slice:
        return tuple(p for p in (e.start, e.stop, e.step) if p is not None)
    if t is ListExpr:
        return e.items
    if t is Compare:
        return e.operands
    if t is BoolOp:
        return e.values
    if t is IfExp:
        return (e.test, e.body, e.orelse)
    return ()


def check_depth(e: Any) -> None:
    """Reject expressions nested deeper than MAX_EXPR_DEPTH, without recursing.

    Each level of nesting takes at least one character, so a one-line expression no wider
    than the limit cannot be too deep: the walk runs only for the rare wide ones.
    """
    s = e.span
    if s.line == s.end_line and s.end_column - s.column <= MAX_EXPR_DEPTH:
        return
    stack = [(e, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_EXPR_DEPTH:
            raise error(
                f"expression nested too deeply (limit {MAX_EXPR_DEPTH})",
                e,
                "split it into several statements with intermediate names",
            )
        stack.extend((child, depth + 1) for child in _subexprs(node))


def check_returns(body: list[Any] | tuple[Any, ...]) -> None:
    """Reject ``return`` outside a function (Python checks this after parsing, as here)."""
    for s in body:
        t = type(s)
        if t is Return:
            raise error("'return' outside function", s)
        if t is If:
            for _, branch in s.branches:
                check_returns(branch)
            check_returns(s.orelse)
        elif t is For or t is While or t is With:
            check_returns(s.body)


def check_loop_jumps(body: list[Any] | tuple[Any, ...], in_loop: bool) -> None:
    """Reject ``break``/``continue`` outside a loop, with Python's messages."""
    for s in body:
        t = type(s)
        if t is Break and not in_loop:
            raise error("'break' outside loop", s)
        if t is Continue and not in_loop:
            raise error("'continue' not properly in loop", s)
        if t is If:
            for _, branch in s.branches:
                check_loop_jumps(branch, in_loop)
            check_loop_jumps(s.orelse, in_loop)
        elif t is For or t is While:
            check_loop_jumps(s.body, True)
        elif t is With:
            check_loop_jumps(s.body, in_loop)
        elif t is FunctionDef:
            check_loop_jumps(s.body, False)


# ---- literals ---------------------------------------------------------------------------------

_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r", "0": "\0"}
_ESCAPE_RE = re.compile(r"\\(.)")


def string_value(t: tuple) -> str:
    """The text of a STRING token, its simple escapes decoded."""
    body = t[1][1:-1]
    if "\\" not in body:
        return body
    for m in _ESCAPE_RE.finditer(body):
        if m.group(1) not in _ESCAPES:
            col = t[3] + 1 + m.start()
            raise error(
                f"unsupported escape sequence '\\{m.group(1)}'",
                Span(t[2], col, t[2], col + 2),
                "strings support \\\\ \\' \\\" \\n \\t \\r \\0; write '\\\\' for a backslash",
            )
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(1)], body)


def number_value(t: tuple) -> int | float:
    """The value of a NUMBER token: an int unless it has a point or an exponent."""
    v = t[1]
    if "." in v or "e" in v or "E" in v:
        return float(v)
    if v[0] == "0" and len(v) > 1 and v.strip("0_"):
        raise error("leading zeros in decimal integer literals are not permitted", t)
    try:
        return int(v)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits())
        digits = len(v.replace("_", ""))
        raise error(f"integer literal too large: {digits:,} digits, the limit is "
                    f"{sys.get_int_max_str_digits():,}", t,
                    "write it in floating point (1e4999)") from None


def is_literal(e: Any) -> bool:
    """True for a number or a (nested) list of numbers, with unary signs (SPEC §2.4).

    Iterative: it runs before the depth check, on expressions of any depth.
    """
    stack = [e]
    while stack:
        node = stack.pop()
        t = type(node)
        if t is Number:
            if type(node.value) is not int and type(node.value) is not float:
                return False
        elif t is Unary and node.op != "not":
            stack.append(node.operand)
        elif t is ListExpr:
            stack.extend(node.items)
        else:
            return False
    return True
