"""PyTorch's CPU distribution arithmetic, bit for bit, as vectorised NumPy (host side).

``generator.Generator`` draws mt19937 words; this module turns them into numbers exactly as
ATen's CPU kernels do (aten/src/ATen/core/TransformationHelper.h, DistributionsHelper.h,
native/cpu/DistributionTemplates.h, native/cpu/avx_mathfun.h), including what the compiler
did to them: PyTorch's x86 wheels are built by GCC with ``-ffp-contract=fast`` and FMA enabled
for the AVX2/AVX512 kernels, so ``a * b + c`` in those kernels is one fused multiply-add
(``madd``), and a multiply then an add in the DEFAULT capability's (engine/machine.py: its
uniform kernel; its normal fill fuses, measured), where float32 normals come from the scalar
``normal_fill_16`` and the C library's ``logf``/``cosf``/``sinf`` (``fill32_default``).  NumPy has no FMA: ``exact.fp``'s ``fma32``/``fma64`` compute
the correctly rounded result.

Like the backend, this module imports NumPy: random numbers are made on the host (a CuPy run
transfers them in ``backend.Backend.random``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy

from . import machine
from .exact import clib, native
from .exact.fp import fma32, fma64

f32, f64, u64 = numpy.float32, numpy.float64, numpy.uint64

# ------------------------------------------------------------------------------ exact arithmetic


def kernel_fma32(a: Any, b: Any, c: Any) -> Any:
    """fma32 for the fused steps of log256 and sincos256: float64 then float32 suffices there.

    NOTE: those kernels only ever see 2**24 inputs each (Box-Muller's uniforms are multiples
    of 2**-24); tools/check_fill32.py runs them on every one and finds no step whose float64
    sum lands on a float32 halfway point or below float32's normal range, so the two roundings
    give the FMA's result and fma32's checks (a third of the kernels' time) are not needed.
    """
    s = numpy.multiply(a, b, dtype=f64)
    numpy.add(s, c, out=s, dtype=f64)
    return s.astype(f32)


# ---------------------------------------------------------------------------- the C library's math
# PyTorch's float64 kernels call the C library's log/log1p/sin/cos.  Python's math module calls
# the same functions, so it is the reference; NumPy's own SIMD versions differ in the last bit
# for some inputs (log and log1p on AVX512 machines), so each NumPy function is used only if it
# agrees with the C library on a probe of the inputs the kernels give it.

_PROBE_DOMAINS: dict[str, Callable[[Any], Any]] = {
    "log": lambda u: 1.0 - u,  # Box-Muller's 1 - u, u in [0, 1)
    "log1p": lambda u: -u,
    "sin": lambda u: 2.0 * math.pi * u,
    "cos": lambda u: 2.0 * math.pi * u,
}


_SMALL = 4096  # elements: mapped one by one at once, cheaper than the probe below (~4 ms)


def libm(name: str) -> Callable[[Any], Any]:
    """The C library's ``name`` on a float64 array: looped over in C by the compiled kernels
    where they are built (clib.call), else NumPy's ufunc when it gives the same bits (probed
    once, on the first array larger than a few thousand elements), else element by element."""
    scalar = getattr(math, name)

    def call(x: Any) -> Any:
        if native.lib is not None:
            return clib.call(name, numpy.asarray(x, f64))
        if numpy.size(x) <= _SMALL:
            return _mapped(scalar, x)
        return _vectorised(name)(x)

    return call


@functools.cache
def _vectorised(name: str) -> Callable[[Any], Any]:
    scalar = getattr(math, name)
    probe = _PROBE_DOMAINS[name](
        numpy.random.Generator(numpy.random.PCG64(20_000)).integers(0, 2 ** 53, 20_000)
        * 2.0 ** -53)
    ufunc = getattr(numpy, name)
    if numpy.array_equal(ufunc(probe), _mapped(scalar, probe)):
        return ufunc
    return functools.partial(_mapped, scalar)


def _mapped(fn: Callable[[float], float], x: Any) -> Any:
    """``fn`` element by element (C speed through map)."""
    x = numpy.asarray(x, dtype=f64)
    return numpy.fromiter(map(fn, x.ravel().tolist()), f64, x.size).reshape(x.shape)


# --------------------------------------------------------------- uniform words -> numbers
# transformation::uniform_real: (val & MASK) * 2**-digits, then x * (to - from) + from.  float32
# uses one 32-bit word (24 bits), float64 one 64-bit word (53 bits) from random64().


def unit_float32(words: Any) -> Any:
    """[0, 1) float32 from 32-bit words (their low 24 bits)."""
    return (words & u64(0xFFFFFF)).astype(f32) * f32(2.0 ** -24)


def unit_float64(words64: Any) -> Any:
    """[0, 1) float64 from 64-bit words (their low 53 bits)."""
    return (words64 & u64((1 << 53) - 1)).astype(f64) * 2.0 ** -53


def madd(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` as the kernel's compiled code computes it: fused on AVX2 and AVX512, a
    multiply then an add on DEFAULT; float32 operands stay float32."""
    if machine.current().fma:
        return fma32(a, b, c) if numpy.result_type(a, b, c) == f32 else fma64(a, b, c)
    return a * b + c


def uniform(x: Any, low: float, high: float, dtype: Any) -> Any:
    """uniform_kernel: ``x * (high - low) + low`` (``madd``) in float64 or, for float32 and
    float16, in float32, rounded to ``dtype``; a value that rounded up to ``high`` is ``low``."""
    if dtype == f64:
        value = x if low == 0 and high == 1 else madd(x, high - low, low)
    else:
        lo, hi = f32(low), f32(high)
        value = x if lo == 0 and hi == 1 else madd(x, hi - lo, lo)
        value = value.astype(dtype, copy=False)
    top = value == dtype(high)
    if top.any():
        value = numpy.where(top, dtype(low), value)
    return value


# ------------------------------------------------------------------------- normal: scalar path
# at::normal_distribution<double>: Box-Muller on two 53-bit uniforms, u1 for the angle and u2
# for the radius; the sine is cached in the generator for the next draw.


def box_muller_pairs(u1: Any, u2: Any) -> tuple[Any, Any]:
    """(r cos θ, r sin θ) of at::normal_distribution<double>, element-wise."""
    r = numpy.sqrt(-2.0 * libm("log1p")(-u2))
    theta = (2.0 * math.pi) * u1
    return r * libm("cos")(theta), r * libm("sin")(theta)


def affine64(v: Any, mean: float, std: float, serial: bool = False) -> Any:
    """``v * std + mean`` in float64: fused in the normal fill on every capability (measured:
    DEFAULT's fill fuses it too), ``madd`` in at::normal_distribution (``serial``)."""
    if mean == 0 and std == 1:
        return v + 0.0  # fma(v, 1, 0) or v * 1 + 0: -0 turns into +0
    return madd(v, std, mean) if serial else fma64(v, std, mean)


# ---------------------------------------------------------------- normal: 16-element fill paths
# normal_fill fills the tensor with uniforms, turns each 16 into 16 normals (8 radii from the
# first half, 8 angles from the second), and when the size is not a multiple of 16 draws 16 new
# uniforms for the last 16 elements and transforms them again.  float32 runs normal_fill_AVX2
# (AVX512 machines use it too: normal_stub is not dispatched to AVX512), whose log and sincos are
# avx_mathfun.h's Cephes polynomials, ported below operation by operation.


def fill64(blocks: Any, mean: float, std: float) -> Any:
    """normal_fill_16<double> on an (n, 16) array of uniforms."""
    u1 = 1.0 - blocks[:, :8]
    radius = numpy.sqrt(-2.0 * libm("log")(u1))
    theta = (2.0 * math.pi) * blocks[:, 8:]
    out = numpy.empty_like(blocks)
    out[:, :8] = affine64(radius * libm("cos")(theta), mean, std)
    out[:, 8:] = affine64(radius * libm("sin")(theta), mean, std)
    return out


_LOG_P = [f32(p) for p in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                          1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                          3.3333331174e-1)]
_LOG_Q1, _LOG_Q2 = f32(-2.12194440e-4), f32(0.693359375)
_SQRTHF = f32(0.707106781186547524)
_DP = (f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8))
_SIN_P = (f32(-1.9515295891e-4), f32(8.3321608736e-3), f32(-1.6666654611e-1))
_COS_P = (f32(2.443315711809948e-005), f32(-1.388731625493765e-003), f32(4.166664568298827e-002))
_FOPI = f32(1.27323954473516)
TWO_PI32 = f32(2.0 * math.pi)


def log256(x: Any) -> Any:
    """avx_mathfun's log256_ps for x > 0 (float32); looped in C where the compiled kernels
    are built (native.py: the same operations)."""
    if native.lib is not None:
        return native.unary(native.lib.log256, numpy.asarray(x, f32))
    x = numpy.maximum(x, f32(1.17549435e-38))  # cut off denormals
    bits = x.view(numpy.int32)
    e = ((bits >> 23) - 127).astype(f32) + f32(1)
    x = ((bits & ~0x7F800000) | 0x3F000000).view(f32)  # mantissa as a number in [0.5, 1)
    small = x < _SQRTHF
    tmp = numpy.where(small, x, f32(0))
    x = x - f32(1)
    e = e - small.astype(f32)
    x = x + tmp
    z = x * x
    y = numpy.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = kernel_fma32(y, x, p)
    y = y * x
    # NOTE: GCC fuses (y*x)*z + e*q1 on the first product, so e*q1 is rounded on its own.
    y = kernel_fma32(y, z, e * _LOG_Q1)
    y = y - z * f32(0.5)  # z * 0.5 is exact: fused or not, the same
    return kernel_fma32(e, _LOG_Q2, x + y)


def sincos256(x: Any) -> tuple[Any, Any]:
    """avx_mathfun's sincos256_ps (float32): (sin x, cos x); looped in C as log256."""
    if native.lib is not None:
        x = numpy.ascontiguousarray(x, f32)
        s, c = numpy.empty(x.shape, f32), numpy.empty(x.shape, f32)
        native.lib.sincos256(x, s, c)
        return s, c
    sign_sin = numpy.signbit(x)
    x = numpy.abs(x)
    j = (x * _FOPI).astype(numpy.int32)  # truncation, as _mm256_cvttps_epi32
    j = (j + 1) & ~1
    y = j.astype(f32)
    sign_sin ^= (j & 4) != 0
    poly = (j & 2) == 0
    for dp in _DP:  # extended precision modular arithmetic, x = ((x - y*DP1) - y*DP2) - y*DP3
        x = kernel_fma32(y, dp, x)
    sign_cos = (~(j - 2) & 4) != 0
    z = x * x
    yc = numpy.full_like(x, _COS_P[0])
    yc = kernel_fma32(yc, z, _COS_P[1])
    yc = kernel_fma32(yc, z, _COS_P[2])
    yc = yc * z
    yc = kernel_fma32(yc, z, -(z * f32(0.5)))
    yc = yc + f32(1)
    ys = numpy.full_like(x, _SIN_P[0])
    ys = kernel_fma32(ys, z, _SIN_P[1])
    ys = kernel_fma32(ys, z, _SIN_P[2])
    ys = ys * z
    ys = kernel_fma32(ys, x, x)
    # select the polynomials as the masks and subtractions of the original do (signs of zero)
    ysin2 = numpy.where(poly, ys, f32(0))
    ysin1 = numpy.where(poly, f32(0), yc)
    s = ysin1 + ysin2
    c = (yc - ysin1) + (ys - ysin2)
    return numpy.where(sign_sin, -s, s), numpy.where(sign_cos, -c, c)


def fill32_default(blocks: Any, mean: float, std: float) -> Any:
    """normal_fill_16<float> on an (n, 16) float32 array of uniforms (DEFAULT's scalar code):
    ``sqrtf(-2 * logf(1 - u1))`` and ``cosf``/``sinf`` of ``2 * pi * u2`` computed in double
    and rounded to float, then ``radius * trig * std + mean`` with the last step fused (as
    affine64: measured)."""
    mean, std = f32(mean), f32(std)
    radius = numpy.sqrt(f32(-2) * clib.call("log", f32(1) - blocks[:, :8]))
    theta = ((2.0 * math.pi) * blocks[:, 8:].astype(f64)).astype(f32)
    out = numpy.empty_like(blocks)
    for half, trig in ((slice(0, 8), clib.call("cos", theta)), (slice(8, 16), clib.call("sin", theta))):
        n = radius * trig
        out[:, half] = n + f32(0) if mean == 0 and std == 1 else fma32(n, std, mean)
    return out


def fill32(blocks: Any, mean: float, std: float) -> Any:
    """normal_fill_16_AVX2 on an (n, 16) float32 array of uniforms (DEFAULT: fill32_default)."""
    if machine.current().capability == "DEFAULT":
        return fill32_default(blocks, mean, std)
    mean, std = f32(mean), f32(std)
    radius = numpy.sqrt(f32(-2) * log256(f32(1) - blocks[:, :8]))
    sin, cos = sincos256(TWO_PI32 * blocks[:, 8:])
    out = numpy.empty_like(blocks)
    for half, trig in ((slice(0, 8), cos), (slice(8, 16), sin)):
        n = radius * trig
        out[:, half] = n + f32(0) if mean == 0 and std == 1 else fma32(n, std, mean)
    return out
