"""The values that no_grad in-place updates of leaves overwrote, for after-the-run gradients.

A training loop computes ``loss``, calls ``loss.backward()`` and then ``opt.step()``, which
updates every parameter in place (under no_grad, bumping its version).  The graph of that last
``loss`` saved the parameters as they were; PyTorch itself could no longer differentiate it
(its saved tensors are "modified by an inplace operation").  gradcli's ``grad``, ``check`` and
``explain`` answer for the graph autograd recorded, so a run that keeps a ``History``
(``RunContext.history``) copies a leaf's array before such an update overwrites it, keyed by
the leaf's version counter and version then; ``graph.restored_saved`` puts those values back
into the stale saved tensors while gradcli differentiates, and the graph records read them as
the values the leaves had when an op used them.

Only updates made while grad mode is off are kept (an optimizer's ``step``, ``w -= lr *
w.grad`` under ``no_grad``): an in-place update with grad on is autograd's business, and a
backward through what it overwrote fails as in PyTorch.  The copies are bounded: past
``max_bytes`` the oldest go first (the graph asked about is nearly always the last one).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

MAX_HISTORY_BYTES = 256 * 1024 * 1024


class History:
    """Copies of overwritten leaf arrays: (id(version counter), version) -> the array then."""

    def __init__(self, max_bytes: int = MAX_HISTORY_BYTES) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        # the counter itself is kept with the copy, so its id cannot be reused meanwhile
        self.values: OrderedDict[tuple[int, int], tuple[list, Any]] = OrderedDict()
        # nodes a backward of the run freed while keeping what they saved (graph.Node.free):
        # with none and no values, graph.restored_saved has nothing to put back
        self.freed = 0

    def keep(self, t: Any) -> None:
        """Copy the array of the leaf ``t`` (of its base, for a view: they share a version
        counter) before an in-place update overwrites it."""
        if t._base is not None:
            t = t._base
        if t.grad_fn is not None:
            return
        counter = t._vc
        key = (id(counter), counter[0])
        if key in self.values:
            return
        copy = t.backend.xp.asarray(t.data, copy=True)
        self.values[key] = (counter, copy)
        self.bytes += int(getattr(copy, "nbytes", 0))
        while self.bytes > self.max_bytes and len(self.values) > 1:
            _, (_, old) = self.values.popitem(last=False)
            self.bytes -= int(getattr(old, "nbytes", 0))

    def value(self, counter: list, version: int, tensor: Any = None) -> Any:
        """The array the tensor with this counter (``tensor``, a view replayed from its base's
        array) held at ``version``; None when it was not kept."""
        got = self.values.get((id(counter), version))
        if got is None or got[0] is not counter:
            return None
        if tensor is not None and tensor._base is not None:
            return tensor._view_fn(got[1]) if tensor._view_fn is not None else None
        return got[1]


__all__ = ["MAX_HISTORY_BYTES", "History"]
