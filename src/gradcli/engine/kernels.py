"""PyTorch's CPU arithmetic where it is not plain IEEE ops: ``add(a, b, alpha=s)`` is fused.

On an x86-64 CPU with FMA (AVX2, AVX-512), PyTorch computes ``a + alpha * b`` with a fused
multiply-add: one rounding, not two.  Optimizers lean on it (``param.add_(grad, alpha=-lr)``),
so their float32 numbers match PyTorch's bit for bit only when the same single rounding is
done here.  Array API calls only.
"""

from __future__ import annotations

from typing import Any

_SPLIT = 134217729.0  # 2**27 + 1: Dekker's splitter for float64


def add_scaled(xp: Any, a: Any, alpha: float, b: Any) -> Any:
    """``a + alpha * b`` rounded once, in ``a``'s dtype (float32 or float64)."""
    if a.dtype == xp.float32:
        return fused_add(xp, a, xp.asarray(alpha, dtype=xp.float32), b)
    return _fma64(xp, a, alpha, b)


def fused_add(xp: Any, base: Any, a: Any, b: Any) -> Any:
    """``base + a * b`` rounded once, for float32 ``base`` and float32 ``a``, ``b``."""
    f64 = xp.float64
    return _round32(xp, xp.astype(xp.asarray(base), f64),
                    xp.astype(xp.asarray(a), f64) * xp.astype(xp.asarray(b), f64))


def _two_sum(x: Any, y: Any) -> tuple[Any, Any]:
    """``s = fl(x + y)`` and the exact error ``x + y - s`` (Knuth)."""
    s = x + y
    bb = s - x
    return s, (x - (s - bb)) + (y - bb)


def _round32(xp: Any, a64: Any, p: Any) -> Any:
    """``a64 + p`` (float64 values exact: float32 data and a product of two) rounded once to
    float32.  The one double rounding (a float64 sum exactly halfway between two float32
    values) is resolved by the sum's error term."""
    f64 = xp.float64
    s, err = _two_sum(a64, p)
    r = xp.astype(s, xp.float32)
    r64 = xp.astype(r, f64)
    toward = xp.astype(xp.nextafter(r, xp.astype(xp.where(s > r64, xp.inf, -xp.inf),
                                                  xp.float32)), f64)
    halfway = (r64 != s) & (s == (r64 + toward) / 2) & (err != 0)
    if not bool(xp.any(halfway)):
        return r
    # the exact sum lies beyond the midpoint on err's side: round to that side's neighbour
    up = xp.astype(xp.where((err > 0) == (toward > r64), toward, r64), xp.float32)
    return xp.where(halfway, up, r)


def _split(x: Any) -> tuple[Any, Any]:
    c = _SPLIT * x
    hi = c - (c - x)
    return hi, x - hi


def _fma64(xp: Any, a: Any, alpha: float, b: Any) -> Any:
    """float64: the exact product (Dekker) and sum (Knuth), added once; correctly rounded
    except in rare ties of the final addition."""
    b = xp.asarray(b)
    ah, al = _split(xp.asarray(alpha, dtype=b.dtype))
    bh, bl = _split(b)
    p = alpha * b
    ep = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s, es = _two_sum(xp.asarray(a), p)
    return s + (ep + es)
