"""Forward-mode AD (``torch.autograd.forward_ad``): dual tensors whose tangents travel with
their values.

A dual level is a ``DualLevel``, held in ``RunContext.forward`` while it is entered.  It keeps
each dual tensor's tangent (by ``id``, with the tensor itself, so an id is not reused during the
level) and stands in ``RunContext.recorder``'s place, passing every report on to the recorder
it replaced: each op ``record.apply`` runs reports to it, and the op's forward formula
(``jvps.tangent``) computes the result's tangent from its inputs'.  A run without a dual level
pays nothing: the engine's fast paths are taken only when no recorder is set.  Tensors made
outside the op table (``detach()``, constructors) have no tangent, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from .backend import view_maps
from .context import current
from .custom import CustomOp
from .formulas import TENSOR_FORMULAS
from .jvps import differentiable, tangent
from .ops import COPY
from .record import apply
from .tensor import Tensor

_EMPTY: dict = {}
# in-place writes of constants or random draws: the tangent becomes zeros (PyTorch's
# ``self_t.zero_()``/``self_t.fill_(0)``)
_CONSTANT_WRITES = frozenset({
    "zero_", "fill_", "uniform_", "normal_", "random_to_", "random_from_to_",
    "bernoulli_scalar_", "bernoulli_tensor_", "exponential_"})


class DualLevel:
    """One entered forward-AD level: the tangents of its dual tensors (module docstring)."""

    __slots__ = ("by_fn", "ctx", "level", "paused", "prev", "tangents")

    def __init__(self, ctx: Any, level: int) -> None:
        self.ctx = ctx
        self.level = level
        self.prev = ctx.recorder  # the recorder this level stands in front of
        self.tangents: dict[int, tuple[Tensor, Tensor]] = {}
        # by the node that made a tensor: a backward formula's saved result is a new tensor
        # of the same node, which must carry the same tangent (forward over reverse)
        self.by_fn: dict[int, tuple[Any, Tensor]] = {}
        self.paused = 0  # > 0 while a custom Function's forward runs: forward AD is off

    def tangent_of(self, t: Any) -> Tensor | None:
        """The tangent of ``t`` at this level, or None."""
        entry = self.tangents.get(id(t))
        return None if entry is None or self.paused else entry[1]

    def set(self, t: Tensor, tan: Tensor | None) -> None:
        """Make ``tan`` the tangent of ``t`` (None: no tangent)."""
        if tan is None:
            self.tangents.pop(id(t), None)
        else:
            self.tangents[id(t)] = (t, tan)
            fn = t.grad_fn
            if fn is not None:
                self.by_fn[id(fn)] = (fn, tan)
            told = self.ctx.on_tangent
            if told is not None:  # the graph records keep it (views of a forward-mode run)
                told(t, tan)

    def __call__(self, out: Tensor, op: Any, args: tuple, inplace: bool,
                 params: dict = _EMPTY) -> None:
        """The engine's report of one op: pass it on, then carry the tangents through it."""
        if self.prev is not None:
            self.prev(out, op, args, inplace, params)
        tangents = self.tangents
        if not tangents or self.paused or op.__class__ is CustomOp:
            return  # (a custom Function's outputs get their tangents from its jvp)
        tans = [self._find(a) if a.__class__ is Tensor else None for a in args]
        if all(t is None for t in tans):
            return
        if inplace:
            self._inplace(out, op, args, params, tans)
        else:
            self.set(out, _result_tangent(op, args, params, tans, out.data, out))
        tracer = self.ctx.tracer
        if tracer is not None:  # trace lists each tangent the level computed
            tan = self.tangent_of(out)
            if tan is not None:
                tracer.tangent(out, tan.data)

    def _find(self, a: Tensor) -> Tensor | None:
        """``a``'s tangent: its own, or (a saved result unpacked) its node's output's."""
        entry = self.tangents.get(id(a))
        if entry is not None:
            return entry[1]
        fn = a.grad_fn
        if fn is not None:
            entry = self.by_fn.get(id(fn))
            if entry is not None and entry[0] is fn:
                return entry[1]
        return None

    def _inplace(self, target: Tensor, op: Any, args: tuple, params: dict, tans: list) -> None:
        """``target`` updated in place by ``op(*args)`` (its values still the old ones)."""
        if op.name == "copy_slices":  # the base's tangent was updated with the view's
            return
        xp = target.backend.xp
        if op.name in _CONSTANT_WRITES:
            new = Tensor(xp.zeros_like(target.data), target.backend)
        else:
            arrays = [a.data if a.__class__ is Tensor else a for a in args]
            data = op.forward(xp, *arrays, **params) if params else op.forward(xp, *arrays)
            new = _result_tangent(op, args, params, tans, data, target, True)
        old = tans[0]
        if new is not None and old is not None and new.grad_fn is not None:
            # PyTorch writes an in-place op's tangent into the old one: self_t.copy_(...)
            ctx = current()
            recorder, ctx.recorder = ctx.recorder, None
            try:
                new = apply(COPY, (old, new))
            finally:
                ctx.recorder = recorder
        elif (new is not None and old is not None and old.requires_grad
                and not current().grad_enabled and old.data.shape == new.data.shape):
            # under no_grad PyTorch writes the new tangent into the old one, which keeps its
            # history (``self_t.copy_(...)``)
            old.data = old.backend.writable(old.data)
            old.data[...] = new.data
            new = old
        self.set(target, new)
        base = target._base
        if base is not None and new is not None:  # the view's tangent is a part of its base's
            old = self.tangent_of(base)
            flat = xp.reshape(xp.zeros_like(base.data) if old is None else old.data, (-1,))
            flat = xp.asarray(flat, copy=True)
            index, _ = view_maps(base.backend, tuple(base.shape), target._view_fn)
            flat[xp.reshape(index, (-1,))] = xp.reshape(new.data, (-1,))
            self.set(base, Tensor(xp.reshape(flat, tuple(base.shape)), base.backend))


def _result_tangent(op: Any, args: tuple, params: dict, tans: list, data: Any,
                    out: Tensor, inplace: bool = False) -> Tensor | None:
    """The tangent of ``op``'s result ``data`` (None for a result that cannot have one).

    As PyTorch's, the tangent is itself differentiable (made of recorded ops) when grad mode
    is on and an input or a tangent requires grad; otherwise it is computed on arrays.
    """
    backend = out.backend
    if not backend.dtype_of(data).is_floating_point:
        return None  # integral and bool results carry no tangent (PyTorch's too)
    ctx = current()
    if (ctx.grad_enabled and differentiable(op)
            and any(a.__class__ is Tensor and a.requires_grad for a in (*args, *tans))):
        result = out
        recorder, ctx.recorder = ctx.recorder, None  # the tangent's ops carry no tangent
        mode, ctx.formula_mode = ctx.formula_mode, True  # PyTorch's formulas are C++ calls
        try:
            primals = list(args)
            if inplace:  # the target's old values and history (PyTorch's original_self_p):
                # the engine has already made the op's node the target's grad_fn
                target, fn = primals[0], primals[0].grad_fn
                prior = fn.edges[0] if fn is not None and fn.op is op and fn.edges else None
                primals[0] = Tensor(backend.xp.asarray(target.data, copy=True), backend,
                                    prior is not None, prior)
                result = apply(op, tuple(primals), params)  # its new values, differentiable
            tan = tangent(op, backend, primals, tans, result, params, TENSOR_FORMULAS)
        finally:
            ctx.recorder, ctx.formula_mode = recorder, mode
        if tan is None:
            return None
        if tan.__class__ is not Tensor:
            tan = Tensor(backend.xp.asarray(tan), backend)
        return _cast(tan, data, tans, args)
    primals = [a.data if a.__class__ is Tensor else a for a in args]
    arrays = [None if t is None else t.data for t in tans]
    tan = tangent(op, backend, primals, arrays, data, params)
    if tan is None:
        return None
    return _cast(Tensor(tan, backend), data, tans, args)


def _cast(tan: Tensor, data: Any, tans: list, args: tuple) -> Tensor:
    """The tangent in its result's dtype, unless a tangent of another dtype than its primal's
    was given (PyTorch keeps that one's)."""
    if tan.data.dtype is data.dtype or any(
            t is not None and t.data.dtype is not a.data.dtype for t, a in zip(tans, args)):
        return tan
    return tan.to(tan.backend.dtype_of(data))


def enter(level: DualLevel | None = None) -> int:
    """``torch.autograd.forward_ad.enter_dual_level()``: start the level (0; one at a time)."""
    ctx = current()
    if ctx.forward is not None:
        raise ScriptError("Nested forward mode AD is not supported at the moment")
    ctx.forward = DualLevel(ctx, 0)
    ctx.recorder = ctx.forward
    return 0


def exit_level(level: int | None = None) -> None:
    """``exit_dual_level()``: every tangent of the level is dropped."""
    ctx = current()
    fw = ctx.forward
    if fw is None or (level is not None and level != fw.level):
        raise ScriptError("Trying to exit a forward AD level that was not the last one that "
                          "was created. This is not supported.")
    if ctx.recorder is fw:
        ctx.recorder = fw.prev
    ctx.forward = None
    fw.tangents.clear()
    fw.by_fn.clear()


def seed_tangent(t: Tensor, tan: Tensor) -> DualLevel:
    """Give ``t`` itself the tangent ``tan`` (entering a level if none is), for ``grad --mode
    forward``: the rest of the run carries it."""
    ctx = current()
    if ctx.forward is None:
        enter()
    ctx.forward.set(t, tan)
    return ctx.forward


def active(level: int | None) -> DualLevel | None:
    """The level ``level`` names (None: the current one), or None when there is none."""
    fw = current().forward
    if fw is not None and level is not None and level != fw.level:
        return None
    return fw
