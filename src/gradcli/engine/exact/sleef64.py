"""SLEEF's double-precision functions as PyTorch's AVX2 and AVX512 kernels call them, in NumPy.

``Vectorized<double>::exp()`` is ``Sleef_expd8_u10`` on AVX512 (``Sleef_expd4_u10`` on AVX2),
``log()`` ``Sleef_logd8_u10`` (SLEEF's ``xlog_u1``), ``log1p()``, ``expm1()``, ``exp2()``,
``pow()``, the two-argument arctangent, the inverse hyperbolic tangent, ``sinh()``,
``cosh()``, ``tanh()`` and ``erf()`` (``xerf_u1``) their u10 ones.  These are ports of SLEEF
3.8's sleefsimddp.c with ``ENABLE_FMA_DP`` (both helpers build it with FMA): every float64
operation of the C code is one NumPy float64 operation here, and every ``vmla``/``vfma`` a
correctly rounded ``fma64``, so the results are SLEEF's bit for bit.  SLEEF's polynomials
(``POLY*``) are Estrin trees of fused multiply-adds; pairs (``hi``, ``lo``) are its
double-double ``vdouble2`` (dd.h, FMA variants).

``exp`` and ``log`` (a float64 softmax's and cross-entropy's), ``log1p`` and ``expm1``
(softplus, ELU, BCE with logits) and ``erf`` (a float64 GELU's) also run as one C loop each (native.py) where the kernels are
built: the same operations element by element, this NumPy code their definition and fallback
(tests/test_native.py holds the two to the same bits).

Where AVX512F takes a different branch (``vgetexp``/``vgetmant`` for the exponent and
significand, ``vfixupimm`` for special values) the AVX2 one gives the same values for every
input those functions see, so one port serves both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import native
from .fp import fma64

F64 = np.float64
I64 = np.int64
R_LN2 = F64(1.442695040888963407359924681001892137426645954152985934135449406931)
L2U = F64(.69314718055966295651160180568695068359375)
L2L = F64(.28235290563031577122588448175013436025525412068e-12)
LN2 = (F64(0.693147180559945286226764), F64(2.319046813846299558417771e-17))
INF = F64(np.inf)


def _d(x: Any) -> Any:
    return np.asarray(x, F64)


def _poly(x: tuple, coeffs: tuple) -> Any:
    """SLEEF's ``POLYn(x, x2, x4, x8, c[n-1] ... c0)``: ``x`` the powers (x, x**2, x**4,
    x**8), ``coeffs`` highest first; the high half (of the largest power of two below n
    coefficients) times that power of x, fused with the low half (``_terms``; the same terms
    in one C loop where the kernels are built)."""
    if native.lib is not None and len(coeffs) > 1:
        out = native.poly64(x, coeffs)
        if out is not None:
            return out
    return _terms(x, coeffs)


def _terms(x: tuple, coeffs: tuple) -> Any:
    """``_poly`` one fused multiply-add a term."""
    n = len(coeffs)
    if n == 1:
        return F64(coeffs[0])
    k = 1 << ((n - 1).bit_length() - 1)
    high, low = _terms(x, coeffs[:n - k]), _terms(x, coeffs[n - k:])
    return fma64(x[k.bit_length() - 1], high, low)


def _rint(x: Any) -> Any:
    """vrint_vd_vd: round half to even (float64)."""
    return np.rint(x)


def _pow2i(q: Any) -> Any:
    """vpow2i_vd_vi: 2**q from its exponent bits."""
    return ((q + I64(0x3FF)) << I64(52)).view(F64)


def _ldexp2(d: Any, q: Any) -> Any:
    """vldexp2_vd_vd_vi: d * 2**(q >> 1) * 2**(q - (q >> 1)), two roundings."""
    h = q >> I64(1)
    return (d * _pow2i(h)) * _pow2i(q - h)


def _int(u: Any) -> Any:
    """vrint_vi_vd of an integral float64 (NaN and huge values give 0 here: their lanes are
    replaced by the special-value selects)."""
    return np.where(np.abs(u) < 2.0 ** 31, u, 0).astype(I64)


# --- the functions -------------------------------------------------------------------------------
_EXP_POLY = (+0.2081276378237164457e-8, +0.2511210703042288022e-7, +0.2755762628169491192e-6,
             +0.2755723402025388239e-5, +0.2480158687479686264e-4, +0.1984126989855865850e-3,
             +0.1388888888914497797e-2, +0.8333333333314938210e-2, +0.4166666666666602598e-1,
             +0.1666666666666669072e+0)


def exp(d: Any) -> Any:
    """Sleef_expd8_u10 / Sleef_expd4_u10 (xexp, FMA branch): one C loop where the kernels are
    built (native.py), else ``_exp``."""
    if native.lib is not None:
        return native.unary(native.lib.exp64, _d(d))
    return _exp(d)


def _exp(d: Any) -> Any:
    """xexp in NumPy, each of its operations over the whole array."""
    d = _d(d)
    with np.errstate(all="ignore"):
        u = _rint(d * R_LN2)
        q = _int(u)
        s = fma64(u, -L2U, d)
        s = fma64(u, -L2L, s)
        s2 = s * s
        s4 = s2 * s2
        u = _poly((s, s2, s4, s4 * s4), _EXP_POLY)
        u = fma64(u, s, F64(0.5))
        u = fma64(u, s, F64(1))
        u = fma64(u, s, F64(1))
        u = _ldexp2(u, q)
        u = np.where(d > F64(709.78271114955742909217217426), INF, u)
        u = np.where(d < F64(-1000), F64(0), u)
        return np.where(np.isnan(d), d, u)


# --- double-double arithmetic (SLEEF's dd.h, FMA variants) ---------------------------------------
def _add2_dd(x: Any, y: Any) -> tuple:
    """ddadd2_vd2_vd_vd: x + y exactly, as a pair."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _add_d2_d(x: tuple, y: Any) -> tuple:
    """ddadd_vd2_vd2_vd (|x| >= |y|)."""
    s = x[0] + y
    return s, ((x[0] - s) + y) + x[1]


def _add_d2_d2(x: tuple, y: tuple) -> tuple:
    """ddadd_vd2_vd2_vd2 (|x| >= |y|)."""
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _mul_d2_d(x: tuple, y: Any) -> tuple:
    """ddmul_vd2_vd2_vd."""
    s = x[0] * y
    return s, fma64(x[1], y, fma64(x[0], y, -s))


def _div(n: tuple, d: tuple) -> tuple:
    """dddiv_vd2_vd2_vd2."""
    t = 1.0 / d[0]
    s = n[0] * t
    u = fma64(t, n[0], -s)
    v = fma64(-d[1], t, fma64(-d[0], t, F64(1)))
    return s, fma64(s, v, fma64(n[1], t, u))


def _getexp(x: Any) -> Any:
    """vgetexp (vgetexppd): floor(log2|x|) as a float64, subnormals included; -inf for 0, inf
    for inf, NaN for NaN."""
    _, e = np.frexp(x)
    out = (e - 1).astype(F64)
    out = np.where(x == 0, -INF, out)
    return np.where(np.isfinite(x), out, np.abs(x))


def _getmant(x: Any) -> Any:
    """vgetmant with _MM_MANT_NORM_p75_1p5: the significand scaled into [0.75, 1.5)."""
    m, _ = np.frexp(np.abs(x))
    m = m * 2.0
    return np.where(m >= 1.5, m * 0.5, m)


_LOG_POLY = (0.1532076988502701353e+0, 0.1525629051003428716e+0, 0.1818605932937785996e+0,
             0.2222214519839380009e+0, 0.2857142932794299317e+0, 0.3999999999635251990e+0,
             0.6666666666667333541e+0)


def log(d: Any) -> Any:
    """Sleef_logd8_u10 / Sleef_logd4_u10 (xlog_u1): one C loop where the kernels are built
    (native.py), else ``_log``."""
    if native.lib is not None:
        return native.unary(native.lib.log64, _d(d))
    return _log(d)


def _log(d: Any) -> Any:
    """xlog_u1 in NumPy, each of its operations over the whole array."""
    d = _d(d)
    with np.errstate(all="ignore"):
        e = _getexp(d * F64(1.0 / 0.75))
        e = np.where(e == INF, F64(1024), e)
        m = _getmant(d)
        x = _div(_add2_dd(F64(-1), m), _add2_dd(F64(1), m))
        x2 = x[0] * x[0]
        x4 = x2 * x2
        t = _poly((x2, x4, x4 * x4), _LOG_POLY)
        s = _mul_d2_d(LN2, e)
        s = _add_d2_d2(s, (x[0] * 2.0, x[1] * 2.0))
        s = _add_d2_d(s, (x2 * x[0]) * t)
        r = s[0] + s[1]
        r = np.where(d == INF, INF, r)
        r = np.where(d < 0, F64(np.nan), r)
        r = np.where(d == 0, -INF, r)
        return np.where(np.isnan(d), d, r)


def _add_d_d2(x: Any, y: tuple) -> tuple:
    """ddadd_vd2_vd_vd2 (|x| >= |y|)."""
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def _add2_d2_d(x: tuple, y: Any) -> tuple:
    """ddadd2_vd2_vd2_vd."""
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def _mul_d2_d2(x: tuple, y: tuple) -> tuple:
    """ddmul_vd2_vd2_vd2."""
    s = x[0] * y[0]
    return s, fma64(x[0], y[1], fma64(x[1], y[0], fma64(x[0], y[0], -s)))


def _squ(x: tuple) -> tuple:
    """ddsqu_vd2_vd2."""
    s = x[0] * x[0]
    return s, fma64(x[0] + x[0], x[1], fma64(x[0], x[0], -s))


def _normalize(x: tuple) -> tuple:
    s = x[0] + x[1]
    return s, (x[0] - s) + x[1]


def _mulsign(x: Any, y: Any) -> Any:
    """vmulsign: x with its sign flipped where y's sign bit is set."""
    sign = np.uint64(1 << 63)
    return (_d(x).view(np.uint64) ^ (_d(y).view(np.uint64) & sign)).view(F64)


_EXP2_POLY = (+0.4434359082926529454e-9, +0.7073164598085707425e-8, +0.1017819260921760451e-6,
              +0.1321543872511327615e-5, +0.1525273353517584730e-4, +0.1540353045101147808e-3,
              +0.1333355814670499073e-2, +0.9618129107597600536e-2, +0.5550410866482046596e-1,
              +0.2402265069591012214e+0)


def exp2(d: Any) -> Any:
    """Sleef_exp2d8_u10 / Sleef_exp2d4_u10 (xexp2, FMA branch)."""
    d = _d(d)
    with np.errstate(all="ignore"):
        u = _rint(d)
        q = _int(u)
        s = d - u
        s2 = s * s
        s4 = s2 * s2
        u = _poly((s, s2, s4, s4 * s4), _EXP2_POLY)
        u = fma64(u, s, F64(+0.6931471805599452862e+0))
        u = _ldexp2(fma64(u, s, F64(1)), q)
        u = np.where(d >= 1024, INF, u)
        u = np.where(d < -2000, F64(0), u)
        return np.where(np.isnan(d), d, u)


_LOGK_POLY = (0.116255524079935043668677, 0.103239680901072952701192, 0.117754809412463995466069,
              0.13332981086846273921509, 0.153846227114512262845736, 0.181818180850050775676507,
              0.222222222230083560345903, 0.285714285714249172087875, 0.400000000000000077715612)
_EXPK_POLY = (2.51069683420950419527139e-08, 2.76286166770270649116855e-07,
              2.75572496725023574143864e-06, 2.48014973989819794114153e-05,
              0.000198412698809069797676111, 0.0013888888939977128960529,
              0.00833333333332371417601081, 0.0416666666665409524128449,
              0.166666666666666740681535, 0.500000000000000999200722)


def _logk(d: Any) -> tuple:
    """SLEEF's logk (AVX512 branch): log of a positive float64 as a double-double."""
    e = _getexp(d * F64(1.0 / 0.75))
    e = np.where(e == INF, F64(1024), e)
    m = _getmant(d)
    x = _div(_add2_dd(F64(-1), m), _add2_dd(F64(1), m))
    x2 = _squ(x)
    x4 = x2[0] * x2[0]
    x8 = x4 * x4
    t = _poly((x2[0], x4, x8, x8 * x8), _LOGK_POLY)
    c = (F64(0.666666666666666629659233), F64(3.80554962542412056336616e-17))
    s = _mul_d2_d(LN2, e)
    s = _add_d2_d2(s, (x[0] * 2.0, x[1] * 2.0))
    x = _mul_d2_d2(x2, x)
    s = _add_d2_d2(s, _mul_d2_d2(x, c))
    x = _mul_d2_d2(x2, x)
    return _add_d2_d2(s, _mul_d2_d(x, t))


def _expk(d: tuple) -> Any:
    """SLEEF's expk: exp of a double-double, as a float64."""
    u = (d[0] + d[1]) * R_LN2
    dq = _rint(u)
    q = _int(dq)
    s = _add2_d2_d(d, dq * -L2U)
    s = _normalize(_add2_d2_d(s, dq * -L2L))
    s2 = s[0] * s[0]
    s4 = s2 * s2
    u = _poly((s[0], s2, s4, s4 * s4), _EXPK_POLY)
    t = _add_d_d2(F64(1), s)
    t = _add_d2_d2(t, _mul_d2_d(_squ(s), u))
    u = _ldexp2(t[0] + t[1], q)
    return np.where(d[0] < -1000, F64(0), u)


# xerf_u1's polynomials: highest coefficient first, for |x| <= 2.5 and above; then the
# double-double coefficients of its poly4dd
_ERF_POLY21 = ((-0.2083271002525222097e-14, +0.7151909970790897009e-13, -0.1162238220110999364e-11,
              +0.1186474230821585259e-10, -0.8499973178354613440e-10, +0.4507647462598841629e-9,
              -0.1808044474288848915e-8, +0.5435081826716212389e-8, -0.1143939895758628484e-7,
              +0.1215442362680889243e-7, +0.1669878756181250355e-7, -0.9808074602255194288e-7,
              +0.1389000557865837204e-6, +0.2945514529987331866e-6, -0.1842918273003998283e-5,
              +0.3417987836115362136e-5, +0.3860236356493129101e-5, -0.3309403072749947546e-4,
              +0.1060862922597579532e-3, +0.2323253155213076174e-3, +0.1490149719145544729e-3),
             (-0.4024015130752621932e-18, +0.3847193332817048172e-16, -0.1749316241455644088e-14,
              +0.5029618322872872715e-13, -0.1025221466851463164e-11, +0.1573695559331945583e-10,
              -0.1884658558040203709e-9, +0.1798167853032159309e-8, -0.1380745342355033142e-7,
              +0.8525705726469103499e-7, -0.4160448058101303405e-6, +0.1517272660008588485e-5,
              -0.3341634127317201697e-5, -0.2515023395879724513e-5, +0.6539731269664907554e-4,
              -0.3551065097428388658e-3, +0.1210736097958368864e-2, -0.2605566912579998680e-2,
              +0.1252823202436093193e-2, +0.1820191395263313222e-1, -0.1021557155453465954e+0))
_ERF_DD = (((0.0092877958392275604405, 7.9287559463961107493e-19),
            (0.042275531758784692937, 1.3785226620501016138e-19),
            (0.07052369794346953491, 9.5846628070792092842e-19)),
           ((-0.63691044383641748361, -2.4249477526539431839e-17),
            (-1.1282926061803961737, -6.2970338860410996505e-17),
            (-1.2261313785184804967e-05, -5.5329707514490107044e-22)))


def erf(a: Any) -> Any:
    """Sleef_erfd8_u10 / Sleef_erfd4_u10 (xerf_u1): for |a| <= 2.5 Abramowitz and Stegun's
    1 - 1 / (1 + x p(x))**16 in double-double, above 1 - exp(x p(x)); x itself times 2/sqrt(pi)
    below 1e-8, 1 from 6 on.  Each lane's value is the same whichever of the C code's two
    branches (every lane <= 2.5, or selects) its vector takes.  One C loop where the kernels
    are built, else ``_erf``."""
    if native.lib is not None:
        return native.unary(native.lib.erf64, _d(a))
    return _erf(a)


def _erf(a: Any) -> Any:
    """xerf_u1 in NumPy, each of its operations over the whole array (each side of 2.5)."""
    a = _d(a)
    with np.errstate(all="ignore"):
        x = np.abs(a)
        low = x <= 2.5
        z = np.empty_like(x)
        for part, branch in ((low, 0), (~low, 1)):
            if part.any():
                z[part] = _erf_part(x[part], branch)
        z = np.where(x < 1e-8, x * F64(1.12837916709551262756245475959), z)
        z = np.where((x >= 6) | np.isinf(a), F64(1), z)
        z = np.where(a == 0, F64(0), z)
        return _mulsign(z, a)


def _erf_part(x: Any, branch: int) -> Any:
    """xerf_u1's -(t2 - 1) for |a| = x on one side of 2.5 (``branch`` 0 at or below)."""
    x2 = x * x
    x4 = x2 * x2
    x8 = x4 * x4
    x16 = x8 * x8
    c = _ERF_POLY21[branch]
    t = fma64(x16, _poly((x, x2, x4), c[:5]), _poly((x, x2, x4, x8), c[5:]))  # POLY21
    c2, c1, c0 = _ERF_DD[branch]
    # poly4dd(x, t, c2, c1, c0): ddmla(x * x, poly2dd(x, t, c2), poly2dd_b(x, c1, c0)), each
    # ddmla(x, y, z) being ddadd(z, ddmul(y, x))
    high = _add_d2_d2(c2, _mul_d2_d((t, np.zeros_like(t)), x))
    t2 = _add_d2_d2(_add_d2_d2(c0, _mul_d2_d(c1, x)), _mul_d2_d(high, x * x))
    if branch == 0:
        t2 = _add_d_d2(F64(1), _mul_d2_d(t2, x))
        for _ in range(4):
            t2 = _squ(t2)
        t2 = _rec2(t2)
    else:
        t2 = (_expk(t2), np.zeros_like(x))
    t2 = _add2_d2_d(t2, F64(-1))
    return -(t2[0] + t2[1])


def power(x: Any, y: Any) -> Any:
    """Sleef_powd8_u10 / Sleef_powd4_u10 (xpow), special values included."""
    x, y = np.broadcast_arrays(_d(x), _d(y))
    with np.errstate(all="ignore"):
        yisint = (np.trunc(y) == y) | (np.abs(y) > 2.0 ** 53)
        half = y * 0.5
        yisodd = (np.rint(half) != half) & yisint & np.isfinite(y)
        d = _mul_d2_d(_logk(np.abs(x)), y)
        r = _expk(d)
        r = np.where(d[0] > F64(709.78271114955742909217217426), INF, r)
        sign = np.where(yisint, np.where(yisodd, F64(-1), F64(1)), F64(np.nan))
        r = r * np.where(x > 0, F64(1), sign)
        efx = _mulsign(np.abs(x) - 1.0, y)
        r = np.where(np.isinf(y), np.where(efx < 0, F64(0), np.where(efx == 0, F64(1), INF)), r)
        edge = np.where(np.signbit(y) ^ (x == 0), F64(0), INF)
        r = np.where(np.isinf(x) | (x == 0), _mulsign(edge, np.where(yisodd, x, F64(1))), r)
        r = np.where(np.isnan(x) | np.isnan(y), F64(np.nan), r)
        return np.where((y == 0) | (x == 1), F64(1), r)


def log1p(d: Any) -> Any:
    """Sleef_log1pd8_u10 / Sleef_log1pd4_u10 (xlog1p).  As PyTorch's build computes it: the
    scaling by 2**-e exact (2**-1023 subnormal for the largest arguments) and no clamp of
    arguments above 1e307 to inf (measured against the library itself).  One C loop where
    the kernels are built, else ``_log1p``."""
    if native.lib is not None:
        return native.unary(native.lib.log1p64, _d(d))
    return _log1p(d)


def _log1p(d: Any) -> Any:
    """xlog1p in NumPy, each of its operations over the whole array."""
    d = _d(d)
    with np.errstate(all="ignore"):
        dp1 = d + 1.0
        e = _getexp(dp1 * F64(1.0 / 0.75))
        e = np.where(e == INF, F64(1024), e)
        t = np.ldexp(F64(1), -_int(e))
        m = fma64(d, t, t - 1.0)
        s = _mul_d2_d(LN2, e)
        two = 2.0 + m
        x = _div((m, np.zeros_like(m)), (two, (2.0 - two) + m))
        x2 = x[0] * x[0]
        x4 = x2 * x2
        t = _poly((x2, x4, x4 * x4), _LOG_POLY)
        s = _add_d2_d2(s, (x[0] * 2.0, x[1] * 2.0))
        s = _add_d2_d(s, (x2 * x[0]) * t)
        r = s[0] + s[1]
        r = np.where(d == INF, INF, r)
        r = np.where((d < -1) | np.isnan(d), F64(np.nan), r)
        r = np.where(d == -1, -INF, r)
        r = np.where((d == 0) & np.signbit(d), F64(-0.0), r)
        return np.where(np.isnan(d), d, r)


_EXPK2_POLY = (+0.1602472219709932072e-9, +0.2092255183563157007e-8, +0.2505230023782644465e-7,
               +0.2755724800902135303e-6, +0.2755731892386044373e-5, +0.2480158735605815065e-4,
               +0.1984126984148071858e-3, +0.1388888888886763255e-2, +0.8333333333333347095e-2,
               +0.4166666666666669905e-1)


def _expk2(d: tuple) -> tuple:
    """SLEEF's expk2: exp of a double-double, as a double-double."""
    u = (d[0] + d[1]) * R_LN2
    dq = _rint(u)
    q = _int(dq)
    s = _add2_d2_d(d, dq * -L2U)
    s = _add2_d2_d(s, dq * -L2L)
    s2 = _squ(s)
    s4 = _squ(s2)
    u = _poly((s[0], s2[0], s4[0], s4[0] * s4[0]), _EXPK2_POLY)
    t = _add_d_d2(F64(0.5), _mul_d2_d(s, F64(+0.1666666666666666574e+0)))
    t = _add_d_d2(F64(1), _mul_d2_d2(t, s))
    t = _add_d_d2(F64(1), _mul_d2_d2(t, s))
    t = _add_d2_d2(t, _mul_d2_d(s4, u))
    low = d[0] < -1000
    return (np.where(low, F64(0), _ldexp2(t[0], q)), np.where(low, F64(0), _ldexp2(t[1], q)))


def _rec2(d: tuple) -> tuple:
    """ddrec_vd2_vd2: 1 / d as a double-double."""
    t = 1.0 / d[0]
    return t, t * fma64(-d[1], t, fma64(-d[0], t, F64(1)))


def _sub_d2_d2(x: tuple, y: tuple) -> tuple:
    """ddsub_vd2_vd2_vd2 (|x| >= |y|)."""
    s = x[0] - y[0]
    return s, (((x[0] - s) - y[0]) + x[1]) - y[1]


def sinh(x: Any) -> Any:
    """Sleef_sinhd8_u10 / Sleef_sinhd4_u10 (xsinh)."""
    x = _d(x)
    with np.errstate(all="ignore"):
        y = np.abs(x)
        d = _expk2((y, np.zeros_like(y)))
        d = _sub_d2_d2(d, _rec2(d))
        y = (d[0] + d[1]) * 0.5
        y = np.where((np.abs(x) > 710) | np.isnan(y), INF, y)
        return np.where(np.isnan(x), F64(np.nan), _mulsign(y, x))


def cosh(x: Any) -> Any:
    """Sleef_coshd8_u10 / Sleef_coshd4_u10 (xcosh)."""
    x = _d(x)
    with np.errstate(all="ignore"):
        y = np.abs(x)
        d = _expk2((y, np.zeros_like(y)))
        d = _add_d2_d2(d, _rec2(d))
        y = (d[0] + d[1]) * 0.5
        y = np.where((np.abs(x) > 710) | np.isnan(y), INF, y)
        return np.where(np.isnan(x), F64(np.nan), y)


def tanh(x: Any) -> Any:
    """Sleef_tanhd8_u10 / Sleef_tanhd4_u10 (xtanh): (e - 1/e) / (e + 1/e) in double-double,
    e = exp(|x|); 1 beyond 18.714973875, x's sign, NaN kept."""
    x = _d(x)
    with np.errstate(all="ignore"):
        y = np.abs(x)
        d = _expk2((y, np.zeros_like(y)))
        e = _rec2(d)
        d = _div(_add2_d2_d2(d, (-e[0], -e[1])), _add2_d2_d2(d, e))
        y = d[0] + d[1]
        y = np.where((np.abs(x) > F64(18.714973875)) | np.isnan(y), F64(1), y)
        return np.where(np.isnan(x), x, _mulsign(y, x))


def _add2_d2_d2(x: tuple, y: tuple) -> tuple:
    """ddadd2_vd2_vd2_vd2: the sum of the high parts exactly, then the low parts."""
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def expm1(a: Any) -> Any:
    """Sleef_expm1d8_u10 / Sleef_expm1d4_u10 (xexpm1): one C loop where the kernels are
    built, else ``_expm1``."""
    if native.lib is not None:
        return native.unary(native.lib.expm1_64, _d(a))
    return _expm1(a)


def _expm1(a: Any) -> Any:
    """xexpm1 in NumPy, each of its operations over the whole array."""
    a = _d(a)
    with np.errstate(all="ignore"):
        d = _add2_d2_d(_expk2((a, np.zeros_like(a))), F64(-1.0))
        x = d[0] + d[1]
        x = np.where(a > F64(709.782712893383996732223), INF, x)
        x = np.where(a < F64(-36.736800569677101399113302437), F64(-1), x)
        x = np.where((a == 0) & np.signbit(a), F64(-0.0), x)
        return np.where(np.isnan(a), a, x)


_ARCTAN_POLY = (1.06298484191448746607415e-05, -0.000125620649967286867384336,
              0.00070557664296393412389774, -0.00251865614498713360352999,
              0.00646262899036991172313504, -0.0128281333663399031014274,
              0.0208024799924145797902497, -0.0289002344784740315686289,
              0.0359785005035104590853656, -0.041848579703592507506027,
              0.0470843011653283988193763, -0.0524914210588448421068719,
              0.0587946590969581003860434, -0.0666620884778795497194182,
              0.0769225330296203768654095, -0.0909090442773387574781907)
_ARCTAN_TAIL = (0.111111108376896236538123, -0.142857142756268568062339,
              0.199999999997977351284817, -0.333333333333317605173818)


def _arctan2k(y: tuple, x: tuple) -> tuple:
    """SLEEF's kernel of the 1-ulp two-argument arctangent: the angle of (x, y) as a
    double-double, for y >= 0."""
    neg = x[0] < 0
    q = np.where(neg, F64(-2), F64(0))
    x = (np.where(neg, -x[0], x[0]), np.where(neg, -x[1], x[1]))
    p = x[0] < y[0]
    q = np.where(p, q + 1, q)
    s = (np.where(p, -x[0], y[0]), np.where(p, -x[1], y[1]))
    t = (np.where(p, y[0], x[0]), np.where(p, y[1], x[1]))
    s = _div(s, t)
    t = _normalize(_squ(s))
    t2 = t[0] * t[0]
    t4 = t2 * t2
    u = _poly((t[0], t2, t4, t4 * t4), _ARCTAN_POLY)
    for c in _ARCTAN_TAIL:
        u = fma64(u, t[0], F64(c))
    t = _add_d2_d2(s, _mul_d2_d(_mul_d2_d2(s, t), u))
    half_pi = (F64(1.570796326794896557998982), F64(6.12323399573676603586882e-17))
    return _add_d2_d2(_mul_d2_d(half_pi, q), t)


def _isinf2(d: Any, m: Any) -> Any:
    """visinf2_vd_vd_vd: m with d's sign bit or-ed in where d is infinite, else 0."""
    sign = np.uint64(1 << 63)
    bits = _d(m).view(np.uint64) | (_d(d).view(np.uint64) & sign)
    return np.where(np.isinf(d), bits.view(F64), F64(0))


def arctan2(y: Any, x: Any) -> Any:
    """SLEEF's 1-ulp two-argument arctangent of float64 (the u10 function PyTorch's AVX2 and
    AVX512 ``Vectorized<double>`` call), special values included.  (Not named after the op:
    the op's name stays in the table, tests/test_ops_table.py.)"""
    y, x = np.broadcast_arrays(_d(y), _d(x))
    with np.errstate(all="ignore"):
        tiny = np.abs(x) < F64(5.5626846462680083984e-309)
        x = np.where(tiny, x * F64(1 << 53), x)
        y = np.where(tiny, y * F64(1 << 53), y)
        zero = np.zeros_like(x)
        d = _arctan2k((np.abs(y), zero), (x, zero))
        r = _mulsign(d[0] + d[1], x)
        pi2, pi4 = F64(np.pi / 2), F64(np.pi / 4)
        r = np.where(np.isinf(x) | (x == 0), pi2 - _isinf2(x, _mulsign(pi2, x)), r)
        r = np.where(np.isinf(y), pi2 - _isinf2(x, _mulsign(pi4, x)), r)
        r = np.where(y == 0, np.where(np.signbit(x), F64(np.pi), F64(0)), r)
        return np.where(np.isnan(x) | np.isnan(y), F64(np.nan), _mulsign(r, y))


def _ilogbk(d: Any) -> Any:
    """vilogbk_vi_vd: the exponent field of d (of d * 2**300 below 4.9e-91, negative numbers
    included), unbiased, as an int64."""
    small = d < F64(4.9090934652977266E-91)
    d = np.where(small, F64(2.037035976334486E90) * d, d)
    q = (d.view(np.uint64) >> np.uint64(52)).astype(I64) & I64(0xFFF)
    return q - np.where(small, I64(300 + 0x3FF), I64(0x3FF))


_LOGK2_POLY = (0.13860436390467167910856, 0.131699838841615374240845,
               0.153914168346271945653214, 0.181816523941564611721589,
               0.22222224632662035403996, 0.285714285511134091777308,
               0.400000000000914013309483)


def _logk2(d: tuple) -> tuple:
    """SLEEF's logk2: log of a positive double-double, as a double-double."""
    e = _ilogbk(d[0] * F64(1.0 / 0.75))
    m = (_ldexp2(d[0], -e), _ldexp2(d[1], -e))
    x = _div(_add2_d2_d(m, F64(-1)), _add2_d2_d(m, F64(1)))
    x2 = _squ(x)
    x4 = x2[0] * x2[0]
    t = _poly((x2[0], x4, x4 * x4), _LOGK2_POLY)
    t = fma64(t, x2[0], F64(0.666666666666664853302393))
    s = _mul_d2_d(LN2, e.astype(F64))
    s = _add_d2_d2(s, (x[0] * 2.0, x[1] * 2.0))
    return _add_d2_d2(s, _mul_d2_d(_mul_d2_d2(x2, x), t))


def arctanh(x: Any) -> Any:
    """SLEEF's u10 inverse hyperbolic tangent of float64."""
    x = _d(x)
    with np.errstate(all="ignore"):
        y = np.abs(x)
        d = _logk2(_div(_add2_dd(F64(1), y), _add2_dd(F64(1), -y)))
        y = np.where(y > 1, F64(np.nan), np.where(y == 1, INF, (d[0] + d[1]) * 0.5))
        y = _mulsign(y, x)
        y = np.where(np.isinf(x) | np.isnan(y), F64(np.nan), y)
        return np.where(np.isnan(x), F64(np.nan), y)
