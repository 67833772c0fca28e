"""Exact floating-point building blocks: fused multiply-adds rounded once, on hardware NumPy
reaches only through separate multiplies and adds.

PyTorch's x86 wheels are built with ``-ffp-contract=fast`` and FMA enabled in the AVX2/AVX512
kernels, so ``a * b + c`` there is one vfmadd, rounded once; SLEEF's kernels call it by name.
NumPy has no FMA, so:

* ``fma32``: for float32 operands the product is exact in float64, so ``a * b + c`` in float64
  is off from the exact value by one float64 rounding; rounding that to float32 is wrong only
  when the float64 sum lands exactly on a float32 midpoint (double rounding), settled with the
  exact error of the float64 addition, or in float32's subnormal range, settled exactly.
  The checks cost little: the cast to float32 reports the subnormal sums it rounds (its
  underflow status, ``cast32``), and one mask, one comparison and a count find a midpoint.
* ``fma64``: Boldo and Melquiond's emulation (exact product and sums, the last one rounded to
  odd), on arrays, and the same steps on Python floats for a scalar (scalar scripts run on
  0-d values, where twenty array operations would cost twenty times more).

Where the install compiled them (native.py), ``fma32``, ``fma_add`` and ``fma64`` run as C
loops over the C library's ``fmaf``/``fma`` instead, with the same results; the NumPy steps
below remain their definition and the fallback.
"""

from __future__ import annotations

import contextlib
import math
import struct
from typing import Any

import numpy as np

from ..fpstate import QUIET
from . import native

_NOTHING = contextlib.nullcontext()


def fp_ignored() -> Any:
    """``np.errstate(all="ignore")`` for a kernel whose floating-point flags mean nothing
    (x * x overflowing to inf, as PyTorch's); inside ``backend.quiet()``, where NumPy's reports
    go nowhere while no script's own NumPy call runs (engine/fpstate.py), nothing to enter (an
    errstate costs a kernel on a small tensor as much as its arithmetic)."""
    state = QUIET.get()
    if state is True or state is not None and not state.active:
        return _NOTHING
    return np.errstate(all="ignore")


F32 = np.float32
F64 = np.float64
_MID = np.uint64(1 << 28)  # a float64 exactly halfway between two normal float32 values
_LOW = np.uint64((1 << 29) - 1)
_TINY = 2.0 ** -126  # below this float32 is subnormal and the midpoint bits move
_U64 = np.dtype(np.uint64)
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitting constant
_TINY64 = 2.0 ** -916  # below this a product's split parts may underflow (2**-1022 * 2**106)


def fma32(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once to float32 (the hardware's vfmadd on float32 lanes)."""
    if native.lib is not None:
        out = native.fma32(a, b, c)
        if out is not None:
            return out if out.ndim else out[()]  # a scalar for 0-d operands, as below
    p = np.multiply(np.asarray(a, F32), np.asarray(b, F32), dtype=F64)  # exact: 24 + 24 bits
    return fma_add(p, np.asarray(c, F32))


def fma_add(p: Any, c: Any) -> Any:
    """``p + c`` rounded once to float32, for an exact float64 product ``p`` (see fma32)."""
    if native.lib is not None:
        out = native.fma_add(p, c)
        if out is not None:
            return out if out.ndim else out[()]  # a scalar for 0-d operands, as below
    s = p + c  # float32 ``c`` widened exactly by the promotion
    out = cast32(s)
    if out is not None:  # no sum in float32's subnormal range to settle (cast32)
        if not on_midpoint(s):
            return out
        with np.errstate(all="ignore"):
            bb = s - p
            err = (p - (s - bb)) + (c - bb)  # TwoSum: p + c == s + err exactly
        if not np.count_nonzero(err):  # NaN counts
            return out  # every float64 sum exact, so rounded once, midpoints too
        risky = midpoints(s)
        risky &= err != 0  # an exact float64 sum rounds once (NaN errors stay risky)
        if not risky.any():
            return out
        return _settle(p, np.asarray(c).astype(F64), s, out, risky)
    with np.errstate(over="ignore"):  # beyond float32's range is inf, as the FMA's result
        out = s.astype(F32)
    s = np.asarray(s)
    with np.errstate(all="ignore"):
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
    risky = _flagged(s)
    risky &= err != 0
    if risky.any():
        out = _settle(p, np.asarray(c).astype(F64), s, out, risky)
    return out


def fused_add(base: Any, a: Any, b: Any) -> Any:
    """``base + a * b`` of float32 operands rounded once to float32, when the float64 sum
    (``base`` first, as kernels.fused_add adds) rounds once everywhere (``cast32``); else
    None (and for a ``base`` that is not an array of at least one dimension)."""
    if base.__class__ is not np.ndarray or not base.ndim:
        return None
    s = np.multiply(a, b, dtype=F64)
    if s.shape == base.shape:
        np.add(base, s, out=s)  # base + a * b in place, base first (as is a NaN's payload)
    else:
        s = base.astype(F64) + s
    out = cast32(s)
    return None if out is None or on_midpoint(s) else out


def cast32(s: Any) -> Any:
    """The float64 array ``s`` (exact products plus float32 addends) rounded to float32, or
    None where that may not be the fused result: where the cast underflows inexactly (the
    floating-point status NumPy checks after the cast).

    NOTE: the subnormal half of ``rounds_once``'s test, for free.  A sum in float32's
    subnormal range that the cast rounds exactly is a float32 already, and so the exact sum's
    rounding too (it lies within half a float64 step of it).  The others raise the underflow
    flag, tininess detected before rounding or after: after it (x86), a sum that rounds up to
    2**-126 itself raises none, but such a sum lies at least 2**-151 above the midpoint below
    2**-126, the exact sum on the same side.  ``_FLAGS`` checks at import that this NumPy
    reports underflow in casts; without it, None whenever the subnormal test fails."""
    try:
        out = _cast_raising(s)
    except FloatingPointError:
        return None
    if not _FLAGS and not rounds_once(s):
        return None
    return out


@np.errstate(over="ignore", under="raise")  # beyond float32's range: inf, as fused
def _cast_raising(s: Any) -> Any:
    """``s`` cast to float32, raising FloatingPointError on underflow (the decorator's state
    costs less than a ``with np.errstate`` at each call)."""
    return s.astype(F32)


def on_midpoint(s: Any) -> bool:
    """Whether some float64 value of the array ``s`` lies exactly halfway between two normal
    float32 values."""
    return bool(np.count_nonzero(midpoints(s)))


def midpoints(s: Any) -> Any:
    """Where the float64 values of the array ``s`` lie exactly halfway between two normal
    float32 values: their low 29 bits are ``1 << 28``.  (A mask and a comparison: NumPy's
    int64 shifts and minimum are not vectorised, 2 us each for 864 values against 0.7.)"""
    return (s.view(_U64) & _LOW) == _MID


def _flagged(s: Any) -> Any:
    """Where the float64 sums ``s`` lie on a float32 midpoint or in float32's subnormal range
    (zero aside): where rounding them to float32 may not give the fused result."""
    return midpoints(s) | ((np.abs(s) < _TINY) & (s != 0))


def _inexact(p: Any, c: Any, s: Any, where: Any) -> bool:
    """Whether some float64 sum ``s = p + c`` is inexact where ``where`` is True (a sum equal to
    the exact one rounds once to float32, midpoint or subnormal alike)."""
    p = np.broadcast_to(p, where.shape)[where]
    c = np.broadcast_to(np.asarray(c, F64), where.shape)[where]
    t = s[where]
    with np.errstate(all="ignore"):
        bb = t - p
        err = (p - (t - bb)) + (c - bb)  # TwoSum: p + c == t + err exactly
    return bool(np.count_nonzero(err))  # NaN counts: settled the slow way


def rounds_once(s: Any) -> bool:
    """True when rounding the float64 sums ``s`` (exact products plus float32 addends) to
    float32 gives the fused results everywhere: no sum lies exactly on a float32 midpoint
    (where the float64 rounding may have moved the tie) nor in float32's subnormal range
    (where float32 rounds at a coarser bit).  Most arrays pass; four whole-array operations
    (the nonzero magnitudes looked at again only when some sum is zero)."""
    s = np.asarray(s).reshape(-1)
    if not s.size:
        return True
    low = s.view(np.uint64) & _LOW
    low ^= _MID  # zero on a midpoint
    if np.count_nonzero(low) != low.size:
        return False
    mag = np.abs(s)
    smallest = np.minimum.reduce(mag)  # NaN if some sum is NaN
    if smallest >= _TINY:
        return True
    if 0 < smallest:  # a nonzero sum in the subnormal range
        return False
    # a zero or a NaN among the sums: the nonzero magnitudes below the smallest normal
    return not np.count_nonzero((mag < _TINY) & (mag != 0))


class Fused:
    """A run of float32 fused multiply-adds with one check for all of them.

    Each ``fma`` rounds the float64 sum (exact product plus addend) straight to float32 and
    keeps the sum; ``exact()`` then says whether every one of them was rounded once: the
    whole-array test of ``rounds_once``, then, only where that fails, whether the flagged
    sums were exact in float64 (a float64 sum equal to the exact one rounds once, midpoint
    or subnormal alike).  Where it is False a caller redoes the run with ``fma32``, which
    settles each risky element: a run of nine FMAs costs three array operations each instead
    of a dozen.  Operands broadcast to ``shape``; ``count`` is the most FMAs the run makes.
    """

    __slots__ = ("operands", "sums", "used")

    def __init__(self, shape: tuple, count: int) -> None:
        self.sums = np.empty((count, *shape), F64)
        self.used = 0
        self.operands: list[tuple] = []

    def fma(self, a: Any, b: Any, c: Any) -> Any:
        """``a * b + c`` for float32 operands, rounded from float64 (see ``exact``)."""
        s = self.sums[self.used, ...]  # an array view, 0-d ones included
        self.used += 1
        self.operands.append((a, b, c))
        np.multiply(a, b, out=s, dtype=F64)
        s += c
        return s.astype(F32)

    @staticmethod
    def fma_exact(a: Any, b: Any, c: Any) -> Any:
        """``a * b + c`` whose float64 sum the caller knows to be exact: rounded once, as is."""
        s = np.multiply(a, b, dtype=F64)
        s += c
        return s.astype(F32)

    def exact(self) -> bool:
        """True when every ``fma`` so far was rounded once, as the hardware rounds it."""
        sums = self.sums[:self.used]
        if cast32(sums) is not None and not on_midpoint(sums):
            return True  # (cast32 once more, only for the floating-point status it checks)
        flagged = _flagged(sums)
        for k in np.flatnonzero(flagged.reshape(self.used, -1).any(axis=1)):
            a, b, c = self.operands[k]
            if _inexact(np.multiply(a, b, dtype=F64), c, sums[k, ...], flagged[k, ...]):
                return False
        return True


def _settle(p: Any, c: Any, s: Any, out: Any, where: Any) -> Any:
    """Round ``p + c`` to float32 exactly where the float64 sum ``s`` may double-round."""
    with np.errstate(all="ignore"):
        bb = s - p
        err = (p - (s - bb)) + (c - bb)  # TwoSum: p + c == s + err exactly
        nudged = np.where(err == 0, s, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)))
    fixed = np.where(where, nudged.astype(F32), out)
    # float32 subnormals round at a coarser bit than the midpoint test sees: exactly, one by one
    tiny = where & (np.abs(s) < _TINY) & (err != 0) & np.isfinite(s)  # an exact sum rounds once
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
    if isinstance(a, _NUMBER) and isinstance(b, _NUMBER) and isinstance(c, _NUMBER):
        return fma64_scalar(float(a), float(b), float(c))
    if native.lib is not None:
        out = native.fma64(a, b, c)
        if out is not None:
            return out
    a, b, c = np.broadcast_arrays(np.asarray(a, dtype=F64), np.asarray(b, dtype=F64),
                                  np.asarray(c, dtype=F64))
    if a.ndim == 0:  # 0-d arrays: their arithmetic gives scalars, which the rounding indexes
        return fma64(a.reshape(1), b.reshape(1), c.reshape(1)).reshape(())
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
        # an exact zero takes IEEE's sign of the sum (-0 for a -0 product and a -0 addend),
        # which the pairs' additions lose
        out = np.where(out == 0, uh + c, out)
        # non-finite inputs: plain arithmetic; operands too large to split (above 2**996):
        # exactly, one by one (rare)
        bad = ~np.isfinite(out) | ~np.isfinite(ul)
        if bad.any():
            out[bad] = a[bad] * b[bad] + c[bad]
            huge = bad & np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
            if huge.any():
                out = out.reshape(-1) if out.ndim else out.reshape(1)
                flat = [v.reshape(-1) for v in (a, b, c)]
                for i in np.flatnonzero(huge):
                    out[i] = _exact64(*(float(v[i]) for v in flat))
                out = out.reshape(a.shape)
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

    try:
        return float(Fraction(a) * Fraction(b) + Fraction(c))
    except OverflowError:  # beyond the largest float64: the infinity a * b + c rounds to
        return a * b + c


_NUMBER = (float, int, np.floating)


def fma64_scalar(a: float, b: float, c: float) -> Any:
    """``fma64`` of three Python floats, a NumPy float64."""
    if native.lib is not None:
        return F64(native.lib.fma64_scalar(a, b, c))
    return F64(_fma64_scalar(a, b, c))


def _fma64_scalar(a: float, b: float, c: float) -> float:
    """fma64's steps on Python floats."""
    uh, ul = _two_prod(a, b)
    th, tl = _two_sum(c, uh)
    v, err = _two_sum(tl, ul)
    if err != 0 and not struct.unpack("<q", struct.pack("<d", v))[0] & 1:
        v = math.nextafter(v, math.inf if err > 0 else -math.inf)
    out = th + v
    if out == 0:  # IEEE's sign of the sum, as fma64
        out = uh + c
    if not (math.isfinite(out) and math.isfinite(ul)):
        finite = math.isfinite(a) and math.isfinite(b) and math.isfinite(c)
        return _exact64(a, b, c) if finite else a * b + c
    if abs(uh) < _TINY64 and a != 0 and b != 0 and math.isfinite(c):
        return _exact64(a, b, c)
    return out


def _reports_underflow() -> bool:
    """Whether NumPy raises the underflow status of a float64 to float32 cast (cast32)."""
    try:
        with np.errstate(under="raise"):
            np.array([1.0, 2.0 ** -149 * 1.5]).astype(F32)  # a subnormal rounded: inexact
    except FloatingPointError:
        return True
    return False


_FLAGS = _reports_underflow()
