"""softmax and log_softmax, forward and backward (aten/src/ATen/native/cpu/SoftMaxKernel.cpp,
LogSoftmaxKernelImpl.h, ATen/cpu/vec/functional_base.h).

Over the last dimension each row is reduced with ``vec::reduce_all``: whole vectors summed lane
by lane, the partial tail vector into the first lanes, then the lanes folded by a tree of
shuffles (1-8, 1-4, 1-2, 1-1 for 16 lanes); a row shorter than a vector is summed in order.
``exp``/``log`` are SLEEF's on every element.  Over another dimension the kernels walk
``inner`` positions a vector at a time, summing down the dimension in order, with glibc's
``expf`` for the positions left over — and since those kernels split their positions between
the threads with no grain, the split moves the leftovers.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .. import machine
from . import native
from .fp import fma_add, fp_ignored
from .iterator import thread_ranges
from .unary import madd, scalar, vector

F32 = np.float32
F64 = np.float64


def _lanes(x: Any) -> int:
    return machine.current().vector_bytes // x.dtype.itemsize


def _exp(x: Any) -> Any:
    return _vector("exp", x.dtype.char, machine.current().capability)(x)


def _log(x: Any) -> Any:
    return _vector("log", x.dtype.char, machine.current().capability)(x)


@functools.cache
def _vector(name: str, char: str, capability: str) -> Any:
    """unary.vector's function for ``name`` and a dtype (its character) on a capability (all
    its choice depends on), looked up once."""
    return vector(name, np.dtype(char))


def _compiled(rows: Any) -> Any:
    """The compiled loops (native.py) computing the last-dimension kernels of float32 or
    float64 ``rows`` (a row at least one element long), as (forward, backward), or None: on
    AVX2 and AVX512, where SLEEF computes exp and log, the lanes fold as a tree (float32) or in
    order (float64) and the backward's product is fused."""
    if native.lib is None or not rows.shape[-1]:
        return None
    m = machine.current()
    if m.capability == "DEFAULT" or not m.fma:
        return None
    if rows.dtype == F32:
        return native.lib.log_softmax, native.lib.log_softmax_backward
    if rows.dtype == F64:
        return native.lib.log_softmax64, native.lib.log_softmax_backward64
    return None


def _scalar_exp(x: Any) -> Any:
    return scalar("exp", x.dtype)(x)


def _mixed_exp(x: Any, vec: Any) -> Any:
    """The vector loop's exp where ``vec`` (broadcast to ``x``'s shape) holds, the C library's
    at the other positions (the scalar lambda's leftovers, usually few: computed only there)."""
    e = _exp(x)
    scalar_at = ~np.broadcast_to(vec, x.shape)
    if scalar_at.any():
        if not e.flags.writeable:
            e = e.copy()
        e[scalar_at] = _scalar_exp(x[scalar_at])
    return e


def reduce_all_sum(rows: Any) -> Any:
    """vec::reduce_all(+) over the last axis of ``rows`` (all rows at once)."""
    n = rows.shape[-1]
    if n < _lanes(rows):  # vec_reduce_all's slow path: lane 0 accumulates the elements in order
        zero = np.zeros(rows.shape[:-1], rows.dtype)
        acc = rows[..., 0] + zero if n else zero
        for i in range(1, n):
            acc = acc + rows[..., i]
        return acc
    cols = rows.T.copy() if rows.ndim == 2 else np.array(np.moveaxis(rows, -1, 0), order="C")
    return _sum_lanes(cols)


def _sum_lanes(cols: Any) -> Any:
    """vec::reduce_all(+) over the first axis of ``cols`` (a row's elements down the axis, one
    row per other index), summing in place in ``cols``, which the caller gives up.  With the
    reduced axis first, each step below adds whole contiguous blocks (a strided slice of a
    row-major array goes through NumPy's buffered iterator: 1.6 us against 1.0 for 32 x 8)."""
    n = cols.shape[0]
    w = _lanes(cols)
    if n < w:  # as reduce_all_sum
        zero = np.zeros(cols.shape[1:], cols.dtype)
        acc = cols[0] + zero if n else zero
        for i in range(1, n):
            acc = acc + cols[i]
        return acc
    cols = np.ascontiguousarray(cols)
    full = n - n % w
    acc = cols[:w]
    for d in range(w, full, w):
        np.add(acc, cols[d:d + w], out=acc)
    if full < n:  # Vec::set: only the first n - full lanes take the tail
        tail = n - full
        np.add(acc[:tail], cols[full:], out=acc[:tail])
    if acc.dtype == F32 and machine.current().capability != "DEFAULT":  # see _fold_lanes
        half = w
        while half > 1:
            half //= 2
            np.add(acc[:half], acc[half:2 * half], out=acc[:half])
        return acc[0, ...]  # a 0-d array for a single row, as before
    total = acc[0, ...]
    for lane in range(1, w):
        total = total + acc[lane]
    return total


def _fold_lanes(acc: Any) -> Any:
    """vec_reduce_all's last step, the lanes of ``acc`` (last axis) to one sum: for float32 on
    AVX2 and AVX512 a tree of shuffles (lane i with lane i + half, halving), elsewhere (float64,
    and DEFAULT's generic Vectorized) lane 0 plus each other lane in order."""
    if acc.dtype == F32 and machine.current().capability != "DEFAULT":
        while acc.shape[-1] > 1:
            half = acc.shape[-1] // 2
            acc = acc[..., :half] + acc[..., half:]
        return acc[..., 0]
    total = acc[..., 0]
    for lane in range(1, acc.shape[-1]):
        total = total + acc[..., lane]
    return total


def _rows(x: Any, dim: int) -> tuple[Any, int, int, int]:
    """``x`` as (outer, dim, inner) and those sizes."""
    shape = x.shape
    outer = math.prod(shape[:dim])
    inner = math.prod(shape[dim + 1:])
    return np.ascontiguousarray(x).reshape(outer, shape[dim], inner), outer, shape[dim], inner


def softmax(x: Any, dim: int) -> Any:
    """``torch.softmax(x, dim)`` of a float32/float64 array."""
    x = np.asarray(x)
    if x.size == 0:  # nothing to normalise
        return x + 0
    if x.ndim == 0:
        return _softmax_last(x.reshape(1, 1)).reshape(())
    dim %= x.ndim
    v, outer, size, inner = _rows(x, dim)
    if inner == 1:
        return _softmax_last(v.reshape(outer, size)).reshape(x.shape)
    return _softmax_inner(v, outer, size, inner).reshape(x.shape)


def _softmax_last(rows: Any) -> Any:
    with np.errstate(all="ignore"):
        m = np.max(rows, axis=-1, keepdims=True)
        e = _exp(rows - m)
        s = reduce_all_sum(e)
        inv = rows.dtype.type(1) / s
        return e * inv[:, None]


def _vector_positions(total: int, inner: int, lanes: int) -> Any:
    """_vec_softmax's walk over outer * inner positions: True where a whole vector is used.

    Each thread's range walks each of its pieces of an inner row (the row cut at the range's
    ends) from the piece's start, a vector at a time while one fits, the rest one by one: a
    position is in a vector when it lies before the piece's last ``len % lanes`` positions."""
    out = np.zeros(total, bool)
    for begin, end in thread_ranges(total, None, 0):
        pos = np.arange(begin, end)
        row = pos // inner * inner
        start = np.maximum(row, begin)
        length = np.minimum(row + inner, end) - start
        out[begin:end] = pos - start < length - length % lanes
    return out


def _softmax_inner(v: Any, outer: int, size: int, inner: int) -> Any:
    """_vec_softmax: exp and division in vectors, glibc expf for the leftover positions."""
    lanes = _lanes(v)
    cols = np.moveaxis(v, 1, 2).reshape(outer * inner, size)  # one row per position
    vec = _vector_positions(outer * inner, inner, lanes)
    with np.errstate(all="ignore"):
        m = np.max(cols, axis=1, keepdims=True)
        e = _mixed_exp(cols - m, vec[:, None])
        s = np.zeros(outer * inner, v.dtype)
        for d in range(size):
            s = s + e[:, d]
        out = e / s[:, None]
    # row-major, as PyTorch's result is (a product reading it takes its layout: gemm's
    # arguments, and so its sums, follow the operand's strides)
    return np.ascontiguousarray(np.moveaxis(out.reshape(outer, inner, size), 2, 1))


def log_softmax(x: Any, dim: int) -> Any:
    """``torch.log_softmax(x, dim)`` of a float32/float64 array."""
    x = np.asarray(x)
    if x.size == 0:  # nothing to normalise
        return x + 0
    if x.ndim == 0:
        return _log_softmax_last(x.reshape(1, 1)).reshape(())
    dim %= x.ndim
    v, outer, size, inner = _rows(x, dim)
    if inner == 1:
        return _log_softmax_last(v.reshape(outer, size)).reshape(x.shape)
    return _log_softmax_inner(v, outer, size, inner).reshape(x.shape)


def _log_softmax_last(rows: Any) -> Any:
    loops = _compiled(rows)
    if loops is not None:  # one C loop (native.py): the same operations, the maximum's too
        out = np.empty(rows.shape, rows.dtype)
        loops[0](np.ascontiguousarray(rows), out, rows.shape[-1], _lanes(rows))
        return out
    with np.errstate(all="ignore"):
        shifted = rows - np.maximum.reduce(rows, axis=-1, keepdims=True)
        s = _sum_lanes(_exp(shifted.T))  # the exponentials laid out a row's element first
        return shifted - _log(s)[:, None]


def _chunk(inner: int, size: int, itemsize: int, lanes: int) -> int:
    """vec_logsoftmax_chunk_size_and_num_chunks: a 128 KB block of the reduced dimension."""
    chunk = max((128 * 1024) // size // itemsize, lanes)
    return min(chunk // lanes * lanes, inner)


def _inner_vector_mask(inner: int, size: int, itemsize: int, lanes: int) -> Any:
    """Per inner position: whether serial_vec_logsoftmax_range handles it in a vector."""
    chunk = _chunk(inner, size, itemsize, lanes)
    pos = np.arange(inner)
    start = pos - pos % chunk
    length = np.minimum(chunk, inner - start)
    return (pos - start) < length - length % lanes


def _log_softmax_inner(v: Any, outer: int, size: int, inner: int) -> Any:
    lanes = _lanes(v)
    vec = _inner_vector_mask(inner, size, v.dtype.itemsize, lanes)
    with np.errstate(all="ignore"):
        m = np.max(v, axis=1, keepdims=True)
        shifted = v - m
        e = _mixed_exp(shifted, vec[None, None, :])
        s = np.zeros((outer, inner), v.dtype)
        for d in range(size):
            s = s + e[:, d]
        return shifted - _log(s)[:, None, :]


def softmax_backward(grad: Any, out: Any, dim: int) -> Any:
    """_softmax_backward_data: out * (grad - sum(grad * out)), the products accumulated with
    fused multiply-adds."""
    out = np.asarray(out)
    grad = np.asarray(grad, out.dtype)
    if out.size == 0:
        return grad + 0
    if out.ndim == 0:
        return softmax_backward(grad.reshape(1), out.reshape(1), 0).reshape(())
    dim %= out.ndim
    g, outer, size, inner = _rows(grad, dim)
    o = np.ascontiguousarray(out).reshape(g.shape)
    if inner == 1:
        g2, o2 = g.reshape(outer, size), o.reshape(outer, size)
        # parallel_for calls the loop itself (no OpenMP region) for one row or one thread
        s = _dot_rows(g2, o2, fused_tail=outer == 1 or machine.current().threads == 1)
        return ((g2 - s[:, None]) * o2).reshape(out.shape)
    s = np.zeros((outer, inner), out.dtype)
    for d in range(size):
        s = _madd(g[:, d], o[:, d], s)
    return (o * (g - s[:, None, :])).reshape(out.shape)


def _madd(a: Any, b: Any, c: Any) -> Any:
    """``c + a * b`` as the kernels' compiled code computes it (unary.madd)."""
    return madd(a, b, c)


def _dot_rows(a: Any, b: Any, fused_tail: bool) -> Any:
    """map2_reduce_all(x * y, +) along rows: vec_reduce_all of the lane-wise products.

    NOTE: the compiler fuses the tail's product into its sum (one FMA) in the copy of the
    loop parallel_for calls directly (a single row, or a single thread), and not in the copy
    the OpenMP region runs (several rows and threads); measured on torch 2.13
    (tests/test_numerics.py covers both).
    """
    n = a.shape[-1]
    w = _lanes(a)
    if n < w:
        prods = a * b
        return reduce_all_sum(prods)
    full = n - n % w
    acc = a[..., :w] * b[..., :w]
    for d in range(w, full, w):
        acc = acc + a[..., d:d + w] * b[..., d:d + w]
    if full < n:
        tail = n - full
        acc[..., :tail] = _madd(a[..., full:], b[..., full:], acc[..., :tail]) if fused_tail \
            else acc[..., :tail] + a[..., full:] * b[..., full:]
    return _fold_lanes(acc)


def log_softmax_backward(grad: Any, out: Any, dim: int) -> Any:
    """_log_softmax_backward_data: grad - exp(out) * sum(grad), the product fused into the
    subtraction."""
    out = np.asarray(out)
    grad = np.asarray(grad, out.dtype)
    if out.size == 0:
        return grad + 0
    if out.ndim == 0:
        return log_softmax_backward(grad.reshape(1), out.reshape(1), 0).reshape(())
    dim %= out.ndim
    g, outer, size, inner = _rows(grad, dim)
    o = np.ascontiguousarray(out).reshape(g.shape)
    with fp_ignored():
        if inner == 1:
            g2, o2 = g.reshape(outer, size), o.reshape(outer, size)
            loops = _compiled(o2)
            if loops is not None:  # one C loop (native.py): the same operations
                result = np.empty(o2.shape, o2.dtype)
                loops[1](g2, result, o2, size, _lanes(o2))
                return result.reshape(out.shape)
            s = reduce_all_sum(g2)
            return _msub(g2, _exp(o2), s[:, None]).reshape(out.shape)
        s = np.zeros((outer, inner), out.dtype)
        for d in range(size):
            s = s + g[:, d]
        vec = _inner_vector_mask(inner, size, out.dtype.itemsize, _lanes(out))
        e = _mixed_exp(o, vec[None, None, :])
        return _msub(g, e, s[:, None, :]).reshape(out.shape)


def _msub(a: Any, b: Any, c: Any) -> Any:
    """``a - b * c`` as the compiled code computes it: one FMA (vfnmadd) on AVX2 and AVX512
    (for float32, fp.fma_add of the exact float64 product: cross_entropy's gradient, zero but
    at the targets, has many sums on float32 midpoints, which it settles only where the
    float64 sum was inexact)."""
    if a.dtype == F32 and b.dtype == F32 and machine.current().fma:
        return fma_add(np.multiply(-b, c, dtype=F64), a)  # as fma32(-b, c, a): the same NaNs
    return madd(-b, c, a)
