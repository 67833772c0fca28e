"""Where tensors come from: the run's backend and element limit, the constructors, and the
argument checks every function shares (with PyTorch's messages)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

from .engine import Tensor
from .errors import ScriptError

MAX_ELEMENTS = 50_000_000
MAX_DIMS = 64
_backend: Any = None


def set_backend(backend: Any) -> None:
    """Make ``backend`` the one constructors use (chosen once per run)."""
    global _backend
    _backend = backend


def current_backend() -> Any:
    """The backend of this run, NumPy float64 unless set."""
    global _backend
    if _backend is None:
        from .backend import get_backend

        _backend = get_backend("numpy")
    return _backend


def set_max_elements(n: int) -> None:
    """Largest number of elements a single tensor may have (SPEC §6)."""
    global MAX_ELEMENTS
    MAX_ELEMENTS = n


def _check_numel(shape: Sequence[int]) -> None:
    n = 1
    for d in shape:
        n *= d
    if n > MAX_ELEMENTS:
        raise ScriptError(
            f"a tensor of shape {list(shape)} would have {n:,} elements, over the limit of "
            f"{MAX_ELEMENTS:,}", hint="raise it with --max-elements if you mean it")


def _type_name(x: Any) -> str:
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _tensor(x: Any, fn: str, arg: str = "input", pos: int = 1) -> Tensor:
    if x.__class__ is not Tensor:
        raise ScriptError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not "
                          f"{_type_name(x)}", kind="TypeError")
    return x


def _number(x: Any) -> bool:
    return x.__class__ in (int, float, bool)


def _dim(d: Any, ndim: int) -> int:
    if not isinstance(d, int) or isinstance(d, bool):
        raise ScriptError(f"dim must be an int, not {_type_name(d)}", kind="TypeError")
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= d <= hi:
        raise ScriptError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                          f"but got {d})", kind="IndexError")
    return d % ndim if ndim else 0


# --- constructors -------------------------------------------------------------------------------
def _leaf(data: Any, requires_grad: bool) -> Tensor:
    be = current_backend()
    _check_numel(tuple(data.shape))
    return Tensor(be.leaf_data(data), be, bool(requires_grad))


def tensor(data: Any, requires_grad: bool = False) -> Tensor:
    """A leaf from numbers or nested lists (a copy when given a tensor, as torch.tensor)."""
    be = current_backend()
    if data.__class__ is Tensor:
        data = data.data
    elif len(_check_literal(data)) > MAX_DIMS:
        raise ScriptError(f"a tensor can have at most {MAX_DIMS} dimensions (NumPy's limit)",
                          kind="ValueError")
    return _leaf(be.asarray(data), requires_grad)


def _check_literal(data: Any, dim: int = 0) -> tuple[int, ...]:
    """The shape of a nested list of numbers; PyTorch's errors for ragged or non-numeric data."""
    if isinstance(data, (list, tuple)):
        shapes = [_check_literal(item, dim + 1) for item in data]
        for s in shapes[1:]:
            if s != shapes[0]:
                got = s[0] if s else 0
                raise ScriptError(f"expected sequence of length {shapes[0][0] if shapes[0] else 0}"
                                  f" at dim {dim + 1} (got {got})", kind="ValueError")
        return (len(data),) + (shapes[0] if shapes else ())
    if not _number(data):
        raise ScriptError(f"Could not infer dtype of {_type_name(data)}", kind="TypeError")
    if data.__class__ is int and data.bit_length() > 1023:
        try:
            builtins.float(data)
        except OverflowError:
            raise ScriptError("int too large to convert to float", kind="OverflowError") from None
    return ()


def param(data: Any) -> Tensor:
    """A leaf that requires grad (gradcli's shorthand for tensor(data, requires_grad=True))."""
    return tensor(data, requires_grad=True)


def _size(shape: tuple) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    for d in shape:
        if not isinstance(d, int) or isinstance(d, bool):
            raise ScriptError(f"size must be ints, not {_type_name(d)}", kind="TypeError")
        if d < 0:
            raise ScriptError(f"Trying to create tensor with negative dimension {d}: "
                              f"{list(shape)}")
    _check_numel(shape)
    return tuple(shape)


def zeros(*size: Any, requires_grad: bool = False) -> Tensor:
    """A leaf of zeros."""
    be = current_backend()
    return _leaf(be.xp.zeros(_size(size), dtype=be.dtype), requires_grad)


def ones(*size: Any, requires_grad: bool = False) -> Tensor:
    """A leaf of ones."""
    be = current_backend()
    return _leaf(be.xp.ones(_size(size), dtype=be.dtype), requires_grad)


def full(size: Any, fill_value: float, requires_grad: bool = False) -> Tensor:
    """A leaf filled with ``fill_value``."""
    be = current_backend()
    if not _number(fill_value) and fill_value.__class__ is not Tensor:
        raise ScriptError("full(): argument 'fill_value' must be Number, not "
                          f"{_type_name(fill_value)}", kind="TypeError")
    try:
        value = builtins.float(fill_value)
    except OverflowError:
        raise ScriptError("int too large to convert to float", kind="OverflowError") from None
    return _leaf(be.xp.full(_size((size,)), value, dtype=be.dtype), requires_grad)


def eye(n: int, m: int | None = None, requires_grad: bool = False) -> Tensor:
    """The identity matrix."""
    be = current_backend()
    _size((n, n if m is None else m))
    return _leaf(be.xp.eye(n, m, dtype=be.dtype), requires_grad)


def arange(start: float, end: float | None = None, step: float = 1,
           requires_grad: bool = False) -> Tensor:
    """Evenly spaced values in [start, end)."""
    be = current_backend()
    if end is None:
        start, end = 0, start
    if step == 0:
        raise ScriptError("step must be nonzero")
    if (end - start) * step < 0:
        raise ScriptError("upper bound and lower bound inconsistent with step sign")
    try:
        n = builtins.max(0, math.ceil((end - start) / step))
    except (OverflowError, ValueError):  # an inf or nan bound or step
        raise ScriptError(f"unsupported range: {start} -> {end}") from None
    _check_numel((n,))
    return _leaf(be.xp.arange(start, end, step, dtype=be.dtype), requires_grad)


def linspace(start: float, end: float, steps: int, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from start to end inclusive."""
    be = current_backend()
    _size((steps,))
    return _leaf(be.xp.linspace(start, end, steps, dtype=be.dtype), requires_grad)


def rand(*size: Any, requires_grad: bool = False) -> Tensor:
    """Uniform [0, 1) samples from the run's seeded generator."""
    return _leaf(current_backend().random(_size(size), normal=False), requires_grad)


def randn(*size: Any, requires_grad: bool = False) -> Tensor:
    """Standard normal samples from the run's seeded generator."""
    return _leaf(current_backend().random(_size(size), normal=True), requires_grad)


def zeros_like(input: Any, requires_grad: bool = False) -> Tensor:
    """Zeros of ``input``'s shape."""
    x = _tensor(input, "zeros_like")
    return _leaf(x.backend.xp.zeros_like(x.data), requires_grad)


def ones_like(input: Any, requires_grad: bool = False) -> Tensor:
    """Ones of ``input``'s shape."""
    x = _tensor(input, "ones_like")
    return _leaf(x.backend.xp.ones_like(x.data), requires_grad)
