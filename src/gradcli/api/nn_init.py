"""``torch.nn.init``: fills in place under ``no_grad``, with PyTorch's arithmetic for the bounds
(Python floats, as ``torch/nn/init.py`` computes them) and its generator for the draws."""

from __future__ import annotations

import math
from typing import Any

from ..engine.context import GradMode, current
from ..engine.tensor import Tensor
from ..errors import ScriptError
from . import random

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for a nonlinearity (``calculate_gain('relu')`` is sqrt(2))."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or \
                isinstance(param, float):
            slope = param
        else:
            raise ScriptError(f"negative_slope {param} not a valid number", kind="ValueError")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ScriptError(f"Unsupported nonlinearity {nonlinearity}", kind="ValueError")


def fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out): size(1) and size(0) times the receptive field."""
    if tensor.ndim < 2:
        raise ScriptError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                          "dimensions", kind="ValueError")
    field = 1
    for s in tensor.shape[2:]:
        field *= s
    return tensor.shape[1] * field, tensor.shape[0] * field


def _fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ScriptError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']",
                          kind="ValueError")
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _tensor(tensor: Any, attr: str) -> Tensor:
    """``tensor`` itself, or the AttributeError of PyTorch's first use of ``tensor.attr``."""
    if not isinstance(tensor, Tensor):
        raise ScriptError(f"'{type(tensor).__name__}' object has no attribute '{attr}'",
                          kind="AttributeError")
    return tensor


def uniform_(tensor: Any, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Uniform draws in [a, b)."""
    with GradMode(False):
        return random.uniform_(_tensor(tensor, "uniform_"), a, b, generator=generator)


def normal_(tensor: Any, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Normal draws."""
    with GradMode(False):
        return random.normal_(_tensor(tensor, "normal_"), mean, std, generator=generator)


def constant_(tensor: Any, val: float) -> Tensor:
    """Every element ``val``."""
    with GradMode(False):
        return _tensor(tensor, "fill_").fill_(val)


def ones_(tensor: Any) -> Tensor:
    """Every element 1."""
    with GradMode(False):
        return _tensor(tensor, "fill_").fill_(1.0)


def zeros_(tensor: Any) -> Tensor:
    """Every element 0."""
    with GradMode(False):
        return _tensor(tensor, "zero_").zero_()


def _empty_warning(tensor: Tensor) -> bool:
    if 0 in tensor.shape:
        current().warn("Initializing zero-element tensors is a no-op")
        return True
    return False


def xavier_uniform_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot: uniform in +-gain * sqrt(6 / (fan_in + fan_out))."""
    t = _tensor(tensor, "dim")
    fan_in, fan_out = fan_in_and_fan_out(t)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(t, -a, a, generator)


def xavier_normal_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot: normal with std gain * sqrt(2 / (fan_in + fan_out))."""
    t = _tensor(tensor, "dim")
    fan_in, fan_out = fan_in_and_fan_out(t)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(t, 0.0, std, generator)


def kaiming_uniform_(tensor: Any, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He: uniform in +-sqrt(3) * gain / sqrt(fan)."""
    t = _tensor(tensor, "shape")
    if _empty_warning(t):
        return t
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(t, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(t, -bound, bound, generator)


def kaiming_normal_(tensor: Any, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He: normal with std gain / sqrt(fan)."""
    t = _tensor(tensor, "shape")
    if _empty_warning(t):
        return t
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(t, mode))
    return normal_(t, 0, std, generator)


FUNCTIONS: dict[str, Any] = {fn.__name__: fn for fn in (
    calculate_gain, uniform_, normal_, constant_, ones_, zeros_, xavier_uniform_,
    xavier_normal_, kaiming_uniform_, kaiming_normal_)}
