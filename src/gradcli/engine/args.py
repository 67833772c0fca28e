"""Argument checks every function shares, with PyTorch's messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ScriptError
from .backend import NUMPY_CLASSES, numpy_type_name
from .context import current
from .lazy import uninitialized_use
from .tensor import Tensor


def check_numel(shape: Sequence[int]) -> None:
    """Refuse a tensor over the run's element limit (docs/commands.md)."""
    n = 1
    for d in shape:
        n *= d
    limit = current().max_elements
    if n > limit:
        raise ScriptError(
            f"a tensor of shape {list(shape)} would have {n:,} elements, over the limit of "
            f"{limit:,}", hint="raise it with --max-elements if you mean it")


def broadcast_shape(sa: Sequence[int], sb: Sequence[int]) -> list[int]:
    """NumPy/PyTorch broadcasting of two shapes, with PyTorch's error."""
    out: list[int] = []
    n = max(len(sa), len(sb))
    for i in range(1, n + 1):
        da = sa[-i] if i <= len(sa) else 1
        db = sb[-i] if i <= len(sb) else 1
        if da != db and da != 1 and db != 1:
            raise ScriptError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {n - i}")
        out.append(db if da == 1 else da)  # 1 broadcasts to anything, 0 included
    return out[::-1]


def broadcast_check(a: Any, b: Any) -> None:
    """PyTorch's error when two tensors do not broadcast; the element limit on the result."""
    if a.__class__ is not Tensor or b.__class__ is not Tensor:
        return
    sa, sb = a.data.shape, b.data.shape
    if sa != sb:
        check_numel(broadcast_shape(sa, sb))


def type_name(x: Any) -> str:
    """A value's type as PyTorch's argument errors name it (``numpy.ndarray`` in full)."""
    if isinstance(x, Tensor):
        return "Tensor"
    cls = type(x)
    return numpy_type_name(cls) if cls in NUMPY_CLASSES else cls.__name__


def typed_arg(fn: str, arg: str, value: Any, kind: type, pos: int | None = None) -> None:
    """PyTorch's TypeError for an ``int`` or ``bool`` argument of another type (a bool is not
    an int there); ``pos`` when it was given by position."""
    ok = isinstance(value, bool) if kind is bool else \
        isinstance(value, kind) and not isinstance(value, bool)
    if not ok:
        at = f" (position {pos})" if pos else ""
        raise ScriptError(f"{fn}(): argument '{arg}'{at} must be {kind.__name__}, not "
                          f"{type_name(value)}", kind="TypeError")


def tensor_arg(x: Any, fn: str, arg: str = "input", pos: int = 1) -> Tensor:
    """``x`` if it is a tensor, else PyTorch's TypeError for argument ``arg`` of ``fn``."""
    if x.__class__ is not Tensor:
        if isinstance(x, Tensor):  # a lazy module's parameter before its first forward
            raise uninitialized_use(fn)
        raise ScriptError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not "
                          f"{type_name(x)}", kind="TypeError")
    return x


def is_number(x: Any) -> bool:
    """A Python number (bool included, as PyTorch's Scalar)."""
    return x.__class__ in (int, float, bool)


def dim_arg(d: Any, ndim: int) -> int:
    """A dimension index, wrapped and checked as PyTorch does."""
    if not isinstance(d, int) or isinstance(d, bool):
        raise ScriptError(f"dim must be an int, not {type_name(d)}", kind="TypeError")
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= d <= hi:
        raise ScriptError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                          f"but got {d})", kind="IndexError")
    return d % ndim if ndim else 0


def check_device(device: Any) -> None:
    """Accept the CPU (``"cpu"``, ``torch.device("cpu")``, None); PyTorch's CPU-build error for
    CUDA; PyTorch's message for a device string it does not know."""
    if device is None:
        return
    kind = getattr(device, "type", device)
    if not isinstance(kind, str):
        raise ScriptError(f"to() received an invalid combination of arguments - got "
                          f"({type_name(device)})", kind="TypeError")
    kind = kind.split(":", 1)[0]
    if kind == "cuda":
        raise ScriptError("Torch not compiled with CUDA enabled", kind="AssertionError")
    if kind != "cpu":
        raise ScriptError("Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, "
                          "hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, "
                          f"privateuseone device type at start of device string: {kind}")
