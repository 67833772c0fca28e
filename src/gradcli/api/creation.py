"""Where tensors come from: the constructors of the PyTorch surface (leaves of the graph).

They build arrays on the run's backend (``engine.context``), in its dtype, within its element
limit, and draw random numbers from its generator.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

from ..engine.args import check_numel, is_number, tensor_arg, type_name
from ..engine.context import current
from ..engine.tensor import Tensor
from ..errors import ScriptError
from ..limits import MAX_DIMS


# --- constructors -------------------------------------------------------------------------------
def leaf(data: Any, requires_grad: bool) -> Tensor:
    be = current().backend
    check_numel(tuple(data.shape))
    return Tensor(be.leaf_data(data), be, bool(requires_grad))


def tensor(data: Any, requires_grad: bool = False) -> Tensor:
    """A leaf from numbers or nested lists (a copy when given a tensor, as torch.tensor)."""
    be = current().backend
    if data.__class__ is Tensor:
        data = data.data
    elif len(_check_literal(data)) > MAX_DIMS:
        raise ScriptError(f"a tensor can have at most {MAX_DIMS} dimensions (NumPy's limit)",
                          kind="ValueError")
    return leaf(be.asarray(data), requires_grad)


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
    if not is_number(data):
        raise ScriptError(f"Could not infer dtype of {type_name(data)}", kind="TypeError")
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
            raise ScriptError(f"size must be ints, not {type_name(d)}", kind="TypeError")
        if d < 0:
            raise ScriptError(f"Trying to create tensor with negative dimension {d}: "
                              f"{list(shape)}")
    check_numel(shape)
    return tuple(shape)


def zeros(*size: Any, requires_grad: bool = False) -> Tensor:
    """A leaf of zeros."""
    be = current().backend
    return leaf(be.xp.zeros(_size(size), dtype=be.dtype), requires_grad)


def ones(*size: Any, requires_grad: bool = False) -> Tensor:
    """A leaf of ones."""
    be = current().backend
    return leaf(be.xp.ones(_size(size), dtype=be.dtype), requires_grad)


def full(size: Any, fill_value: float, requires_grad: bool = False) -> Tensor:
    """A leaf filled with ``fill_value``."""
    be = current().backend
    if not is_number(fill_value) and fill_value.__class__ is not Tensor:
        raise ScriptError("full(): argument 'fill_value' must be Number, not "
                          f"{type_name(fill_value)}", kind="TypeError")
    try:
        value = builtins.float(fill_value)
    except OverflowError:
        raise ScriptError("int too large to convert to float", kind="OverflowError") from None
    return leaf(be.xp.full(_size((size,)), value, dtype=be.dtype), requires_grad)


def eye(n: int, m: int | None = None, requires_grad: bool = False) -> Tensor:
    """The identity matrix."""
    be = current().backend
    _size((n, n if m is None else m))
    return leaf(be.xp.eye(n, m, dtype=be.dtype), requires_grad)


def arange(start: float, end: float | None = None, step: float = 1,
           requires_grad: bool = False) -> Tensor:
    """Evenly spaced values in [start, end)."""
    be = current().backend
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
    check_numel((n,))
    return leaf(be.xp.arange(start, end, step, dtype=be.dtype), requires_grad)


def linspace(start: float, end: float, steps: int, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from start to end inclusive."""
    be = current().backend
    _size((steps,))
    return leaf(be.xp.linspace(start, end, steps, dtype=be.dtype), requires_grad)


def rand(*size: Any, requires_grad: bool = False) -> Tensor:
    """Uniform [0, 1) samples from the run's seeded generator."""
    return leaf(current().backend.random(_size(size), normal=False), requires_grad)


def randn(*size: Any, requires_grad: bool = False) -> Tensor:
    """Standard normal samples from the run's seeded generator."""
    return leaf(current().backend.random(_size(size), normal=True), requires_grad)


def zeros_like(input: Any, requires_grad: bool = False) -> Tensor:
    """Zeros of ``input``'s shape."""
    x = tensor_arg(input, "zeros_like")
    return leaf(x.backend.xp.zeros_like(x.data), requires_grad)


def ones_like(input: Any, requires_grad: bool = False) -> Tensor:
    """Ones of ``input``'s shape."""
    x = tensor_arg(input, "ones_like")
    return leaf(x.backend.xp.ones_like(x.data), requires_grad)
