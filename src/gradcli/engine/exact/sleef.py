"""SLEEF's single-precision functions as PyTorch's AVX512 kernels call them, in NumPy.

``Vectorized<float>::exp()`` is ``Sleef_expf16_u10``, ``log()`` ``Sleef_logf16_u10`` (SLEEF's
``xlogf_u1``), ``log1p()`` ``Sleef_log1pf16_u10``, ``expm1()`` ``Sleef_expm1f16_u10``,
``exp2()`` ``Sleef_exp2f16_u10``, ``pow()`` ``Sleef_powf16_u10``, ``tanh()``
``Sleef_tanhf16_u10`` (``Sleef_tanhf8_u10`` on AVX2, whose bits ``tanhf`` matches: measured
through GELU's tanh form) and the two-argument arctangent its 1-ulp one.  These are
ports of SLEEF 3.x's sleefsimdsp.c for the AVX512F helper (FMA enabled, ``vgetexp``/``vgetmant``
for the exponent, ``vfixupimm`` for special values): every float32 operation of the C code is
one NumPy float32 operation here, and every ``vfma`` a correctly rounded ``fma32``, so the
results are SLEEF's bit for bit.  Pairs (``hi``, ``lo``) are SLEEF's double-float ``vfloat2``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import native
from .fp import Fused, cast32, fma32, on_midpoint

F32 = np.float32
F64 = np.float64
I32 = np.int32
L2U = F32(0.693145751953125)
L2L = F32(1.428606765330187045e-06)
_L2U64, _NEG_L2L64 = F64(L2U), -F64(L2L)
R_LN2 = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
LN2_HI, LN2_LO = F32(0.69314718246459960938), F32(-1.904654323148236017e-09)
ONE, TWO, INF = F32(1), F32(2), F32(np.inf)
SIGN = np.uint32(0x80000000)


def _f(x: Any) -> Any:
    return np.asarray(x, F32)


def _rint(x: Any) -> Any:
    """vrint_vi2_vf: round to nearest even, as an int32 (NaN gives 0 here; its lanes are
    overwritten by the special-value selects)."""
    with np.errstate(invalid="ignore"):
        r = np.rint(np.where(np.isfinite(x), x, 0)).clip(-(2.0 ** 31), 2.0 ** 31 - 1)
    return r.astype(I32)


def _pow2i(q: Any) -> Any:
    """vpow2i_vf_vi2: 2**q built from its exponent bits (int32 wraparound as the hardware's)."""
    return ((q.astype(I32) + I32(0x7F)) << I32(23)).view(F32)


def ldexp2(d: Any, e: Any) -> Any:
    """vldexp2_vf_vf_vi2: d * 2**(e >> 1) * 2**(e - (e >> 1)), two roundings."""
    h = e >> I32(1)
    return (d * _pow2i(h)) * _pow2i(e - h)


def _ldexp3(d: Any, q: Any) -> Any:
    """vldexp3_vf_vf_vi2: q added straight into d's exponent bits."""
    return (d.view(I32) + (q.astype(I32) << I32(23))).view(F32)


def _getexp(x: Any) -> Any:
    """vgetexp (vgetexpps): floor(log2|x|) as a float; -inf for 0, inf for inf, NaN for NaN.
    (Its callers hold ``np.errstate(all="ignore")``, as do _getmant's.)"""
    _, e = np.frexp(x)
    out = (e - 1).astype(F32)
    out = np.where(x == 0, F32(-np.inf), out)
    return np.where(np.isfinite(x), out, np.abs(x)).astype(F32)


def _getmant(x: Any) -> Any:
    """vgetmant with _MM_MANT_NORM_p75_1p5: the significand scaled into [0.75, 1.5)."""
    m, _ = np.frexp(np.abs(x))
    m = (m * F32(2)).astype(F32)  # [1, 2)
    return np.where(m >= F32(1.5), m * F32(0.5), m).astype(F32)


# --- double-float arithmetic (SLEEF's df.h, FMA variants) ----------------------------------------
def _add2_ff(x: Any, y: Any) -> tuple:
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _add_ff(x: Any, y: Any) -> tuple:
    s = x + y
    return s, (x - s) + y


def _add_f_f2(x: Any, y: tuple) -> tuple:
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def _add_f2_f(x: tuple, y: Any) -> tuple:
    s = x[0] + y
    return s, ((x[0] - s) + y) + x[1]


def _add_f2_f2(x: tuple, y: tuple) -> tuple:
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _add2_f2_f(x: tuple, y: Any) -> tuple:
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def _add2_f2_f2(x: tuple, y: tuple) -> tuple:
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def _mul_f2_f(x: tuple, y: Any, fma: Any = fma32) -> tuple:
    s = x[0] * y
    return s, fma(x[1], y, fma(x[0], y, -s))


def _mul_f2_f2(x: tuple, y: tuple) -> tuple:
    s = x[0] * y[0]
    return s, fma32(x[0], y[1], fma32(x[1], y[0], fma32(x[0], y[0], -s)))


def _squ(x: tuple) -> tuple:
    s = x[0] * x[0]
    return s, fma32(x[0] + x[0], x[1], fma32(x[0], x[0], -s))


def _div(n: tuple, d: tuple, fma: Any = fma32, fma_v: Any = None) -> tuple:
    """dfdiv_vf2_vf2_vf2; ``fma_v`` (``fma`` by default) for the two FMAs of ``v``, the
    error of ``1 / d``."""
    fma_v = fma_v or fma
    t = ONE / d[0]
    s = n[0] * t
    u = fma(t, n[0], -s)
    v = fma_v(-d[1], t, fma_v(-d[0], t, ONE))
    return s, fma(s, v, fma(n[1], t, u))


def _normalize(x: tuple) -> tuple:
    s = x[0] + x[1]
    return s, (x[0] - s) + x[1]


def _mulsign(x: Any, y: Any) -> Any:
    """vmulsign: x with its sign flipped where y's sign bit is set."""
    return (_f(x).view(np.uint32) ^ (_f(y).view(np.uint32) & SIGN)).view(F32)


def _isinf2(d: Any, m: Any) -> Any:
    """visinf2_vf_vf_vf: m with d's sign bit or-ed in where d is infinite, else 0."""
    return np.where(np.isinf(d), (_f(m).view(np.uint32) | (_f(d).view(np.uint32) & SIGN))
                    .view(F32), F32(0))


def _scale(d: tuple, s: Any) -> tuple:
    return d[0] * s, d[1] * s


# --- the functions -------------------------------------------------------------------------------
def expf(d: Any) -> Any:
    """Sleef_expf16_u10 (xexpf)."""
    d = _f(d)
    if native.lib is not None:
        return native.unary(native.lib.expf, d)
    with np.errstate(all="ignore"):
        out = _expf_lanes(d.reshape(-1))
        if out is None:  # some FMA may double-round: each one settled (rare)
            return _expf(d)
        return out.reshape(d.shape)


# xexpf's polynomial: its first coefficient, then the addends of its Horner steps
_EXPF_U0 = F64(0.000198527617612853646278381)
_EXPF_POLY = tuple(F32(c) for c in (0.00139304355252534151077271, 0.00833336077630519866943359,
                                    0.0416664853692054748535156, 0.166666671633720397949219,
                                    0.5))
_EXPF_POLY64 = tuple(F64(c) for c in _EXPF_POLY)


def _expf_lanes(d: Any) -> Any:
    """xexpf on a flat array, or None where one of its FMAs needs settling.

    Each FMA is computed in float64 lanes holding float32 values: the product of two of them
    is exact, so the float64 sum is off from the exact one by at most one rounding, and
    rounding it to float32 is the fused result where the sum is on no float32 midpoint (one
    test for all of them, fp.on_midpoint) nor in float32's subnormal range: only the last
    sum, s + s * s * u, can be (the Horner steps' sums lie within a few percent of their
    coefficients, 0.0014 to 0.5, for |s| <= 0.35), and its rounding reports it (fp.cast32).
    Lanes whose result is replaced by 0, inf or NaN may fail the tests for nothing (the
    settled path then gives the same values).  ``vrint`` as a float, and ``vldexp2``'s
    two scalings by one ldexp, which rounds once as its second does: the same values wherever
    the result is not replaced by 0 or inf (|q| <= 150, so the first scaling, of the
    polynomial's value in [0.5, 2] by 2**(q >> 1), is exact)."""
    n = d.shape[0]
    buf = np.empty((9, n), F64)
    sums = buf[:6]  # the float64 sums of the FMAs after the first
    q64, s64, u64 = buf[6], buf[7], buf[8]
    u32 = np.empty(n, F32)
    qf = np.rint(d * R_LN2)
    q64[...] = qf
    u64[...] = d
    # NOTE: the first FMA, s = qf * -L2L + (d - qf * L2U), is exact in float64.  L2U has 15
    # significant bits and |qf| <= 151 here (8), so qf * L2U is exact, and so is d - qf * L2U
    # (Sterbenz: d lies within a factor of two of qf * L2U, as |d / ln2 - qf| <= 1/2 and
    # L2U < ln2); either qf = 0 (s = d) or |d| > 1/4 and that difference is a multiple of
    # 2**-25, and qf * L2L (L2L in [2**-20, 2**-19)) of 2**-43: the sum, below 1/2, has at
    # most 42 significant bits.  Rounding it to float32 is the fused result.
    np.multiply(q64, _L2U64, out=s64)
    np.subtract(u64, s64, out=u64)
    np.multiply(q64, _NEG_L2L64, out=s64)
    np.add(s64, u64, out=s64)
    s32 = s64.astype(F32)
    s64[...] = s32
    np.multiply(s64, _EXPF_U0, out=sums[0])
    for k, c in enumerate(_EXPF_POLY64):
        u = sums[k]
        if k:
            np.multiply(u64, s64, out=u)
        np.add(u, c, out=u)
        u32[...] = u
        u64[...] = u32
    last = sums[5]
    np.multiply(s32, s32, out=u32)  # s * s, rounded to float32
    q64[...] = u32
    np.multiply(q64, u64, out=last)
    np.add(last, s64, out=last)
    u32 = cast32(last)
    if u32 is None or on_midpoint(sums):
        return None
    u32 += ONE
    u = np.ldexp(u32, qf.astype(I32))
    if n and np.minimum.reduce(d) >= F32(-104) and np.maximum.reduce(d) <= F32(100):
        return u  # no 0, inf or NaN to write (a NaN fails both tests)
    u[d < F32(-104)] = F32(0)
    u[F32(100) < d] = INF
    np.copyto(u, d, where=np.isnan(d))
    return u


def _expf(d: Any) -> Any:
    """xexpf, each FMA settled on its own."""
    q = _rint(d * R_LN2)
    qf = q.astype(F32)
    s = fma32(qf, -L2U, d)
    s = fma32(qf, -L2L, s)
    u = F32(0.000198527617612853646278381)
    for c in _EXPF_POLY:
        u = fma32(u, s, c)
    u = ONE + fma32(s * s, u, s)
    u = ldexp2(u, q)
    u = np.where(d < F32(-104), F32(0), u)
    u = np.where(F32(100) < d, INF, u)
    return np.where(np.isnan(d), d, u).astype(F32)


def exp2f(d: Any) -> Any:
    """Sleef_exp2f16_u10 (xexp2f, FMA branch)."""
    d = _f(d)
    with np.errstate(all="ignore"):
        u = np.rint(d).astype(F32)
        q = _rint(u)
        s = d - u
        u = F32(0.1535920892e-3)
        for c in (0.1339262701e-2, 0.9618384764e-2, 0.5550347269e-1, 0.2402264476e+0,
                  0.6931471825e+0):
            u = fma32(u, s, F32(c))
        u = ldexp2(fma32(u, s, ONE), q)
        u = np.where(d < F32(-150), F32(0), u)
        u = np.where(d >= F32(128), INF, u)
        return np.where(np.isnan(d), d, u).astype(F32)


def _arctan2k(y: tuple, x: tuple) -> tuple:
    """SLEEF's kernel of the 1-ulp two-argument arctangent: the angle of (x, y) as a
    double-float, for y >= 0."""
    neg = x[0] < 0
    q = np.where(neg, I32(-2), I32(0))
    x = (np.where(neg, -x[0], x[0]), np.where(neg, -x[1], x[1]))
    p = x[0] < y[0]
    q = np.where(p, q + I32(1), q)
    s = (np.where(p, -x[0], y[0]), np.where(p, -x[1], y[1]))
    t = (np.where(p, y[0], x[0]), np.where(p, y[1], x[1]))
    s = _div(s, t)
    t = _normalize(_squ(s))
    u = F32(-0.00176397908944636583328247)
    for c in (0.0107900900766253471374512, -0.0309564601629972457885742,
              0.0577365085482597351074219, -0.0838950723409652709960938,
              0.109463557600975036621094, -0.142626821994781494140625,
              0.199983194470405578613281):
        u = fma32(u, t[0], F32(c))
    t = _mul_f2_f2(t, _add_ff(F32(-0.333332866430282592773438), u * t[0]))
    t = _mul_f2_f2(s, _add_f_f2(ONE, t))
    half_pi = (F32(1.5707963705062866211), F32(-4.3711388286737928865e-08))
    return _add_f2_f2(_mul_f2_f(half_pi, q.astype(F32)), t)


def arctan2f(y: Any, x: Any) -> Any:
    """SLEEF's 1-ulp two-argument arctangent of float32 (the u10 function PyTorch's AVX512
    ``Vectorized<float>`` calls), special values included.  (Not named after the op: the op's
    name stays in the table, tests/test_ops_table.py.)"""
    y, x = np.broadcast_arrays(_f(y), _f(x))
    with np.errstate(all="ignore"):
        tiny = np.abs(x) < F32(2.9387372783541830947e-39)
        x = np.where(tiny, x * F32(1 << 24), x)
        y = np.where(tiny, y * F32(1 << 24), y)
        zero = np.zeros_like(x)
        d = _arctan2k((np.abs(y), zero), (x, zero))
        r = _mulsign(d[0] + d[1], x)
        pi2, pi4 = F32(np.pi / 2), F32(np.pi / 4)
        r = np.where(np.isinf(x) | (x == 0), pi2 - _isinf2(x, _mulsign(pi2, x)), r)
        r = np.where(np.isinf(y), pi2 - _isinf2(x, _mulsign(pi4, x)), r)
        r = np.where(y == 0, np.where(np.signbit(x), F32(np.pi), F32(0)), r)
        r = np.where(np.isnan(x) | np.isnan(y), F32(np.nan), _mulsign(r, y))
        return r.astype(F32)


def logf(d: Any) -> Any:
    """Sleef_logf16_u10 (xlogf_u1, AVX512 branch)."""
    d = _f(d)
    if native.lib is not None:
        return native.unary(native.lib.logf, d)
    with np.errstate(all="ignore"):
        flat = d.reshape(-1)
        if flat.size and np.minimum.reduce(flat) >= F32(2.0 ** -126) \
                and np.maximum.reduce(flat) < F32(2.0 ** 127):  # NaN fails both
            r = _logf_lanes(flat)
            if r is not None:
                return r.reshape(d.shape)
        f = Fused(d.shape, 7)
        r = _logf(d, f.fma, f.fma_exact)
        if not f.exact():  # some FMA may double-round: each one settled (rare)
            r = _logf(d, fma32, fma32)
        if d.size and np.minimum.reduce(d, axis=None) > 0 \
                and np.maximum.reduce(d, axis=None) < INF:  # NaN fails both: no special value
            return np.array(r, F32)
        # vfixupimm: log(0) = -inf, log(-inf) = NaN, log(inf) = inf, log(negative) = NaN
        r = np.where(d == 0, F32(-np.inf), r)
        r = np.where(d == INF, INF, r)
        r = np.where(d < 0, F32(np.nan), r)
        return np.where(np.isnan(d), d, r).astype(F32)


_LOGF_T = (F64(F32(0.3027294874)), F64(F32(0.3996108174)), F64(F32(0.6666694880)))
_LN2_HI64, _LN2_LO64 = F64(LN2_HI), F64(LN2_LO)


def _logf_lanes(d: Any) -> Any:
    """_logf on a flat array of positive normal numbers below 2**127, in float64 lanes holding
    float32 values as _expf_lanes computes (the fused steps' sums checked together for
    midpoints; the subnormal range by their rounding, fp.cast32: of them only x1, the
    division's low part, can come near it: t1 and t2 are at least 0.39 and 0.66, and lo is
    zero or a multiple of 2**-52), or None where one of them needs settling.

    vgetmant is frexp's fraction, doubled below 3/4, and vgetexp(d / 0.75) frexp's exponent,
    less one below 3/4 (the product's rounding never crosses a power of two: checked on every
    significand).  The double-float steps whose results are exact are plain float64
    arithmetic: m - 1 (Sterbenz), 1 + m and its error (1 + m exact in float64), the errors of
    the float32 products n0 * t and LN2_HI * e, and the two FMAs of ``v`` (see _logf)."""
    n = d.shape[0]
    buf = np.empty((13, n), F64)
    sums = buf[:4]  # the fused steps whose float64 sums may round twice: t1, then x1, t2, lo
    m64, e64, den, d0, t64, s64, w64, v64, x2 = buf[4:]
    m, ex = np.frexp(d)
    below = m < F32(0.75)
    np.multiply(m, TWO, out=m, where=below)
    e64[...] = ex
    np.subtract(e64, below, out=e64)
    m64[...] = m
    np.add(m64, 1.0, out=den)  # 1 + m, exact
    d0_32 = den.astype(F32)
    d0[...] = d0_32
    np.subtract(den, d0, out=den)  # its error d1
    t = ONE / d0_32
    s = (m - ONE) * t
    t64[...] = t
    s64[...] = s
    np.subtract(m64, 1.0, out=m64)  # n0 = m - 1
    np.multiply(m64, t64, out=m64)
    np.subtract(m64, s64, out=m64)  # u: the error of n0 * t
    np.multiply(d0, t64, out=w64)
    np.subtract(1.0, w64, out=w64)
    v64[...] = w64.astype(F32)
    np.multiply(den, t64, out=w64)
    np.subtract(v64, w64, out=w64)
    v64[...] = w64.astype(F32)
    t1, x1, t2, lo = sums
    np.multiply(s64, v64, out=x1)
    np.add(x1, m64, out=x1)
    x2_32 = s * s
    x2[...] = x2_32
    np.multiply(x2, _LOGF_T[0], out=t1)
    np.add(t1, _LOGF_T[1], out=t1)
    t64[...] = t1.astype(F32)
    np.multiply(t64, x2, out=t2)
    np.add(t2, _LOGF_T[2], out=t2)
    np.multiply(e64, _LN2_HI64, out=w64)  # LN2_HI * e, exact
    s0 = w64.astype(F32)
    v64[...] = s0
    np.subtract(w64, v64, out=w64)  # its error
    np.multiply(e64, _LN2_LO64, out=lo)
    np.add(lo, w64, out=lo)
    rounded = cast32(sums[1:])  # x1, t2 and lo
    if rounded is None or on_midpoint(sums):
        return None
    x1, t2, s1 = rounded
    s2 = TWO * s
    hi = s0 + s2
    lo32 = (((s0 - hi) + s2) + s1) + TWO * x1
    term = (x2_32 * s) * t2
    r = hi + term
    return r + (((hi - r) + term) + lo32)


def _logf(d: Any, fma: Any, fma_v: Any) -> Any:
    """xlogf_u1 before its special values, with ``fma`` for the fused steps (fma32, or a
    Fused run's).  ``fma_v`` computes the error of 1 / d0 for d0 = 1 + m in [1.75, 2.5]:
    ``1 - d0 * t`` (t = 1 / d0 rounded) is below 2**-22 in magnitude and a multiple of
    2**-48, and ``d1 * t`` (d1, the error of 1 + m, is 0 or 2**-24 or 2**-23 in magnitude)
    a multiple of 2**-49 below 2**-24: both sums are exact in float64, so rounding them to
    float32 is the fused result (Fused.fma_exact) wherever the result is not replaced by a
    special value."""
    if d.size and np.minimum.reduce(d, axis=None) >= F32(2.0 ** -126) \
            and np.maximum.reduce(d, axis=None) < F32(2.0 ** 127):  # NaN fails both
        # positive normal numbers, d / 0.75 finite: vgetexp is frexp's exponent less one
        # and vgetmant frexp's fraction doubled (exact), halved from 1.5 up
        e = (np.frexp(d * F32(1.0 / 0.75))[1] - 1).astype(F32)
        m = np.frexp(d)[0] * TWO
        m = np.where(m >= F32(1.5), m * F32(0.5), m)
    else:
        e = _getexp(d * F32(1.0 / 0.75))
        e = np.where(e == INF, F32(128), e)
        m = _getmant(d)
    x = _div(_add2_ff(F32(-1), m), _add2_ff(ONE, m), fma, fma_v)
    x2 = x[0] * x[0]
    t = F32(0.3027294874)
    t = fma(t, x2, F32(0.3996108174))
    t = fma(t, x2, F32(0.6666694880))
    s = _mul_f2_f((LN2_HI, LN2_LO), e, fma)
    s = _add_f2_f2(s, _scale(x, TWO))
    s = _add_f2_f(s, (x2 * x[0]) * t)
    return s[0] + s[1]


def log1pf(d: Any) -> Any:
    """Sleef_log1pf16_u10 (xlog1pf, AVX512 branch): one C loop where the kernels are built
    (native.py), else ``_log1pf``."""
    d = _f(d)
    if native.lib is not None:
        return native.unary(native.lib.log1pf, d)
    return _log1pf(d)


def _log1pf(d: Any) -> Any:
    """xlog1pf in NumPy, each of its operations over the whole array."""
    d = _f(d)
    with np.errstate(all="ignore"):
        dp1 = d + ONE
        e = _getexp(dp1 * F32(1.0 / 0.75))
        e = np.where(e == INF, F32(128), e)
        t = _ldexp3(np.full(np.shape(d), ONE), -_rint(e))
        m = fma32(d, t, t - ONE)
        s = _mul_f2_f((LN2_HI, LN2_LO), e)
        x = _div((m, np.zeros_like(m)), _add_ff(TWO, m))
        x2 = x[0] * x[0]
        t = F32(0.3027294874)
        t = fma32(t, x2, F32(0.3996108174))
        t = fma32(t, x2, F32(0.6666694880))
        s = _add_f2_f2(s, _scale(x, TWO))
        s = _add_f2_f(s, (x2 * x[0]) * t)
        r = s[0] + s[1]
        r = np.where(d > F32(1e38), INF, r)
        r = np.where(F32(-1) > d, F32(np.nan), r)
        r = np.where(d == F32(-1), F32(-np.inf), r)
        r = np.where((d == 0) & np.signbit(d), F32(-0.0), r)
        return np.where(np.isnan(d), d, r).astype(F32)


def _expk2(d: tuple) -> tuple:
    """SLEEF's expk2f: exp of a double-float, as a double-float."""
    u = (d[0] + d[1]) * R_LN2
    q = _rint(u)
    qf = q.astype(F32)
    s = _add2_f2_f(d, qf * -L2U)
    s = _add2_f2_f(s, qf * -L2L)
    u = F32(+0.1980960224e-3)
    for c in (+0.1394256484e-2, +0.8333456703e-2, +0.4166637361e-1):
        u = fma32(u, s[0], F32(c))
    t = _add2_f2_f(_mul_f2_f(s, u), F32(+0.166666659414234244790680580464e+0))
    t = _add2_f2_f(_mul_f2_f2(s, t), F32(0.5))
    t = _add2_f2_f2(s, _mul_f2_f2(_squ(s), t))
    t = _add_f_f2(ONE, t)
    low = d[0] < F32(-104)
    return (np.where(low, F32(0), ldexp2(t[0], q)), np.where(low, F32(0), ldexp2(t[1], q)))


def expm1f(a: Any) -> Any:
    """Sleef_expm1f16_u10 (xexpm1f): one C loop where the kernels are built (native.py), else
    ``_expm1f``."""
    a = _f(a)
    if native.lib is not None:
        return native.unary(native.lib.expm1f, a)
    return _expm1f(a)


def _expm1f(a: Any) -> Any:
    """xexpm1f in NumPy, each of its operations over the whole array."""
    a = _f(a)
    with np.errstate(all="ignore"):
        d = _add2_f2_f(_expk2((a, np.zeros_like(a))), F32(-1.0))
        x = d[0] + d[1]
        x = np.where(a > F32(88.72283172607421875), INF, x)
        x = np.where(a < F32(-16.635532333438687426013570), F32(-1), x)
        x = np.where((a == 0) & np.signbit(a), F32(-0.0), x)
        return np.where(np.isnan(a), a, x).astype(F32)


def tanhf(x: Any) -> Any:
    """Sleef_tanhf8_u10 / Sleef_tanhf16_u10 (xtanhf): (e - 1/e) / (e + 1/e) in double-float,
    e = exp(|x|); 1 beyond 8.664339742, x's sign, NaN kept."""
    x = _f(x)
    with np.errstate(all="ignore"):
        y = np.abs(x)
        d = _expk2((y, np.zeros_like(y)))
        e = _rec(d)
        d = _div(_add_f2_f2(d, (-e[0], -e[1])), _add_f2_f2(d, e))
        y = d[0] + d[1]
        y = np.where((np.abs(x) > F32(8.664339742)) | np.isnan(y), ONE, y)
        y = _mulsign(y, x)
        return np.where(np.isnan(x), x, y).astype(F32)


def _rec(d: tuple) -> tuple:
    """dfrec_vf2_vf2: 1 / d as a double-float."""
    s = ONE / d[0]
    return s, s * fma32(-d[1], s, fma32(-d[0], s, ONE))


def _ldexp(x: Any, q: Any) -> Any:
    """vldexp_vf_vf_vi2: x * 2**q for any int32 q, by four multiplies by a clamped power of two
    and one by the rest (so the result under- and overflows as SLEEF's)."""
    q = q.astype(I32)
    m = q >> I32(31)
    m = (((m + q) >> I32(6)) - m) << I32(4)
    q = q - (m << I32(2))
    m = np.clip(m + I32(0x7F), 0, 0xFF).astype(I32)
    u = (m << I32(23)).view(F32)
    x = (((x * u) * u) * u) * u
    return x * ((q + I32(0x7F)) << I32(23)).view(F32)


def _logk(d: Any) -> tuple:
    """SLEEF's logkf (AVX512 branch): log of a positive float32 as a double-float."""
    e = _getexp(d * F32(1.0 / 0.75))
    e = np.where(e == INF, F32(128), e)
    m = _getmant(d)
    x = _div(_add2_ff(F32(-1), m), _add2_ff(ONE, m))
    x2 = _squ(x)
    t = F32(0.240320354700088500976562)
    t = fma32(t, x2[0], F32(0.285112679004669189453125))
    t = fma32(t, x2[0], F32(0.400007992982864379882812))
    c = (F32(0.66666662693023681640625), F32(3.69183861259614332084311e-09))
    s = _mul_f2_f((LN2_HI, LN2_LO), e)
    s = _add_f2_f2(s, _scale(x, TWO))
    return _add_f2_f2(s, _mul_f2_f2(_mul_f2_f2(x2, x), _add2_f2_f2(_mul_f2_f(x2, t), c)))


def _expk(d: tuple) -> Any:
    """SLEEF's expkf: exp of a double-float, as a float32."""
    u = (d[0] + d[1]) * R_LN2
    q = _rint(u)
    qf = q.astype(F32)
    s = _add2_f2_f(d, qf * -L2U)
    s = _normalize(_add2_f2_f(s, qf * -L2L))
    u = F32(0.00136324646882712841033936)
    for c in (0.00836596917361021041870117, 0.0416710823774337768554688,
              0.166665524244308471679688, 0.499999850988388061523438):
        u = fma32(u, s[0], F32(c))
    t = _add_f2_f2(s, _mul_f2_f(_squ(s), u))
    t = _add_f_f2(ONE, t)
    u = _ldexp(t[0] + t[1], q)
    return np.where(d[0] < F32(-104), F32(0), u)


def powf(x: Any, y: Any) -> Any:
    """Sleef_powf16_u10 (xpowf), special values included."""
    x, y = np.broadcast_arrays(_f(x), _f(y))
    with np.errstate(all="ignore"):
        yisint = (np.trunc(y) == y) | (np.abs(y) > F32(1 << 24))
        yt = np.where(np.abs(y) < F32(2.0 ** 31), np.trunc(y), 0).astype(np.int64)
        yisodd = ((yt & 1) == 1) & yisint & (np.abs(y) < F32(1 << 24))
        r = _expk(_mul_f2_f(_logk(np.abs(x)), y))
        r = np.where(np.isnan(r), INF, r)
        sign = np.where(yisint, np.where(yisodd, F32(-1), ONE), F32(np.nan))
        r = r * np.where(x > 0, ONE, sign)
        efx = _mulsign(np.abs(x) - ONE, y)
        r = np.where(np.isinf(y), np.where(efx < 0, F32(0), np.where(efx == 0, ONE, INF)), r)
        edge = np.where(np.signbit(y) ^ (x == 0), F32(0), INF)
        r = np.where(np.isinf(x) | (x == 0), _mulsign(edge, np.where(yisodd, x, ONE)), r)
        r = np.where(np.isnan(x) | np.isnan(y), F32(np.nan), r)
        r = np.where((y == 0) | (x == 1), ONE, r)
        return r.astype(F32)
