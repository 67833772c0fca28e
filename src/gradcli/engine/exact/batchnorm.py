"""Batch normalisation as PyTorch's CPU kernels compute it (aten/src/ATen/native/Normalization.cpp
and native/cpu/batch_norm_kernel.cpp), for contiguous float32 and float64 inputs.

Two layouts, by the size of an image (the elements of one channel of one sample):

* one element per image ((N, C) inputs): the "channels last" loops.  The statistics are summed
  row by row into one buffer per thread (rows split between the threads as at::parallel_for
  splits them; the squared deviations added with a fused multiply-add), the threads' buffers
  then added in double; the backward keeps per-thread sums of ``dy`` and of ``(x - mean) * dy``
  the same way.
* larger images: the "contiguous" loops.  The statistics are summed in double element by
  element, channel by channel; the backward reduces each image row with ``vec::reduce_all``
  (lanes, then a fold) and adds the rows' results in double.

The per-channel results go through Normalization.cpp (compiled without fused multiply-adds):
``invstd = 1 / sqrt(var_sum / n + eps)`` in double (the division in the input's dtype), the
running statistics ``momentum * stat + (1 - momentum) * running`` in the input's dtype, with the
unbiased variance ``var_sum / (n - 1)``.  The output is ``x * alpha + beta`` per channel (one FMA), with
``alpha = invstd * weight`` and ``beta = bias - mean * alpha`` (one FMA too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import machine
from .iterator import thread_ranges
from .softmaxes import _fold_lanes, reduce_all_sum
from .unary import madd

F64 = np.float64


def _rows(x: Any) -> tuple[Any, int, int]:
    """``x`` as (N, C, image) and the counts C and N * image."""
    n, c = x.shape[0], x.shape[1]
    v = np.ascontiguousarray(x).reshape(n, c, -1)
    return v, c, n * v.shape[2]


def _thread_sums(step: Any, rows: int, width: int, dtype: Any, count: int = 1) -> list:
    """Per thread of at::parallel_for(0, rows, 1), ``count`` buffers of ``width`` zeros updated
    by ``step(buffers, i)`` for each of the thread's rows in order, then added across threads
    in double (the kernels' accscalar_t)."""
    threads = machine.current().threads
    totals = [np.zeros(width, F64) for _ in range(count)]
    for begin, end in thread_ranges(rows, threads, grain=1):
        bufs = [np.zeros(width, dtype) for _ in range(count)]
        for i in range(begin, end):
            bufs = step(bufs, i)
        totals = [t + b.astype(F64) for t, b in zip(totals, bufs)]
    return totals


def collect_stats(x: Any) -> tuple[Any, Any]:
    """batch_norm_cpu_collect_stats: each channel's mean and sum of squared deviations."""
    v, c, n = _rows(x)
    dt = v.dtype
    if v.shape[2] == 1:  # channels last
        rows = v[:, :, 0]
        if n > machine.current().threads:
            (total,) = _thread_sums(lambda b, i: [b[0] + rows[i]], n, c, dt)
            mean = (total / n).astype(dt)
            (var_sum,) = _thread_sums(
                lambda b, i: [madd(rows[i] - mean, rows[i] - mean, b[0])], n, c, dt)
            return mean, var_sum.astype(dt)
        mean = (np.cumsum(rows.astype(F64), axis=0)[-1] / n).astype(dt)
        d = rows - mean
        return mean, np.cumsum((d * d).astype(F64), axis=0)[-1].astype(dt)
    per = v.transpose(1, 0, 2).reshape(c, -1)  # each channel's elements in the loop's order
    mean = (np.cumsum(per.astype(F64), axis=1)[:, -1] / n).astype(dt)
    d = per - mean[:, None]
    return mean, np.cumsum((d * d).astype(F64), axis=1)[:, -1].astype(dt)


def invstd_and_update(mean: Any, var_sum: Any, n: int, eps: float, momentum: float,
                      running_mean: Any, running_var: Any) -> Any:
    """batch_norm_cpu_update_stats_template: ``1 / sqrt(var_sum / n + eps)`` in double (stored
    in the input's dtype), and the running statistics updated in place."""
    dt = var_sum.dtype
    var = (var_sum / dt.type(n)).astype(F64)
    with np.errstate(divide="ignore"):
        invstd = np.where((var != 0) | (eps != 0), 1.0 / np.sqrt(var + eps), 0.0).astype(dt)
    m = dt.type(momentum)  # static_cast<param_t>(momentum)
    if running_mean is not None:
        running_mean[...] = m * mean + (dt.type(1) - m) * running_mean
    if running_var is not None:  # the unbiased variance is a double (accscalar_t) of a float
        with np.errstate(divide="ignore", invalid="ignore"):
            unbiased = (var_sum / dt.type(n - 1)).astype(F64)
        running_var[...] = (F64(m) * unbiased + ((dt.type(1) - m) * running_var)).astype(dt)
    return invstd


def transform(x: Any, mean: Any, invstd: Any, weight: Any, bias: Any) -> Any:
    """batch_norm_cpu_kernel: ``x * alpha + beta`` per channel."""
    dt = x.dtype
    alpha = invstd if weight is None else invstd * weight
    beta = madd(-mean, alpha, np.zeros_like(alpha) if bias is None else bias.astype(dt))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return madd(x, alpha.reshape(shape), np.broadcast_to(beta.reshape(shape), x.shape))


def eval_invstd(running_var: Any, eps: float) -> Any:
    """The forward's ``1 / sqrt(running_var + eps)`` in the input's dtype."""
    dt = running_var.dtype
    return dt.type(1) / np.sqrt(running_var + dt.type(eps))


def backward(grad: Any, x: Any, weight: Any, mean: Any, invstd: Any, train: bool,
             running_var: Any = None, eps: float = 0.0) -> tuple[Any, Any, Any]:
    """batch_norm_cpu_backward_kernel: (grad_input, grad_weight, grad_bias).  In evaluation
    ``mean`` is the running mean and ``invstd`` is recomputed in double from the running
    variance."""
    v, c, n = _rows(x)
    dt = v.dtype
    g = np.ascontiguousarray(grad, dt).reshape(v.shape)
    if not train:
        invstd = (1.0 / np.sqrt(running_var.astype(F64) + eps)).astype(dt)
    w = np.ones(c, dt) if weight is None else weight.astype(dt)
    if v.shape[2] == 1:
        xs, gs = v[:, :, 0], g[:, :, 0]
        total, dotp = (t.astype(dt) for t in _thread_sums(
            lambda b, i: [b[0] + gs[i], madd(xs[i] - mean, gs[i], b[1])], n, c, dt, 2))
        if train:
            k = dotp * invstd * invstd / dt.type(n)
            dx = madd(-(xs - mean), k, gs - total / dt.type(n)) * invstd * w
        else:
            dx = gs * invstd * w
        return dx.reshape(x.shape), dotp * invstd, total
    sums = np.zeros(c, F64)
    dots = np.zeros(c, F64)
    centred = v - mean[None, :, None]
    for b in range(v.shape[0]):  # per sample: each channel's image reduced in lanes
        sums = sums + reduce_all_sum(g[b]).astype(F64)
        dots = dots + _dot_rows(centred[b], g[b]).astype(F64)
    total, dotp = sums.astype(dt), dots.astype(dt)
    inv = invstd[None, :, None]
    if train:
        k = (dotp * invstd * invstd / dt.type(n))[None, :, None]
        grad_mean = (total / dt.type(n))[None, :, None]
        dx = madd(-centred, k, g - grad_mean) * inv * w[None, :, None]
    else:
        dx = g * inv * w[None, :, None]
    return dx.reshape(x.shape), dotp * invstd, total


def _dot_rows(a: Any, b: Any) -> Any:
    """vec::map2_reduce_all((x - mean) * dy, +) along the last axis: the first vector's
    products, then each vector's products added by an FMA, the lanes folded."""
    n = a.shape[-1]
    w = machine.current().vector_bytes // a.dtype.itemsize
    if n < w:
        return reduce_all_sum(a * b)
    full = n - n % w
    acc = a[..., :w] * b[..., :w]
    for d in range(w, full, w):
        acc = madd(a[..., d:d + w], b[..., d:d + w], acc)
    if full < n:
        tail = n - full
        acc[..., :tail] = madd(a[..., full:], b[..., full:], acc[..., :tail])
    return _fold_lanes(acc)
