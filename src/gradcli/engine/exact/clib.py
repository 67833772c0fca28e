"""The C library's math functions, called as PyTorch's scalar code calls them.

Where PyTorch's kernels leave an element to scalar C++ (``std::expm1(float)`` is ``expm1f``,
``std::log1p(double)`` is ``log1p``) they call the C library of the machine they run on, and so
does this module, through ctypes, element by element: the same functions, the same bits.  That
is every element of the DEFAULT capability's kernels (their generic ``Vectorized`` maps
``std::exp`` over its lanes) and the scalar tails of the AVX2 and AVX512 ones.  A call costs
about a microsecond; the tails are short, and DEFAULT is the capability of CPUs without AVX2.

glibc's ``expf`` has a vectorised port in libm.py, used where whole arrays go through it.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from . import native

F32 = np.float32
F64 = np.float64


@functools.cache
def _library() -> Any:
    """The C math library: glibc's by its soname (``find_library`` runs ldconfig in a
    subprocess and imports ctypes.util's dependencies: only where that name is absent)."""
    try:
        return ctypes.CDLL("libm.so.6")
    except OSError:
        from ctypes.util import find_library

        name = find_library("m")
    try:
        return ctypes.CDLL(name)
    except OSError:  # no separate libm (the functions live in the C library itself)
        return ctypes.CDLL(None)


def _symbol(name: str, dtype: np.dtype) -> Any:
    """The C function for ``name`` (the double one: ``expm1``) in ``dtype`` (``expm1f`` for
    float32), as ctypes finds it in the library."""
    return getattr(_library(), name + ("f" if dtype == F32 else ""))


@functools.cache
def _function(name: str, dtype: np.dtype, arity: int) -> Callable[..., Any]:
    """``_symbol``'s function as a NumPy ufunc over objects."""
    kind = ctypes.c_float if dtype == F32 else ctypes.c_double
    fn = _symbol(name, dtype)
    fn.argtypes = [kind] * arity
    fn.restype = kind
    return np.frompyfunc(fn, arity, 1)


@functools.cache
def _address(name: str, dtype: np.dtype) -> int:
    """The address of ``_symbol``'s function (for the compiled loops)."""
    return ctypes.cast(_symbol(name, dtype), ctypes.c_void_p).value


def call(name: str, *xs: Any) -> Any:
    """The C library's ``name`` (``exp``, ``log1p``, ``hypot`` ...) on float32 or float64 arrays
    or scalars of one dtype, elementwise; a scalar stays a scalar.  The compiled kernels
    (native.py) loop over the same function in C where they are built (0.01 us an element
    against about 1 us through ctypes)."""
    arrays = np.broadcast_arrays(*(np.asarray(x) for x in xs))
    dtype = arrays[0].dtype
    if native.lib is not None and dtype in _FLOATS and len(xs) <= 2 \
            and all(a.dtype == dtype for a in arrays):
        result = np.empty(arrays[0].shape, dtype)
        native.lib.map(_address(name, dtype), dtype == F64, result,
                       *(np.ascontiguousarray(a) for a in arrays))
    else:
        out = _function(name, dtype, len(xs))(*arrays)
        result = np.asarray(out, dtype=dtype).reshape(arrays[0].shape)
    return result[()] if all(isinstance(x, np.generic) for x in xs) else result


_FLOATS = (np.dtype(F32), np.dtype(F64))
