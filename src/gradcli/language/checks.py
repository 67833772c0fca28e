"""The compiler's static checks and literal values: what is rejected before anything runs.

Messages are CPython 3.11's for the same text (``cannot assign to function call here. Maybe
you meant '==' instead of '='?``, ``'return' outside function``, ...).
"""

from __future__ import annotations

import sys
from typing import Any

from ..errors import ScriptSyntaxError, Span
from .program import (
    MAX_EXPR_DEPTH,
    Assign,
    AssignTo,
    Attribute,
    AugAssign,
    Binary,
    BoolOp,
    Break,
    Call,
    CallUnpack,
    ClassDef,
    Compare,
    CompFor,
    Comprehension,
    Continue,
    Delete,
    DictExpr,
    For,
    FormattedValue,
    FString,
    FunctionDef,
    Global,
    If,
    IfExp,
    Import,
    ImportFrom,
    Lambda,
    ListExpr,
    Name,
    Number,
    Return,
    SetExpr,
    Slice,
    Starred,
    String,
    Subscript,
    Try,
    Tuple,
    Unary,
    While,
    With,
)


def error(message: str, where: Any, hint: str | None = None) -> ScriptSyntaxError:
    """A syntax error at a Span, a token tuple, or anything with a ``span``."""
    if isinstance(where, Span):
        span = where
    elif type(where) is tuple:
        span = Span(where[2], where[3], where[2], where[4])
    else:
        span = where.span
    return ScriptSyntaxError(message, span=span, hint=hint)


class Kwarg:
    """``name=value`` inside a call's parentheses."""

    __slots__ = ("name", "span", "value")

    def __init__(self, name: str, value: Any, span: Span) -> None:
        self.name = name
        self.value = value
        self.span = span


class DoubleStar:
    """``**mapping`` inside a call's parentheses."""

    __slots__ = ("span", "value")

    def __init__(self, value: Any, span: Span) -> None:
        self.value = value
        self.span = span


class GenArg:
    """A generator expression written as a call's argument without its own parentheses."""

    __slots__ = ("span", "value")

    def __init__(self, value: Comprehension) -> None:
        self.value = value
        self.span = value.span


def single(x: Any) -> Any:
    """``x`` where a starred expression may not stand alone (``x = *a`` is an error)."""
    if type(x) is Starred:
        raise error("can't use starred expression here", x)
    return x


# ---- what may stand left of '=' ---------------------------------------------------------------

_COMPREHENSIONS = {"list": "list comprehension", "set": "set comprehension",
                   "dict": "dict comprehension", "gen": "generator expression"}


def _what(x: Any) -> tuple[str, bool]:
    """How CPython names an expression that cannot be assigned, and whether its assignment
    error adds "here. Maybe you meant '==' instead of '='?"."""
    t = type(x)
    if t is Number:
        if x.value is None or type(x.value) is bool:
            return str(x.value), False
        return ("ellipsis", True) if x.value is Ellipsis else ("literal", True)
    if t is String:
        return "literal", True
    if t is Call or t is CallUnpack:
        return "function call", True
    if t is Binary or (t is Unary and x.op != "not"):
        return "expression", True
    if t is BoolOp or t is Unary:
        return "expression", False
    if t is Compare:
        return "comparison", False
    if t is IfExp:
        return "conditional expression", False
    if t is Lambda:
        return "lambda", False
    if t is Comprehension:
        return _COMPREHENSIONS[x.kind], x.kind != "gen"
    if t is DictExpr:
        return "dict literal", True
    if t is SetExpr:
        return "set display", True
    if t is FString:
        return "f-string expression", True
    return "expression", True


def check_target(x: Any, statement: bool = False, starred_ok: bool = False) -> None:
    """Reject what cannot be assigned to (``statement``: the target of ``=``, whose messages
    suggest ``==``)."""
    t = type(x)
    if t is Name or t is Attribute or t is Subscript:
        return
    if t is Tuple or t is ListExpr:
        stars = [i for i in x.items if type(i) is Starred]
        if len(stars) > 1:
            raise error("multiple starred expressions in assignment", x)
        for item in x.items:
            check_target(item, statement, starred_ok=True)
        return
    if t is Starred:
        if not starred_ok:
            raise error("starred assignment target must be in a list or tuple", x)
        check_target(x.value, statement)
        return
    what, suggest = _what(x)
    if what in ("None", "True", "False"):
        raise error(f"cannot assign to {what}", x)
    tail = " here. Maybe you meant '==' instead of '='?" if statement and suggest else ""
    raise error(f"cannot assign to {what}{tail}", x)


def check_aug_target(x: Any) -> None:
    """Only a name, an attribute or a subscript can be updated with ``+=`` and the like."""
    t = type(x)
    if t is Name or t is Attribute or t is Subscript:
        return
    what = "tuple" if t is Tuple else "list" if t is ListExpr else \
        "starred" if t is Starred else _what(x)[0]
    raise error(f"'{what}' is an illegal expression for augmented assignment", x)


def check_del_target(x: Any) -> None:
    """What ``del`` accepts: names, attributes, subscripts, and tuples or lists of them."""
    t = type(x)
    if t is Name or t is Attribute or t is Subscript:
        return
    if t is Tuple or t is ListExpr:
        for item in x.items:
            check_del_target(item)
        return
    what = "starred" if t is Starred else _what(x)[0]
    raise error(f"cannot delete {what}", x)


def target_names(x: Any) -> list[str]:
    """The plain names an assignment target binds (``a, (b, *c)`` binds a, b and c)."""
    out: list[str] = []
    stack = [x]
    while stack:
        node = stack.pop()
        t = type(node)
        if t is Name:
            out.append(node.id)
        elif t is Tuple or t is ListExpr:
            stack.extend(reversed(node.items))
        elif t is Starred:
            stack.append(node.value)
    return out


# ---- nesting depth ----------------------------------------------------------------------------


def subexprs(e: Any) -> tuple[Any, ...]:
    """The expressions directly inside ``e`` (a call's function, arguments and keyword values)."""
    t = type(e)
    if t is Binary:
        return (e.left, e.right)
    if t is Unary:
        return (e.operand,)
    if t is Starred:
        return (e.value,)
    if t is Attribute:
        return (e.value,)
    if t is Call or t is CallUnpack:
        return (e.func, *e.args, *(v for _, v in e.kwargs))
    if t is Subscript:
        return (e.value, *e.index)
    if t is Slice:
        return tuple(p for p in (e.start, e.stop, e.step) if p is not None)
    if t is ListExpr or t is Tuple or t is SetExpr:
        return e.items
    if t is DictExpr:
        return (*(k for k in e.keys if k is not None), *e.values)
    if t is Compare:
        return e.operands
    if t is BoolOp:
        return e.values
    if t is IfExp:
        return (e.test, e.body, e.orelse)
    if t is Lambda:
        return (e.body, *e.params.defaults, *(d for d in e.params.kw_defaults if d))
    if t is Comprehension:
        return (e.element, *((e.value,) if e.value is not None else ()), *e.generators)
    if t is CompFor:
        return (e.target, e.iter, *e.ifs)
    if t is FString:
        return tuple(p for p in e.parts if type(p) is FormattedValue)
    if t is FormattedValue:
        return (e.value,) if e.spec is None else (e.value, e.spec)
    return ()


def check_depth(e: Any) -> None:
    """Reject expressions nested deeper than MAX_EXPR_DEPTH, without recursing.

    Each level of nesting takes at least one character, so a one-line expression no wider
    than the limit cannot be too deep: the walk runs only for the rare wide ones.
    """
    s = e.span  # (line, column, end line, end column): indexing is faster than the names
    if s[0] == s[2] and s[3] - s[1] <= MAX_EXPR_DEPTH:
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
        stack.extend((child, depth + 1) for child in subexprs(node))


# ---- statements in the wrong place ------------------------------------------------------------


_BLOCKS: dict[type, Any] = {
    If: lambda s: [*(b for _, b in s.branches), s.orelse],
    For: lambda s: (s.body, s.orelse),
    While: lambda s: (s.body, s.orelse),
    With: lambda s: (s.body,),
    Try: lambda s: (s.body, *(h.body for h in s.handlers), s.orelse, s.finalbody),
    ClassDef: lambda s: (s.body,),  # a scope of its own, but run where it stands
}


def blocks(s: Any) -> Any:
    """The statement blocks directly inside a compound statement (none for a simple one)."""
    f = _BLOCKS.get(type(s))
    return f(s) if f is not None else ()


def check_returns(body: list[Any] | tuple[Any, ...]) -> None:
    """Reject ``return`` outside a function (Python checks this after parsing, as here)."""
    get = _BLOCKS.get
    for s in body:
        t = type(s)
        if t is Return:
            raise error("'return' outside function", s)
        f = get(t)
        if f is not None:
            for b in f(s):
                check_returns(b)


def check_loop_jumps(body: list[Any] | tuple[Any, ...], in_loop: bool) -> None:
    """Reject ``break``/``continue`` outside a loop, with Python's messages."""
    get = _BLOCKS.get
    for s in body:
        t = type(s)
        if t is Break and not in_loop:
            raise error("'break' outside loop", s)
        if t is Continue and not in_loop:
            raise error("'continue' not properly in loop", s)
        if t is FunctionDef or t is ClassDef:
            check_loop_jumps(s.body, False)
        elif t is For or t is While:
            check_loop_jumps(s.body, True)
            check_loop_jumps(s.orelse, in_loop)
        else:
            f = get(t)
            if f is not None:
                for b in f(s):
                    check_loop_jumps(b, in_loop)


def check_star_imports(body: tuple[Any, ...]) -> None:
    """``from m import *`` only at the top level, as CPython says."""
    for s in body:
        if type(s) is ImportFrom and s.names[0][0] == "*":
            raise error("import * only allowed at module level", s)
        if type(s) is not FunctionDef:
            for b in blocks(s):
                check_star_imports(b)


def check_globals(body: tuple[Any, ...] | list[Any]) -> None:
    """A ``global`` after an assignment of the same name in the same scope is an error."""
    assigned: set[str] = set()

    def walk(stmts: tuple[Any, ...] | list[Any]) -> None:
        for s in stmts:
            t = type(s)
            if t is Global:
                for name in s.names:
                    if name in assigned:
                        raise error(f"name '{name}' is assigned to before global declaration", s)
            elif t is Assign or t is AugAssign:
                assigned.add(s.target)
            elif t is AssignTo:
                for target in s.targets:
                    assigned.update(target_names(target))
            elif t is For:
                assigned.update(target_names(s.target))
            elif t is FunctionDef or t is ClassDef:
                assigned.add(s.name)
                continue  # its body is checked when it is compiled
            elif t is Import or t is ImportFrom:
                assigned.update(a or n.split(".")[0] for n, a in s.names)
            elif t is Delete:
                for target in s.targets:
                    assigned.update(target_names(target))
            for b in blocks(s):
                walk(b)

    walk(body)


# ---- literals ---------------------------------------------------------------------------------


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


def overridable(s: Any) -> bool:
    """Whether ``--set`` can replace the literal of an assignment: ``x = <literal>`` or
    ``x = torch.tensor(<literal>, ...)`` (any call whose first argument is a literal)."""
    if not isinstance(s, Assign):
        return False
    if s.literal:
        return True
    v = s.value
    return isinstance(v, Call) and bool(v.args) and is_literal(v.args[0])


def is_literal(e: Any) -> bool:
    """True for a number or a (nested) list of numbers, with unary signs (docs/language.md).

    Iterative: it runs before the depth check, on expressions of any depth.
    """
    t = type(e)
    if t is not Number and t is not Unary and t is not ListExpr:  # most values: at once
        return False
    stack = [e]
    while stack:
        node = stack.pop()
        t = type(node)
        if t is Number:
            if type(node.value) is not int and type(node.value) is not float:
                return False
        elif t is Unary and (node.op == "-" or node.op == "+"):
            stack.append(node.operand)
        elif t is ListExpr:
            stack.extend(node.items)
        else:
            return False
    return True
