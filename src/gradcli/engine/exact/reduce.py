"""``sum`` and ``mean`` in PyTorch's order of additions (aten/src/ATen/native/cpu/SumKernel.cpp).

PyTorch sums floats with ``cascade_sum``: TensorIterator first orders the dimensions (reduced
ones innermost, then by stride) and merges the ones it can, then each 2-D slice is summed by one
of four loops, all built on ``multi_row_sum``, a cascade of four float accumulator levels whose
chunk size grows with the length.  Contiguous rows are summed in vector lanes (four interleaved
vector accumulators, a scalar tail, then the lanes in order); the sum kernel is registered for
AVX2 only, so on an AVX512 machine its vectors hold 8 floats (4 doubles).  A full reduction of
at least ``GRAIN_SIZE`` elements is split between the threads and their partial sums added.

Everything here works on NumPy arrays of float32 or float64 and adds in that dtype, one
vectorised NumPy addition per step of PyTorch's loops, so the results are PyTorch's bit for bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import machine
from ..machine import GRAIN_SIZE, SUM_VECTOR_BYTES
from . import native
from .iterator import coalesce, permutation, thread_ranges


def _ceil_log2(x: int) -> int:
    return 1 if x <= 2 else (x - 1).bit_length()


def _seq(x: Any, zero: Any) -> Any:
    """``((0 + x[0]) + x[1]) + ...`` along axis 0."""
    acc = zero
    for k in range(x.shape[0]):
        acc = acc + x[k]
    return acc


def _in_order(x: Any, axis: int) -> Any:
    """``x`` (3-D) summed along ``axis`` (0 or 1) from zero, one row after another, by one
    NumPy reduction, or None where NumPy might sum in another order.

    NumPy's pairwise summation (and its unrolled partial sums) runs only when the reduced axis
    is the iterator's inner loop, which it is not while the last axis is at least two elements
    long and the only one of unit stride: each output element then accumulates its rows in
    index order, starting from ``initial`` (0, as the kernels' accumulators start; NumPy would
    start from the first row, which differs for a sum of negative zeros)."""
    item = x.itemsize
    s = x.strides
    if x.shape[2] < 2 or s[2] != item or s[axis] <= item or (axis == 0 and s[1] <= item) or \
            x.shape[axis] < 2:
        return None
    return np.add.reduce(x, axis=axis, initial=x.dtype.type(0))


def _seq0(x: Any, zero: Any) -> Any:
    """``_seq(x, zero)`` for an all-zero ``zero`` of x's lane shape."""
    if x.ndim >= 2 and x.shape[0] > 1:
        out = _in_order(x.reshape((1,) + x.shape[:1] + (-1,)), 1)
        if out is not None:
            return out.reshape(x.shape[1:])
    return _seq(x, zero)


def _block_sums(blocks: Any) -> Any:
    """Sequential sums along axis 1 of (blocks, step, lanes...): every block's chunk sum."""
    if blocks.ndim >= 3:
        flat = blocks.reshape(blocks.shape[:2] + (-1,))
        out = _in_order(flat, 1)
        if out is not None:
            return out.reshape((blocks.shape[0],) + blocks.shape[2:])
    acc = np.zeros((blocks.shape[0],) + blocks.shape[2:], blocks.dtype)
    for k in range(blocks.shape[1]):  # in place: this loop touches every element of a sum once
        np.add(acc, blocks[:, k], out=acc)
    return acc


def _groups(vals: Any, step: int, zero: Any) -> tuple[Any, Any]:
    """Sequential sums of each complete group of ``step`` values, and of the leftovers."""
    ng = vals.shape[0] // step
    full = _block_sums(vals[: ng * step].reshape((ng, step) + vals.shape[1:])) if ng else \
        vals[:0]
    return full, _seq0(vals[ng * step:], zero)


def cascade(s: Any) -> Any:
    """PyTorch's ``multi_row_sum`` along axis 0 of ``s``, for every other index at once."""
    m = s.shape[0]
    lanes = s.shape[1:]
    zero = np.zeros(lanes, s.dtype)
    step = 1 << max(4, _ceil_log2(m) // 4)
    nb = m // step
    acc1 = acc2 = acc3 = zero
    if nb:
        chunks = _block_sums(s[: nb * step].reshape((nb, step) + lanes))
        level2, acc1 = _groups(chunks, step, zero)  # level 1 flushes every step chunks
        level3, acc2 = _groups(level2, step, zero)
        acc3 = _seq0(level3, zero)
    rest = _seq0(s[nb * step:], zero)
    return ((rest + acc1) + acc2) + acc3


def row_sum(s: Any) -> Any:
    """PyTorch's ``row_sum`` along axis 0: four interleaved cascades, the tail, then the four."""
    n = s.shape[0]
    q = n // 4
    part = cascade(s[: 4 * q].reshape((q, 4) + s.shape[1:]))
    acc = part[0]
    for i in range(4 * q, n):
        acc = acc + s[i]
    return ((acc + part[1]) + part[2]) + part[3]


def _inner_vectorized(x: Any, width: int) -> Any:
    """``vectorized_inner_sum``: rows along axis 0 summed in ``width`` lanes."""
    n = x.shape[0]
    nvec = n // width
    lanes = row_sum(x[: nvec * width].reshape((nvec, width) + x.shape[1:]))
    acc = np.zeros(x.shape[1:], x.dtype)
    for k in range(nvec * width, n):
        acc = acc + x[k]
    for lane in range(width):
        acc = acc + lanes[lane]
    return acc


def _split_columns(x: Any, direct: int) -> Any:
    """The first ``direct`` columns (axis 1) by plain cascades, the others by ``row_sum``."""
    if direct == x.shape[1]:
        return cascade(x)
    if direct == 0:
        return row_sum(x)
    return np.concatenate([cascade(x[:, :direct]), row_sum(x[:, direct:])])


def _kernel(x: Any, strides: tuple[int, int], itemsize: int) -> Any:
    """One call of cascade_sum's 2-D loop: ``x`` is (reduced size0, size1, batch...)."""
    width = SUM_VECTOR_BYTES // itemsize
    n0, n1 = x.shape[0], x.shape[1]
    s0, s1 = strides
    if native.lib is not None and x.ndim == 2 and s0 >= 0 and s1 >= 0 \
            and not (s0 % itemsize or s1 % itemsize) and (n0 < 2 or x.strides[0] == s0) \
            and (n1 < 2 or x.strides[1] == s1):
        # the same additions, each output element's as a C loop (native.py)
        out = np.empty(n1, x.dtype)
        native.lib.sum_kernel(x, out, n0, n1, s0 // itemsize, s1 // itemsize, width)
        return out
    if s0 == itemsize and n0 >= width:
        return _inner_vectorized(x, width)
    if s1 == itemsize and n1 >= width:  # vectorized_outer_sum: 4 vectors of columns at a time
        return _split_columns(x, n1 - n1 % (4 * width))
    if s0 < s1:
        return row_sum(x)
    return _split_columns(x, n1 - n1 % 4)  # scalar_outer_sum: 4 columns at a time


def iteration_dims(shape: tuple, in_strides: tuple, reduced: set, itemsize: int) -> list:
    """TensorIterator's dimensions for reducing ``reduced``: [(size, in, out)], innermost first
    (strides in bytes; the output is contiguous over the kept dimensions)."""
    nd = len(shape)
    out_strides = [0] * nd
    acc = itemsize
    for d in reversed(range(nd)):
        if d not in reduced:
            out_strides[d] = acc
            acc *= shape[d]
    perm = permutation(shape, [(out_strides, True), (list(in_strides), False)]) if nd > 1 \
        else list(range(nd))
    dims = coalesce([[shape[p], in_strides[p], out_strides[p]] for p in perm])
    return [tuple(d) for d in dims]


def _view(x: Any, dims: list) -> Any:
    """``x`` as the iterator sees it: axes in iterator order, innermost first."""
    return as_strided(x, shape=tuple(d[0] for d in dims), strides=tuple(d[1] for d in dims),
                      writeable=False)


def _loop(x: Any, dims: list, itemsize: int) -> Any:
    """All of cascade_sum's loop calls over the iterator ``dims``; the results in iterator
    order of the kept dimensions (the reduced ones accumulated into each output as PyTorch's
    ``out += partial`` stores do)."""
    if len(dims) == 1:
        dims = dims + [(1, 0, 0)]
    (n0, i0, o0), (n1, i1, o1) = dims[0], dims[1]
    outer = dims[2:]
    view = _view(x, dims)
    if o0 != 0 and o1 == 0:  # move the reduction to the first dimension
        view = np.swapaxes(view, 0, 1)
        (n0, i0, o0), (n1, i1, o1) = (n1, i1, o1), (n0, i0, o0)
    if o0 != 0:  # nothing left to reduce: out = 0 + x
        return np.zeros((), x.dtype) + view
    kept = [k for k, d in enumerate(outer) if d[2] != 0]
    summed = [k for k, d in enumerate(outer) if d[2] == 0]
    order = [0, 1] + [2 + k for k in kept] + [2 + k for k in summed]
    view = np.transpose(view, order)
    total: Any = None
    for index in np.ndindex(*[outer[k][0] for k in summed][::-1]):
        block = view[(Ellipsis,) + tuple(reversed(index))] if summed else view
        part = _kernel(block, (i0, i1), itemsize)  # (n1, kept...)
        if o1 == 0:  # the second dimension is reduced too: out += part[j], j in order
            acc = np.zeros(part.shape[1:], x.dtype) if total is None else total
            total = _seq(part, acc)
        else:
            total = (np.zeros(part.shape, x.dtype) if total is None else total) + part
    return total


def _range_sum(view: Any, dims: list, begin: int, end: int, itemsize: int) -> Any:
    """serial_for_each over the flat iteration range [begin, end) of a full reduction (its
    DimCounter's 2-D steps), the partial sums added in order."""
    zero = np.zeros((), view.dtype)
    if len(dims) == 1:
        return zero + _kernel(view[begin:end, None], (dims[0][1], 0), itemsize)[0]
    shape = [d[0] for d in dims]
    values = [int(v) for v in np.unravel_index(begin, shape[::-1])][::-1]
    strides = (dims[0][1], dims[1][1])
    acc, offset = zero, begin
    while offset < end:
        step0 = min(shape[0] - values[0], end - offset)
        step1 = 1
        if step0 == shape[0]:
            step1 = min(shape[1] - values[1], (end - offset) // shape[0])
        block = view[(slice(values[0], values[0] + step0), slice(values[1], values[1] + step1))
                     + tuple(values[2:])]
        acc = _seq(_kernel(block, strides, itemsize), acc)
        offset += step0 * step1
        i, overflow = (1, step1) if step1 != 1 else (0, step0)
        while i < len(shape) and overflow > 0:  # DimCounter::increment
            value = values[i] + overflow
            overflow = 1 if value >= shape[i] else 0
            values[i] = value - shape[i] if overflow else value
            i += 1
    return acc


def sum_(x: Any, axes: tuple | None = None, keepdims: bool = False,
         threads: int | None = None) -> Any:
    """``torch.sum(x, dim=axes, keepdim=keepdims)`` of a float32/float64 NumPy array, split
    between ``threads`` (the run's machine's by default) as PyTorch splits it."""
    x = np.asarray(x)
    nd = x.ndim
    size = x.size
    if nd == 2 and axes in _FIRST and size < GRAIN_SIZE and x.shape[0] > 1 and x.shape[1] > 1 \
            and x.flags.c_contiguous:
        # the columns of a dense matrix (a bias's gradient): the iterator keeps both
        # dimensions as they are, the reduced one outer, and one thread runs one kernel call
        total = np.zeros(x.shape[1], x.dtype) + _kernel(x, x.strides, x.dtype.itemsize)
        return total.reshape(1, -1) if keepdims else total
    if nd == 2 and axes in _LAST and size < GRAIN_SIZE and x.shape[0] > 1 and x.shape[1] > 1 \
            and x.flags.c_contiguous:
        # the rows of a dense matrix (a mean over features): the reduced dimension inner, the
        # rows outer, one kernel call by one thread, as _loop makes it
        total = np.zeros(x.shape[0], x.dtype) + _kernel(x.T, x.T.strides, x.dtype.itemsize)
        return total.reshape(-1, 1) if keepdims else total
    if axes is None or len(axes) == nd and nd == 1:  # everything (of a vector: dim 0 or -1)
        if 0 < size and x.flags.c_contiguous and size * x.itemsize < _SMALL_BYTES and nd:
            # the most common case, without the general bookkeeping below
            total = _small_sum(x.reshape(-1))
            return total.reshape((1,) * nd) if keepdims else total
        axes = tuple(range(nd))
    else:
        axes = tuple(a % nd for a in axes) if nd else ()
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keepdims else \
        tuple(d for i, d in enumerate(x.shape) if i not in axes)
    if size == 0:
        return np.zeros(out_shape, x.dtype)[()]
    if nd == 0:
        return (np.zeros((), x.dtype) + x)[()]
    if len(axes) == nd and x.flags.c_contiguous and size < GRAIN_SIZE:
        # the common case: everything of a dense array, which TensorIterator merges into one
        # row in memory order, summed by one thread
        if size * x.itemsize < _SMALL_BYTES:
            return _small_sum(x.reshape(-1)).reshape(out_shape)[()]
        flat = x.reshape(-1, 1)
        total = np.zeros((), x.dtype) + _kernel(flat, (x.dtype.itemsize, 0), x.dtype.itemsize)[0]
        return total.reshape(out_shape)[()]
    itemsize = x.dtype.itemsize
    dims = iteration_dims(x.shape, x.strides, set(axes), itemsize)
    out_numel = math.prod(out_shape)
    if threads is None and x.size > GRAIN_SIZE:
        threads = machine.current().threads
    ranges = thread_ranges(x.size, threads)
    if out_numel == 1 and len(ranges) > 1:  # two_pass_reduction: a partial sum per thread
        view = _view(x, dims)
        parts = [_range_sum(view, dims, b, e, itemsize) for b, e in ranges]
        parts += [np.zeros((), x.dtype)] * (threads - len(parts))
        # the buffer of one partial sum per thread, reduced by the same kernel (a buffer of
        # 8 float32 sums is a whole vector: the vectorised inner sum, not a row of scalars)
        buf = np.array(parts, x.dtype).reshape(-1, 1)
        total = np.zeros((), x.dtype) + _kernel(buf, (itemsize, 0), itemsize)[0]
        return total.reshape(out_shape)[()]
    result = _loop(x, dims, itemsize)
    out = np.zeros(out_shape, x.dtype)
    kept = [d for d in (dims if len(dims) > 1 else dims + [(1, 0, 0)]) if d[2] != 0]
    # the results come in iterator order of the kept dimensions; the output's strides place them
    target = as_strided(out, shape=tuple(d[0] for d in kept), strides=tuple(d[2] for d in kept))
    target[...] = result
    return out[()]


_FIRST = ((0,), (-2,))  # a matrix's first dimension, as sum_ takes it
_LAST = ((1,), (-1,))  # and its last

# A contiguous row of fewer bytes has fewer than 16 vectors per accumulator (4 x 16 vectors:
# 512 float32, 256 float64), so the cascade never completes a chunk: one level of in-order sums.
_SMALL_BYTES = 4 * 16 * SUM_VECTOR_BYTES


def _small_sum(v: Any) -> Any:
    """``_kernel`` of a contiguous row of fewer than ``_SMALL_BYTES``, ``0 + sum`` as ``sum_``
    returns it (a NumPy scalar): the same additions in the same order, without the general
    loops' levels."""
    n = v.shape[0]
    width = SUM_VECTOR_BYTES // v.itemsize
    zero = _ZEROS[v.dtype.char]
    if native.lib is not None:  # _kernel's C loop: the same additions
        return zero + _kernel(v.reshape(n, 1), (v.itemsize, 0), v.itemsize)[0]
    if n < width:  # a row shorter than a vector: row_sum of single elements
        return zero + _small_row_sum(v.reshape(n, 1))[0]
    nvec = n // width
    lanes = _small_row_sum(v[: nvec * width].reshape(nvec, width))
    tail = v[nvec * width:]
    # vectorized_inner_sum's tail then its lanes, in order from 0: one in-order prefix sum.  It
    # starts at the first value, not at +0; 0 + total makes an all-(-0) sum +0, as
    # 0 + v0 + ... does, and changes no other.
    return zero + np.add.accumulate(np.concatenate((tail, lanes)) if tail.shape[0] else lanes)[-1]


_ZEROS = {"f": np.float32(0), "d": np.float64(0)}


def _small_row_sum(s: Any) -> Any:
    """``row_sum`` along axis 0 of ``s`` (k, lanes) for k < 64: four interleaved in-order sums
    (the cascade's only level), the tail into the first, then the four.  The sums start at
    their first row, not at +0 as the kernel's: in round-to-nearest a sum is -0 only when
    every value added is -0, so a +0 start changes nothing but such a sum (-0 to +0), which
    ``_small_sum``'s own 0 + total makes +0 anyway."""
    k = s.shape[0]
    q = k // 4
    if q == 0:
        part = np.zeros((4,) + s.shape[1:], s.dtype)
    else:
        part = s[0:4]
        for j in range(1, q):
            part = part + s[4 * j: 4 * j + 4]
    if k > 4 * q:
        part = np.concatenate((part[:1], s[4 * q:], part[1:]))
    if s.shape[1] > 1:
        # ((part0 + tail rows) + part1) + part2) + part3: NumPy reduces a leading axis of
        # a C-contiguous array with rows of two or more elements row after row, in order
        return np.add.reduce(part, 0)
    acc = part[0]
    for i in range(1, part.shape[0]):
        acc = acc + part[i]
    return acc


def mean(x: Any, axes: tuple | None = None, keepdims: bool = False) -> Any:
    """``torch.mean``: the sum divided by the count in the same dtype (ReduceOps.cpp mean_out)."""
    x = np.asarray(x)
    if axes is None:
        count = x.size
    else:
        nd = x.ndim
        dims = tuple(a % nd for a in axes) if nd else ()
        count = 1
        for i, d in enumerate(x.shape):
            if i in dims:
                count *= d
    total = sum_(x, axes, keepdims)
    if count:  # a division by a positive count cannot overflow, and never makes a NaN
        return total / x.dtype.type(count)
    with np.errstate(all="ignore"):  # an empty mean is 0 / 0 = nan, as PyTorch's
        return total / x.dtype.type(count)


def nll_cascade(terms: Any, kept: Any) -> Any:
    """``nll_loss``'s reduced sum (ATen's ``nll_loss_out_frame``): each kept row's term
    subtracted from the first of eight partial sums, which moves up one level whenever the row
    index is a multiple of 16, 256, ...; the partial sums then added in order, from zero.  So the
    first row's term ends in the last level and is added last."""
    zero = terms.dtype.type(0)
    n = terms.shape[0]
    if native.lib is not None and terms.ndim == 1:  # the loop below in C
        if not (kept.__class__ is np.ndarray and kept.dtype == bool and kept.shape == terms.shape
                and kept.flags.c_contiguous):
            kept = np.ascontiguousarray(np.broadcast_to(kept, terms.shape), bool)
        out = np.empty((), terms.dtype)
        native.lib.nll_cascade(terms if terms.flags.c_contiguous else terms.copy(), kept, out)
        return out
    if 1 < n <= 256 and np.asarray(kept).all():
        return _nll_cascade_dense(terms)
    partial = [zero] * 8
    # NumPy scalars of the terms' dtype: each operation rounds to it, as the kernel's
    for b, (term, keep) in enumerate(zip(terms, np.asarray(kept).tolist())):
        if not keep:
            continue
        partial[0] = partial[0] - term
        if b & 15:
            continue
        for j in range(7):
            if b & (15 << (4 * j)):
                break
            partial[j + 1] = partial[j + 1] + partial[j]
            partial[j] = zero
    total = zero
    for p in partial:
        total = total + p
    return np.asarray(total)


def nll_forward(x: Any, target: Any, ignore_index: int) -> Any | None:
    """``nll_loss``'s reduced sum over (rows, classes) ``x`` without class weights: each kept
    row's term at its target's class, in ``nll_cascade``'s order, as a 0-d array; by one C
    loop (None where the compiled kernels are not, or a kept target is not a class: the op's
    NumPy formula then computes it, or raises)."""
    t = target.reshape(-1)
    if native.lib is None or x.dtype not in native.FLOATS or t.dtype != np.int64 or \
            not -_BIG <= ignore_index < _BIG:
        return None
    out = np.empty((), x.dtype)
    if native.lib.nll_forward(np.ascontiguousarray(x), np.ascontiguousarray(t), ignore_index,
                              out):
        return out
    return None


def nll_targets(labels: Any, ignore_index: int, classes: int) -> tuple[int, int] | None:
    """(how many of int64 ``labels`` are kept, the index of the first kept one that is not a
    class or -1), by one C loop; None without the compiled kernels."""
    if native.lib is None or labels.dtype != np.int64 or not -_BIG <= ignore_index < _BIG:
        return None
    return native.lib.nll_targets(np.ascontiguousarray(labels), ignore_index, classes)


def nll_grad(grad: Any, target: Any, total_weight: Any, shape: tuple, ignore_index: int,
             mean: bool) -> Any:
    """NllLossBackward0's gradient of a reduced loss over (rows, classes) without class
    weights: ``grad * coef`` (coef -1, divided by the total weight for a mean, in its dtype) at
    each row's target class where the target is kept and a class, +0 elsewhere; the values of
    ops._nll_grad's general formula, by one scatter."""
    coef = total_weight.dtype.type(-1.0)
    if mean:
        coef = coef / total_weight
    value = np.asarray(grad * coef)  # a NumPy scalar of the promoted dtype, as 0-d
    t = target.reshape(-1)
    out = np.zeros(shape, value.dtype)
    if native.lib is not None and t.dtype == np.int64 and out.dtype in native.FLOATS and \
            -_BIG <= ignore_index < _BIG:  # the same scatter, one C loop
        native.lib.nll_scatter(t if t.flags.c_contiguous else t.copy(), out, float(value),
                               ignore_index)
        return out
    rows = np.flatnonzero((t != ignore_index) & (t >= 0) & (t < shape[1]))
    out[rows, t[rows]] = value
    return out


_BIG = 1 << 63  # ignore_index as a C long long


def scatter_add(shape: tuple, positions: Any, values: Any) -> Any:
    """Zeros of ``shape`` with ``values`` added at the flat ``positions`` in order, duplicates
    adding up (index_put with accumulate: IndexBackward0's gradient): numpy.add.at's additions,
    by one C loop where it is built."""
    out = np.zeros(shape, values.dtype)
    positions, values = positions.reshape(-1), values.reshape(-1)
    if native.lib is not None and positions.dtype == np.int64 and out.dtype in native.FLOATS:
        native.lib.scatter_add(out, np.ascontiguousarray(positions),
                               np.ascontiguousarray(values), out.dtype == np.float64)
    else:
        np.add.at(out.reshape(-1), positions, values)
    return out


def _nll_cascade_dense(terms: Any) -> Any:
    """nll_cascade of 2 to 256 rows, none ignored, by whole-array steps: the first row's term
    goes straight to the last level; rows 1-16, 17-32 ... are subtracted in order from zero
    (one ``subtract.accumulate`` over the blocks, the last one padded with zeros, which
    subtract to the same values) and each complete block added in order to level one; an
    incomplete last block stays in level zero."""
    n = terms.shape[0]
    zero = terms.dtype.type(0)
    blocks = -(-(n - 1) // 16)
    rows = np.zeros((blocks, 17), terms.dtype)  # a zero, then the block's 16 terms
    rows[:, 1:].flat[:n - 1] = terms[1:]
    sums = np.subtract.accumulate(rows, axis=1)[:, 16]
    complete = (n - 1) // 16
    level1 = zero
    for k in range(complete):
        level1 = level1 + sums[k]
    level0 = sums[complete] if complete < blocks else zero
    total = (zero + level0) + level1
    for _ in range(5):  # the empty levels two to six
        total = total + zero
    return np.asarray(total + (zero - terms[0]))
