"""The compiled program: small frozen records with source spans, built by the compiler.

Each node class is a slots class made by ``node`` rather than ``dataclass(frozen=True)``: the
fields in order (``__match_args__``), equality, hash and repr by value, and assignment refused
with ``FrozenInstanceError``, but its methods are shared functions instead of source that
``dataclass`` compiles for each class at import (about 280 functions, 14 ms of every start-up),
and no dataclass processing.  A node is built positionally, ``Name("x", span)``, as the
compiler and ``nodes.py`` build them.

Nothing here knows Lark. Every node carries a ``span`` (1-based line/column, end exclusive) that
covers the whole expression or statement, parentheses included. Guarantees the compiler gives
(docs/commands.md): every expression tree is at most ``MAX_EXPR_DEPTH`` deep and blocks nest at most
``MAX_BLOCK_DEPTH`` deep, so passes that recurse over a program stay far from Python's limit.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from operator import attrgetter
from typing import Any

from ..errors import Span

MAX_EXPR_DEPTH = 1000  # CPython compiles a 1,000-term sum, which is 1,000 deep
MAX_BLOCK_DEPTH = 100


class _Node:
    """What every node shares: frozen fields, and equality, hash and repr by field values."""

    __slots__ = ()
    _values: Any  # attrgetter of the class's fields, set by ``node``

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values(self) == self._values(other)  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __repr__(self) -> str:
        names = self.__match_args__  # type: ignore[attr-defined]
        return f"{type(self).__qualname__}(" + ", ".join(
            f"{n}={getattr(self, n)!r}" for n in names) + ")"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[type, tuple]:  # copy and pickle: built again from its values
        return type(self), tuple(getattr(self, n) for n in self.__match_args__)  # type: ignore


def node(cls: type) -> type:
    """A frozen slots class of ``cls``'s annotated fields, in order (``__match_args__``), with a
    positional ``__init__`` and ``_Node``'s equality, hash and repr by value.

    Made directly rather than by ``dataclasses``: a slots dataclass is processed and made a
    second time at every start of the process, for each of the 47 node classes."""
    if _Node not in cls.__bases__:
        raise TypeError(f"{cls.__name__} must derive from _Node")
    names = tuple(cls.__annotations__)
    body = {k: v for k, v in cls.__dict__.items()
            if k not in names and k not in ("__dict__", "__weakref__")}
    new = type(cls.__name__, cls.__bases__, {**body, "__slots__": names,
                                             "__match_args__": names})
    new._values = attrgetter(*names)  # one field: its value, else the tuple of values
    init = _init([getattr(new, n).__set__ for n in names], cls.__qualname__)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    new.__init__ = init
    return new


def _init(setters: list[Any], name: str) -> Any:
    """``__init__(self, *values)``: each value stored through its slot (the slots' own setters
    go around the frozen ``__setattr__``, as the generated ``__init__`` of a frozen dataclass
    does through ``object.__setattr__``)."""
    if len(setters) == 2:
        s0, s1 = setters

        def init2(self: Any, a: Any, b: Any) -> None:
            s0(self, a)
            s1(self, b)

        return init2
    if len(setters) == 3:
        s0, s1, s2 = setters

        def init3(self: Any, a: Any, b: Any, c: Any) -> None:
            s0(self, a)
            s1(self, b)
            s2(self, c)

        return init3
    if len(setters) == 4:
        s0, s1, s2, s3 = setters

        def init4(self: Any, a: Any, b: Any, c: Any, d: Any) -> None:
            s0(self, a)
            s1(self, b)
            s2(self, c)
            s3(self, d)

        return init4
    count = len(setters)

    def init(self: Any, *values: Any) -> None:
        if len(values) != count:
            raise TypeError(f"{name}() takes {count} positional arguments but "
                            f"{len(values)} were given")
        for set_, value in zip(setters, values):
            set_(self, value)

    return init


# ---- expressions ------------------------------------------------------------------------------


@node
class Number(_Node):
    """A number, bool, None or Ellipsis literal: ``1``, ``2.5``, ``1e-3``, ``True``, ``...``."""

    value: Any
    span: Span


@node
class String(_Node):
    """A string literal (escapes already decoded); used as print labels and file names."""

    value: str
    span: Span


@node
class Name(_Node):
    """A reference to a variable or a built-in, resolved at run time."""

    id: str
    span: Span


@node
class ListExpr(_Node):
    """A list literal ``[a, b, ...]``."""

    items: tuple[Expr, ...]
    span: Span


@node
class Unary(_Node):
    """A prefix operator: ``-x``, ``+x`` or ``not x``."""

    op: str
    operand: Expr
    span: Span


@node
class Binary(_Node):
    """An arithmetic operator: one of ``+ - * / // % @ **``."""

    op: str
    left: Expr
    right: Expr
    span: Span


@node
class IfExp(_Node):
    """``body if test else orelse``."""

    test: Expr
    body: Expr
    orelse: Expr
    span: Span


@node
class Compare(_Node):
    """A (possibly chained) comparison ``a < b <= c``: ``ops[i]`` sits between operands i, i+1."""

    ops: tuple[str, ...]
    operands: tuple[Expr, ...]
    span: Span


@node
class BoolOp(_Node):
    """``a and b and ...`` or ``a or b or ...`` (Python's short-circuit semantics)."""

    op: str
    values: tuple[Expr, ...]
    span: Span


@node
class Call(_Node):
    """A call ``f(a, k=v)``; a method call is a call whose ``func`` is an Attribute."""

    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    span: Span


@node
class CallUnpack(_Node):
    """A call with ``*iterable`` among ``args`` or ``**mapping`` among ``kwargs`` (name None)."""

    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str | None, Expr], ...]
    span: Span


@node
class Attribute(_Node):
    """An attribute access ``x.grad``."""

    value: Expr
    attr: str
    span: Span


@node
class Slice(_Node):
    """A slice ``start:stop:step`` inside a subscript; each part may be missing (None)."""

    start: Expr | None
    stop: Expr | None
    step: Expr | None
    span: Span


@node
class Subscript(_Node):
    """Indexing ``x[0]``, ``x[:, 1]``: one entry per comma-separated index."""

    value: Expr
    index: tuple[Expr | Slice, ...]
    span: Span


@node
class Tuple(_Node):
    """A tuple display ``a, b`` or ``(a, b)``; also an unpacking target."""

    items: tuple[Expr, ...]
    span: Span


@node
class Starred(_Node):
    """``*x`` in a call, a display or an unpacking target."""

    value: Expr
    span: Span


@node
class DictExpr(_Node):
    """A dict display ``{k: v, **d}``; a key of None marks a ``**`` unpacking of its value."""

    keys: tuple[Expr | None, ...]
    values: tuple[Expr, ...]
    span: Span


@node
class SetExpr(_Node):
    """A set display ``{a, b}``."""

    items: tuple[Expr, ...]
    span: Span


@node
class CompFor(_Node):
    """One ``for target in iter if cond ...`` clause of a comprehension."""

    target: Expr
    iter: Expr
    ifs: tuple[Expr, ...]
    span: Span


@node
class Comprehension(_Node):
    """A list, set, dict comprehension or generator expression (``kind``); ``value`` for dicts."""

    kind: str
    element: Expr
    value: Expr | None
    generators: tuple[CompFor, ...]
    span: Span


@node
class Params(_Node):
    """Parameters: names (defaults for the last), ``*args``, keyword-only ones, ``**kwargs``."""

    names: tuple[str, ...]
    defaults: tuple[Expr, ...]
    vararg: str | None
    kwonly: tuple[str, ...]
    kw_defaults: tuple[Expr | None, ...]
    kwarg: str | None
    span: Span


@node
class SuperCall(_Node):
    """``super()`` without arguments (the method's class and first argument)."""

    span: Span


@node
class Lambda(_Node):
    """``lambda params: body``."""

    params: Params
    body: Expr
    span: Span


@node
class FormattedValue(_Node):
    """One ``{value!conversion:spec}`` field of an f-string."""

    value: Expr
    conversion: str | None
    spec: FString | None
    span: Span


@node
class FString(_Node):
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
    | SuperCall
)


# ---- statements -------------------------------------------------------------------------------


@node
class Assign(_Node):
    """``name = value``; ``literal`` marks a bare numeric literal right side (docs/language.md)."""

    target: str
    value: Expr
    literal: bool
    span: Span


@node
class AssignTo(_Node):
    """``a = b = v``, ``a, b = v``, ``x.grad = v``, ``x[0] = v``; ``literal`` as for Assign."""

    targets: tuple[Expr, ...]
    value: Expr
    literal: bool
    span: Span


@node
class AugAssign(_Node):
    """``name op= value``: in place on a tensor (``add_``, ``pow_``), else a rebinding."""

    target: str
    op: str
    value: Expr
    span: Span


@node
class AugAssignTo(_Node):
    """``x.attr op= value`` or ``x[i] op= value``: read, update in place, store back."""

    target: Expr
    op: str
    value: Expr
    span: Span


@node
class ExprStmt(_Node):
    """An expression evaluated for its effect: ``L.backward()``, ``print(x)``."""

    value: Expr
    span: Span


@node
class For(_Node):
    """``for target in iter:`` body, then ``else:`` orelse when no ``break`` ended it."""

    target: Expr
    iter: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    span: Span


@node
class While(_Node):
    """``while test:`` body, then ``else:`` orelse when no ``break`` ended it."""

    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    span: Span


@node
class Break(_Node):
    """``break`` (inside a loop)."""

    span: Span


@node
class Continue(_Node):
    """``continue`` (inside a loop)."""

    span: Span


@node
class If(_Node):
    """``if``/``elif`` branches as (condition, body) pairs, then the ``else`` body (maybe empty)."""

    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]
    span: Span


@node
class With(_Node):
    """``with context as target:`` body (``with a, b:`` is nested Withs); target may be None."""

    context: Expr
    target: Expr | None
    body: tuple[Stmt, ...]
    span: Span


@node
class FunctionDef(_Node):
    """``def name(params):`` body, under its decorators (outermost first)."""

    name: str
    params: Params
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...]
    span: Span


@node
class ClassDef(_Node):
    """``class name(bases, **keywords):`` body, under its decorators (outermost first)."""

    name: str
    bases: tuple[Expr, ...]
    keywords: tuple[tuple[str, Expr], ...]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...]
    span: Span


@node
class Annotation(_Node):
    """``name: annotation`` (``= value`` is an assignment of its own after it)."""

    target: str
    annotation: Expr
    span: Span


@node
class Return(_Node):
    """``return value`` or a bare ``return`` (value None)."""

    value: Expr | None
    span: Span


@node
class Pass(_Node):
    """``pass`` (and an annotation without a value, ``x: int``)."""

    span: Span


@node
class Handler(_Node):
    """``except type as name:`` body; type None for a bare ``except:``."""

    type: Expr | None
    name: str | None
    body: tuple[Stmt, ...]
    span: Span


@node
class Try(_Node):
    """``try:`` body, its ``except`` handlers, ``else:`` and ``finally:`` bodies."""

    body: tuple[Stmt, ...]
    handlers: tuple[Handler, ...]
    orelse: tuple[Stmt, ...]
    finalbody: tuple[Stmt, ...]
    span: Span


@node
class Raise(_Node):
    """``raise exc from cause``; a bare ``raise`` re-raises (exc None)."""

    exc: Expr | None
    cause: Expr | None
    span: Span


@node
class Assert(_Node):
    """``assert test, msg``."""

    test: Expr
    msg: Expr | None
    span: Span


@node
class Delete(_Node):
    """``del a, b[0], c.attr``."""

    targets: tuple[Expr, ...]
    span: Span


@node
class Global(_Node):
    """``global a, b`` inside a function."""

    names: tuple[str, ...]
    span: Span


@node
class Import(_Node):
    """``import a.b.c as d, e``: (dotted module, alias or None) pairs."""

    names: tuple[tuple[str, str | None], ...]
    span: Span


@node
class ImportFrom(_Node):
    """``from a.b import c as d, e`` (or ``*``): the module and (name, alias or None) pairs."""

    module: str
    names: tuple[tuple[str, str | None], ...]
    span: Span


Stmt = (Assign | AssignTo | AugAssign | AugAssignTo | ExprStmt | For | While | If | With
        | FunctionDef | ClassDef | Annotation | Return | Pass | Break | Continue | Try | Raise | Assert | Delete | Global
        | Import | ImportFrom)


@node
class Program(_Node):
    """A whole script: its statements, the (normalised) source text and the file name."""

    body: tuple[Stmt, ...]
    source: str
    filename: str
