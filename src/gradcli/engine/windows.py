"""Pooling over 2-d windows as ATen's CPU kernels compute it (native/cpu/MaxPoolKernel.cpp,
AvgPoolKernel.cpp, AdaptiveAvgPoolKernel.cpp), written with Array API calls on (N, C, H, W)
arrays.  Each window is walked kernel row by kernel row, as the kernels walk it, so the sums are
PyTorch's (elementwise IEEE additions in the same order); the backward kernels add each output's
gradient into its window in the outputs' order, reproduced here by visiting the kernel positions
in reverse (for one input element, a later kernel position is an earlier output).
"""

from __future__ import annotations

import math
from typing import Any


def batched(fn: Any) -> Any:
    """``fn`` of (N, C, H, W) arrays also for an unbatched (C, H, W) first array (and shape),
    as ATen's kernels take both."""
    def wrapper(xp: Any, x: Any, *args: Any) -> Any:
        if x.ndim == 4:
            return fn(xp, x, *args)
        args = tuple((1, *a) if isinstance(a, tuple) and len(a) == 3 else
                     a[None] if getattr(a, "ndim", 0) == 3 else a for a in args)
        return fn(xp, x[None], *args)[0]
    wrapper.__doc__ = fn.__doc__
    return wrapper


def out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """pooling_output_shape: the windows that start inside the (left-padded) input."""
    n = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (n - 1) * s >= size + p:
        n -= 1
    return n


def _positions(size: int, out: int, k: int, s: int, p: int, d: int, i: int) -> tuple:
    """For kernel position ``i``: the outputs whose element ``i`` lies inside the input, as a
    slice of outputs and the matching slice of input indices (None when there are none)."""
    first = [o for o in range(out) if 0 <= o * s - p + i * d < size]
    if not first:
        return None
    lo, hi = first[0], first[-1] + 1
    start = lo * s - p + i * d
    return slice(lo, hi), slice(start, start + (hi - lo - 1) * s + 1, s)


@batched
def max_pool_indices(xp: Any, x: Any, k: tuple, s: tuple, p: tuple, d: tuple,
                     out: tuple) -> Any:
    """cpu_max_pool's indices (into each plane's H * W): the first maximum in the window's
    order, a NaN taking the place of what precedes it; the first element inside the input
    when all are -inf."""
    n, c, h, w = x.shape
    best = xp.full((n, c, *out), -math.inf, dtype=x.dtype)
    first_h = [_first(o, s[0], p[0], d[0]) for o in range(out[0])]
    first_w = [_first(o, s[1], p[1], d[1]) for o in range(out[1])]
    idx = xp.zeros((n, c, *out), dtype=xp.int64)  # row-major, as the result PyTorch makes
    idx[...] = xp.asarray([[fh * w + fw for fw in first_w] for fh in first_h], dtype=xp.int64)
    for i in range(k[0]):
        rows = _positions(h, out[0], k[0], s[0], p[0], d[0], i)
        if rows is None:
            continue
        for j in range(k[1]):
            cols = _positions(w, out[1], k[1], s[1], p[1], d[1], j)
            if cols is None:
                continue
            val = x[:, :, rows[1], cols[1]]
            cur = best[:, :, rows[0], cols[0]]
            take = (val > cur) | xp.isnan(val)
            best[:, :, rows[0], cols[0]] = xp.where(take, val, cur)
            pos = xp.asarray([[a * w + b for b in range(w)[cols[1]]] for a in range(h)[rows[1]]],
                             dtype=xp.int64)
            idx[:, :, rows[0], cols[0]] = xp.where(take, pos, idx[:, :, rows[0], cols[0]])
    return idx


def _first(o: int, s: int, p: int, d: int) -> int:
    start = o * s - p
    while start < 0:
        start += d
    return start


@batched
def gather_planes(xp: Any, x: Any, indices: Any) -> Any:
    """The elements of each (H, W) plane of ``x`` at ``indices`` (into H * W)."""
    n, c = x.shape[:2]
    flat = xp.reshape(x, (n, c, -1))
    picked = xp.take_along_axis(flat, xp.reshape(indices, (n, c, -1)), axis=2)
    return xp.reshape(picked, indices.shape)


@batched
def scatter_planes(xp: Any, grad: Any, indices: Any, shape: tuple) -> Any:
    """cpu_max_pool_backward: each output's gradient added at its index, in the outputs'
    order (a sequential loop per plane in ATen)."""
    n, c, h, w = shape
    out = xp.zeros((n * c, h * w), dtype=grad.dtype)
    g = xp.reshape(grad, (n * c, -1))
    ix = xp.reshape(indices, (n * c, -1))
    if type(out).__module__ == "numpy":
        plane = xp.arange(n * c)
        for o in range(g.shape[1]):  # an index repeats only across outputs: one at a time
            out[plane, ix[:, o]] += g[:, o]
        return xp.reshape(out, shape)
    where = xp.reshape(xp.arange(h * w), (1, -1))  # the Array API has no scatter: masks
    for o in range(g.shape[1]):
        hit = where == ix[:, o:o + 1]
        out = out + xp.where(hit, g[:, o:o + 1], xp.zeros_like(out))
    return xp.reshape(out, shape)


def _divisors(xp: Any, size: tuple, out: tuple, k: tuple, s: tuple, p: tuple,
              count_include_pad: bool, divisor_override: Any, dtype: Any) -> Any:
    """cpu_avg_pool's divide_factor of each output window."""
    if divisor_override is not None:
        return xp.full(out, float(divisor_override), dtype=dtype)
    rows = []
    for oh in range(out[0]):
        h0, h1 = oh * s[0] - p[0], min(oh * s[0] - p[0] + k[0], size[0] + p[0])
        row = []
        for ow in range(out[1]):
            w0, w1 = ow * s[1] - p[1], min(ow * s[1] - p[1] + k[1], size[1] + p[1])
            if count_include_pad:
                row.append((h1 - h0) * (w1 - w0))
            else:
                row.append((min(h1, size[0]) - max(h0, 0)) * (min(w1, size[1]) - max(w0, 0)))
        rows.append(row)
    return xp.asarray(rows, dtype=dtype)


@batched
def avg_pool(xp: Any, x: Any, k: tuple, s: tuple, p: tuple, out: tuple, count_include_pad: bool,
             divisor_override: Any) -> Any:
    """cpu_avg_pool: each window summed row by row from zero, divided by its factor."""
    n, c, h, w = x.shape
    total = xp.zeros((n, c, *out), dtype=x.dtype)
    for i in range(k[0]):
        rows = _positions(h, out[0], k[0], s[0], p[0], 1, i)
        if rows is None:
            continue
        for j in range(k[1]):
            cols = _positions(w, out[1], k[1], s[1], p[1], 1, j)
            if cols is None:
                continue
            total[:, :, rows[0], cols[0]] = total[:, :, rows[0], cols[0]] + \
                x[:, :, rows[1], cols[1]]
    return total / _divisors(xp, (h, w), out, k, s, p, count_include_pad, divisor_override,
                             x.dtype)


@batched
def avg_pool_backward(xp: Any, grad: Any, shape: tuple, k: tuple, s: tuple, p: tuple,
                      count_include_pad: bool, divisor_override: Any) -> Any:
    """cpu_avg_pool_backward: ``grad / factor`` added over each window, outputs in order."""
    h, w = shape[2:]
    out = tuple(grad.shape[2:])
    g = grad / _divisors(xp, (h, w), out, k, s, p, count_include_pad, divisor_override,
                         grad.dtype)
    res = xp.zeros(shape, dtype=grad.dtype)
    for i in reversed(range(k[0])):
        rows = _positions(h, out[0], k[0], s[0], p[0], 1, i)
        if rows is None:
            continue
        for j in reversed(range(k[1])):
            cols = _positions(w, out[1], k[1], s[1], p[1], 1, j)
            if cols is None:
                continue
            res[:, :, rows[1], cols[1]] = res[:, :, rows[1], cols[1]] + g[:, :, rows[0], cols[0]]
    return res


def _adaptive(i: int, size: int, out: int) -> tuple[int, int]:
    return (i * size) // out, -(-((i + 1) * size) // out)


@batched
def adaptive_avg_pool(xp: Any, x: Any, out: tuple) -> Any:
    """cpu_adaptive_avg_pool: each window ``[floor(o I / O), ceil((o + 1) I / O))`` summed
    row by row, divided by its height, then by its width."""
    n, c, h, w = x.shape
    res = xp.zeros((n, c, *out), dtype=x.dtype)
    for oh in range(out[0]):
        h0, h1 = _adaptive(oh, h, out[0])
        for ow in range(out[1]):
            w0, w1 = _adaptive(ow, w, out[1])
            total = xp.zeros((n, c), dtype=x.dtype)
            for ih in range(h0, h1):
                for iw in range(w0, w1):
                    total = total + x[:, :, ih, iw]
            res[:, :, oh, ow] = total / (h1 - h0) / (w1 - w0)  # sum / kh / kw
    return res


@batched
def adaptive_avg_pool_backward(xp: Any, grad: Any, shape: tuple) -> Any:
    """cpu_adaptive_avg_pool_backward: each output's gradient divided by its window's height
    and width, added over the window, outputs in order."""
    h, w = shape[2:]
    out = tuple(grad.shape[2:])
    res = xp.zeros(shape, dtype=grad.dtype)
    for oh in range(out[0]):
        h0, h1 = _adaptive(oh, h, out[0])
        for ow in range(out[1]):
            w0, w1 = _adaptive(ow, w, out[1])
            part = grad[:, :, oh, ow] / (h1 - h0) / (w1 - w0)
            for ih in range(h0, h1):
                for iw in range(w0, w1):
                    res[:, :, ih, iw] = res[:, :, ih, iw] + part
    return res
