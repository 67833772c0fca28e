"""Graph records for listings: every tensor state a run produced, with its op and inputs.

Only ``graph`` and ``dot`` record (``run --format json`` and ``grad`` do not pay for it). The
records hold the tensors, so numbering is stable and never by ``id()`` alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine import Tensor
from ..engine.backend import to_host
from ..engine.context import current
from ..errors import Span


class Record:
    """One tensor state the run produced: a leaf, an op's result, or an in-place update.  (A
    plain class: a dataclass's ``__init__`` is compiled at every start of the process.)"""

    def __init__(self, tensor: Tensor, op: str | None, grad_fn: str | None,
                 inputs: tuple[int | None, ...], span: Span | None, node: Any = None,
                 data: Any = None, numbers: tuple = (), grad_enabled: bool = True,
                 step: int = 0, version: int = 0, rnn_step: tuple | None = None,
                 tangent: Any = None) -> None:
        self.tensor = tensor
        self.op = op  # op table name, None for a leaf
        self.grad_fn = grad_fn
        self.inputs = inputs  # record ids; None for a plain number argument
        self.span = span
        self.node = node  # the engine Node created (grad_fn), for saved-tensor listings
        self.data = data  # the values of an older state that an in-place update overwrote
        self.numbers = numbers  # the plain-number arguments, by position (None for a tensor)
        self.grad_enabled = grad_enabled  # grad mode when the op ran (explain: no_grad cuts)
        self.step = step  # statements executed so far: one execution of a line from the next
        self.version = version  # the tensor's version counter for this state
        # (mode, layer, direction, step, weights): an RNN layer's
        self.rnn_step = rnn_step
        self.tangent = tangent  # forward-mode AD: the tangent a dual level gave this (host)


class Recorder:
    """Collects ``Record``s as the engine reports ops; ids are positions in ``records``."""

    def __init__(self, interp: Any) -> None:
        self.interp = interp  # for the current statement's span and the backend
        self.records: list[Record] = []
        self.ids: dict[int, int] = {}  # id(tensor) -> its latest record (tensors are kept alive)
        # name -> (label, id(tensor)) for each tensor a top-level binding bound, in order: enough
        # to name older states (``y#1``) without keeping the bound values themselves
        self.bound: dict[str, list[tuple[str, int]]] = {}
        # the same for the names functions bind (their parameters too), by "function:name"
        self.local: dict[str, list[tuple[str, int]]] = {}

    def ensure(self, t: Tensor) -> int:
        """The record id of ``t``'s current state, adding a leaf record if it has none."""
        rid = self.ids.get(id(t))
        if rid is None:
            rid = self._add(t, None, (), None)
        return rid

    def bind(self, name: str, value: Any) -> None:
        """A top-level binding: record its tensors (``g[0]`` for a list's or tuple's items)."""
        if isinstance(value, Tensor):
            self.ensure(value)
            self.bound.setdefault(name, []).append((name, id(value)))
        elif isinstance(value, (list, tuple)):
            entries = self.bound.setdefault(name, [])
            for j, item in enumerate(value):
                for t in _tensors(item):
                    self.ensure(t)
                if isinstance(item, Tensor):
                    entries.append((f"{name}[{j}]", id(item)))

    def bind_local(self, fn: Any, name: str, t: Tensor) -> None:
        """A function's binding of a tensor (a parameter too): named ``f:name`` in listings.
        Not while grad is off (a custom Function's forward and backward: ``Square(w*3)``, not
        ``Square(forward:x)``), nor after the run (gradcli's own gradients call backward)."""
        ctx = current()
        if ctx is not self.interp.ctx or not ctx.grad_enabled:
            return
        if fn is not None and not hasattr(fn, "name"):  # a comprehension's loop variable
            return
        self.ensure(t)
        key = f"{fn.name}:{name}" if fn is not None else name
        self.local.setdefault(key, []).append((key, id(t)))

    def tangent(self, t: Tensor, tangent: Tensor) -> None:
        """The engine's hook (``RunContext.on_tangent``): a dual level gave ``t`` a tangent,
        kept on its current state (a copy: a tangent may be updated in place later)."""
        if current() is not self.interp.ctx:  # gradcli's own after-the-run work
            return
        rec = self.records[self.ensure(t)]
        rec.tangent = np.array(to_host(tangent.data), copy=True)

    def opaque(self, out: Tensor, fn: Any, args: list) -> None:
        """A built-in's tensor that no recorded op made (``argmax``, ``nonzero``): a state of
        its own over the recorded tensors it read, so explain can name a non-differentiable
        op on the way (PyTorch records no node for it either)."""
        if id(out) in self.ids or current() is not self.interp.ctx:  # check's replay calls
            return
        owner = getattr(fn, "__self__", None)
        inputs = tuple(self.ids[id(a)] for a in (owner, *args)
                       if a.__class__ is Tensor and id(a) in self.ids)
        if inputs:
            rec = self.records[self._add(out, _Opaque(getattr(fn, "__name__", "?")), inputs,
                                         None)]
            rec.numbers = (None,) * len(inputs)
            rec.grad_enabled = self.interp.ctx.grad_enabled

    def _add(self, t: Tensor, op: Any, inputs: tuple, node: Any) -> int:
        records = self.records
        records.append(Record(t, op.name if op is not None else None,
                              node.fn_name if node is not None else None, inputs, self.interp.span,
                              node, step=self.interp.steps, version=t._vc[0],
                              # a leaf's state met inside a recurrent layer is not the layer's
                              rnn_step=self.interp.ctx.rnn_step if op is not None else None))
        rid = len(records) - 1
        self.ids[id(t)] = rid
        return rid

    def record(self, out: Tensor, op: Any, args: tuple, inplace: bool, params: Any = None) -> None:
        """The engine's hook: one op produced ``out`` (or updated it in place) from ``args``."""
        ids, records = self.ids, self.records
        if inplace and id(out) not in ids and not self.interp.ctx.grad_enabled:
            # a tensor nothing recorded yet, filled in place under no_grad (a module's
            # parameters as its constructor initialises them): no graph can have read what
            # was overwritten, so the tensor enters the records when it is first used
            return
        inputs: list[int | None] = []
        numbers: list[Any] = []
        for a in args:  # one loop, no generators: a trace records every op (bench_explain)
            if isinstance(a, Tensor):
                rid = ids.get(id(a))
                if rid is None or records[rid].version != a._vc[0] and a.grad_fn is None:
                    # a new leaf, or one updated in place without a record (an optimizer's
                    # step, .data): a state of its own, used from now on
                    rid = self._add(a, None, (), None)
                inputs.append(rid)
                numbers.append(None)
            else:
                inputs.append(None)
                numbers.append(a)
        if inplace:  # keep the values the update is about to overwrite
            old = records[inputs[0]]
            old.data = self.interp.backend.xp.asarray(out.data, copy=True)
        rec = records[self._add(out, op, tuple(inputs),
                                out.grad_fn if out.requires_grad else None)]
        if inplace:  # recorded before the update bumps the version
            rec.version += 1
        elif getattr(op, "kind", None) == "view" and args[0].__class__ is Tensor:
            # a view is recorded before it takes its base's version counter (shape._view):
            # its state is the base's current version, not 0 of the counter it had then
            rec.version = args[0]._vc[0]
        rec.numbers = tuple(numbers)
        rec.grad_enabled = self.interp.ctx.grad_enabled


class _Opaque:
    """What a record names a built-in outside the op table by (``argmax``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def _tensors(value: Any) -> list[Tensor]:
    """Every tensor inside a (nested) list or tuple value, without recursion."""
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return out
