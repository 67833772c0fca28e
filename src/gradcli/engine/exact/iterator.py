"""TensorIterator's geometry: the order it walks an op's elements in, and which of them its
vectorised loop computes (aten/src/ATen/TensorIterator.cpp, native/cpu/Loops.h).

TensorIterator sorts the dimensions (smallest strides innermost, reduced dimensions first),
merges the ones that are contiguous with each other, and hands 2-D blocks to the kernel.
``cpu_kernel_vec`` runs each row of a block through ``vectorized_loop``: two vectors at a time
while a full pair fits, then the scalar lambda for the rest of the row.  Ops of at least
``GRAIN_SIZE`` elements are first cut into one range per thread, and a range may start or end
mid-row.  Where the vector and the scalar code round differently (sigmoid's SLEEF ``exp`` against
glibc's ``expf``), an element's value depends on its place in this walk.
"""

from __future__ import annotations

import math
from contextvars import ContextVar
from typing import Any

import numpy as np

from .. import machine
from ..machine import GRAIN_SIZE

# The innermost running vmap (engine/batching.VmapLevel: its ``arrays``, ``row``, ``chunk``),
# set while it runs, as machine.py's run machine is: PyTorch computes a batched op once over
# the whole chunk, so a kernel given one sample's batched arrays walks them as that chunk's.
VMAP: ContextVar[Any] = ContextVar("gradcli_vmap", default=None)


def batch_place(*arrays: Any) -> tuple[int, int] | None:
    """(the sample's row, the chunk's size) when every one of ``arrays`` is one sample's part
    of a tensor batched by the innermost vmap, else None."""
    level = VMAP.get()
    if level is None or not all(id(a) in level.arrays for a in arrays):
        return None
    return level.row, level.chunk


def _should_swap(a: int, b: int, shape: list, ops: list) -> int:
    """TensorIterator::reorder_dimensions' comparison (reduced dims of the output first)."""
    for strides, is_output in ops:
        s0, s1 = strides[a], strides[b]
        if is_output and (s0 == 0) != (s1 == 0):
            return 1 if s1 == 0 else -1
        if s0 == 0 or s1 == 0:
            continue
        if s0 != s1:
            return -1 if s0 < s1 else 1
        if shape[a] > shape[b]:
            return 1
    return 0


def permutation(shape: tuple, ops: list) -> list[int]:
    """The dimensions innermost first; ``ops`` is [(strides, is_reduction_output)]."""
    nd = len(shape)
    perm = list(range(nd))[::-1]
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = _should_swap(perm[d0], perm[d1], list(shape), ops)
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def coalesce(dims: list) -> list:
    """coalesce_dimensions over [[size, stride_0, stride_1, ...]] innermost first."""
    merged: list = []
    for d in dims:
        if merged:
            last = merged[-1]
            if last[0] == 1 or d[0] == 1 or all(last[0] * s == t for s, t in
                                                  zip(last[1:], d[1:])):
                if last[0] == 1:
                    last[1:] = d[1:]
                last[0] *= d[0]
                continue
        merged.append(list(d))
    return merged


def thread_ranges(n: int, threads: int | None = None, grain: int = GRAIN_SIZE) -> list:
    """at::parallel_for's chunks of [0, n) (the OpenMP build): one per thread used (the run's
    machine's threads by default); a grain of 0 (the softmax kernels') splits anything longer
    than one element."""
    if n <= max(grain, 1):
        return [(0, n)]
    if threads is None:
        threads = machine.current().threads
    if threads == 1:
        return [(0, n)]
    nt = min(threads, -(-n // grain)) if grain > 0 else threads
    chunk = -(-n // nt)
    return [(t * chunk, min(n, (t + 1) * chunk)) for t in range(nt) if t * chunk < n]


def vector_mask(shape: tuple, strides: list, itemsize: int, lanes: int,
                grain: int = GRAIN_SIZE) -> Any:
    """Where ``cpu_kernel_vec`` uses the vector lambda, for inputs of ``shape`` with these
    byte ``strides`` (0 for a broadcast dimension); False elements take the scalar lambda.
    ``grain``: the kernel's grain size (``thread_ranges``)."""
    shape = tuple(shape)
    n = math.prod(shape)
    if n == 0:
        return np.zeros(shape, bool)
    perm = permutation(shape, [(list(s), False) for s in strides]) if len(shape) > 1 else \
        list(range(len(shape)))
    dims = coalesce([[shape[p]] + [s[p] for s in strides] for p in perm]) if shape else [[1]]
    row, inner = dims[0][0], dims[0][1:]
    contiguous = all(s == itemsize for s in inner)
    one_scalar = sum(s == 0 for s in inner) == 1 and all(s in (0, itemsize) for s in inner)
    flat = np.zeros(n, bool)
    if contiguous or one_scalar:
        pos = np.arange(n, dtype=np.int64)
        row_start = pos - pos % row
        for begin, end in thread_ranges(n, grain=grain):
            sel = slice(begin, end)
            start = np.maximum(row_start[sel], begin)
            stop = np.minimum(row_start[sel] + row, end)
            length = stop - start
            flat[sel] = (pos[sel] - start) < length - length % (2 * lanes)
    order = perm[::-1]  # outermost first: the walk is C order over these axes
    walked = flat.reshape([shape[a] for a in order]) if shape else flat.reshape(())
    return np.transpose(walked, np.argsort(order)) if shape else walked
