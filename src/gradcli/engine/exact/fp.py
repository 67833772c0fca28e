"""Exact floating-point building blocks: fused multiply-adds rounded once, on hardware NumPy
reaches only through separate multiplies and adds.

PyTorch's x86 wheels are built with ``-ffp-contract=fast`` and FMA enabled in the AVX2/AVX512
kernels, so ``a * b + c`` there is one vfmadd, rounded once; SLEEF's kernels call it by name.
NumPy has no FMA, so:

* ``fma32``: for float32 operands the product is exact in float64, so ``a * b + c`` in float64
  is off from the exact value by one float64 rounding; rounding that to float32 is wrong only
  when the float64 sum lands exactly on a float32 midpoint (double rounding), settled with the
  exact error of the float64 addition, or in float32's subnormal range, settled exactly.
* ``fma64``: Boldo and Melquiond's emulation (exact product and sums, the last one rounded to
  odd), on arrays, and the same steps on Python floats for a scalar (scalar scripts run on
  0-d values, where twenty array operations would cost twenty times more).
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

F32 = np.float32
F64 = np.float64
_MID = np.uint64(1 << 28)  # a float64 exactly halfway between two normal float32 values
_LOW = np.uint64((1 << 29) - 1)
_TINY = 2.0 ** -126  # below this float32 is subnormal and the midpoint bits move
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitting constant
_TINY64 = 2.0 ** -916  # below this a product's split parts may underflow (2**-1022 * 2**106)


def fma32(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once to float32 (the hardware's vfmadd on float32 lanes)."""
    p = np.asarray(a, F32).astype(F64) * np.asarray(b, F32).astype(F64)  # exact: 24 + 24 bits
    return fma_add(p, np.asarray(c, F32))


def fma_add(p: Any, c: Any) -> Any:
    """``p + c`` rounded once to float32, for an exact float64 product ``p`` (see fma32)."""
    c64 = np.asarray(c).astype(F64)
    s = p + c64
    with np.errstate(over="ignore"):  # beyond float32's range is inf, as the FMA's result
        out = s.astype(F32)
    bits = s.view(np.uint64) if s.ndim else np.asarray(s).reshape(1).view(np.uint64)
    risky = (((bits & _LOW) == _MID) | (np.abs(s).reshape(bits.shape) < _TINY)).reshape(s.shape)
    if risky.any():
        out = _settle(p, c64, s, out, risky)
    return out


def _settle(p: Any, c: Any, s: Any, out: Any, where: Any) -> Any:
    """Round ``p + c`` to float32 exactly where the float64 sum ``s`` may double-round."""
    with np.errstate(all="ignore"):
        bb = s - p
        err = (p - (s - bb)) + (c - bb)  # TwoSum: p + c == s + err exactly
        nudged = np.where(err == 0, s, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)))
    fixed = np.where(where, nudged.astype(F32), out)
    # float32 subnormals round at a coarser bit than the midpoint test sees: exactly, one by one
    tiny = where & (np.abs(s) < _TINY) & (s != 0) & np.isfinite(s)
    if tiny.any():
        shape = np.shape(fixed)
        fixed = np.array(fixed, F32).reshape(-1)
        p_, c_ = (np.broadcast_to(v, shape).reshape(-1) for v in (p, c))
        from fractions import Fraction  # rare (float32 subnormals): not at every start-up

        for i in np.flatnonzero(tiny):
            fixed[i] = _round_f32(Fraction(float(p_[i])) + Fraction(float(c_[i])))
        fixed = fixed.reshape(shape)
    return fixed


def _round_f32(exact: Any) -> Any:
    """``exact`` rounded to the nearest float32, ties to even."""
    with np.errstate(over="ignore"):  # may be one step off: Fraction -> double -> float
        guess = F32(float(exact))
    if not np.isfinite(guess):
        return guess
    with np.errstate(over="ignore"):
        candidates = [v for v in (np.nextafter(guess, F32(-np.inf)), guess,
                                  np.nextafter(guess, F32(np.inf))) if np.isfinite(v)]

    from fractions import Fraction

    def key(v: Any) -> tuple[Fraction, int]:
        return abs(Fraction(float(v)) - exact), int(np.array(v).view(np.uint32)) & 1

    return min(candidates, key=key)


def round32(x: Any) -> Any:
    """A float64 value rounded to float32."""
    return np.asarray(x, F64).astype(F32)


def _two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """s + e == a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: Any, b: Any) -> tuple[Any, Any]:
    """p + e == a * b exactly (Dekker, with Veltkamp's split)."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma64(a: Any, b: Any, c: Any) -> Any:
    """float64 ``a * b + c`` rounded once; a NumPy scalar result for scalar operands."""
    if all(isinstance(v, float | int | np.floating) for v in (a, b, c)):
        return F64(_fma64_scalar(float(a), float(b), float(c)))
    a, b, c = np.broadcast_arrays(np.asarray(a, dtype=F64), np.asarray(b, dtype=F64),
                                  np.asarray(c, dtype=F64))
    with np.errstate(all="ignore"):
        uh, ul = _two_prod(a, b)
        th, tl = _two_sum(c, uh)
        v, err = _two_sum(tl, ul)
        # round v to odd: an inexact sum whose last bit is even moves one step toward the truth
        even = (err != 0) & ((v.view(np.int64) & 1) == 0)
        if even.any():
            v = v.copy()
            v[even] = np.nextafter(v[even], np.where(err[even] > 0, np.inf, -np.inf))
        out = np.asarray(th + v)
        # products too large to split (|a*b| near 2**996) or non-finite inputs: plain arithmetic
        bad = ~np.isfinite(out) | ~np.isfinite(ul)
        if bad.any():
            out[bad] = a[bad] * b[bad] + c[bad]
        # products so small that the split's partial products underflow: exactly, one by one
        tiny = (np.abs(uh) < _TINY64) & (a != 0) & (b != 0) & np.isfinite(c)
        if tiny.any():
            out = out.reshape(-1) if out.ndim else out.reshape(1)
            flat = [v.reshape(-1) for v in (a, b, c)]
            for i in np.flatnonzero(tiny):
                out[i] = _exact64(*(float(v[i]) for v in flat))
            out = out.reshape(a.shape)
    return out


def _exact64(a: float, b: float, c: float) -> float:
    """``a * b + c`` rounded once, by rational arithmetic (``float`` of a Fraction rounds
    correctly, subnormals included)."""
    from fractions import Fraction  # rare (products below 2**-916): not at every start-up

    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _fma64_scalar(a: float, b: float, c: float) -> float:
    """fma64's steps on Python floats."""
    uh, ul = _two_prod(a, b)
    th, tl = _two_sum(c, uh)
    v, err = _two_sum(tl, ul)
    if err != 0 and not struct.unpack("<q", struct.pack("<d", v))[0] & 1:
        v = math.nextafter(v, math.inf if err > 0 else -math.inf)
    out = th + v
    if not (math.isfinite(out) and math.isfinite(ul)):
        return a * b + c
    if abs(uh) < _TINY64 and a != 0 and b != 0 and math.isfinite(c):
        return _exact64(a, b, c)
    return out
