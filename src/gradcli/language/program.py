"""The compiled program: small frozen dataclasses with source spans, built by the compiler.

Nothing here knows Lark. Every node carries a ``span`` (1-based line/column, end exclusive) that
covers the whole expression or statement, parentheses included. Guarantees the compiler gives
(SPEC §6): every expression tree is at most ``MAX_EXPR_DEPTH`` deep and blocks nest at most
``MAX_BLOCK_DEPTH`` deep, so passes that recurse over a program stay far from Python's limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import Span

MAX_EXPR_DEPTH = 1000  # CPython compiles a 1,000-term sum, which is 1,000 deep
MAX_BLOCK_DEPTH = 100


# ---- expressions ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Number:
    """A number, bool, None or Ellipsis literal: ``1``, ``2.5``, ``1e-3``, ``True``, ``...``."""

    value: Any
    span: Span


@dataclass(frozen=True, slots=True)
class String:
    """A string literal (escapes already decoded); used as print labels and file names."""

    value: str
    span: Span


@dataclass(frozen=True, slots=True)
class Name:
    """A reference to a variable or a built-in, resolved at run time."""

    id: str
    span: Span


@dataclass(frozen=True, slots=True)
class ListExpr:
    """A list literal ``[a, b, ...]``."""

    items: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Unary:
    """A prefix operator: ``-x``, ``+x`` or ``not x``."""

    op: str
    operand: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class Binary:
    """An arithmetic operator: one of ``+ - * / // % @ **``."""

    op: str
    left: Expr
    right: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class IfExp:
    """``body if test else orelse``."""

    test: Expr
    body: Expr
    orelse: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class Compare:
    """A (possibly chained) comparison ``a < b <= c``: ``ops[i]`` sits between operands i, i+1."""

    ops: tuple[str, ...]
    operands: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class BoolOp:
    """``a and b and ...`` or ``a or b or ...`` (Python's short-circuit semantics)."""

    op: str
    values: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Call:
    """A call ``f(a, k=v)``; a method call is a call whose ``func`` is an Attribute."""

    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    span: Span


@dataclass(frozen=True, slots=True)
class CallUnpack:
    """A call with ``*iterable`` among ``args`` or ``**mapping`` among ``kwargs`` (name None)."""

    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str | None, Expr], ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Attribute:
    """An attribute access ``x.grad``."""

    value: Expr
    attr: str
    span: Span


@dataclass(frozen=True, slots=True)
class Slice:
    """A slice ``start:stop:step`` inside a subscript; each part may be missing (None)."""

    start: Expr | None
    stop: Expr | None
    step: Expr | None
    span: Span


@dataclass(frozen=True, slots=True)
class Subscript:
    """Indexing ``x[0]``, ``x[:, 1]``: one entry per comma-separated index."""

    value: Expr
    index: tuple[Expr | Slice, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Tuple:
    """A tuple display ``a, b`` or ``(a, b)``; also an unpacking target."""

    items: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Starred:
    """``*x`` in a call, a display or an unpacking target."""

    value: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class DictExpr:
    """A dict display ``{k: v, **d}``; a key of None marks a ``**`` unpacking of its value."""

    keys: tuple[Expr | None, ...]
    values: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class SetExpr:
    """A set display ``{a, b}``."""

    items: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class CompFor:
    """One ``for target in iter if cond ...`` clause of a comprehension."""

    target: Expr
    iter: Expr
    ifs: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Comprehension:
    """A list, set, dict comprehension or generator expression (``kind``); ``value`` for dicts."""

    kind: str
    element: Expr
    value: Expr | None
    generators: tuple[CompFor, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Params:
    """Parameters: names (defaults for the last), ``*args``, keyword-only ones, ``**kwargs``."""

    names: tuple[str, ...]
    defaults: tuple[Expr, ...]
    vararg: str | None
    kwonly: tuple[str, ...]
    kw_defaults: tuple[Expr | None, ...]
    kwarg: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class Lambda:
    """``lambda params: body``."""

    params: Params
    body: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class FormattedValue:
    """One ``{value!conversion:spec}`` field of an f-string."""

    value: Expr
    conversion: str | None
    spec: FString | None
    span: Span


@dataclass(frozen=True, slots=True)
class FString:
    """An f-string: literal text and formatted fields, in order."""

    parts: tuple[str | FormattedValue, ...]
    span: Span


Expr = (
    IfExp
    | Number
    | String
    | Name
    | ListExpr
    | Unary
    | Binary
    | Compare
    | BoolOp
    | Call
    | CallUnpack
    | Attribute
    | Subscript
    | Tuple
    | Starred
    | DictExpr
    | SetExpr
    | Comprehension
    | Lambda
    | FString
)


# ---- statements -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Assign:
    """``name = value``; ``literal`` marks a bare numeric literal right side (SPEC §2.4)."""

    target: str
    value: Expr
    literal: bool
    span: Span


@dataclass(frozen=True, slots=True)
class AssignTo:
    """``a = b = v``, ``a, b = v``, ``x.grad = v``, ``x[0] = v``; ``literal`` as for Assign."""

    targets: tuple[Expr, ...]
    value: Expr
    literal: bool
    span: Span


@dataclass(frozen=True, slots=True)
class AugAssign:
    """``name op= value``: in place on a tensor (``add_``, ``pow_``), else a rebinding."""

    target: str
    op: str
    value: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class AugAssignTo:
    """``x.attr op= value`` or ``x[i] op= value``: read, update in place, store back."""

    target: Expr
    op: str
    value: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class ExprStmt:
    """An expression evaluated for its effect: ``L.backward()``, ``print(x)``."""

    value: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class For:
    """``for target in iter:`` body, then ``else:`` orelse when no ``break`` ended it."""

    target: Expr
    iter: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class While:
    """``while test:`` body, then ``else:`` orelse when no ``break`` ended it."""

    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Break:
    """``break`` (inside a loop)."""

    span: Span


@dataclass(frozen=True, slots=True)
class Continue:
    """``continue`` (inside a loop)."""

    span: Span


@dataclass(frozen=True, slots=True)
class If:
    """``if``/``elif`` branches as (condition, body) pairs, then the ``else`` body (maybe empty)."""

    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class With:
    """``with context as target:`` body (``with a, b:`` is nested Withs); target may be None."""

    context: Expr
    target: Expr | None
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class FunctionDef:
    """``def name(params):`` body, under its decorators (outermost first)."""

    name: str
    params: Params
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Return:
    """``return value`` or a bare ``return`` (value None)."""

    value: Expr | None
    span: Span


@dataclass(frozen=True, slots=True)
class Pass:
    """``pass`` (and an annotation without a value, ``x: int``)."""

    span: Span


@dataclass(frozen=True, slots=True)
class Handler:
    """``except type as name:`` body; type None for a bare ``except:``."""

    type: Expr | None
    name: str | None
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Try:
    """``try:`` body, its ``except`` handlers, ``else:`` and ``finally:`` bodies."""

    body: tuple[Stmt, ...]
    handlers: tuple[Handler, ...]
    orelse: tuple[Stmt, ...]
    finalbody: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Raise:
    """``raise exc from cause``; a bare ``raise`` re-raises (exc None)."""

    exc: Expr | None
    cause: Expr | None
    span: Span


@dataclass(frozen=True, slots=True)
class Assert:
    """``assert test, msg``."""

    test: Expr
    msg: Expr | None
    span: Span


@dataclass(frozen=True, slots=True)
class Delete:
    """``del a, b[0], c.attr``."""

    targets: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Global:
    """``global a, b`` inside a function."""

    names: tuple[str, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Import:
    """``import a.b.c as d, e``: (dotted module, alias or None) pairs."""

    names: tuple[tuple[str, str | None], ...]
    span: Span


@dataclass(frozen=True, slots=True)
class ImportFrom:
    """``from a.b import c as d, e`` (or ``*``): the module and (name, alias or None) pairs."""

    module: str
    names: tuple[tuple[str, str | None], ...]
    span: Span


Stmt = (Assign | AssignTo | AugAssign | AugAssignTo | ExprStmt | For | While | If | With
        | FunctionDef | Return | Pass | Break | Continue | Try | Raise | Assert | Delete | Global
        | Import | ImportFrom)


@dataclass(frozen=True, slots=True)
class Program:
    """A whole script: its statements, the (normalised) source text and the file name."""

    body: tuple[Stmt, ...]
    source: str
    filename: str
