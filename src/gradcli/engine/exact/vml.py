"""MKL's vector math library, called as PyTorch calls it, when the ``mkl`` package is installed.

PyTorch's CPU build computes exp, log, sqrt, sin, cos, tan, their inverses, tanh and erf with
MKL's VML (aten/src/ATen/cpu/vml.h: ``vmsSin(n, in, out, VML_HA | VML_FTZDAZ_OFF |
VML_ERRMODE_IGNORE)`` over each contiguous chunk).  MKL's algorithms are closed and not
correctly rounded, so no port reproduces them; the library itself does, element for element,
whatever the chunking (VML is elementwise).  libmkl.py loads the library.  Without it,
``available()`` is False and unary.py gives the correctly rounded value, which MKL's is most of
the time.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import numpy as np

from . import libmkl, native

# mkl_vml_defines.h: VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE, PyTorch's mode.
MODE = 0x00000002 | 0x00140000 | 0x00000100
# PyTorch's sinh and cosh do not go through VML (SLEEF in the vector lanes, glibc after).
NOT_VML = frozenset(("sinh", "cosh"))

_functions: dict[tuple[str, str], Any] = {}


def available() -> bool:
    """True when MKL's VML can be called (libmkl.py loads the library once per process)."""
    return libmkl.library() is not None


def _function(name: str, dtype: np.dtype) -> Any:
    key = (name, dtype.char)
    fn = _functions.get(key)
    if fn is None:
        prefix = "vms" if dtype == np.float32 else "vmd"
        fn = getattr(libmkl.library(), prefix + ("Ln" if name == "log" else name.capitalize()))
        # void vmsSin(const MKL_INT n, const float a[], float r[], MKL_INT64 mode), LP64
        fn.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        fn.restype = None
        _functions[key] = fn
    return fn


_addresses: dict[tuple[str, str], int] = {}


def _address(name: str, dtype: np.dtype) -> int:
    """The address of VML's function for ``name`` and ``dtype`` (for native.py's calls)."""
    key = (name, dtype.char)
    address = _addresses.get(key)
    if address is None:
        address = _addresses[key] = ctypes.cast(_function(name, dtype), ctypes.c_void_p).value
    return address


_CHUNK = 1 << 30  # MKL_INT is 32 bits in the LP64 interface
_scalars = threading.local()  # per thread: runs in threads must not share the buffers


def _scalar_call(name: str, x: Any) -> tuple:
    """(VML's function, its one-element source and result buffers, x's type) for a NumPy
    scalar ``x``, made once per thread, function and dtype."""
    calls = getattr(_scalars, "calls", None)
    if calls is None:
        calls = _scalars.calls = {}
    key = (name, x.dtype.char)
    entry = calls.get(key)
    if entry is None:
        kind = ctypes.c_float if x.dtype == np.float32 else ctypes.c_double
        entry = calls[key] = (_function(name, x.dtype), (kind * 1)(), (kind * 1)(),
                              x.dtype.type)
    return entry


def call(name: str, x: Any) -> Any:
    """VML's function for the Array API's ``name`` (vmsExp for "exp") of a float32 or float64 NumPy array or scalar (``available()`` first);
    a scalar stays a scalar."""
    libmkl.calls += 1
    lib = native.lib
    if isinstance(x, np.generic):  # a scalar script's value: one element through the buffers
        if lib is not None:
            return x.dtype.type(lib.vml_scalar(_address(name, x.dtype), x.dtype.char == "d",
                                               float(x), MODE))
        fn, src, dst, scalar = _scalar_call(name, x)
        src[0] = x
        fn(1, src, dst, MODE)
        return scalar(dst[0])
    a = x if x.flags.c_contiguous else np.asarray(x, order="C")
    out = np.empty(a.shape, a.dtype)
    n = a.size
    if lib is not None and n <= _CHUNK:  # the same call from C
        lib.vml(_address(name, a.dtype), a.dtype.char == "d", a, out, MODE)
        return out
    fn = _function(name, x.dtype)
    if n <= _CHUNK:
        if n:
            fn(n, a.ctypes.data, out.ctypes.data, MODE)
        return out
    flat_in, flat_out = a.reshape(-1), out.reshape(-1)
    for start in range(0, n, _CHUNK):
        fn(min(_CHUNK, n - start), flat_in[start:].ctypes.data, flat_out[start:].ctypes.data,
           MODE)
    return out
