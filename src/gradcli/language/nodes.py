"""Fast construction of program nodes and their spans, for the compiler's reductions.

The parser builds about ten nodes and spans per line; these constructors write a frozen node's
slots directly, which is the largest saving in parse time (see ``fast``), and
``spanned`` ones make the hot nodes and their span (a named tuple) in one call. The very
hottest reductions (names, numbers, binary operators, ``name = value``) go one step further
and write their node's slots inline with ``new`` and the class's ``setters``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import Span
from . import program as P
from .program import (
    Attribute,
    AugAssign,
    Call,
    ExprStmt,
    Number,
    Stmt,
    Subscript,
    Unary,
)

Token = tuple  # (type, value, line, column, end_column); a token never spans lines


def fast(cls: type) -> Callable[..., Any]:
    """A positional constructor for a frozen node class that skips the frozen __init__.

    The generated __init__ of a frozen dataclass goes through object.__setattr__ per field
    (about 1 us per node); writing the slots directly is about 3x faster, and the
    parser builds ~10 nodes and spans per line, so this is a large share of parse time.
    """
    new = object.__new__
    setters = [getattr(cls, f).__set__ for f in cls.__match_args__]
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


def spanned(cls: type) -> Callable[..., Any]:
    """A positional constructor for a node class whose last field is ``span``: the other
    fields, then the span's line, column, end line and end column. The node and its span are
    made in one call (no frame for the span's own constructor)."""
    new = object.__new__
    *setters, set_span = [getattr(cls, f).__set__ for f in cls.__match_args__]
    if cls.__match_args__[-1] != "span":
        raise TypeError(f"{cls.__name__}'s last field is not its span")
    if len(setters) == 1:
        (s0,) = setters

        def make1(a: Any, line: int, col: int, end_line: int, end_col: int) -> Any:
            o = new(cls)
            s0(o, a)
            set_span(o, tuple_new(Span, (line, col, end_line, end_col)))
            return o

        return make1
    if len(setters) == 2:
        s0, s1 = setters

        def make2(a: Any, b: Any, line: int, col: int, end_line: int, end_col: int) -> Any:
            o = new(cls)
            s0(o, a)
            s1(o, b)
            set_span(o, tuple_new(Span, (line, col, end_line, end_col)))
            return o

        return make2
    s0, s1, s2 = setters

    def make3(a: Any, b: Any, c: Any, line: int, col: int, end_line: int, end_col: int) -> Any:
        o = new(cls)
        s0(o, a)
        s1(o, b)
        s2(o, c)
        set_span(o, tuple_new(Span, (line, col, end_line, end_col)))
        return o

    return make3


tuple_new = tuple.__new__  # Span is a named tuple: this is what its constructor calls
span = Span  # a named tuple: its own constructor is the fast one
number = spanned(Number)
unary = spanned(Unary)
call = fast(Call)
call_at = spanned(Call)
attribute = spanned(Attribute)
subscript = spanned(Subscript)
aug = fast(AugAssign)
expr_stmt = fast(ExprStmt)
assign_to = fast(P.AssignTo)


def setters(cls: type) -> tuple[Callable[[Any, Any], None], ...]:
    """The slot setters of a node class's fields, in order: the hottest reductions write a node
    with them inline (``object.__new__`` then one call per field), without the frame of a
    ``spanned`` constructor."""
    return tuple(getattr(cls, f).__set__ for f in cls.__match_args__)


new = object.__new__


def respan(node: Any, span: Span) -> Any:
    """A copy of expression ``node`` with another span (an expression node's last field)."""
    return type(node)(*node._values(node)[:-1], span)


def tok_span(t: Token) -> Span:
    """The span of one token."""
    return span(t[2], t[3], t[2], t[4])


def join(first: Any, last: Any) -> Span:
    """The span from the start of ``first`` to the end of ``last`` (tokens or nodes)."""
    if type(first) is tuple:
        line, col = first[2], first[3]
    else:
        line, col = first.span.line, first.span.column
    if type(last) is tuple:
        return span(line, col, last[2], last[4])
    s = last.span
    return span(line, col, s.end_line, s.end_column)


def flatten(items: list[Any]) -> list[Stmt]:
    """Statements from a mix of tokens, statement lists and statements."""
    out: list[Stmt] = []
    for x in items:
        t = type(x)
        if t is list:
            out.extend(x)
        elif t is not tuple:
            out.append(x)
    return out


__all__ = ["Token", "assign_to", "attribute", "aug", "call",
           "call_at", "expr_stmt", "fast", "flatten", "join", "new", "number", "respan",
           "setters", "span", "spanned", "subscript", "tok_span", "tuple_new", "unary"]
