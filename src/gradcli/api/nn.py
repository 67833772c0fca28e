"""``torch.nn``'s autograd part: ``Parameter``."""

from __future__ import annotations

from typing import Any

from ..engine.attributes import is_floating
from ..engine.context import current
from ..engine.tensor import Tensor
from ..errors import ScriptError


def Parameter(data: Any = None, requires_grad: bool = True) -> Tensor:
    """``nn.Parameter(t)``: a leaf over ``t``'s memory that requires grad and prints as
    ``Parameter containing:``; ops on it give ordinary tensors.

    NOTE: it is an engine Tensor marked as a parameter, not a subclass, so
    ``isinstance(p, nn.Parameter)`` cannot be asked of it.
    """
    if data is None:
        be = current().backend
        data = Tensor(be.xp.zeros((0,), dtype=be.dtype), be)
    if not isinstance(data, Tensor):
        raise ScriptError("_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                          f"{type(data).__name__}", kind="TypeError")
    if not isinstance(requires_grad, bool):
        raise ScriptError("_make_subclass(): argument 'require_grad' (position 3) must be bool, "
                          f"not {type(requires_grad).__name__}", kind="TypeError")
    if requires_grad and not is_floating(data):
        raise ScriptError("Only Tensors of floating point and complex dtype can require "
                          "gradients")
    out = data.detach()
    out.requires_grad = requires_grad
    out._is_param = True
    return out
