"""``var`` and ``std`` as PyTorch's CPU kernels compute them (ReduceOps.cpp, SharedReduceOps.h).

Both algorithms work in float64, for float32 tensors too, and round once at the end:

* a reduction to a single element (``std_var_all_cpu``): the mean (``torch.mean``, in the
  tensor's dtype, then widened), the squared distances from it summed in memory order, split
  between the threads past ``GRAIN_SIZE`` elements (``at::parallel_reduce``), divided by
  ``max(0, N - correction)``; then the square root for ``std``;
* along dimensions (``std_var_kernel_impl``): Welford's running mean and sum of squared
  distances (``WelfordOps``), one pass over each output's elements in the iterator's order (the
  reduced dimension with the smallest stride innermost), each step rounded on its own (no
  fused multiply-add: measured on float64, where a fused update shows), then
  ``m2 / (n - correction)``, or over 0 when no degree of freedom is left.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import native
from .iterator import thread_ranges
from .reduce import mean

F64 = np.float64


def var_std(x: Any, axes: tuple | None, correction: float, keepdims: bool,
            take_sqrt: bool) -> Any:
    """``torch.var`` (``take_sqrt`` False) or ``torch.std`` of a float32/float64 array."""
    x = np.asarray(x)
    nd = x.ndim
    axes = tuple(range(nd)) if axes is None else tuple(sorted({a % nd for a in axes})) \
        if nd else ()
    kept = [i for i in range(nd) if i not in axes]
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keepdims else \
        tuple(x.shape[i] for i in kept)
    if x.size == 0:
        return np.full(out_shape, np.nan, x.dtype)[()]
    with np.errstate(all="ignore"):  # no degrees of freedom left: inf or nan, as PyTorch's
        if math.prod(out_shape) == 1:
            result = _all(x, correction)
        else:
            result = _welford(x, axes, kept, correction)
        if take_sqrt:
            result = np.sqrt(result)
    return np.asarray(result).astype(x.dtype).reshape(out_shape)[()]


def _all(x: Any, correction: float) -> Any:
    """std_var_all_cpu's variance, a float64 scalar."""
    m = F64(mean(x))
    sq = x.ravel(order="K").astype(F64) - m  # the input in memory order
    sq *= sq
    total = F64(0.0)
    for begin, end in thread_ranges(sq.size):
        total += F64(0.0) + np.cumsum(sq[begin:end])[-1]  # each thread's sum, in order
    return total / F64(max(0.0, x.size - correction))


def _welford(x: Any, axes: tuple, kept: list, correction: float) -> Any:
    """WelfordOps over ``axes`` for every kept index at once: float64 variances."""
    order = sorted(axes, key=lambda a: -x.strides[a])  # the smallest stride last (innermost)
    rows = x.transpose(kept + order).reshape(tuple(x.shape[i] for i in kept) + (-1,))
    n = rows.shape[-1]
    divisor = F64(n - correction if n > correction else 0)
    flat = rows.reshape(-1, n)  # (a view wherever ``rows`` is one: its rows are evenly spaced)
    if native.lib is not None and flat.strides[0] >= 0 and flat.strides[1] >= 0:
        m2 = np.empty(flat.shape[0], F64)  # the loop below, row by row in C
        size = flat.itemsize
        native.lib.welford(flat, m2, flat.shape[0], n, flat.strides[0] // size,
                           flat.strides[1] // size)
        return m2.reshape(rows.shape[:-1]) / divisor
    avg = np.zeros(rows.shape[:-1], F64)
    m2 = np.zeros(rows.shape[:-1], F64)
    for i in range(rows.shape[-1]):
        value = rows[..., i].astype(F64)
        delta = value - avg
        avg = avg + delta / F64(i + 1)
        m2 = m2 + delta * (value - avg)
    return m2 / divisor
