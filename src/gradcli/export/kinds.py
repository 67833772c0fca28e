"""The scopes of a grad script and the kind of its expressions, for ``export``.

Which names each scope binds (so a built-in's name that the script rebinds is the script's),
the values bound to each, and from them whether an expression is surely a tensor, surely
not, or either.  ``sum(x)`` is PyTorch's sum when ``x`` is a tensor and Python's otherwise
(docs/language.md); where the kind is known the program calls the one meant, elsewhere it tests at
run time, so a kind may be unknown but never wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import Span
from ..language import program as P
from ..language.checks import blocks, target_names

UNKNOWN = "unknown"  # either kind (a parameter, a loop item, a user function's result)
TENSOR = "tensor"
PYTHON = "python"
# PyTorch's for a tensor first argument, Python's otherwise; Python's round() of a tensor
# fails (Tensor has no __round__), abs() and pow() of one are PyTorch's already.
DUAL = ("sum", "max", "min", "round")
# Tensor methods and attributes whose result is not a tensor (for the kind of an expression)
PLAIN_METHODS = frozenset({"item", "tolist", "dim", "size", "numel", "nelement", "ndimension",
                            "backward", "register_hook", "retain_grad", "is_contiguous",
                            "is_floating_point", "element_size", "stride", "data_ptr",
                            "storage_offset", "equal", "allclose", "name"})
TENSOR_ATTRIBUTES = frozenset({"grad", "data", "T", "mT", "H", "mH", "real"})
PLAIN_RESULTS = frozenset({"numel", "equal", "allclose", "grad", "no_grad", "enable_grad",
                            "split", "chunk", "unbind", "seed"})


KIND_BUDGET = 2000  # steps for one kind: beyond, it is unknown (and tested at run time)
TUPLE_METHODS = frozenset({"max", "min", "sort", "topk", "kthvalue", "median", "mode",
                            "aminmax", "split", "chunk", "unbind", "tensor_split", "nonzero"})


@dataclass
class Scope:
    """Names a scope binds, and the values bound to each (for the kind of a name)."""

    names: set[str] = field(default_factory=set)
    values: dict[str, list[Any]] = field(default_factory=dict)
    parent: Scope | None = None
    globals: set[str] = field(default_factory=set)
    spans: dict[str, Span] = field(default_factory=dict)

    def bind(self, name: str, value: Any) -> None:
        self.names.add(name)
        self.values.setdefault(name, []).append(value)


def scan(body: tuple[Any, ...], scope: Scope, module: Scope,
          functions: dict[int, Scope]) -> None:
    """Record what each statement of ``body`` binds in ``scope`` (function bodies: their own)."""
    for s in body:
        cls = s.__class__
        if cls is P.FunctionDef:
            _bind(scope, module, s.name, PYTHON, s.span)
            inner = Scope(parent=scope)
            functions[id(s)] = inner
            for name in param_names(s.params):
                star = name in (s.params.vararg, s.params.kwarg)  # a tuple, a dict
                inner.bind(name, PYTHON if star else UNKNOWN)
                module.spans.setdefault(name, s.params.span)
            inner.globals = {n for g in walk_stmts(s.body) if g.__class__ is P.Global
                             for n in g.names}
            scan(s.body, inner, module, functions)
            continue
        if cls is P.Assign:
            _bind(scope, module, s.target, TENSOR if s.literal else s.value, s.span)
        elif cls is P.AssignTo:
            for t in s.targets:
                if t.__class__ is P.Name:
                    _bind(scope, module, t.id, TENSOR if s.literal else s.value, s.span)
                else:
                    for name in target_names(t):
                        _bind(scope, module, name, UNKNOWN, s.span)
        elif cls is P.AugAssign:
            value = P.Binary(s.op, P.Name(s.target, s.span), s.value, s.span)
            _bind(scope, module, s.target, value, s.span)
        elif cls is P.For:
            item = PYTHON if is_range(s.iter) else UNKNOWN
            for name in target_names(s.target):
                _bind(scope, module, name, item, s.span)
        elif cls is P.With and s.target is not None:
            for name in target_names(s.target):
                _bind(scope, module, name, UNKNOWN, s.span)
        elif cls is P.Try:
            for h in s.handlers:
                if h.name is not None:
                    _bind(scope, module, h.name, PYTHON, s.span)
        elif cls is P.Import or cls is P.ImportFrom:
            for name, alias in s.names:
                bound = alias or name.split(".")[0]
                if bound == "torch" and name.split(".")[0] == "torch" and cls is P.Import:
                    scope.bind(bound, PYTHON)  # `import torch` later in a script: the same
                    continue
                _bind(scope, module, bound, PYTHON, s.span)
        elif cls is P.Delete:
            for t in s.targets:
                for name in target_names(t):
                    _bind(scope, module, name, UNKNOWN, s.span)
        for b in blocks(s):
            scan(tuple(b), scope, module, functions)


def _bind(scope: Scope, module: Scope, name: str, value: Any, span: Span) -> None:
    (module if name in scope.globals else scope).bind(name, value)
    module.spans.setdefault(name, span)  # where a name is first bound, in any scope


def param_names(params: P.Params) -> list[str]:
    return [*params.names, *([params.vararg] if params.vararg else []), *params.kwonly,
            *([params.kwarg] if params.kwarg else [])]


def walk_stmts(body: tuple[Any, ...]) -> Iterator[Any]:
    """Every statement of a function body, not descending into nested functions."""
    stack = list(body)
    while stack:
        s = stack.pop()
        yield s
        for b in blocks(s):
            stack.extend(b)


def is_range(e: Any) -> bool:
    return e.__class__ is P.Call and e.func.__class__ is P.Name and e.func.id == "range"


class Kinds:
    """Name resolution and kinds over the scopes ``scan`` recorded; memoised per name."""

    def __init__(self, builtins: dict[str, Any]) -> None:
        self.builtins = builtins
        self.kinds: dict[tuple[int, str], str] = {}
        self.assumed: dict[tuple[int, str], str] = {}
        self.budget = KIND_BUDGET

    def builtin(self, name: str, scope: Scope | None) -> bool:
        """Whether ``name`` read in ``scope`` is the grad language's built-in."""
        while scope is not None:
            if name in scope.names:
                return False
            scope = scope.parent
        return name in self.builtins

    def kind(self, e: Any, scope: Scope) -> str:
        """Whether ``e`` is surely a tensor, surely not, or either (``UNKNOWN``)."""
        self.budget = KIND_BUDGET
        return self._kind(e, scope)

    def _kind(self, e: Any, scope: Scope) -> str:
        self.budget -= 1
        if isinstance(e, str) or self.budget < 0:
            return e if isinstance(e, str) else UNKNOWN
        cls = e.__class__
        if cls in (P.Number, P.String, P.FString, P.ListExpr, P.Tuple, P.DictExpr, P.SetExpr,
                   P.Comprehension, P.Lambda):
            return PYTHON
        if cls is P.Name:
            return self.name_kind(e.id, scope)
        if cls is P.Unary:
            return PYTHON if e.op == "not" else self._kind(e.operand, scope)
        if cls is P.Compare and any(op in ("is", "is not", "in", "not in") for op in e.ops):
            return PYTHON
        if cls is P.Binary and e.op == "%" and e.left.__class__ in (P.String, P.FString):
            return PYTHON
        if cls is P.Binary or cls is P.Compare:
            sides = [e.left, e.right] if cls is P.Binary else list(e.operands)
            kinds = {self._kind(x, scope) for x in sides}
            if TENSOR in kinds:
                return TENSOR
            return PYTHON if kinds == {PYTHON} else UNKNOWN
        if cls is P.IfExp:
            kinds = {self._kind(e.body, scope), self._kind(e.orelse, scope)}
            return kinds.pop() if len(kinds) == 1 else UNKNOWN
        if cls is P.Attribute:
            if self._kind(e.value, scope) != TENSOR:
                return UNKNOWN
            return TENSOR if e.attr in TENSOR_ATTRIBUTES else PYTHON
        if cls is P.Subscript:
            return TENSOR if self._kind(e.value, scope) == TENSOR else UNKNOWN
        if cls is P.Call:
            return self.call_kind(e, scope)
        return UNKNOWN

    def call_kind(self, e: P.Call, scope: Scope) -> str:
        f = e.func
        if f.__class__ is P.Attribute:
            if f.attr in ("item", "tolist"):
                return PYTHON
            if f.attr in TUPLE_METHODS or self._kind(f.value, scope) != TENSOR:
                return UNKNOWN
            return PYTHON if f.attr in PLAIN_METHODS else TENSOR
        if f.__class__ is not P.Name or not self.builtin(f.id, scope):
            return UNKNOWN
        n = f.id
        from ..script.pybuiltins import PY_BUILTINS

        if n in DUAL or n in ("abs", "pow"):
            kinds = [self._kind(a, scope) for a in e.args]
            if not kinds or kinds[0] != TENSOR:
                return UNKNOWN
            if n in ("max", "min") and (e.kwargs or kinds[1:] not in ([], [TENSOR])):
                return UNKNOWN  # max(x, 0) is (values, indices)
            return TENSOR
        if n in ("next", "getattr"):
            return UNKNOWN
        if PY_BUILTINS.get(n) is self.builtins[n] or n in PLAIN_RESULTS:
            return PYTHON
        return TENSOR

    def name_kind(self, name: str, scope: Scope) -> str:
        """The kind every binding of ``name`` gives it; a binding that reads the name itself
        (``w = w * 2``) is solved by assuming a kind and checking it."""
        while scope is not None and name not in scope.names:
            scope = scope.parent
        if scope is None:
            return PYTHON  # a built-in function
        key = (id(scope), name)
        if key in self.assumed:
            return self.assumed[key]
        if key in self.kinds:
            return self.kinds[key]
        found = UNKNOWN
        for guess in (TENSOR, PYTHON):
            self.assumed[key] = guess
            kinds = {self._kind(v, scope) for v in scope.values.get(name, [])}
            del self.assumed[key]
            if kinds == {guess}:
                found = guess
                break
        if not self.assumed and self.budget >= 0:  # a kind found under no assumption holds
            self.kinds[key] = found
        return found
