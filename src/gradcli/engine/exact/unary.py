"""PyTorch's elementwise float kernels (UnaryOpsKernel.cpp, BinaryOpsKernel.cpp, Activation.cpp).

Three families, by where PyTorch's bits come from:

* MKL VML (``vmsExp``, ``vmsLn``, ``vmsTanh``, ``vmsSqrt``, ``vmsSin``, ``vmsErf`` ... in
  high-accuracy mode) for exp, log, sqrt, the trigonometric functions and their inverses, tanh
  and erf.  MKL's algorithms are closed: with the ``mkl`` package installed, vml.py calls the
  library itself (exact); without it these are computed in float64 and rounded once — the
  correctly rounded value, which MKL's result is most of the time (tests/test_numerics.py
  measures how often per op and holds that share).  sinh and cosh are SLEEF's in the vector
  lanes (ported for float64; float32 takes the same stand-in) and glibc's after.
* SLEEF, for every element (``vml`` kernels without MKL, and kernels that map a whole row
  through ``Vectorized``): ``expm1``, ``log1p``, ``logsigmoid``.  Exact (sleef.py).
* ``cpu_kernel_vec`` kernels whose vector and scalar lambdas differ (``sigmoid``: SLEEF's
  ``expf`` in the vector lanes, glibc's ``expf`` in each row's tail): exact, element by element
  according to TensorIterator's walk (iterator.py).

Backward kernels keep PyTorch's association and the compiler's fused multiply-adds
(``tanh_backward`` is ``a * (1 - b * b)`` with ``1 - b * b`` contracted to one FMA).
float64 inputs take the same formulas in float64, with SLEEF's double functions (sleef64.py:
exp, log, log1p, expm1, exp2, pow, arctan2, arctanh, sinh, cosh, tanh, erf; the correctly rounded
stand-in for the others).  asinh and acosh are the C library's in every lane, float32 and float64 alike.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import machine
from ..machine import GRAIN_SIZE, SUM_VECTOR_BYTES
from . import clib, fp, libm, native, sleef, sleef64, vml
from .fp import F64, fma32, fma64, fp_ignored
from .iterator import batch_place, thread_ranges, vector_mask

F32 = np.float32
ONE = F32(1)

def _is32(x: Any) -> bool:
    return np.asarray(x).dtype == F32


def _vector_bytes() -> int:
    """The vector width of kernels registered for AVX512 too, on the run's machine."""
    return machine.current().vector_bytes


def _lanes(x: Any, vector_bytes: int) -> int:
    return vector_bytes // np.asarray(x).dtype.itemsize


def _split(x: Any, vector_bytes: int, vec: Any, scalar: Any, *more: Any,
           grain: int = GRAIN_SIZE) -> Any:
    """Apply ``vec`` to the elements cpu_kernel_vec's vector loop computes, ``scalar`` to the
    rest (the arrays in ``more`` are further inputs of the same shape); ``grain`` the
    kernel's grain size (iterator.thread_ranges)."""
    x = np.asarray(x)
    arrays = np.broadcast_arrays(x, *more) if more else [x]
    mask = _batched_mask(x, more, vector_bytes, grain)
    if mask is None:
        if all(a.flags.c_contiguous for a in arrays):  # one row, walked in memory order
            return _split_flat(arrays, x.dtype, _lanes(x, vector_bytes), vec, scalar, grain)
        mask = vector_mask(arrays[0].shape, [a.strides for a in arrays], x.dtype.itemsize,
                           _lanes(x, vector_bytes), grain)
    out = np.empty(arrays[0].shape, x.dtype)
    if mask.any():
        out[mask] = vec(*[a[mask] for a in arrays])
    if not mask.all():
        rest = ~mask
        out[rest] = scalar(*[a[rest] for a in arrays])
    return out


def _split_flat(arrays: list, dtype: Any, lanes: int, vec: Any, scalar: Any,
                grain: int = GRAIN_SIZE) -> Any:
    """``_split`` of C-contiguous arrays of one shape: TensorIterator walks them as one row, so
    each thread's range (iterator.thread_ranges) takes the vector lambda for its whole pairs of
    vectors and the scalar one for the rest: ``vector_mask``'s answer as slices, without the
    mask."""
    shape = arrays[0].shape
    flats = [a.reshape(-1) for a in arrays]
    out = np.empty(flats[0].shape, dtype)
    for begin, end in thread_ranges(out.shape[0], grain=grain):
        cut = end - (end - begin) % (2 * lanes)
        if cut > begin:
            out[begin:cut] = vec(*[a[begin:cut] for a in flats])
        if end > cut:
            out[cut:end] = scalar(*[a[cut:end] for a in flats])
    return out.reshape(shape)


def _batched_mask(x: Any, more: tuple, vector_bytes: int, grain: int = GRAIN_SIZE) -> Any:
    """Inside vmap, for one sample's contiguous arrays that are all batched: PyTorch's kernel
    runs once over the whole chunk, so an element's lane (vector or scalar) follows its place
    in the chunk's array, row ``row`` of ``chunk``; else None."""
    arrays = (x, *more)
    if any(not isinstance(a, np.ndarray) or a.shape != x.shape or not a.flags.c_contiguous
           for a in arrays):
        return None
    place = batch_place(*arrays)
    if place is None:
        return None
    row, chunk = place
    itemsize = x.dtype.itemsize
    strides = [(x.size * itemsize, *a.strides) for a in arrays]
    return vector_mask((chunk, *x.shape), strides, itemsize, _lanes(x, vector_bytes),
                       grain)[row]


def vector(name: str, dtype: Any) -> Any:
    """The function PyTorch's vector lanes call for the C name ``name`` (``exp``, ``log1p``
    ...) on the run's machine: SLEEF's on AVX2 and AVX512, ported for float32 (sleef.py) and
    float64 (sleef64.py; the correctly rounded stand-in for the functions not ported: float32
    sinh and cosh ...), the C library's for asinh and acosh (``_MAPPED``) and on DEFAULT,
    whose generic ``Vectorized`` maps ``std::exp`` over its lanes."""
    if machine.current().capability == "DEFAULT" or _numpy_name(name) in _MAPPED:
        return scalar(name, dtype)
    ports = _SLEEF32 if np.dtype(dtype) == F32 else _SLEEF64
    port = ports.get(_numpy_name(name))
    return port if port is not None else functools.partial(correctly_rounded, _numpy_name(name))


def scalar(name: str, dtype: Any) -> Any:
    """The C library's ``name`` in ``dtype``, which PyTorch's scalar code calls (glibc's
    float32 ``expf`` ported and vectorised, the rest through clib.py)."""
    if name == "exp" and np.dtype(dtype) == F32:
        return libm.expf
    return functools.partial(clib.call, name)


def madd(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` as the kernels' compiled code computes it: one fused multiply-add on AVX2
    and AVX512 (``-ffp-contract=fast`` with FMA enabled), a multiply then an add on DEFAULT."""
    if machine.current().fma:
        return fma32(a, b, c) if np.result_type(a, b, c) == F32 else fma64(a, b, c)
    return a * b + c


# SLEEF's float32 functions ported (sleef.py), by NumPy's name of the C function
_SLEEF32 = {"exp": sleef.expf, "log": sleef.logf, "log1p": sleef.log1pf, "expm1": sleef.expm1f,
            "exp2": sleef.exp2f, "arctan2": sleef.arctan2f, "tanh": sleef.tanhf}
# and the float64 ones (sleef64.py)
_SLEEF64 = {"exp": sleef64.exp, "log": sleef64.log, "exp2": sleef64.exp2,
            "log1p": sleef64.log1p, "expm1": sleef64.expm1, "arctan2": sleef64.arctan2,
            "arctanh": sleef64.arctanh, "sinh": sleef64.sinh, "cosh": sleef64.cosh,
            "tanh": sleef64.tanh, "erf": sleef64.erf}
# Functions ``Vectorized`` maps the C library's over its lanes on every capability (no SLEEF
# call): asinh and acosh, float32 and float64 (measured: every bit glibc's on AVX2 and AVX512)
_MAPPED = frozenset(("arcsinh", "arccosh"))


def _numpy_name(c_name: str) -> str:
    """NumPy's own name of a C math function: ``arc`` for the leading ``a`` of the inverse
    trigonometric and hyperbolic ones (NumPy 1.26 has no ``asinh`` alias), else the same."""
    legacy = "arc" + c_name[1:]
    return legacy if c_name.startswith("a") and hasattr(np, legacy) else c_name


def _c_name(numpy_name: str) -> str:
    return "a" + numpy_name[3:] if numpy_name.startswith("arc") else numpy_name


def mkl(name: str, x: Any) -> Any:
    """An MKL VML function by its Array API (NumPy 2) name: MKL's own result when the library
    is installed (vml.py); else the correctly rounded result, float32 from float64 and float64
    from the x87 long double — except float64 asin and acos, where NumPy's own double agrees
    with MKL more often (99.6% against 91%, measured).  sinh and cosh are not VML's in
    PyTorch: SLEEF in the vector lanes, the C library after (``library``)."""
    if name in vml.NOT_VML:
        return library(name, x)
    if vml.available():
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


def library(name: str, *xs: Any) -> Any:
    """A function PyTorch takes from SLEEF and the C library rather than MKL (the inverse
    hyperbolic functions, sinh, cosh, exp2, the two-argument arctangent, hypot, the log of
    xlogy), ``name`` NumPy's: ``vector``'s function in the vector lanes, the C library's in
    each row's tail.  Scalars stay scalars."""
    dtype = np.result_type(*xs)
    c_name = _c_name(name)
    with np.errstate(all="ignore"):
        out = _split(np.asarray(xs[0]), _vector_bytes(), vector(c_name, dtype),
                     scalar(c_name, dtype), *[np.asarray(x) for x in xs[1:]])
    return out[()] if all(isinstance(x, np.generic) for x in xs) else out


def c_library(name: str, *xs: Any) -> Any:
    """The C library's ``name`` for every element (a scalar-only kernel's); scalars stay
    scalars."""
    out = scalar(name, np.result_type(*xs))(*xs)
    return out[()] if all(isinstance(x, np.generic) for x in xs) else np.asarray(out)


def correctly_rounded(name: str, *xs: Any) -> Any:
    """NumPy's ``name`` computed wider and rounded once to the inputs' dtype."""
    dtype = np.result_type(*xs)
    wide = np.float64 if dtype == F32 else np.longdouble
    with np.errstate(all="ignore"):
        out = getattr(np, name)(*(np.asarray(x, dtype=wide) for x in xs)).astype(dtype)
    return out[()] if all(isinstance(x, np.generic) for x in xs) else out


def erf(x: Any) -> Any:
    """vmsErf / vmdErf: MKL's when installed, else the C library's erf."""
    if vml.available():
        return vml.call("erf", x)
    return scalar("erf", np.asarray(x).dtype)(x)


def expm1(x: Any) -> Any:
    """``torch.expm1``: the vector lanes' function for every element (MKL's expm1 is disabled
    in vml.h)."""
    return vector("expm1", np.asarray(x).dtype)(x)


def log1p(x: Any) -> Any:
    """``torch.log1p``: the vector lanes' function for every element."""
    return vector("log1p", np.asarray(x).dtype)(x)


def _quiet(fn: Any, *args: Any) -> Any:
    with np.errstate(all="ignore"):
        return fn(*args)


def _lambdas(dtype: Any, formula: Any) -> tuple[Any, Any]:
    """A ``cpu_kernel_vec`` kernel's vector and scalar lambdas from one ``formula(fns)``,
    ``fns(name)`` giving the lanes' function (``vector``) or the C library's (``scalar``)."""
    return (formula(lambda name: vector(name, dtype)), formula(lambda name: scalar(name, dtype)))


def sigmoid(x: Any) -> Any:
    """sigmoid_kernel: 1 / (1 + exp(0 - a)) in the vector lanes, 1 / (1 + exp(-a)) after."""
    x = np.asarray(x)
    one = x.dtype.type(1)
    vec, tail = _lambdas(x.dtype, lambda f: lambda a: one / (one + f("exp")(-a)))
    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), vec, tail)


def logaddexp(a: Any, b: Any) -> Any:
    """logaddexp_kernel: max(a, b) + log1p(exp(-|a - b|)), a itself where a = b = +-inf; the
    lanes' exp and log1p, the C library's after."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))

    def formula(f: Any) -> Any:
        def fn(x: Any, y: Any) -> Any:
            out = np.maximum(x, y) + f("log1p")(f("exp")(-np.abs(x - y)))
            return np.where((x == y) & (np.abs(x) == np.inf), x, out)
        return fn

    with np.errstate(all="ignore"):
        return _split(a, _vector_bytes(), *_lambdas(a.dtype, formula), b)


def logsigmoid(x: Any) -> Any:
    """log_sigmoid_cpu_kernel: min(a, 0) - log1p(exp(-|a|)), the lanes' functions on every
    element (AVX2)."""
    x = np.asarray(x)
    f = functools.partial(vector, dtype=x.dtype)
    with np.errstate(all="ignore"):
        return np.minimum(x, x.dtype.type(0)) - f("log1p")(f("exp")(-np.abs(x)))


def logsigmoid_backward(grad: Any, x: Any) -> Any:
    """log_sigmoid_backward: (max_deriv - sign * (b / (1 + b))) * grad, b = exp(-|x|) as the
    forward's buffer; the subtraction of the product is one FMA (AVX2, AVX512)."""
    x = np.asarray(x)
    t = x.dtype.type
    neg = x < 0
    with np.errstate(all="ignore"):
        b = vector("exp", x.dtype)(-np.abs(x))
        q = b / (t(1) + b)
        return madd(-np.where(neg, t(1), t(-1)), q, np.where(neg, t(1), t(0))) * grad


def softplus(x: Any, beta: float, threshold: float) -> Any:
    """softplus_kernel: log1p(exp(a * beta)) / beta below the threshold (512-bit lanes on
    AVX512: measured, a row's tail from 16 float64 or 32 float32 elements on)."""
    x = np.asarray(x)
    t = x.dtype.type
    b, th = t(beta), t(threshold)

    def formula(f: Any) -> Any:
        return lambda a: np.where(a * b > th, a, f("log1p")(f("exp")(a * b)) / b)

    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), *_lambdas(x.dtype, formula))


def softplus_backward(grad: Any, x: Any, beta: float, threshold: float) -> Any:
    """softplus_backward_kernel: z = exp(b * beta); a * z / (z + 1) below the threshold."""
    x = np.asarray(x)
    t = x.dtype.type
    b, th, one = t(beta), t(threshold), t(1)

    def formula(f: Any) -> Any:
        def fn(a: Any, g: Any) -> Any:
            z = f("exp")(a * b)
            return np.where(a * b > th, g, g * z / (z + one))
        return fn

    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), *_lambdas(x.dtype, formula),
                      np.asarray(grad, x.dtype))


def elu(x: Any, alpha: float, scale: float, input_scale: float) -> Any:
    """elu_kernel (elu, selu, celu): a * scale above 0, expm1(a * input_scale) * (alpha * scale)
    at or below, the coefficients rounded to the dtype first; the lanes' expm1, the C
    library's after."""
    x = np.asarray(x)
    t = x.dtype.type
    neg, pos, nip = t(alpha) * t(scale), t(scale), t(input_scale)

    def formula(f: Any) -> Any:
        return lambda a: np.where(a > 0, a * pos, f("expm1")(a * nip) * neg)

    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), *_lambdas(x.dtype, formula))


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

        def formula(f: Any) -> Any:
            return lambda a, g: np.where(a > 0, g * pos, g * nip * neg * f("exp")(a * nip))

        return _split(b, _vector_bytes(), *_lambdas(b.dtype, formula), grad)


def silu(x: Any) -> Any:
    """silu_kernel: a / (1 + exp(-a)), the lanes' exp, the C library's after."""
    x = np.asarray(x)
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(),
                      *_lambdas(x.dtype, lambda f: lambda a: a / (one + f("exp")(-a))))


def silu_backward(grad: Any, x: Any) -> Any:
    """silu_backward_kernel: s = 1 / (1 + exp(-x)); grad * s * (1 + x * (1 - s)), the last
    multiply-add fused (AVX2, AVX512)."""
    x = np.asarray(x)
    one = x.dtype.type(1)
    grad = np.asarray(grad, x.dtype)

    def formula(f: Any) -> Any:
        def fn(a: Any, g: Any) -> Any:
            s = one / (one + f("exp")(-a))
            return g * s * madd(a, one - s, one)
        return fn

    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), *_lambdas(x.dtype, formula), grad)


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
    float32 and float64 lanes alike) on AVX2 and AVX512."""
    if y.__class__ is F64 and grad.__class__ is F64 and machine.current().fma:
        # a 0-d float64 tensor's value (a scalar script's tanh): madd's one FMA, at once
        v = float(y)
        return grad * fp.fma64_scalar(-v, v, 1.0)
    one = y.dtype.type(1)
    if y.dtype == F32 and y.ndim and y.size and machine.current().fma:
        if native.lib is not None and (np.shape(grad) == y.shape or np.size(grad) == 1 and
                                       np.ndim(grad) <= y.ndim):
            return native.tanh_backward32(grad, y)  # the same, in one C loop
        # NOTE: 1 - y * y is never subnormal for a float32 y (0, or at least 2**-46 in
        # magnitude: y * y is a multiple of 2**-46 from 1 up, and at most (1 - 2**-24)**2
        # below), so the float64 sum rounds to the fused result wherever it is not an inexact
        # sum on a float32 midpoint.  For |y| <= 1 (every sum at least 0, NaN not) there is
        # none: from 1/8 up the sum is exact (y * y a multiple of 2**-52 up to 1), and below
        # 1/8 no sum lands on a midpoint at all (every float32 checked:
        # tools/check_tanh_backward.py).  Beyond (an explicit call's y), midpoints settled.
        s = np.multiply(-y, y, dtype=np.float64)  # as fma32 forms it (a NaN's sign too)
        s += 1.0
        out = s.astype(F32)
        if not np.minimum.reduce(s, axis=None) >= 0:
            at = np.flatnonzero(fp.midpoints(s))
            if at.size:  # some sum on a midpoint
                ys = y.reshape(-1)[at]
                out.reshape(-1)[at] = fma32(-ys, ys, one)  # settled one by one
        return np.asarray(grad, y.dtype) * out
    return np.asarray(grad, y.dtype) * madd(-y, y, one)


def threshold_backward(grad: Any, x: Any, threshold: float) -> Any | None:
    """threshold_backward (relu's and threshold's gradient): 0 where ``x <= threshold``, else
    ``grad`` (a NaN ``x`` passes it), by one C loop where the compiled kernels are and both are
    of one float dtype and shape; None for the caller's ``where`` elsewhere."""
    dt = x.dtype
    if native.lib is None or dt not in native.FLOATS or grad.__class__ is not np.ndarray or \
            grad.dtype != dt or grad.shape != x.shape or not abs(threshold) <= _F32_MAX:
        return None  # (a threshold float32 cannot hold, or NaN, by the NumPy path too)
    return native.threshold_backward(grad, x, threshold)


_F32_MAX = float(np.finfo(np.float32).max)


def _wide(x: Any, dtype: Any) -> Any:
    """``x`` as the scalar lambdas' ``double`` operations see it: float32 widened (a Python
    float against a float32 array compares in float32 under NumPy's rules)."""
    return x.astype(F64) if dtype == F32 else x


def smooth_l1_backward(grad: Any, x: Any, y: Any, norm: float, beta: float) -> Any:
    """smooth_l1_backward_cpu_kernel (beta > 0), d = x - y: in the vector lanes ``norm *
    (sign(d) where |d| >= beta, else d / beta) * grad``, beta and norm in the dtype; in the
    scalar tail ``-norm * grad`` where d <= -beta, ``norm * grad`` where d >= beta, else
    ``norm * d * grad / beta``, the comparisons and the division by the double beta."""
    x = np.asarray(x)
    dt = x.dtype
    t = dt.type
    n, b = t(norm), t(beta)

    def vec(a: Any, c: Any, g: Any) -> Any:
        d = a - c
        return (n * np.where(np.abs(d) >= b, np.where(d > 0, t(1), t(-1)), d / b)) * g

    def tail(a: Any, c: Any, g: Any) -> Any:
        d = a - c
        wide = _wide(d, dt)
        mid = (_wide((n * d) * g, dt) / beta).astype(dt)
        return np.where(wide <= -beta, -n * g, np.where(wide >= beta, n * g, mid))

    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), vec, tail, np.asarray(y, dt), np.asarray(grad, dt))


def huber_backward(grad: Any, x: Any, y: Any, norm: float, delta: float) -> Any:
    """huber_backward_cpu_kernel, d = x - y: in the vector lanes ``norm * (sign(d) * delta
    where |d| >= delta, else d) * grad``, delta in the dtype; in the scalar tail ``-norm *
    grad * delta`` where d <= -delta, ``norm * grad * delta`` where d >= delta (the last
    product by the double delta), else ``norm * d * grad``."""
    x = np.asarray(x)
    dt = x.dtype
    t = dt.type
    n, h = t(norm), t(delta)

    def vec(a: Any, c: Any, g: Any) -> Any:
        d = a - c
        return (n * np.where(np.abs(d) >= h, np.where(d > 0, t(1), t(-1)) * h, d)) * g

    def tail(a: Any, c: Any, g: Any) -> Any:
        d = a - c
        wide = _wide(d, dt)
        edge = _wide(n * g, dt) * delta
        return np.where(wide <= -delta, (-edge).astype(dt),
                        np.where(wide >= delta, edge.astype(dt), (n * d) * g))

    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), vec, tail, np.asarray(y, dt), np.asarray(grad, dt))


def sigmoid_backward(grad: Any, y: Any) -> Any:
    """sigmoid_backward: (a * (1 - b)) * b."""
    one = y.dtype.type(1)
    return (grad * (one - y)) * y


def pow_scalar(x: Any, exponent: float) -> Any:
    """pow_tensor_scalar_kernel's special exponents (x * x, x * x * x, sqrt, 1 / x, ...); other
    float32 exponents by SLEEF's powf in the vector lanes (the C library's on DEFAULT) and
    ``std::pow(float, double)`` (float64 pow, rounded once) in the scalar tail; float64 alike,
    with SLEEF's double pow in the vector lanes and the C library's ``pow`` in the tail."""
    x = np.asarray(x)
    t = x.dtype.type
    with fp_ignored():
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
            return _split(x, _vector_bytes(), functools.partial(_pow_lanes, F32(exponent)),
                          lambda a: np.power(a.astype(np.float64), float(exponent)).astype(F32))
        return _split(x, _vector_bytes(), functools.partial(_pow_lanes, t(exponent)),
                      lambda a: clib.call("pow", a, np.full(a.shape, exponent)))


def _pow_lanes(exponent: Any, x: Any) -> Any:
    """``Vectorized<float>::pow`` (``Vectorized<double>``'s) of a broadcast exponent: SLEEF's
    pow on AVX2 and AVX512, the C library's lane by lane on DEFAULT."""
    if machine.current().capability == "DEFAULT":
        return clib.call("pow", x, np.full(x.shape, exponent, x.dtype))
    return sleef.powf(x, exponent) if x.dtype == F32 else sleef64.power(x, exponent)


# Vectorized<float>::erf() on AVX2 and AVX512 (vec256_float.h, vec512_float.h): Abramowitz and
# Stegun's 7.1.26 with SLEEF's expf, in explicit FMA intrinsics
_ERF_P = F32(0.3275911)
_ERF_POL = tuple(F32(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736,
                                  0.254829592))
_SIGN32 = np.uint32(0x80000000)
_SQRT1_2 = 0.70710678118654752440  # M_SQRT1_2
_GELU_BETA = 1.12837916709551257390 * 0.70710678118654752440 * 0.5  # M_2_SQRTPI * M_SQRT1_2 / 2


def _erf_lanes(x: Any) -> Any:
    """``Vectorized<float>::erf()``: sign(x) * (1 - t * r(t) * exp(-x * x)), t = 1 / (1 + p|x|);
    the C library's erff lane by lane on DEFAULT (the generic Vectorized maps it)."""
    if machine.current().capability == "DEFAULT":
        return clib.call("erf", x)
    sign = x.view(np.uint32) & _SIGN32
    t = ONE / fma32(_ERF_P, np.abs(x), ONE)
    r = _ERF_POL[0]
    for c in _ERF_POL[1:]:
        r = fma32(r, t, c)
    e = sleef.expf(-(x * x))
    return (fma32(-e * t, r, ONE).view(np.uint32) ^ sign).view(F32)


def _erf_vector(dtype: Any) -> Any:
    """``Vectorized<float>::erf()`` (``_erf_lanes``) or ``Vectorized<double>::erf()``: SLEEF's
    erf (sleef64.py) on AVX2 and AVX512, the C library's on DEFAULT (``vector``)."""
    return _erf_lanes if np.dtype(dtype) == F32 else vector("erf", dtype)


def gelu_aten(x: Any) -> Any:
    """GeluKernelImpl (approximate='none'), ATen's path: every float64 input, and the float32
    ones oneDNN does not take (one element, or not contiguous): x * 0.5 * (1 + erf(x *
    M_SQRT1_2)), the lanes' erf (``_erf_vector``), the C library's in each row's tail."""
    x = np.asarray(x)
    t = x.dtype.type
    half, one, alpha = t(0.5), t(1), t(_SQRT1_2)

    def formula(erf: Any) -> Any:
        return lambda a: a * half * (one + erf(a * alpha))

    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), formula(_erf_vector(x.dtype)),
                      formula(functools.partial(clib.call, "erf")), grain=_gelu_grain(x.size))


def gelu_backward_aten(grad: Any, x: Any) -> Any:
    """GeluBackwardKernelImpl (approximate='none'), ATen's path (as ``gelu_aten``): dy * (cdf +
    x * pdf), cdf = 0.5 * (1 + erf(x * M_SQRT1_2)), pdf = beta * exp(x * x * -0.5); in the
    vector lanes the lanes' erf and SLEEF's exp, ``cdf + x * pdf`` one FMA (AVX2, AVX512); in
    each row's tail the C library's erf and exp, the multiply and the add rounded apart
    (measured on AVX2, float32 and float64: the scalar lambda's are not contracted; float64
    fused misses 414 of 4096 tail values, unfused 396 of 4096 lane values)."""
    x = np.asarray(x)
    t = x.dtype.type
    half, mhalf, one, alpha = t(0.5), t(-0.5), t(1), t(_SQRT1_2)
    beta = t(_GELU_BETA)

    def formula(erf: Any, exp: Any, muladd: Any) -> Any:
        def fn(a: Any, g: Any) -> Any:
            cdf = half * (one + erf(a * alpha))
            pdf = beta * exp(a * a * mhalf)
            return g * muladd(a, pdf, cdf)
        return fn

    vec = formula(_erf_vector(x.dtype), vector("exp", x.dtype), madd)
    tail = formula(functools.partial(clib.call, "erf"), scalar("exp", x.dtype),
                   lambda a, b, c: c + a * b)
    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), vec, tail, np.asarray(grad, x.dtype))


# GeluKernelImpl's constants: kBeta = M_SQRT2 * M_2_SQRTPI * 0.5 (a double, then the dtype's),
# kKappa = 0.044715
_TANH_BETA = 1.41421356237309504880 * 1.12837916709551257390 * 0.5
_TANH_KAPPA = 0.044715


def _gelu_grain(n: int) -> int:
    """GeluKernelImpl's grain size: ``numel / threads`` above 16384 elements, else
    GRAIN_SIZE (the backward kernel keeps GRAIN_SIZE)."""
    return n // machine.current().threads if n > 16384 else GRAIN_SIZE


def gelu_tanh(x: Any) -> Any:
    """GeluKernelImpl (approximate='tanh'), float32 and float64: 0.5 * x * (1 + tanh(kBeta * (x
    + kKappa * x_cube))), x_cube = x * x * x; SLEEF's tanh in the vector lanes (the lanes'
    function), the C library's in each row's tail.  ``x + kKappa * x_cube`` is one FMA in both
    where the build has FMA (``madd``; measured on AVX2, float32 and float64; DEFAULT's
    multiply and add measured too)."""
    x = np.asarray(x)
    t = x.dtype.type
    beta, kappa, half, one = t(_TANH_BETA), t(_TANH_KAPPA), t(0.5), t(1)

    def formula(f: Any) -> Any:
        tanh = f("tanh")
        return lambda a: half * a * (one + tanh(beta * madd(kappa, a * a * a, a)))

    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), *_lambdas(x.dtype, formula), grain=_gelu_grain(x.size))


def gelu_tanh_backward(grad: Any, x: Any) -> Any:
    """GeluBackwardKernelImpl (approximate='tanh'), float32 and float64: dy * (0.5 * (1 + th) +
    (0.5 * x) * (1 - th * th) * (kBeta * (1 + 3 * kKappa * x_sq))), th = tanh of the forward's
    inner value (the lanes' tanh, the C library's in each row's tail).  Three multiply-adds are
    fused where the build has FMA (``madd``; measured on AVX2 in the vector lanes and the
    scalar tail, float32 and float64, against every other choice): ``x + kKappa * x_cube``,
    ``1 - th * th`` and ``1 + (3 * kKappa) * x_sq``.  The last sum is the add of ``0.5 * (1 +
    th)``, exact, so whether the compiler fuses that product in makes no difference (fusing
    the other one, ``left * tanh_derivative * inner_derivative``, does not match)."""
    x = np.asarray(x)
    t = x.dtype.type
    beta, kappa, half, one = t(_TANH_BETA), t(_TANH_KAPPA), t(0.5), t(1)
    kappa3 = t(3) * kappa

    def formula(f: Any) -> Any:
        tanh = f("tanh")

        def fn(a: Any, g: Any) -> Any:
            sq = a * a
            th = tanh(beta * madd(kappa, sq * a, a))
            right = (half * a) * madd(-th, th, one) * (beta * madd(kappa3, sq, one))
            return g * (half * (one + th) + right)
        return fn

    with np.errstate(all="ignore"):
        return _split(x, _vector_bytes(), *_lambdas(x.dtype, formula), np.asarray(grad, x.dtype))
