"""Intel MKL, the library PyTorch's x86 CPU build computes with, loaded as PyTorch runs it.

PyTorch 2.13's wheels link MKL 2024.2 and call its vector math (VML: exp, log, tanh ...) and
BLAS (sdot, sgemv, sgemm and their float64 forms) for float tensors.  MKL's kernels are closed
and their order of additions depends on the shape, the CPU and the number of threads, so no
port reproduces their bits; the same library, called with the same arguments, does.  Intel
publishes it on PyPI as ``mkl`` (a dependency on x86-64 Linux, pinned to PyTorch's version):
its ``libmkl_rt`` is loaded on first use with the Intel OpenMP threading layer and the thread
count of the machine gradcli emulates (machine.py: PyTorch's default there, one per core),
because a threaded sgemm splits some products between threads and sums their parts in
another order.  OpenMP's worker threads wait as Intel's runtime has them wait by default
(``KMP_BLOCKTIME``): waking sleeping threads cost a small sgemm 18 us instead of 4.5.

Without the library, ``library()`` is None: vml.py and blas.py then fall back (the correctly
rounded value for VML's functions, NumPy's matmul).  ``GRADCLI_MKL`` overrides the search: a
path to ``libmkl_rt.so``, or ``0`` to not use MKL.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Any

from .machine import THREADS

_INTEL = 0  # mkl_service.h: MKL_THREADING_INTEL
_library: Any = None  # None: not looked for yet; False: not found


def library() -> Any:
    """The loaded ``libmkl_rt`` (a ctypes library), or None without MKL."""
    global _library
    if _library is None:
        _library = _load()
    return _library or None


def _candidates() -> list[str]:
    """Where ``pip install mkl`` puts libmkl_rt: the data scheme's lib/ of this environment
    (a venv's or the system's), else wherever the installed package's record says."""
    names = ("libmkl_rt.so.2", "libmkl_rt.so")
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
    """libmkl_rt with Intel's threading layer and PyTorch's thread count, or False."""
    setting = os.environ.get("GRADCLI_MKL", "")
    if setting == "0":
        return False
    paths = [setting] if setting else _candidates()
    for path in paths:
        if not os.path.isfile(path):
            continue
        try:
            lib = ctypes.CDLL(path)
            lib.MKL_Set_Threading_Layer(_INTEL)
            lib.MKL_Set_Num_Threads(THREADS)
        except (OSError, AttributeError):
            continue
        return lib
    return False
