"""The compiled program: small frozen dataclasses with source spans, built by the compiler.

Nothing here knows Lark. Every node carries a ``span`` (1-based line/column, end exclusive) that
covers the whole expression or statement, parentheses included. Guarantees the compiler gives
(SPEC §6): every expression tree is at most ``MAX_EXPR_DEPTH`` deep and blocks nest at most
``MAX_BLOCK_DEPTH`` deep, so passes that recurse over a program stay far from Python's limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Span

MAX_EXPR_DEPTH = 1000  # CPython compiles a 1,000-term sum, which is 1,000 deep
MAX_BLOCK_DEPTH = 100


# ---- expressions ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Number:
    """A number, bool or None literal: ``1``, ``2.5``, ``1e-3``, ``True``, ``None``."""

    value: int | float | bool | None
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
    | Attribute
    | Subscript
)


# ---- statements -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Assign:
    """``target = value``; ``literal`` marks a bare numeric literal right side (SPEC §2.4)."""

    target: str
    value: Expr
    literal: bool
    span: Span


@dataclass(frozen=True, slots=True)
class AugAssign:
    """``target op= value``: in place on a tensor (``add_``, ``pow_``), else a rebinding."""

    target: str
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
    """``for var in range(*args):`` body; ``args`` are the 1 to 3 range arguments."""

    var: str
    args: tuple[Expr, ...]
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class While:
    """``while test:`` body."""

    test: Expr
    body: tuple[Stmt, ...]
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
    """``with no_grad():`` / ``with enable_grad():``; ``context`` is the Call."""

    context: Expr
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class FunctionDef:
    """``def name(params):`` body; ``defaults`` belong to the last parameters."""

    name: str
    params: tuple[str, ...]
    body: tuple[Stmt, ...]
    defaults: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Return:
    """``return value`` or a bare ``return`` (value None)."""

    value: Expr | None
    span: Span


@dataclass(frozen=True, slots=True)
class Pass:
    """``pass``."""

    span: Span


Stmt = (Assign | AugAssign | ExprStmt | For | While | If | With | FunctionDef | Return | Pass
        | Break | Continue)


@dataclass(frozen=True, slots=True)
class Program:
    """A whole script: its statements, the (normalised) source text and the file name."""

    body: tuple[Stmt, ...]
    source: str
    filename: str
