"""``torch.nn.functional``'s convolutions and poolings as ATen records them: ``conv1d`` and
``conv2d`` one ``convolution`` node (ConvolutionBackward0; an unbatched input unsqueezed and the
result squeezed, padding="same" made symmetric by a ``constant_pad_nd`` first), ``max_pool2d``
``max_pool2d_with_indices``, ``avg_pool2d``, ``adaptive_avg_pool2d`` (a ``mean`` for a 1 x 1
output), and their 1-d forms over an unsqueezed (N, C, 1, L) input.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from . import ops as O
from . import windows as W
from .args import tensor_arg
from .context import current
from .record import apply
from .reductions import mean as _mean
from .shape import squeeze, unsqueeze
from .tensor import Tensor


def _ints(name: str, value: Any, n: int, what: str = "") -> tuple[int, ...]:
    """A size argument as ``n`` ints (one int repeated), with ATen's error for a wrong length."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise ScriptError(f"expected {name} to be a single integer value or a list of {n} values "
                          f"to match the convolution dimensions, but got {name}={list(value)}")
    return value


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(d) for d in t.shape) + "]"


def _conv(fn: str, dims: int, input: Any, weight: Any, bias: Any, stride: Any, padding: Any,
          dilation: Any, groups: int) -> Tensor:
    x = tensor_arg(input, fn)
    w = tensor_arg(weight, fn, "weight", 2)
    if x.ndim not in (dims + 1, dims + 2):
        raise ScriptError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to "
                          f"{fn}, but got input of size: {_sizes(x)}")
    batched = x.ndim == dims + 2
    if not batched:
        x = unsqueeze(x, 0)
    stride = _ints("stride", stride, dims)
    dilation = _ints("dilation", dilation, dims)
    if w.ndim != dims + 2:
        raise ScriptError(f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight "
                          f"{_sizes(w)}, but got {x.ndim}-dimensional input of size "
                          f"{_sizes(x)} instead")
    if isinstance(padding, str):
        x, padding = _same(x, w, padding, stride, dilation, dims)
    padding = _ints("padding", padding, dims)
    _check(x, w, bias, stride, padding, dilation, groups, dims)
    y = apply(O.CONVOLUTION, (x, w, bias), {
        "stride": stride, "padding": padding, "dilation": dilation, "transposed": False,
        "output_padding": (0,) * dims, "groups": groups})
    return y if batched else squeeze(y, 0)


def _same(x: Tensor, w: Tensor, padding: str, stride: tuple, dilation: tuple,
          dims: int) -> tuple[Tensor, tuple]:
    """padding="valid" (none) or "same" (ATen's _convolution_mode: the odd unit of a total
    padding on the right, by a constant_pad_nd of the input)."""
    if padding == "valid":
        return x, (0,) * dims
    if padding != "same":
        raise ScriptError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise ScriptError("padding='same' is not supported for strided convolutions")
    left, extra = [], [0] * (2 * dims)
    for i in range(dims):
        total = dilation[i] * (w.shape[2 + i] - 1)
        left.append(total // 2)
        if total % 2:
            extra[2 * (dims - 1 - i) + 1] = 1
    if any(extra):
        current().warn_once("Using padding='same' with even kernel lengths and odd dilation may "
                            "require a zero-padded copy of the input be created")
        x = apply(O.CONSTANT_PAD_ND, (x,), {"pad": tuple(extra), "value": 0})
    return x, tuple(left)


def _check(x: Tensor, w: Tensor, bias: Any, stride: tuple, padding: tuple, dilation: tuple,
           groups: int, dims: int) -> None:
    """ATen's check_shape_forward and the CPU kernels' dtype checks."""
    if any(p < 0 for p in padding):
        raise ScriptError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise ScriptError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise ScriptError("dilation should be greater than zero")
    if groups <= 0:
        raise ScriptError("non-positive groups is not supported")
    if w.shape[0] % groups:
        raise ScriptError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                          f"dimension 0, but got weight of size [{_sizes(w)}] instead")
    if x.shape[1] != w.shape[1] * groups:
        raise ScriptError(f"Given groups={groups}, weight of size {_sizes(w)}, expected "
                          f"input{_sizes(x)} to have {w.shape[1] * groups} channels, but got "
                          f"{x.shape[1]} channels instead")
    if bias is not None:
        b = tensor_arg(bias, "conv", "bias", 3)
        if b.ndim != 1 or b.shape[0] != w.shape[0]:
            raise ScriptError(f"Given weight of size {_sizes(w)}, expected bias to be "
                              f"1-dimensional with {w.shape[0]} elements, but got bias of size "
                              f"{_sizes(b)} instead")
        if b.dtype != x.dtype:
            raise ScriptError(f"Input type ({_c_name(x)}) and bias type ({_c_name(b)}) "
                              "should be the same")
    padded = [x.shape[2 + i] + 2 * padding[i] for i in range(dims)]
    kernel = [dilation[i] * (w.shape[2 + i] - 1) + 1 for i in range(dims)]
    if any(k > p for k, p in zip(kernel, padded)):
        raise ScriptError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))})"
                          f". Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't "
                          "be greater than actual input size")
    if w.dtype != x.dtype:
        raise ScriptError(f"expected scalar type {x.dtype.legacy[:-6]} but found "
                          f"{w.dtype.legacy[:-6]}")


def _c_name(t: Tensor) -> str:
    """The C++ name of a tensor's dtype: float, double, long ..."""
    return t.dtype.legacy[:-6].lower().replace("bfloat16", "c10::BFloat16").replace(
        "half", "c10::Half")


def conv1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """``F.conv1d``: (N, C, L) by (O, C / groups, k)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """``F.conv2d``: (N, C, H, W) by (O, C / groups, kh, kw)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


# --- pooling ------------------------------------------------------------------------------------
def _pool_args(fn: str, x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
               ceil_mode: bool) -> tuple:
    k = _pair(kernel_size)
    s = k if stride is None or stride == [] or stride == () else _pair(stride)
    p, d = _pair(padding), _pair(dilation)
    if x.ndim not in (3, 4) or x.numel() == 0:
        raise ScriptError("non-empty 3D or 4D (batch mode) tensor expected for input")
    for i in range(2):
        if p[i] > (d[i] * (k[i] - 1) + 1) // 2:
            raise ScriptError(f"pad should be at most half of effective kernel size, but got "
                              f"pad={p[i]}, kernel_size={k[i]} and dilation={d[i]}")
    out = tuple(W.out_size(x.shape[-2 + i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(2))
    if min(out) < 1:
        c, h, w = x.shape[-3:]
        raise ScriptError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                          f"({c}x{out[0]}x{out[1]}). Output size is too small")
    return k, s, p, d, out


def _pair(v: Any) -> tuple[int, int]:
    if isinstance(v, int) and not isinstance(v, bool):
        return (v, v)
    v = tuple(v)
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def max_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """``F.max_pool2d``: each window's maximum (MaxPool2DWithIndicesBackward0)."""
    x = tensor_arg(input, "max_pool2d")
    k, s, p, d, out = _pool_args("max_pool2d", x, kernel_size, stride, padding, dilation,
                                 ceil_mode)
    xp = x.backend.xp
    idx = Tensor(W.max_pool_indices(xp, x.data, k, s, p, d, out), x.backend)
    y = apply(O.MAX_POOL2D, (x, idx), {"kernel_size": k, "stride": s, "padding": p,
                                      "dilation": d, "ceil_mode": bool(ceil_mode)})
    return (y, idx) if return_indices else y


def avg_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Any = None) -> Tensor:
    """``F.avg_pool2d``: each window's mean (AvgPool2DBackward0)."""
    x = tensor_arg(input, "avg_pool2d")
    k, s, p, _, _ = _pool_args("avg_pool2d", x, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise ScriptError("divisor must be not zero")
    return apply(O.AVG_POOL2D, (x,), {"kernel_size": k, "stride": s, "padding": p,
                                     "ceil_mode": bool(ceil_mode),
                                     "count_include_pad": bool(count_include_pad),
                                     "divisor_override": divisor_override})


def _pool1d(fn: Any, name: str, input: Any, kernel_size: Any, stride: Any, padding: Any,
            *rest: Any) -> Any:
    """A 1-d pooling: the 2-d one over ``input.unsqueeze(-2)``, squeezed back."""
    x = tensor_arg(input, name)
    if x.ndim not in (2, 3):
        raise ScriptError(f"{name}() Expected 2D or 3D input tensor, but got {list(x.shape)}")
    one = _ints("kernel_size", kernel_size, 1)[0]
    st = one if stride is None or stride == [] or stride == () else _ints("stride", stride, 1)[0]
    y = fn(unsqueeze(x, -2), (1, one), (1, st), (0, _ints("padding", padding, 1)[0]), *rest)
    if isinstance(y, tuple):
        return squeeze(y[0], -2), squeeze(y[1], -2)
    return squeeze(y, -2)


def max_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """``F.max_pool1d``: max_pool2d over (N, C, 1, L)."""
    return _pool1d(max_pool2d, "max_pool1d", input, kernel_size, stride, padding,
                   (1, _ints("dilation", dilation, 1)[0]), ceil_mode, return_indices)


def avg_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """``F.avg_pool1d``: avg_pool2d over (N, C, 1, L)."""
    return _pool1d(avg_pool2d, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode,
                   count_include_pad)


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Tensor:
    """``F.adaptive_avg_pool2d``: windows that cover the input evenly; a 1 x 1 output is
    ``input.mean((-1, -2), keepdim=True)`` (MeanBackward1), as ATen computes it."""
    x = tensor_arg(input, "adaptive_avg_pool2d")
    if x.ndim not in (3, 4):
        raise ScriptError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                          f"{list(x.shape)}")
    size = _pair(output_size) if not isinstance(output_size, (tuple, list)) else tuple(
        x.shape[-2 + i] if v is None else v for i, v in enumerate(output_size))
    if size == (1, 1):
        return _mean(x, (-1, -2), True)
    return apply(O.ADAPTIVE_AVG_POOL2D, (x,), {"output_size": size})


CONVOLUTIONS: dict[str, Any] = {fn.__name__: fn for fn in (
    conv1d, conv2d, max_pool1d, max_pool2d, avg_pool1d, avg_pool2d, adaptive_avg_pool2d)}
