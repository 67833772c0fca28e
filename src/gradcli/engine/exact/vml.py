"""MKL's vector math library, called as PyTorch calls it, when the ``mkl`` package is installed.

PyTorch's CPU build computes exp, log, sqrt, sin, cos, tan, their inverses, tanh and erf with
MKL's VML (aten/src/ATen/cpu/vml.h: ``vmsSin(n, in, out, VML_HA | VML_FTZDAZ_OFF |
VML_ERRMODE_IGNORE)`` over each contiguous chunk).  MKL's algorithms are closed and not
correctly rounded, so no port reproduces them; the library itself does, element for element,
whatever the chunking (VML is elementwise).  Intel publishes it on PyPI as ``mkl`` (a
dependency on x86-64 Linux): its ``libmkl_rt`` is loaded here on first use, with the
sequential threading layer (no OpenMP runtime is started).  Without it, ``available()`` is
False and unary.py gives the correctly rounded value, which MKL's is most of the time.

``GRADCLI_MKL`` overrides the search: a path to ``libmkl_rt.so``, or ``0`` to not use MKL.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from typing import Any

import numpy as np

# mkl_vml_defines.h: VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE, PyTorch's mode.
MODE = 0x00000002 | 0x00140000 | 0x00000100
_SEQUENTIAL = 1  # mkl_service.h: MKL_THREADING_SEQUENTIAL
# PyTorch's sinh and cosh do not go through VML (SLEEF in the vector lanes, glibc after).
NOT_VML = frozenset(("sinh", "cosh"))

_functions: dict[tuple[str, str], Any] = {}
_library: Any = None  # None: not looked for yet; False: not found


def _candidates() -> list[str]:
    """Where ``pip install mkl`` puts libmkl_rt: the data scheme's lib/ of this environment
    (a venv's or the system's), else wherever the installed package's record says."""
    names = ("libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so")
    found = [p for d in dict.fromkeys((sys.prefix, sys.base_prefix)) for n in names
             if os.path.isfile(p := os.path.join(d, "lib", n))]
    if found:
        return found
    from importlib import metadata  # 60 ms to import: only when the usual place is empty
    try:
        files = metadata.files("mkl") or []
    except metadata.PackageNotFoundError:
        return []
    return [str(f.locate()) for f in files if f.name.startswith("libmkl_rt.so")]


def _load() -> Any:
    """libmkl_rt with the sequential layer, or False."""
    setting = os.environ.get("GRADCLI_MKL", "")
    if setting == "0":
        return False
    paths = [setting] if setting else _candidates()
    for path in paths:
        if not os.path.isfile(path):
            continue
        try:
            lib = ctypes.CDLL(path)
            lib.MKL_Set_Threading_Layer(_SEQUENTIAL)
        except (OSError, AttributeError):
            continue
        return lib
    return False


def available() -> bool:
    """True when MKL's VML can be called (found and loaded once per process)."""
    global _library
    if _library is None:
        _library = _load()
    return _library is not False


def _function(name: str, dtype: np.dtype) -> Any:
    key = (name, dtype.char)
    fn = _functions.get(key)
    if fn is None:
        prefix = "vms" if dtype == np.float32 else "vmd"
        fn = getattr(_library, prefix + ("Ln" if name == "log" else name.capitalize()))
        # void vmsSin(const MKL_INT n, const float a[], float r[], MKL_INT64 mode), LP64
        fn.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        fn.restype = None
        _functions[key] = fn
    return fn


_CHUNK = 1 << 30  # MKL_INT is 32 bits in the LP64 interface
_scalars = threading.local()  # per thread: runs in threads must not share the buffers


def _buffers(dtype: np.dtype) -> tuple[Any, Any]:
    kind = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    key = "f" if dtype == np.float32 else "d"
    pair = getattr(_scalars, key, None)
    if pair is None:
        pair = ((kind * 1)(), (kind * 1)())
        setattr(_scalars, key, pair)
    return pair


def call(name: str, x: Any) -> Any:
    """VML's function for the Array API's ``name`` (vmsExp for "exp") of a float32 or float64 NumPy array or scalar (``available()`` first);
    a scalar stays a scalar."""
    fn = _function(name, x.dtype)
    if isinstance(x, np.generic):
        src, dst = _buffers(x.dtype)
        src[0] = x
        fn(1, src, dst, MODE)
        return x.dtype.type(dst[0])
    a = x if x.flags.c_contiguous else np.asarray(x, order="C")
    out = np.empty(a.shape, a.dtype)
    n = a.size
    if n <= _CHUNK:
        if n:
            fn(n, a.ctypes.data, out.ctypes.data, MODE)
        return out
    flat_in, flat_out = a.reshape(-1), out.reshape(-1)
    for start in range(0, n, _CHUNK):
        fn(min(_CHUNK, n - start), flat_in[start:].ctypes.data, flat_out[start:].ctypes.data,
           MODE)
    return out
