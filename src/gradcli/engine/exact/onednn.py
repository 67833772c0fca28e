"""oneDNN's float32 GELU (``eltwise_gelu_erf``) as its JIT kernels compute it, in NumPy.

PyTorch 2.13's ``gelu_out_cpu`` and ``gelu_backward_out_cpu`` (aten/src/ATen/native/
Activation.cpp) hand a float32 input that is contiguous and has more than one element to
oneDNN when ``approximate='none'`` (``use_mkldnn``: ``ideep::eltwise_forward`` /
``eltwise_backward`` with ``eltwise_gelu_erf``); everything else takes ATen's GeluKernel.
oneDNN (v3.x, bundled with PyTorch) runs ``jit_uni_eltwise`` there: every element, vector
lanes and single-lane remainder alike, through ``jit_uni_eltwise_injector``'s
``gelu_erf_compute_vector_fwd`` / ``_bwd`` (src/cpu/x64/injectors/jit_uni_eltwise_injector.cpp),
the backward's derivative then multiplied by the incoming gradient (one ``vmulps``).  The ISA is
the CPU's, picked by oneDNN itself:

* AVX2 (and below AVX-512): Abramowitz and Stegun's erf, 1 - t * P(t) * exp(-x * x) with
  t = 1 / (1 + p |x|), x = s / sqrt(2), and oneDNN's own ``exp_compute_vector_fwd`` (a degree-5
  polynomial on the reduced argument and 2**(n - 1) * 2 built from exponent bits: not SLEEF's).
* AVX-512 (``avx512_core`` and up): the forward is ``gelu_erf_minimax_approx_compute_vector_fwd``,
  erf(s / sqrt(2)) as one of 24 degree-5 polynomials in |s| picked by the bits of |s|; the
  backward is the AVX2 one (no minimax derivative).  Ported from the source alone: never
  compared with PyTorch on an AVX-512 CPU.

Each ``vfmadd``/``vfnmadd`` is one ``fma32`` (rounded once), each ``vmulps``/``vaddps``/
``vdivps`` one float32 NumPy operation; ``vminps``/``vmaxps`` keep the instruction's rule (the
second operand where either is NaN), so NaN and infinities come out as the kernel's.  Where
gradcli's C kernels are built the same steps run as C loops (_native.c's ``onednn_*``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import native
from .fp import fma32

F32 = np.float32
I32 = np.int32
U32 = np.uint32


def _bits(*words: int) -> Any:
    return np.array(words, U32).view(F32)


# the injector's table (register_table_entries), by its names
HALF, ONE, TWO = _bits(0x3F000000, 0x3F800000, 0x40000000)
LN2F = _bits(0x3F317218)[0]
EXP_LOG2EF, EXP_LN_FLT_MAX, EXP_LN_FLT_MIN = _bits(0x3FB8AA3B, 0x42B17218, 0xC2AEAC50)
EXP_POL = _bits(0x3F7FFFFB, 0x3EFFFEE3, 0x3E2AAD40, 0x3D2B9D0D, 0x3C07CFCE)  # p1 .. p5
AS_APPROX, AS_ONE_OVER_SQRT_TWO, AS_ONE_OVER_SQRT_PI = _bits(0x3EA7BA05, 0x3F3504F3,
                                                             0x3F106EBA)
AS_POL = _bits(0x3E827906, 0xBE91A98E, 0x3FB5F0E3, 0xBFBA00E3, 0x3F87DC22)  # p1 .. p5
MINIMAX_IDX_BIAS = np.int32(np.uint32(0xC21FFFFF).view(I32))
MINIMAX_RBOUND = _bits(0x40B15CEE)[0]
# gelu_erf_minimax_pol: six coefficients (degree 0 .. 5) of 25 polynomials, by index
MINIMAX_POL = np.array([
    [0xA6F2CB94, 0x32827792, 0x3381CC0C, 0x34523D4A, 0x351AC44D, 0x35F36D88, 0x36EE8229,
     0x37B8A3BB, 0x3867A213, 0x3940033B, 0x3A2A5A1D, 0x3AE35863, 0x3B7828F2, 0x3C08B14B,
     0x3C515ED3, 0xBB503236, 0xBD8D8E5E, 0xBE8ABCD9, 0xBF0C19A2, 0xBECCB328, 0x3E176CED,
     0x3F470D99, 0x3F7ABB28, 0x3F800000, 0x00000000],
    [0x3F4C422A, 0x3F4C421F, 0x3F4C4207, 0x3F4C41CB, 0x3F4C413B, 0x3F4C3FAD, 0x3F4C3A2F,
     0x3F4C2D40, 0x3F4C146A, 0x3F4BC341, 0x3F4AD08C, 0x3F48F8CF, 0x3F45FAC7, 0x3F404E07,
     0x3F3B980F, 0x3F48DFF3, 0x3F78B21B, 0x3FBB0704, 0x40019C32, 0x3FE536D6, 0x3F81331E,
     0x3E6C8684, 0x3C98F936, 0x00000000, 0x3F800000],
    [0xB62173F4, 0x3735E4CF, 0x37F2FF89, 0x388C23BE, 0x3917535C, 0x39AB2AB0, 0x3A60FADB,
     0x3AF9B960, 0x3B6E5491, 0x3C0A4EC5, 0x3CA5AA8C, 0x3D2138D9, 0x3D8737D4, 0x3DDFB660,
     0x3E0F27AB, 0x3D94004B, 0xBE0EFDEB, 0xBF1D96C3, 0xBF89DB58, 0xBF6D9897, 0xBEF69FB8,
     0xBDC4F8A8, 0xBBDE6422, 0x00000000, 0x00000000],
    [0xBE081A19, 0xBE084570, 0xBE08639B, 0xBE089837, 0xBE08F409, 0xBE09AB95, 0xBE0B66D0,
     0xBE0E400A, 0xBE124DF8, 0xBE1BDE02, 0xBE2F19C9, 0xBE4931BF, 0xBE685FBC, 0xBE89C95F,
     0xBE96CBCA, 0xBE8044AA, 0xBE0550F2, 0x3DCFD6A1, 0x3E94C826, 0x3E79345F, 0x3DECEC91,
     0x3CA46568, 0x3AA1E00A, 0x00000000, 0x00000000],
    [0xBA3D61DB, 0x39F097A3, 0x3A5845DC, 0x3AB1FA35, 0x3B0CEFB8, 0x3B653AB6, 0x3BCAE527,
     0x3C221712, 0x3C6C5840, 0x3CC0A703, 0x3D1DCC19, 0x3D63656D, 0x3D955907, 0x3DBF9910,
     0x3DD53F69, 0x3DB7DCEF, 0x3D639EBE, 0xBA6EDE48, 0xBD22BE69, 0xBD041CF1, 0xBC64F5AB,
     0xBB097A32, 0xB8EBF380, 0x00000000, 0x00000000],
    [0x3CB7D80C, 0x3C9B6050, 0x3C978D11, 0x3C92E850, 0x3C8D058B, 0x3C848454, 0x3C6CD623,
     0x3C4C824B, 0x3C2A7935, 0x3BE0B390, 0x3B0651AC, 0xBB232F53, 0xBBD42FA0, 0xBC2C5366,
     0xBC492C9E, 0xBC2A7AA6, 0xBBD55D04, 0xBA823A76, 0x3B102AA8, 0x3AE25A7E, 0x3A31F792,
     0x38B84375, 0x3689BB5A, 0x00000000, 0x00000000],
], U32).view(F32)
_MINIMAX_FLAT = np.ascontiguousarray(MINIMAX_POL)  # (the C loop's pol[deg * 25 + idx])
SIGN = U32(0x80000000)
ABS = U32(0x7FFFFFFF)


def _vminps(a: Any, b: Any) -> Any:
    """``vminps a, b``: a where a < b, else b (b where either is NaN)."""
    return np.where(a < b, a, b)


def _vmaxps(a: Any, b: Any) -> Any:
    """``vmaxps a, b``: a where a > b, else b (b where either is NaN)."""
    return np.where(a > b, a, b)


def _xor_sign(x: Any, sign: Any) -> Any:
    return (x.view(U32) ^ sign).view(F32)


def exp(x: Any) -> Any:
    """``exp_compute_vector_fwd``: 2 * 2**(n - 1) * P(r), r = x - n ln2, n = floor(x log2e + 1/2),
    x clamped to [ln FLT_MIN, ln FLT_MAX] first and 0 below ln FLT_MIN."""
    below = x < EXP_LN_FLT_MIN  # (ordered: False for NaN)
    x = _vmaxps(_vminps(x, EXP_LN_FLT_MAX), EXP_LN_FLT_MIN)
    fx = np.floor(x * EXP_LOG2EF + HALF)
    r = fma32(-fx, LN2F, x)  # vfnmadd231ps
    # 2**(n - 1) from the exponent bits (n - 1 + 127 in [0, 254]; 0 gives +0)
    n1 = (fx - ONE).astype(I32)
    scale = ((n1 + I32(127)) << I32(23)).view(F32)
    scale = np.where(below, F32(0), scale)
    p = EXP_POL[4]
    for c in (EXP_POL[3], EXP_POL[2], EXP_POL[1], EXP_POL[0], ONE):
        p = fma32(p, r, c)
    return (p * scale) * TWO


def _erf_as(a: Any, e: Any) -> Any:
    """1 - t * P(t) * E for |x| = ``a`` and E = exp(-x * x): (-E * t) * P(t) + 1 fused, t =
    1 / (p a + 1)."""
    t = ONE / fma32(AS_APPROX, a, ONE)
    q = _xor_sign(e, SIGN) * t
    p = AS_POL[4]
    for c in (AS_POL[3], AS_POL[2], AS_POL[1], AS_POL[0]):
        p = fma32(p, t, c)
    return fma32(q, p, ONE)


def gelu_avx2(s: Any) -> Any:
    """``gelu_erf_compute_vector_fwd`` below AVX-512: S + S * erf(s / sqrt(2)) fused, S = s / 2."""
    s = np.asarray(s, F32)
    if native.lib is not None:  # the steps below as a C loop (_native.c), the same bits
        return native.unary(native.lib.gelu_avx2, s)
    with np.errstate(all="ignore"):
        x = s * AS_ONE_OVER_SQRT_TWO
        a = np.abs(x)
        e = exp(_xor_sign(x * x, SIGN))
        erf = _xor_sign(_erf_as(a, e), s.view(U32) & SIGN)
        half = s * HALF
        return fma32(erf, half, half)


def gelu_avx512(s: Any) -> Any:
    """``gelu_erf_minimax_approx_compute_vector_fwd`` (avx512_core and up): erf(s / sqrt(2)) as
    the degree-5 polynomial in |s| of the interval the bits of |s| pick (index clamped to
    [1, 24], 23 beyond the right bound: erf = 1), sign restored, then s * (1 + erf) * 0.5."""
    s = np.asarray(s, F32)
    if native.lib is not None:
        src = native._flat(s, F32)
        out = np.empty(src.shape, F32)
        native.lib.gelu_avx512(src, out, _MINIMAX_FLAT)
        return out
    with np.errstate(all="ignore"):
        pos = (s.view(U32) & ABS).view(F32)
        idx = (pos.view(I32) + MINIMAX_IDX_BIAS) >> I32(21)  # int32 wraparound, arithmetic shift
        idx = np.minimum(np.maximum(idx, I32(1)), I32(24))
        idx = np.where(MINIMAX_RBOUND < pos, I32(23), idx)
        p = MINIMAX_POL[5][idx]
        for deg in (4, 3, 2, 1, 0):
            p = fma32(p, pos, MINIMAX_POL[deg][idx])
        p = _xor_sign(p, s.view(U32) & SIGN)
        return (s * (p + ONE)) * HALF


def gelu_backward(grad: Any, s: Any) -> Any:
    """``gelu_erf_compute_vector_bwd`` (every ISA) times ``grad``: P + 0.5 * erf fused, P =
    R / sqrt(pi) * exp(-R * R) + 0.5, R = s / sqrt(2)."""
    s = np.asarray(s, F32)
    if native.lib is not None:
        src = native._flat(s, F32)
        out = np.empty(src.shape, F32)
        native.lib.gelu_backward(native._flat(np.broadcast_to(grad, src.shape), F32), src, out)
        return out
    with np.errstate(all="ignore"):
        r = s * AS_ONE_OVER_SQRT_TWO
        e = exp(_xor_sign(r * r, SIGN))
        t = (r * AS_ONE_OVER_SQRT_PI) * e
        erf = _xor_sign(_erf_as(np.abs(r), e), r.view(U32) & SIGN)
        d = fma32(erf, HALF, t + HALF)
        return d * np.asarray(grad, F32)
