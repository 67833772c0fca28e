"""``torch.nn.utils``: gradient clipping, as torch/nn/utils/clip_grad.py does it.

``clip_grad_norm_`` takes each gradient's ``vector_norm``, the norm of those norms, and scales
every gradient in place by ``min(max_norm / (total + 1e-6), 1)``; ``clip_grad_value_`` clamps
each gradient in place.  Both run under ``no_grad`` through the same ops as PyTorch's code
(``vector_norm`` is PyTorch's norm kernel bit for bit: engine/exact/norms.py).
"""

from __future__ import annotations

import math
from types import GeneratorType
from typing import Any

from ..engine.arithmetic import clamp
from ..engine.context import GradMode, current
from ..engine.joins import stack
from ..engine.reductions import vector_norm
from ..engine.tensor import Tensor
from ..errors import ScriptError
from .creation import tensor


def _parameters(parameters: Any) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        return [parameters]
    was_generator = isinstance(parameters, GeneratorType)
    params = list(parameters)
    if was_generator and not params:
        current().warn("`parameters` is an empty generator, no gradient clipping will occur.")
    return params


def clip_grad_norm_(parameters: Any, max_norm: Any, norm_type: Any = 2.0,
                    error_if_nonfinite: bool = False, foreach: Any = None) -> Tensor:
    """Scale the gradients so their joint ``norm_type``-norm is at most ``max_norm``; returns
    the norm before scaling."""
    params = _parameters(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    order = float(norm_type)
    with GradMode(False):
        if not grads:
            return tensor(0.0)
        total = vector_norm(stack([vector_norm(g, order) for g in grads]), order)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise ScriptError(f"The total norm of order {order} for gradients from `parameters` "
                              "is non-finite, so it cannot be clipped. To disable this error and "
                              "scale the gradients by the non-finite norm anyway, set "
                              "`error_if_nonfinite=False`")
        coef = clamp(float(max_norm) / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef)
    return total


def clip_grad_value_(parameters: Any, clip_value: Any, foreach: Any = None) -> None:
    """Clamp every gradient in place to ``[-clip_value, clip_value]`` (its minimum, then its
    maximum, as PyTorch's foreach path does)."""
    value = float(clip_value)
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    with GradMode(False):
        for p in params:
            if p.grad is not None:
                p.grad.clamp_min_(-value)
                p.grad.clamp_max_(value)


NN_UTILS = {fn.__name__: fn for fn in (clip_grad_norm_, clip_grad_value_)}
