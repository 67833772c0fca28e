"""``torch.autograd.forward_ad``: dual levels, dual tensors, their unpacking (engine.forward
carries the tangents through the ops)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.context import current
from ..engine.forward import active, enter, exit_level
from ..engine.ops import OPS, Op
from ..engine.shape import _view
from ..engine.tensor import Tensor
from ..errors import ScriptError

# ``_fw_primal``: the primal as a view of the dual tensor, whose node PyTorch calls Identity
FW_PRIMAL = Op("fw_primal", "Identity", ("self",), lambda xp, self: self, (lambda grad: grad,),
               "view")


class UnpackedDualTensor(tuple):
    """PyTorch's namedtuple ``UnpackedDualTensor(primal, tangent)``."""

    __slots__ = ()

    @property
    def primal(self) -> Tensor:
        """The value, a view of the dual tensor without its tangent."""
        return self[0]

    @property
    def tangent(self) -> Tensor | None:
        """The tangent, or None for a tensor that has none at the level."""
        return self[1]

    def __repr__(self) -> str:
        return f"UnpackedDualTensor(primal={self[0]!r}, tangent={self[1]!r})"

    __str__ = __repr__


class dual_level:
    """``with fwAD.dual_level():``: a forward-AD level for the block (its value: the level)."""

    def __enter__(self) -> int:
        return enter()

    def __exit__(self, *exc: object) -> None:
        exit_level()

    def __call__(self, fn: Callable) -> Callable:
        """As a decorator: each call of ``fn`` runs inside a level."""
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return fn(*args, **kwargs)
        return decorated


def enter_dual_level() -> int:
    """Start a forward-AD level; its number (0: one level at a time)."""
    return enter()


def exit_dual_level(*, level: int | None = None) -> None:
    """End the level: every tangent of it is dropped."""
    if active(None) is None:
        raise ScriptError("Dual level must be a positive number.")
    exit_level(level)


def _floating(t: Any, what: str) -> None:
    if not isinstance(t, Tensor):
        raise ScriptError(f"'{type(t).__name__}' object has no attribute 'is_floating_point'",
                          kind="AttributeError")
    if not t.dtype.is_floating_point:
        raise ScriptError(f"Expected {what} to be floating point or complex, but got: "
                          f"torch.{t.dtype.name}", kind="ValueError")


def make_dual(tensor: Any, tangent: Any, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` whose tangent at the level is ``tangent``."""
    fw = active(None)
    if fw is None:
        raise ScriptError("Trying to create a dual Tensor for forward AD but no level exists, "
                          "make sure to enter_dual_level() first.")
    _floating(tensor, "primal")
    _floating(tangent, "tangent")
    if level is not None and level != fw.level:
        raise ScriptError("Invalid level given to _make_dual")
    if fw.tangent_of(tensor) is not None:
        raise ScriptError("Making a dual Tensor based on a Tensor that already has a forward "
                          f"gradient at the same level {fw.level} is not supported.")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise ScriptError("Trying to set a forward gradient that has a different size than that "
                          "of the original Tensor, this is not supported. Tensor is of size "
                          f"{list(tensor.shape)} while the given forward gradient is of size "
                          f"{list(tangent.shape)}.")
    out = _view(OPS["view"], tensor, {"shape": tuple(tensor.shape)}, tensor._strides)
    fw.set(out, tangent)
    tracer = current().tracer
    if tracer is not None:  # trace lists the tangent a dual tensor starts with
        tracer.tangent(out, tangent.data)
    return out


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of a dual tensor: the value as a view, the tangent or None."""
    fw = active(level)
    if fw is None:
        return UnpackedDualTensor((tensor, None))
    if not isinstance(tensor, Tensor):
        raise ScriptError("_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                          f"{type(tensor).__name__}", kind="TypeError")
    tan = fw.tangent_of(tensor)
    primal = _view(FW_PRIMAL, tensor, {}, tensor._strides)
    fw.set(primal, None)  # the primal carries no tangent
    return UnpackedDualTensor((primal, tan))


FORWARD_AD: dict[str, Any] = {
    "dual_level": dual_level, "enter_dual_level": enter_dual_level,
    "exit_dual_level": exit_dual_level, "make_dual": make_dual, "unpack_dual": unpack_dual,
    "UnpackedDualTensor": UnpackedDualTensor,
}
