"""PyTorch's elementwise float kernels (UnaryOpsKernel.cpp, BinaryOpsKernel.cpp, Activation.cpp).

Three families, by where PyTorch's bits come from:

* MKL VML (``vmsExp``, ``vmsLn``, ``vmsTanh``, ``vmsSqrt``, ``vmsSin``, ``vmsErf`` ... in
  high-accuracy mode) for exp, log, sqrt, the trigonometric functions and their inverses, tanh
  and erf.  MKL's algorithms are closed: with the ``mkl`` package installed, vml.py calls the
  library itself (exact); without it these are computed in float64 and rounded once — the
  correctly rounded value, which MKL's result is most of the time (tests/test_numerics.py
  measures how often per op and holds that share).  sinh and cosh (SLEEF in the vector lanes,
  glibc after) are not ported and take the same stand-in.
* SLEEF, for every element (``vml`` kernels without MKL, and kernels that map a whole row
  through ``Vectorized``): ``expm1``, ``log1p``, ``logsigmoid``.  Exact (sleef.py).
* ``cpu_kernel_vec`` kernels whose vector and scalar lambdas differ (``sigmoid``: SLEEF's
  ``expf`` in the vector lanes, glibc's ``expf`` in each row's tail): exact, element by element
  according to TensorIterator's walk (iterator.py).

Backward kernels keep PyTorch's association and the compiler's fused multiply-adds
(``tanh_backward`` is ``a * (1 - b * b)`` with ``1 - b * b`` contracted to one FMA).
float64 inputs take the same formulas in float64 (SLEEF's double kernels are not ported).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import libm, sleef, vml
from .fp import fma32, fma64
from .iterator import vector_mask
from .machine import SUM_VECTOR_BYTES, VECTOR_BYTES

F32 = np.float32
ONE = F32(1)

def _is32(x: Any) -> bool:
    return np.asarray(x).dtype == F32


def _lanes(x: Any, vector_bytes: int = VECTOR_BYTES) -> int:
    return vector_bytes // np.asarray(x).dtype.itemsize


def _split(x: Any, vector_bytes: int, vec: Any, scalar: Any, *more: Any) -> Any:
    """Apply ``vec`` to the elements cpu_kernel_vec's vector loop computes, ``scalar`` to the
    rest (the arrays in ``more`` are further inputs of the same shape)."""
    x = np.asarray(x)
    arrays = np.broadcast_arrays(x, *more) if more else [x]
    mask = vector_mask(arrays[0].shape, [a.strides for a in arrays], x.dtype.itemsize,
                       _lanes(x, vector_bytes))
    out = np.empty(arrays[0].shape, x.dtype)
    if mask.any():
        out[mask] = vec(*[a[mask] for a in arrays])
    if not mask.all():
        rest = ~mask
        out[rest] = scalar(*[a[rest] for a in arrays])
    return out


def mkl(name: str, x: Any) -> Any:
    """An MKL VML function by its Array API (NumPy 2) name: MKL's own result when the library
    is installed (vml.py); else the correctly rounded result, float32 from float64 and float64
    from the x87 long double — except float64 asin and acos, where NumPy's own double agrees
    with MKL more often (99.6% against 91%, measured)."""
    if name not in vml.NOT_VML and vml.available():
        return vml.call(name, x)
    if name in ("asin", "acos") and np.asarray(x).dtype == np.float64:
        return _quiet(getattr(np, name), x)
    return rounded(getattr(np, name), x)


def rounded(fn: Any, x: Any) -> Any:
    """``fn`` computed with more precision and rounded once to ``x``'s dtype (a NumPy scalar
    stays a scalar: scalar scripts run on them)."""
    wide = np.float64 if x.dtype == F32 else np.longdouble
    with np.errstate(all="ignore"):
        if isinstance(x, np.generic):
            return x.dtype.type(fn(wide(x)))
        return fn(np.asarray(x).astype(wide)).astype(x.dtype)


# the ports of the SLEEF functions PyTorch's vector lanes call (the scalar tail: the C library)
# (keyed by NumPy's function: the op's name stays in the table)
_SLEEF32 = {np.exp2: sleef.exp2f, np.arctan2: sleef.arctan2f}


def library(name: str, *xs: Any) -> Any:
    """A function PyTorch takes from SLEEF or the C library rather than MKL (the inverse
    hyperbolic functions, exp2, the two-argument arctangent, hypot, the log of xlogy): SLEEF's
    own result in the vector lanes where ported (float32 exp2 and the arctangent), else the
    correctly rounded one, which glibc's and SLEEF's 1-ulp results are most of the time
    (tests/test_numerics.py holds the share measured); ``name`` is NumPy's.  Scalars stay
    scalars."""
    dtype = np.result_type(*xs)
    port = _SLEEF32.get(getattr(np, name)) if dtype == F32 else None
    if port is not None:
        out = _split(xs[0], VECTOR_BYTES, port,
                     lambda *a: correctly_rounded(name, *a), *xs[1:])
        return out[()] if isinstance(xs[0], np.generic) else out
    return correctly_rounded(name, *xs)


def correctly_rounded(name: str, *xs: Any) -> Any:
    """NumPy's ``name`` computed wider and rounded once to the inputs' dtype."""
    dtype = np.result_type(*xs)
    wide = np.float64 if dtype == F32 else np.longdouble
    with np.errstate(all="ignore"):
        out = getattr(np, name)(*(np.asarray(x, dtype=wide) for x in xs)).astype(dtype)
    return out[()] if all(isinstance(x, np.generic) for x in xs) else out


def erf(x: Any) -> Any:
    """vmsErf / vmdErf: MKL's when installed, else the C library's erf (correctly rounded to
    float32 from float64)."""
    if vml.available():
        return vml.call("erf", x)
    x = np.asarray(x)
    flat = np.frompyfunc(math.erf, 1, 1)(x.astype(np.float64).reshape(-1))
    return np.asarray(flat, np.float64).reshape(x.shape).astype(x.dtype)


def expm1(x: Any) -> Any:
    """``torch.expm1``: SLEEF for every element (MKL's expm1 is disabled in vml.h)."""
    return sleef.expm1f(x) if _is32(x) else rounded(np.expm1, x)


def log1p(x: Any) -> Any:
    """``torch.log1p``: SLEEF for every element."""
    return sleef.log1pf(x) if _is32(x) else rounded(np.log1p, x)


def _quiet(fn: Any, *args: Any) -> Any:
    with np.errstate(all="ignore"):
        return fn(*args)


def sigmoid(x: Any) -> Any:
    """sigmoid_kernel: 1 / (1 + exp(0 - a)) in the vector lanes, 1 / (1 + expf(-a)) after."""
    x = np.asarray(x)
    if x.dtype != F32:  # SLEEF's and glibc's double exp: both close to correctly rounded
        with np.errstate(all="ignore"):
            return 1.0 / (1.0 + rounded(np.exp, -x))
    with np.errstate(all="ignore"):
        return _split(x, VECTOR_BYTES, lambda a: ONE / (ONE + sleef.expf(F32(0) - a)),
                      lambda a: ONE / (ONE + libm.expf(-a)))


def logaddexp(a: Any, b: Any) -> Any:
    """logaddexp_kernel: max(a, b) + log1p(exp(-|a - b|)), a itself where a = b = +-inf;
    SLEEF's exp and log1p in the vector lanes, glibc's expf and the correctly rounded log1p
    (glibc's log1pf is not ported) after."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))

    def formula(exp: Any, log1p: Any) -> Any:
        def fn(x: Any, y: Any) -> Any:
            out = np.maximum(x, y) + log1p(exp(-np.abs(x - y)))
            return np.where((x == y) & (np.abs(x) == np.inf), x, out)
        return fn

    with np.errstate(all="ignore"):
        if a.dtype != F32:
            # SLEEF's double kernels are not ported: MKL's exp is the closer stand-in (measured)
            return formula(lambda v: mkl("exp", v), lambda v: rounded(np.log1p, v))(a, b)
        return _split(a, VECTOR_BYTES, formula(sleef.expf, sleef.log1pf),
                      formula(libm.expf, lambda v: rounded(np.log1p, v)), b)


def logsigmoid(x: Any) -> Any:
    """log_sigmoid_cpu_kernel: min(a, 0) - log1p(exp(-|a|)), SLEEF in every lane (AVX2)."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if x.dtype != F32:
            return np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))
        return np.minimum(x, F32(0)) - sleef.log1pf(sleef.expf(-np.abs(x)))


def logsigmoid_backward(grad: Any, x: Any) -> Any:
    """log_sigmoid_backward: (max_deriv - sign * (b / (1 + b))) * grad, b = exp(-|x|) as the
    forward's buffer; the subtraction of the product is one FMA."""
    x = np.asarray(x)
    neg = x < 0
    with np.errstate(all="ignore"):
        if x.dtype != F32:
            b = np.exp(-np.abs(x))
            return (np.where(neg, 1.0, 0.0) - np.where(neg, 1.0, -1.0) * (b / (1.0 + b))) * grad
        b = sleef.expf(-np.abs(x))
        q = b / (ONE + b)
        return fma32(-np.where(neg, ONE, F32(-1)), q, np.where(neg, ONE, F32(0))) * grad


def softplus(x: Any, beta: float, threshold: float) -> Any:
    """softplus_kernel (AVX2 lanes): log1p(exp(a * beta)) / beta below the threshold."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if x.dtype != F32:
            z = x * beta
            return np.where(z > threshold, x, np.log1p(np.exp(z)) / beta)
        b, t = F32(beta), F32(threshold)

        def vec(a: Any) -> Any:
            return np.where(a * b > t, a, sleef.log1pf(sleef.expf(a * b)) / b)

        def scalar(a: Any) -> Any:  # glibc's log1pf is not ported: correctly rounded stands in
            e = libm.expf(a * b).astype(np.float64)
            return np.where(a * b > t, a, np.log1p(e).astype(F32) / b)

        return _split(x, SUM_VECTOR_BYTES, vec, scalar)


def softplus_backward(grad: Any, x: Any, beta: float, threshold: float) -> Any:
    """softplus_backward_kernel: z = exp(b * beta); a * z / (z + 1) below the threshold."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if x.dtype != F32:
            z = np.exp(x * beta)
            return np.where(x * beta > threshold, grad, grad * z / (z + 1.0))
        b, t = F32(beta), F32(threshold)

        def vec(g: Any, a: Any) -> Any:
            z = sleef.expf(a * b)
            return np.where(a * b > t, g, g * z / (z + ONE))

        def scalar(g: Any, a: Any) -> Any:
            z = libm.expf(a * b)
            return np.where(a * b > t, g, g * z / (z + ONE))

        return _split(x, SUM_VECTOR_BYTES, lambda a, g: vec(g, a), lambda a, g: scalar(g, a),
                      np.asarray(grad, F32))


def elu(x: Any, alpha: float, scale: float, input_scale: float) -> Any:
    """elu_kernel (elu, selu, celu): a * scale above 0, expm1(a * input_scale) * (alpha * scale)
    at or below, the coefficients rounded to the dtype first; SLEEF's expm1 in the vector lanes,
    the C library's after (correctly rounded stands in for glibc's expm1f)."""
    x = np.asarray(x)
    t = x.dtype.type
    neg, pos, nip = t(alpha) * t(scale), t(scale), t(input_scale)
    with np.errstate(all="ignore"):
        if x.dtype != F32:
            return np.where(x > 0, x * pos, rounded(np.expm1, x * nip) * neg)
        return _split(x, VECTOR_BYTES,
                      lambda a: np.where(a > 0, a * pos, sleef.expm1f(a * nip) * neg),
                      lambda a: np.where(a > 0, a * pos, rounded(np.expm1, a * nip) * neg))


def elu_backward(grad: Any, b: Any, alpha: float, scale: float, input_scale: float,
                 is_result: bool) -> Any:
    """elu_backward_kernel: ``b`` is the input, or the result (in place); from the input,
    grad * input_scale * (alpha * scale) * exp(b * input_scale) at or below 0."""
    b = np.asarray(b)
    t = b.dtype.type
    neg, pos, nip = t(alpha) * t(scale), t(scale), t(input_scale)
    grad = np.asarray(grad, b.dtype)
    with np.errstate(all="ignore"):
        if is_result:
            return np.where(b > 0, grad * pos, grad * nip * (b + neg))
        if b.dtype != F32:
            return np.where(b > 0, grad * pos, grad * nip * neg * np.exp(b * nip))
        return _split(b, VECTOR_BYTES,
                      lambda a, g: np.where(a > 0, g * pos, g * nip * neg * sleef.expf(a * nip)),
                      lambda a, g: np.where(a > 0, g * pos, g * nip * neg * libm.expf(a * nip)),
                      grad)


def silu(x: Any) -> Any:
    """silu_kernel: a / (1 + exp(-a)), SLEEF's exp in the vector lanes, glibc's after."""
    x = np.asarray(x)
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        if x.dtype != F32:
            return x / (one + np.exp(-x))
        return _split(x, VECTOR_BYTES, lambda a: a / (ONE + sleef.expf(-a)),
                      lambda a: a / (ONE + libm.expf(-a)))


def silu_backward(grad: Any, x: Any) -> Any:
    """silu_backward_kernel: s = 1 / (1 + exp(-x)); grad * s * (1 + x * (1 - s)), the last
    multiply-add fused."""
    x = np.asarray(x)
    grad = np.asarray(grad, x.dtype)
    with np.errstate(all="ignore"):
        if x.dtype != F32:
            s = 1.0 / (1.0 + np.exp(-x))
            return grad * s * fma64(x, 1.0 - s, 1.0)

        def kernel(exp: Any) -> Any:
            def fn(a: Any, g: Any) -> Any:
                s = ONE / (ONE + exp(-a))
                return g * s * fma32(a, ONE - s, ONE)
            return fn

        return _split(x, VECTOR_BYTES, kernel(sleef.expf), kernel(libm.expf), grad)


def softshrink(x: Any, lambd: float) -> Any:
    """softshrink_kernel (AVX2): a - lambd above lambd, a + lambd below -lambd; between, +0 in
    the vector lanes (a bit mask) and a * 0 in the scalar tail (-0 for a negative a)."""
    x = np.asarray(x)
    t = x.dtype.type
    lam, zero = t(lambd), t(0)

    def shrink(inside: Any) -> Any:
        return lambda a: np.where(a > lam, a - lam, np.where(a < -lam, a + lam, inside(a)))

    return _split(x, SUM_VECTOR_BYTES, shrink(lambda a: zero), shrink(lambda a: a * zero))


def tanh_backward(grad: Any, y: Any) -> Any:
    """tanh_backward: a * (1 - b * b), the compiler fusing ``1 - b * b`` into one FMA (in
    float32 and float64 lanes alike)."""
    if y.dtype != F32:
        return grad * fma64(-y, y, 1.0)
    return np.asarray(grad, F32) * fma32(-y, y, ONE)


def sigmoid_backward(grad: Any, y: Any) -> Any:
    """sigmoid_backward: (a * (1 - b)) * b."""
    one = y.dtype.type(1)
    return (grad * (one - y)) * y


def pow_scalar(x: Any, exponent: float) -> Any:
    """pow_tensor_scalar_kernel's special exponents (x * x, x * x * x, sqrt, 1 / x, ...);
    other exponents through the C library's pow in float64, rounded once."""
    x = np.asarray(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        if exponent == 2:
            return x * x
        if exponent == 3:
            return x * x * x
        if exponent == 0.5:
            return np.sqrt(x)
        if exponent == -0.5:
            return t(1) / np.sqrt(x)
        if exponent == -1:
            return t(1) / x
        if exponent == -2:
            return t(1) / (x * x)
        if exponent == 1:
            return x.copy()
        if exponent == 0:
            return np.ones_like(x)
        if x.dtype == F32:
            return np.power(x.astype(np.float64), float(F32(exponent))).astype(F32)
        return np.power(x, exponent)
