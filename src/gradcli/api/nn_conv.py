"""``torch.nn``'s convolution and pooling modules: ``Conv1d``, ``Conv2d`` (padding modes by
``F.pad``), ``MaxPool1d/2d``, ``AvgPool1d/2d``, ``AdaptiveAvgPool2d``, each with PyTorch's
``__init__`` checks, initialisation and ``extra_repr``.
"""

from __future__ import annotations

import math
from typing import Any

from ..engine import NN_FUNCTIONS
from ..engine.args import check_device
from ..engine.dtypes import to_dtype
from ..engine.tensor import Tensor
from ..errors import ScriptError
from . import nn_init
from .creation import get_default_dtype, zeros
from .nn_module import _COMMON, Module
from .nn_parameter import Parameter

_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(v: Any, n: int) -> tuple:
    """PyTorch's _single/_pair: an int repeated, an iterable as a tuple."""
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvNd(Module):
    """``nn.Conv1d`` / ``nn.Conv2d``: ``F.conv<n>d`` with a weight (out, in / groups, *kernel)
    and a bias, initialised as PyTorch's reset_parameters."""

    script_attributes = _COMMON | {"weight", "bias", "in_channels", "out_channels",
                                   "kernel_size", "stride", "padding", "dilation", "groups",
                                   "padding_mode", "output_padding", "transposed",
                                   "reset_parameters"}
    script_settable = frozenset({"training", "weight", "bias", "stride", "padding", "dilation",
                                 "padding_mode"})
    _dims = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        check_device(device)
        n = self._dims
        if groups <= 0:
            raise ScriptError("groups must be a positive integer", kind="ValueError")
        if in_channels % groups != 0:
            raise ScriptError("in_channels must be divisible by groups", kind="ValueError")
        if out_channels % groups != 0:
            raise ScriptError("out_channels must be divisible by groups", kind="ValueError")
        kernel_size, stride, dilation = (_ntuple(v, n) for v in (kernel_size, stride, dilation))
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ScriptError(f"Invalid padding string {padding!r}, should be one of "
                                  "{'same', 'valid'}", kind="ValueError")
            if padding == "same" and any(s != 1 for s in stride):
                raise ScriptError("padding='same' is not supported for strided convolutions",
                                  kind="ValueError")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in _MODES:
            raise ScriptError("padding_mode must be one of {'zeros', 'circular', 'reflect', "
                              f"'replicate'}}, but got padding_mode='{padding_mode}'",
                              kind="ValueError")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.groups, self.padding_mode = dilation, groups, padding_mode
        self.transposed, self.output_padding = False, (0,) * n
        if isinstance(padding, str):
            pads = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    pads[2 * i] = total // 2
                    pads[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = tuple(pads)
        else:
            self._reversed_padding_repeated_twice = tuple(
                p for p in reversed(padding) for _ in range(2))
        dt = get_default_dtype() if dtype is None else to_dtype(dtype)
        self._parameters["weight"] = Parameter(zeros(out_channels, in_channels // groups,
                                                     *kernel_size, dtype=dt))
        self._parameters["bias"] = Parameter(zeros(out_channels, dtype=dt)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """kaiming_uniform_(a=sqrt(5)), then the bias uniform in +-1/sqrt(fan_in)."""
        nn_init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = nn_init.fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                nn_init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Any) -> Tensor:
        """``F.conv<n>d``, after ``F.pad`` for a padding mode other than zeros."""
        conv = NN_FUNCTIONS[f"conv{self._dims}d"]
        if self.padding_mode != "zeros":
            padded = NN_FUNCTIONS["pad"](input, self._reversed_padding_repeated_twice,
                                         mode=self.padding_mode)
            return conv(padded, self.weight, self.bias, self.stride, (0,) * self._dims,
                        self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                    self.groups)

    def extra_repr(self) -> str:
        n = self._dims
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """``nn.Conv1d``: (N, C, L) inputs."""

    _dims = 1


class Conv2d(_ConvNd):
    """``nn.Conv2d``: (N, C, H, W) inputs."""

    _dims = 2


class _MaxPoolNd(Module):
    """``nn.MaxPool1d`` / ``nn.MaxPool2d``."""

    script_attributes = _COMMON | {"kernel_size", "stride", "padding", "dilation",
                                   "return_indices", "ceil_mode"}
    script_settable = frozenset({"training", "kernel_size", "stride", "padding", "dilation",
                                 "return_indices", "ceil_mode"})
    _fn = "max_pool2d"

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Any) -> Any:
        """``F.max_pool<n>d`` with the module's settings."""
        return NN_FUNCTIONS[self._fn](input, self.kernel_size, self.stride, self.padding,
                                      self.dilation, ceil_mode=self.ceil_mode,
                                      return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """``nn.MaxPool1d``."""

    _fn = "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    """``nn.MaxPool2d``."""

    _fn = "max_pool2d"


class AvgPool1d(Module):
    """``nn.AvgPool1d``: its sizes kept as 1-tuples, as PyTorch's _single makes them."""

    script_attributes = _COMMON | {"kernel_size", "stride", "padding", "ceil_mode",
                                   "count_include_pad"}

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Any) -> Tensor:
        """``F.avg_pool1d``."""
        return NN_FUNCTIONS["avg_pool1d"](input, self.kernel_size, self.stride, self.padding,
                                          self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """``nn.AvgPool2d``."""

    script_attributes = _COMMON | {"kernel_size", "stride", "padding", "ceil_mode",
                                   "count_include_pad", "divisor_override"}

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Any) -> Tensor:
        """``F.avg_pool2d``."""
        return NN_FUNCTIONS["avg_pool2d"](input, self.kernel_size, self.stride, self.padding,
                                          self.ceil_mode, self.count_include_pad,
                                          self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """``nn.AdaptiveAvgPool2d(output_size)``."""

    script_attributes = _COMMON | {"output_size"}

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Any) -> Tensor:
        """``F.adaptive_avg_pool2d``."""
        return NN_FUNCTIONS["adaptive_avg_pool2d"](input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


PLACES = {"Conv1d": "conv", "Conv2d": "conv", "MaxPool1d": "pooling", "MaxPool2d": "pooling",
          "AvgPool1d": "pooling", "AvgPool2d": "pooling", "AdaptiveAvgPool2d": "pooling"}

__all__ = ["PLACES", "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "Conv1d", "Conv2d",
           "MaxPool1d", "MaxPool2d"]
