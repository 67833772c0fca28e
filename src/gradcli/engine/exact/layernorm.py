"""Layer normalisation as PyTorch's CPU kernel computes it (aten/src/ATen/native/cpu/
layer_norm_kernel.cpp with moments_utils.h), for float32 and float64 inputs.

Each row of N elements (the normalised dims, flattened) by itself, whatever the threads:

* ``RowwiseMoments``: the row's first ``n = N // W`` vectors of W lanes (32 bytes: the kernel
  is registered for AVX2 only, so an AVX512 machine runs it too) go in chunks of 16 vectors
  through Welford's update lane by lane (``d = x - m1; m1 += d * (1 / (j + 1)); m2 += d * (x -
  m1)``, both fused), each chunk's moments merged into a cascade stack (``AddMomentsVec``;
  ``c = count_add / count``, ``m1 += c * delta`` a multiply then an add, ``m2`` as ``(m2 +
  m2_add) + delta * ((c * delta) * count)`` with one fused multiply-add: measured, not what the
  source's ``m2 += m2_add + delta * delta * c * count`` reads as), the stack folded, then the
  scalar tail (the last ``N % W`` elements: ``m1 += d / k``, ``m2 += d * (x - m1)``, not
  fused), then each lane merged into that scalar in order (``AddMoments``: ``m1`` by a fused
  multiply-add, ``m2 += fma(delta * delta * c, count, m2_add)``); the variance is ``m2 / N``.
* ``rstd = 1 / sqrt(var + eps)``, in the input's dtype (eps cast to it), saved with the mean.
* The output ``((x - mean) * rstd) * gamma + beta``: one fused multiply-add with both gamma and
  beta, ``(x - mean) * rstd`` then ``* gamma`` with gamma alone (``+ 0``: a negative zero
  turns positive), ``fma(x - mean, rstd, beta)`` with beta alone (the compiler dropped the loop's
  ``* 1``).

Which operations are fused was measured against PyTorch 2.13's wheel on an AVX2 machine
(tools/compare_layer_norm.py); DEFAULT's build fuses nothing (``madd``).

The NumPy code here is the definition; where the compiled loops are built (native.py) the
public functions run _native.c's ``layer_norm_*`` loops instead, which compute the same
operations in the same order, row by row (tests/test_layer_norm_exact.py holds the two to the
same bits, the NaNs' payloads aside).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import machine
from ..machine import SUM_VECTOR_BYTES
from . import native
from .fp import fp_ignored
from .iterator import thread_ranges
from .softmaxes import _fold_lanes
from .unary import F32, madd

CHUNK = 16  # kChunkSize: vectors per Welford chunk


def _flags(dtype: Any) -> int | None:
    """The compiled loops' flags for arrays of ``dtype`` on the current machine (1: madd
    fuses, 2: _fold_lanes folds as a tree, 8: float64), or None where they do not apply (not
    built, or not float32/float64)."""
    if native.lib is None or dtype not in native.FLOATS:
        return None
    m = machine.current()
    flags = 1 if m.fma else 0
    if dtype == F32:
        return flags | 2 if m.capability != "DEFAULT" else flags
    return flags | 8


def _lead(x: Any, k: int) -> tuple[int, int]:
    """The row count and row length of ``x`` over its last ``k`` dims."""
    shape = x.shape
    size = shape[-1] if k == 1 else math.prod(shape[len(shape) - k:])
    return (x.size // size if size else math.prod(shape[:len(shape) - k])), size


def _per_row(a: Any, dtype: Any, count: int) -> Any | None:
    """A row statistic (``count`` values of ``dtype``, any shape) as a C-contiguous array, or
    None where it does not hold one value per row in the input's dtype (the NumPy code then:
    another dtype would promote the arithmetic)."""
    if a is None or a.size != count or a.dtype != dtype:
        return None
    return native._flat(a, dtype)


def _per_column(a: Any, dtype: Any, shape: tuple) -> Any:
    """A weight or bias (None, or an array broadcasting to the normalised ``shape``) as the
    loops take it: one value per element of a row."""
    if a is None:
        return None
    return native._flat(a if a.shape == shape else np.broadcast_to(a, shape), dtype)


def _ceil_log2(x: int) -> int:
    """utils::CeilLog2 (at least 1)."""
    return 1 if x <= 2 else (x - 1).bit_length()


def _add_moments_vec(m0_add: int, m1_add: Any, m2_add: Any, m0: int, m1: Any,
                     m2: Any) -> tuple[int, Any, Any]:
    """AddMomentsVec: the moments (m0_add, m1_add, m2_add) merged into (m0, m1, m2)."""
    dt = m1.dtype.type
    n = m0 + m0_add
    c = dt(0) if n == 0 else dt(m0_add) / dt(n)
    delta = m1_add - m1
    p = c * delta
    return n, m1 + p, madd(delta, p * dt(m0), m2 + m2_add)


def _add_moments(m0_add: int, m1_add: Any, m2_add: Any, m0: int, m1: Any,
                 m2: Any) -> tuple[int, Any, Any]:
    """AddMoments: the scalar merge (one per row at once)."""
    dt = m1.dtype.type
    n = m0 + m0_add
    c = dt(0) if n == 0 else dt(m0_add) / dt(n)
    delta = m1_add - m1
    m1 = madd(np.full_like(delta, c), delta, m1)
    return n, m1, m2 + madd(delta * delta * c, np.full_like(delta, dt(m0)), m2_add)


def row_moments(rows: Any) -> tuple[Any, Any]:
    """RowwiseMoments of each row of the C-contiguous (M, N) array ``rows``: (mean, biased
    variance), two (M,) arrays of its dtype."""
    flags = _flags(rows.dtype)
    if flags is not None:
        count, size = rows.shape
        mean, var = np.empty(count, rows.dtype), np.empty(count, rows.dtype)
        native.lib.layer_norm_stats(native._flat(rows, rows.dtype), mean, var, 0.0, count, size,
                                    flags | 4)
        return mean, var
    dt = rows.dtype.type
    count, size = rows.shape
    width = SUM_VECTOR_BYTES // rows.itemsize
    n = size // width
    chunks = -(-n // CHUNK)
    depth = _ceil_log2(chunks)
    zero = np.zeros((count, width), rows.dtype)
    with fp_ignored():
        if chunks:
            # every chunk's Welford pass at once: chunk c's j-th vector is vecs[:, c, j]
            vecs = np.zeros((count, chunks * CHUNK, width), rows.dtype)
            vecs[:, :n] = rows[:, :n * width].reshape(count, n, width)
            vecs = vecs.reshape(count, chunks, CHUNK, width)
            full, rem = divmod(n, CHUNK)
            cm1 = np.zeros((count, chunks, width), rows.dtype)
            cm2 = np.zeros((count, chunks, width), rows.dtype)
            for j in range(CHUNK):
                k = full + (1 if j < rem else 0)  # the chunks that have a j-th vector
                x = vecs[:, :k, j]
                m1, m2 = cm1[:, :k], cm2[:, :k]
                d = x - m1
                m1 = madd(d, np.full_like(d, dt(1) / dt(j + 1)), m1)
                cm1[:, :k] = m1
                cm2[:, :k] = madd(d, x - m1, m2)
        m0_stk = [0] * depth
        m1_stk = [zero] * depth
        m2_stk = [zero] * depth
        for i in range(chunks):
            m0 = min(CHUNK, n - i * CHUNK)
            m0_stk[0], m1_stk[0], m2_stk[0] = _add_moments_vec(
                m0, cm1[:, i], cm2[:, i], m0_stk[0], m1_stk[0], m2_stk[0])
            mask = i + 1
            j = 1
            while j < depth and not mask & 1:
                m0_stk[j], m1_stk[j], m2_stk[j] = _add_moments_vec(
                    m0_stk[j - 1], m1_stk[j - 1], m2_stk[j - 1], m0_stk[j], m1_stk[j],
                    m2_stk[j])
                m0_stk[j - 1], m1_stk[j - 1], m2_stk[j - 1] = 0, zero, zero
                mask >>= 1
                j += 1
        for i in range(1, depth):
            m0_stk[0], m1_stk[0], m2_stk[0] = _add_moments_vec(
                m0_stk[i], m1_stk[i], m2_stk[i], m0_stk[0], m1_stk[0], m2_stk[0])
        lanes1, lanes2 = m1_stk[0], m2_stk[0]
        m0 = 0
        m1 = np.zeros(count, rows.dtype)
        m2 = np.zeros(count, rows.dtype)
        for i in range(n * width, size):  # the scalar tail
            x = rows[:, i]
            d = x - m1
            m0 += 1
            m1 = m1 + d / dt(m0)
            m2 = m2 + d * (x - m1)
        for lane in range(width):
            m0, m1, m2 = _add_moments(n, lanes1[:, lane], lanes2[:, lane], m0, m1, m2)
        return m1, m2 / dt(size)


def _split(x: Any, k: int) -> tuple[Any, tuple]:
    """``x`` as (M, N) rows over its last ``k`` dims, and the statistics' shape."""
    lead = x.shape[:x.ndim - k]
    return np.ascontiguousarray(x).reshape(math.prod(lead), math.prod(x.shape[x.ndim - k:])), \
        lead + (1,) * k


def stats(x: Any, k: int, eps: float) -> tuple[Any, Any]:
    """The mean and rstd of each row over ``x``'s last ``k`` dims, shaped (*lead, 1, ...)."""
    flags = _flags(x.dtype)
    if flags is not None:
        count, size = _lead(x, k)
        shape = x.shape[:x.ndim - k] + (1,) * k
        mean, rstd = np.empty(shape, x.dtype), np.empty(shape, x.dtype)
        native.lib.layer_norm_stats(native._flat(x, x.dtype), mean, rstd, float(eps), count,
                                    size, flags)
        return mean, rstd
    rows, shape = _split(x, k)
    dt = rows.dtype.type
    mean, var = row_moments(rows)
    with fp_ignored():
        rstd = dt(1) / np.sqrt(var + dt(eps))
    return mean.reshape(shape), rstd.reshape(shape)


def forward(x: Any, k: int, weight: Any, bias: Any, mean: Any, rstd: Any) -> Any:
    """The kernel's output from the row statistics ``mean`` and ``rstd`` (as ``stats``)."""
    dt = x.dtype
    flags = _flags(dt)
    if flags is not None:
        count, size = _lead(x, k)
        m, r = _per_row(mean, dt, count), _per_row(rstd, dt, count)
        if m is not None and r is not None:
            out = np.empty(x.shape, dt)
            native.lib.layer_norm_forward(native._flat(x, dt), _per_column(weight, dt, x.shape[x.ndim - k:]),
                                          _per_column(bias, dt, x.shape[x.ndim - k:]), m, r, out, count, size,
                                          flags)
            return out
    with fp_ignored():
        centred = x - mean
        if bias is None:
            out = centred * rstd
            if weight is not None:
                out = out * weight.astype(dt, copy=False)
            return out + dt.type(0)
        b = np.broadcast_to(bias.astype(dt, copy=False), x.shape)
        if weight is None:
            return madd(centred, np.broadcast_to(rstd, x.shape), b)
        return madd(centred * rstd, np.broadcast_to(weight.astype(dt, copy=False), x.shape), b)


def _lanes_sum(left: Any, right: Any | None) -> Any:
    """vec::map2_reduce_all / map3_reduce_all (``acc + left * right``) or, with no ``right``,
    vec::reduce_all (``acc + left``) along the last axis of (M, N) arrays: each row's first
    vector, then each full vector added (a multiply, then an add: not fused), the partial last
    vector's lanes by a fused multiply-add (measured), the lanes folded; a row shorter than a
    vector is added in order in lane 0."""
    terms = left if right is None else left * right
    count, size = terms.shape
    width = SUM_VECTOR_BYTES // terms.itemsize
    if size < width:
        acc = terms[:, 0]
        for i in range(1, size):
            acc = acc + terms[:, i]
        return acc
    full = size - size % width
    vecs = np.ascontiguousarray(np.moveaxis(terms[:, :full].reshape(count, -1, width), 1, 0))
    acc = vecs[0].copy()
    for v in vecs[1:]:
        np.add(acc, v, out=acc)
    if full < size:
        if right is None:
            acc[:, :size - full] += terms[:, full:]
        else:
            acc[:, :size - full] = madd(left[:, full:], right[:, full:], acc[:, :size - full])
    return _fold_lanes(acc)


def input_grad(grad: Any, x: Any, k: int, weight: Any, mean: Any, rstd: Any) -> Any:
    """LayerNormBackwardKernel's dX: ``ds`` and ``db`` reduced per row as ``vec::*_reduce_all``
    reduce them, ``b = (db * mean - ds) * rstd**3 / N`` (the difference fused), ``c = -b * mean -
    db * rstd / N`` (``-b * mean`` fused), then ``(rstd * dy [* gamma] + b * x) + c`` with ``b * x``
    fused."""
    flags = _flags(x.dtype)
    if flags is not None:
        count, size = _lead(x, k)
        m, r = _per_row(mean, x.dtype, count), _per_row(rstd, x.dtype, count)
        if m is not None and r is not None:
            out = np.empty(x.shape, x.dtype)
            native.lib.layer_norm_input_grad(
                native._flat(grad, x.dtype), native._flat(x, x.dtype),
                _per_column(weight, x.dtype, x.shape[x.ndim - k:]), m, r, out, count, size, flags)
            return out
    rows, _ = _split(x, k)
    dy = np.ascontiguousarray(grad, rows.dtype).reshape(rows.shape)
    dt = rows.dtype.type
    count, size = rows.shape
    m = mean.reshape(count, 1)
    a = rstd.reshape(count, 1)
    with fp_ignored():
        if weight is None:
            ds = _lanes_sum(dy, rows)
            db = _lanes_sum(dy, None)
            ady = a * dy
        else:
            g = np.broadcast_to(weight.astype(rows.dtype, copy=False).reshape(1, size), rows.shape)
            ds = _lanes_sum(dy * rows, g)
            db = _lanes_sum(dy, g)
            ady = a * dy * g
        ds, db = ds.reshape(count, 1), db.reshape(count, 1)
        scale = dt(1) / dt(size)
        b = madd(db, m, -ds) * a * a * a * scale
        c = madd(-b, m, -(db * a * scale))
        dx = madd(np.broadcast_to(b, rows.shape), rows, ady) + c
    return dx.reshape(x.shape)


def _thread_rows(step: Any, count: int, size: int, dt: Any) -> Any:
    """The kernel's two-pass reduction over rows: a zeroed buffer per thread (of
    ``at::get_num_threads()``) updated by ``step(buffer, i)`` for each row of the thread's
    range of at::parallel_for(0, M, 1), then the buffers added in order from zero."""
    threads = machine.current().threads
    total = np.zeros(size, dt)
    with fp_ignored():
        for begin, end in thread_ranges(count, threads, grain=1):
            buf = np.zeros(size, dt)
            for i in range(begin, end):
                buf = step(buf, i)
            total = total + buf  # the idle threads' zero buffers change nothing
    return total


def _chunk(count: int) -> int:
    """The rows of each of _thread_rows' buffers but the last (thread_ranges' split)."""
    threads = machine.current().threads
    if threads == 1 or count <= 1:
        return max(count, 1)
    begin, end = thread_ranges(count, threads, grain=1)[0]
    return max(end - begin, 1)


def weight_grad(grad: Any, x: Any, k: int, mean: Any, rstd: Any) -> Any:
    """dgamma: each thread's ``buf += dy * (rstd * x + (-rstd * mean))`` (both fused)."""
    flags = _flags(x.dtype)
    if flags is not None:
        count, size = _lead(x, k)
        m, r = _per_row(mean, x.dtype, count), _per_row(rstd, x.dtype, count)
        if m is not None and r is not None:
            out = np.empty(x.shape[x.ndim - k:], x.dtype)
            native.lib.layer_norm_param_grad(native._flat(grad, x.dtype),
                                             native._flat(x, x.dtype), m, r, out, count, size,
                                             _chunk(count), flags)
            return out
    rows, _ = _split(x, k)
    dy = np.ascontiguousarray(grad, rows.dtype).reshape(rows.shape)
    count, size = rows.shape
    a = rstd.reshape(count, 1)
    with fp_ignored():
        xhat = madd(np.broadcast_to(a, rows.shape), rows,
                    np.broadcast_to(-a * mean.reshape(count, 1), rows.shape))
    out = _thread_rows(lambda buf, i: madd(dy[i], xhat[i], buf), count, size, rows.dtype)
    return out.reshape(x.shape[x.ndim - k:])


def bias_grad(grad: Any, k: int) -> Any:
    """dbeta: each thread's ``buf += dy``, the buffers added."""
    shape = grad.shape[grad.ndim - k:]
    flags = _flags(grad.dtype)
    if flags is not None:
        count, size = _lead(grad, k)
        out = np.empty(shape, grad.dtype)
        native.lib.layer_norm_param_grad(native._flat(grad, grad.dtype), None, None, None, out,
                                         count, size, _chunk(count), flags)
        return out
    dy = np.ascontiguousarray(grad).reshape(math.prod(grad.shape[:grad.ndim - k]),
                                            math.prod(shape))
    return _thread_rows(lambda buf, i: buf + dy[i], dy.shape[0], dy.shape[1],
                        dy.dtype).reshape(shape)
