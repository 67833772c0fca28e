"""Exact floating-point building blocks: a correctly rounded float32 FMA on float64 hardware.

PyTorch's vectorised kernels (SLEEF, the compilers' contracted ``a * b + c``) round a fused
multiply-add once; NumPy has no FMA.  For float32 operands the product is exact in float64, so
``a * b + c`` in float64 is off from the exact value by one float64 rounding; rounding that to
float32 is wrong only when the float64 sum lands exactly on a float32 midpoint (double
rounding), which ``fma32`` detects and settles with the exact error of the float64 addition.
"""

from __future__ import annotations

from typing import Any

import numpy as np

F32 = np.float32
F64 = np.float64
_MID = np.uint64(1 << 28)  # a float64 exactly halfway between two normal float32 values
_LOW = np.uint64((1 << 29) - 1)
_TINY = 2.0 ** -126  # below this float32 is subnormal and the midpoint bits move


def fma32(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once to float32 (the hardware's vfmadd on float32 lanes)."""
    a64 = np.asarray(a, F32).astype(F64)
    p = a64 * np.asarray(b, F32).astype(F64)  # exact: 24 + 24 bits
    c64 = np.asarray(c, F32).astype(F64)
    s = p + c64
    out = s.astype(F32)
    bits = s.view(np.uint64) if s.ndim else np.asarray(s).reshape(1).view(np.uint64)
    risky = (bits & _LOW) == _MID
    tiny = np.abs(s) < _TINY
    if risky.any() or tiny.any():
        out = _settle(p, c64, s, out, risky | tiny)
    return out


def fma_add(p: Any, c: Any) -> Any:
    """``p + c`` rounded once to float32, for an exact float64 product ``p`` (see fma32)."""
    c64 = c.astype(F64)
    s = p + c64
    out = s.astype(F32)
    bits = s.view(np.uint64)
    risky = ((bits & _LOW) == _MID) | (np.abs(s) < _TINY)
    if risky.any():
        out = _settle(p, c64, s, out, risky)
    return out


def _settle(p: Any, c: Any, s: Any, out: Any, where: Any) -> Any:
    """Round ``p + c`` to float32 exactly where the float64 sum ``s`` may double-round."""
    where = where.reshape(np.shape(s))
    bb = s - p
    err = (p - (s - bb)) + (c - bb)  # TwoSum: p + c == s + err exactly
    nudged = np.where(err == 0, s, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)))
    fixed = nudged.astype(F32)
    # subnormal results: float64 carries the exact sum whenever it needs fewer than 53 bits,
    # and the nudge keeps ties honest the same way
    return np.where(where, fixed, out)


def round32(x: Any) -> Any:
    """A float64 value rounded to float32."""
    return np.asarray(x, F64).astype(F32)
