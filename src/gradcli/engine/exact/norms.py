"""``torch.linalg.vector_norm`` as PyTorch's CPU kernel computes it (ReduceOpsKernel.cpp
``norm_kernel_tensor_iterator_impl``, LinearAlgebra.cpp ``linalg_vector_norm_out``).

* When every reduced dimension has size 1 the norm is ``abs(x)`` (``x != 0`` for order 0), no
  reduction at all.
* Order 2 whose iterator has one reduced dimension, innermost and contiguous (every row of a
  dense array, a whole dense array: ``is_reduce_lastdim``): each row by itself, whatever the
  threads.  Its vectors (32 bytes: the kernel is registered for AVX2 only, and DEFAULT's generic
  vectors are 32 bytes too) accumulate ``acc += x * x`` lane by lane, a multiply then an add;
  the lanes are added in order into the first; the scalar tail is added to it, on AVX2 and
  AVX512 with fused multiply-adds, except that the compiler vectorised the float32 tail loop's
  first four squares (four products, then four in-order adds) when the tail has four or more.
  Then ``sqrt``.
* Everything else (``binary_kernel_reduce`` with NormTwoOps, NormOneOps, NormOps ...): each
  output's reduced elements in TensorIterator's order, one accumulator in the input's dtype
  (``opmath_type``) from 0: ``acc + x * x`` (not fused), ``acc + |x|``, ``acc + pow(|x|, p)``
  (the C library's pow); then ``sqrt`` or ``pow(acc, 1 / p)``.  A whole reduction of at least
  ``GRAIN_SIZE`` elements is split between the threads (at::parallel_for), their accumulators
  added in order from 0.  Orders 0, inf and -inf count or compare, exactly: NumPy's results.

Which additions are fused was measured against PyTorch 2.13's wheel on this machine (the
source does not say what the compiler contracted): tools/numerics_cases.py's norm cases.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import machine
from ..machine import GRAIN_SIZE, SUM_VECTOR_BYTES
from . import clib, native
from .fp import F32, Fused, fma32, fma64
from .iterator import thread_ranges
from .reduce import iteration_dims


def _add_chain(values: Any, acc: Any) -> Any:
    """``((acc + v[0]) + v[1]) + ...`` along axis 0 (NumPy's accumulate adds in order)."""
    if not values.shape[0]:
        return acc
    with np.errstate(all="ignore"):  # overflow to inf, as PyTorch's adds
        return np.add.accumulate(np.concatenate([acc[None], values]), axis=0)[-1]


def _square_chain(terms: Any, acc: Any, fused: bool) -> Any:
    """``acc = acc + t * t`` for each ``t`` along axis 0 of ``terms``, in order: one fused
    multiply-add each where the build fuses them."""
    steps = terms.shape[0]
    if not steps:
        return acc
    with np.errstate(all="ignore"):
        if not fused:
            return _add_chain(terms * terms, acc)
        if terms.dtype == F32:
            run = Fused(acc.shape, steps)
            out = acc
            for t in terms:
                out = run.fma(t, t, out)
            if run.exact():
                return out
            out = acc
            for t in terms:
                out = fma32(t, t, out)
            return out
        for t in terms:
            acc = fma64(t, t, acc)
        return acc


def _terms(a: Any, ord: float) -> Any:
    """What NormOneOps and NormOps add: ``|x|``, ``pow(|x|, p)`` (the C library's)."""
    if ord == 1:
        return a
    with np.errstate(all="ignore"):  # inf and 0 ** negative: PyTorch's values, no warnings
        return clib.call("pow", a, np.full(a.shape, ord, a.dtype)) if a.size else a


def _project(acc: Any, ord: float) -> Any:
    with np.errstate(all="ignore"):
        if ord == 2:
            return np.sqrt(acc)
        if ord == 1:
            return acc
        t = acc.dtype.type
        root = t(1) / t(ord)  # static_cast<acc_t>(1.0) / norm_, in the accumulator's type
        return clib.call("pow", acc, np.full(acc.shape, root, acc.dtype)) if acc.size else acc


def _accumulate(vals: Any, ord: float, fused: bool) -> Any:
    """binary_kernel_reduce's accumulator along axis 0 of ``vals``, from 0."""
    zero = np.zeros(vals.shape[1:], vals.dtype)
    if ord == 2:  # NormTwoOps::reduce: a multiply and an add, not contracted
        return _square_chain(vals, zero, False)
    return _add_chain(_terms(np.abs(vals), ord), zero)


def _lastdim_rows(rows: Any, fused: bool) -> Any:
    """The order-2 fast path on contiguous rows (rows, size): the squared norms."""
    n, size = rows.shape
    width = SUM_VECTOR_BYTES // rows.dtype.itemsize
    if native.lib is not None and size:  # the steps below, row by row in C
        out = np.empty(n, rows.dtype)
        native.lib.norm2_rows(rows, out, size, width, fused, rows.dtype == np.float64)
        return out
    nvec = size // width
    zero = np.zeros((n, width), rows.dtype)
    # the vector loop: a multiply then an add (norm_two_reduce_step is not contracted)
    lanes = _square_chain(np.moveaxis(rows[:, :nvec * width].reshape(n, nvec, width), 1, 0),
                          zero, False)
    acc = _add_chain(np.ascontiguousarray(lanes[:, 1:].T), lanes[:, 0])
    tail = np.ascontiguousarray(rows[:, nvec * width:].T)
    if fused and rows.dtype == F32 and tail.shape[0] >= 4:
        # the compiler vectorised the float tail loop's first four squares (an in-order
        # reduction: four products, then four adds), the rest fused one by one
        acc = _square_chain(tail[:4], acc, False)
        tail = tail[4:]
    return _square_chain(tail, acc, fused)


def vector_norm(x: Any, ord: float, axes: tuple | None = None, keepdims: bool = False,
                threads: int | None = None) -> Any:
    """``torch.linalg.vector_norm(x, ord, dim=axes, keepdim=keepdims)`` of a float32/float64
    NumPy array on the run's machine (``threads`` overrides its thread count)."""
    x = np.asarray(x)
    nd = x.ndim
    axes = tuple(range(nd)) if not axes else tuple(sorted({a % nd for a in axes}))
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keepdims else \
        tuple(d for i, d in enumerate(x.shape) if i not in axes)
    if x.size == 0:
        return np.full(out_shape, math.inf if ord < 0 else 0, x.dtype)[()]
    if all(x.shape[a] == 1 for a in axes):  # is_reduce_over_1D_vector: no reduction
        one = (x != 0).astype(x.dtype) if ord == 0 else np.abs(x)
        return one.reshape(out_shape)[()]
    if ord == 0 or math.isinf(ord):  # counts and comparisons: exact in any order
        a = np.abs(x)
        with np.errstate(all="ignore"):
            if ord == 0:
                out = np.sum((a != 0).astype(x.dtype), axis=axes, keepdims=keepdims)
            else:
                out = (np.max if ord > 0 else np.min)(a, axis=axes, keepdims=keepdims)
        return np.asarray(out, x.dtype).reshape(out_shape)[()]
    fused = machine.current().fma
    if ord == 2 and x.flags.c_contiguous and axes == tuple(range(axes[0], nd)):
        # the trailing dims of a dense array (all of it: a gradient clipped by its norm): the
        # iterator coalesces them into one contiguous reduced dim, is_reduce_lastdim's rows
        rows = x.reshape(-1, math.prod(x.shape[axes[0]:]))
        with np.errstate(all="ignore"):
            return np.sqrt(_lastdim_rows(rows, fused)).reshape(out_shape)[()]
    itemsize = x.dtype.itemsize
    dims = iteration_dims(x.shape, x.strides, set(axes), itemsize)
    reduced = [d for d in dims if d[2] == 0]
    kept = [d for d in dims if d[2] != 0]
    out = np.zeros(out_shape, x.dtype)
    # the outputs in iterator order of the kept dimensions, placed by the output's strides
    target = as_strided(out, shape=tuple(d[0] for d in kept), strides=tuple(d[2] for d in kept))
    if ord == 2 and len(reduced) == 1 and dims[0][2] == 0 and dims[0][1] == itemsize:
        # is_reduce_lastdim: each row by the vectorised loop, whatever the threads
        view = as_strided(x, shape=tuple(d[0] for d in kept[::-1]) + (dims[0][0],),
                          strides=tuple(d[1] for d in kept[::-1]) + (itemsize,),
                          writeable=False)
        rows = np.ascontiguousarray(view).reshape(-1, dims[0][0])
        with np.errstate(all="ignore"):
            sq = _lastdim_rows(rows, fused)
            target[...] = np.sqrt(sq).reshape(tuple(d[0] for d in kept[::-1])).T \
                if kept else np.sqrt(sq).reshape(())
        return out[()]
    # each output's reduced elements in the iterator's order (its first dimension fastest)
    view = as_strided(x, shape=tuple(d[0] for d in kept[::-1]) + tuple(d[0] for d in reduced[::-1]),
                      strides=tuple(d[1] for d in kept[::-1]) + tuple(d[1] for d in reduced[::-1]),
                      writeable=False)
    count = int(np.prod([d[0] for d in reduced], dtype=np.int64))
    vals = np.ascontiguousarray(view).reshape(-1, count).T  # (reduced, outputs)
    ranges = thread_ranges(count, threads) if not kept and count >= GRAIN_SIZE else [(0, count)]
    if threads is None and len(ranges) > 1:
        threads = machine.current().threads
    if len(ranges) > 1:  # a partial accumulator per thread, added in order from 0
        parts = [_accumulate(vals[b:e], ord, fused) for b, e in ranges]
        zero = np.zeros((1,), x.dtype)
        acc = _add_chain(np.concatenate(parts + [zero] * (threads - len(parts))), zero[0])
    else:
        acc = _accumulate(vals, ord, fused)
    result = _project(acc, ord)
    shape = tuple(d[0] for d in kept[::-1])
    target[...] = result.reshape(shape).T if kept else result.reshape(())
    return out[()]
