"""The compiled exact kernels (_native.c), where the install could build them.

The C loops compute, operation for operation, what the NumPy code of exact/ computes: fp.py's
fused multiply-adds, sleef.py's ``expf``/``logf``, sleef64.py's ``exp``/``log`` and
polynomials, softmaxes.py's last-dimension log_softmax and its backward (float32 and float64),
reduce.py's cascade sums, nll_loss's sum and its gradient's scatter, an indexing's gradient
scatter-add (numpy.add.at's additions), unary.py's ``tanh_backward`` and
``threshold_backward`` (relu's gradient), layernorm.py's row moments, output and gradients
(``layer_norm_*``: tests/test_layer_norm_exact.py holds those to the NumPy code),
distributions.py's avx_mathfun steps of the float32 normals, generator.py's randperm
shuffles; and they make the calls blas.py, vml.py and clib.py make through ctypes (MKL's
gemm/gemv/VML, the C library's math) from C.  One call over the
array instead of tens of whole-array NumPy passes (expf of 32 x 27 floats: ~45 NumPy calls,
~50 us, against ~3 us).  The NumPy code stays the definition, the fallback where no C compiler
was found at install time and the path for other array libraries; tests/test_native.py holds
both to the same bits.

``GRADCLI_PURE=1`` in the environment turns the compiled loops off (for comparing the two).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import numpy as np

F32 = np.float32
F64 = np.float64
FLOATS = (np.dtype(F32), np.dtype(F64))  # the dtypes the loops take

try:
    if os.environ.get("GRADCLI_PURE"):
        raise ImportError("GRADCLI_PURE is set")
    lib: Any = importlib.import_module(f"{__package__}._native")  # optional: looked up by name
except ImportError:  # not built (no C compiler at install time), or turned off
    lib = None


def _flat(x: Any, dtype: Any) -> Any:
    """``x`` as a C-contiguous NumPy array of ``dtype`` (a copy only where it is not one)."""
    if x.__class__ is not np.ndarray or x.dtype != dtype or not x.flags.c_contiguous:
        x = np.ascontiguousarray(x, dtype)
    return x


def unary(fn: Any, x: Any) -> Any:
    """``fn`` (``lib.expf``, ``lib.logf`` of float32, ``lib.exp64``, ``lib.log64`` of float64)
    over an array of its dtype and any shape, 0-d included."""
    src = x if x.flags.c_contiguous else x.copy()
    out = np.empty(src.shape, src.dtype)
    fn(src, out)
    return out


def fma32(a: Any, b: Any, c: Any) -> Any | None:
    """float32 ``a * b + c`` rounded once, or None where the operands do not broadcast by a
    size-one operand alone (the caller's NumPy path then handles them)."""
    return _elementwise(lib.fma32, (a, b, c), (F32, F32, F32), F32)


def fma_add(p: Any, c: Any) -> Any | None:
    """``p + c`` rounded once to float32, for an exact float64 product ``p``; None as fma32."""
    return _elementwise(lib.fma_add, (p, c), (F64, F32), F32)


def fma64(a: Any, b: Any, c: Any) -> Any | None:
    """float64 ``a * b + c`` rounded once; None as fma32."""
    return _elementwise(lib.fma64, (a, b, c), (F64, F64, F64), F64)


def poly64(powers: tuple, coeffs: tuple) -> Any | None:
    """SLEEF's POLYn of float64 ``powers`` (x, x**2, x**4, x**8: as many as ``coeffs`` need)
    and ``coeffs`` (highest first), each term one fused multiply-add in ``sleef64._poly``'s
    order, in one C loop; None as fma32."""
    table = _COEFFS.get(coeffs)
    if table is None:
        table = _COEFFS[coeffs] = np.asarray(coeffs, F64)
    return _elementwise(lambda *xs: lib.poly64(xs[:-1], table, xs[-1]), powers,
                        (F64,) * len(powers), F64)


_COEFFS: dict = {}  # a polynomial's coefficients as one float64 array, by their tuple


def tanh_backward32(grad: Any, y: Any) -> Any:
    """float32 ``grad * (1 - y * y)``, the difference fused, for ``grad`` of ``y``'s shape or
    one element."""
    out = np.empty(y.shape, F32)
    lib.tanh_backward32(_flat(grad, F32), _flat(y, F32), out)
    return out


def threshold_backward(grad: Any, x: Any, threshold: float) -> Any:
    """0 where ``x <= threshold``, else ``grad``: both of ``x``'s shape and float dtype."""
    out = np.empty(x.shape, x.dtype)
    lib.threshold_backward(_flat(grad, x.dtype), _flat(x, x.dtype), float(threshold), out)
    return out


def _elementwise(fn: Any, xs: tuple, dtypes: tuple, out_dtype: Any) -> Any | None:
    """``fn(*xs, out)`` of the operands as C-contiguous arrays of ``dtypes``, into a new array of
    their common shape: the shape all of them share, one-element operands aside (the C loops
    broadcast those), or the longest one-element shape; None where two differ otherwise or a
    one-element operand has more dimensions.  One pass over the operands: SLEEF's polynomials
    call this once a term (exact/sleef64.py)."""
    shape = None  # the operands' of more than one element
    ones = ()  # the longest one-element operand's
    flats = []
    for x, dt in zip(xs, dtypes):
        s = getattr(x, "shape", ())  # (ascontiguousarray makes a 0-d value 1-d)
        if x.__class__ is not np.ndarray or x.dtype is not dt and x.dtype != dt or \
                not x.flags.c_contiguous:
            x = np.ascontiguousarray(x, dt)
        if x.size != 1:
            if shape is None:
                shape = s
            elif s != shape:
                return None
        elif len(s) > len(ones):
            ones = s
        flats.append(x)
    if shape is None:
        shape = ones
    elif len(ones) > len(shape):
        return None
    out = np.empty(shape, out_dtype)
    fn(*flats, out)
    return out
