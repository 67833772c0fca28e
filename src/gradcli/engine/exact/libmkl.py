"""Intel MKL, the library PyTorch's x86 CPU build computes with, loaded as PyTorch runs it.

PyTorch 2.13's wheels link MKL 2024.2 and call its vector math (VML: exp, log, tanh ...) and
BLAS (sdot, sgemv, sgemm and their float64 forms) for float tensors.  MKL's kernels are closed
and their order of additions depends on the shape, the CPU and the number of threads, so no
port reproduces their bits; the same library, called with the same arguments, does.  Intel
publishes it on PyPI as ``mkl`` (a dependency on x86-64 Linux, pinned to PyTorch's version):
its ``libmkl_rt`` is loaded on first use with the Intel OpenMP threading layer (GNU's where
GNU's OpenMP is loaded already) and left with its own defaults, which are PyTorch's (its thread count is ``torch.get_num_threads()``'s,
machine.py).  A run whose machine has a thread count set (``torch.set_num_threads``) gets it
applied before each product, as PyTorch applies it (``mkl_set_num_threads_local`` and MKL's
dynamic adjustment off), because a threaded sgemm splits some products between threads and
sums their parts in another order.  OpenMP's worker threads wait as Intel's runtime has them wait by default
(``KMP_BLOCKTIME``): waking sleeping threads cost a small sgemm 18 us instead of 4.5.

Without the library, ``library()`` is None: vml.py and blas.py then fall back (the correctly
rounded value for VML's functions, NumPy's matmul).  ``GRADCLI_MKL`` overrides the search: a
path to ``libmkl_rt.so``, or ``0`` to not use MKL.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

_INTEL, _GNU = 0, 3  # mkl_service.h: MKL_THREADING_INTEL, MKL_THREADING_GNU
_library: Any = None  # None: not looked for yet; False: not found
_DYNAMIC_DEFAULT = 1  # MKL_Get_Dynamic() at load: MKL_DYNAMIC's setting, true unless FALSE
_DEFAULT_THREADS = 0  # MKL_Get_Max_Threads() at load: the environment's and the CPUs' count
# calls made into MKL (vml.py, blas.py) in this process: which results depend on MKL's code path
calls = 0


def library() -> Any:
    """The loaded ``libmkl_rt`` (a ctypes library), or None without MKL."""
    global _library
    if _library is None:
        _library = _load()
    return _library or None


def max_threads() -> int:
    """MKL's ``mkl_get_max_threads()`` as the process started it, before any thread count was
    set (0 without MKL)."""
    return _DEFAULT_THREADS if library() is not None else 0


_local = threading.local()  # the thread count set in this thread (MKL keeps one per thread)
_dynamic: list[int] = []  # MKL's dynamic adjustment as last set (process-wide in MKL)
_changes = [0]  # how often a thread changed _dynamic: another thread's change voids a fast path


def configure(machine: Any) -> None:
    """Give MKL the thread count of ``machine`` (an ``engine.machine.Machine``) before a call
    that depends on it: for a count the run set, at::set_num_threads's
    ``mkl_set_num_threads_local(n)`` and ``mkl_set_dynamic(false)``; else MKL's own defaults,
    which are PyTorch's.  The same machine as this thread's last call, outside ATen's parallel
    region and with no other thread's change between, needs nothing (a machine's thread
    count never changes: ``with_threads`` makes another)."""
    local = _local
    if getattr(local, "machine", None) is machine and local.changes == _changes[0]:
        return
    if machine.explicit_threads:
        threads, dynamic = machine.threads, 0
    else:
        threads, dynamic = 0, _DYNAMIC_DEFAULT  # 0: this thread follows the global setting
    if getattr(_local, "serial", 0):  # inside ATen's parallel region: MKL on one thread
        threads = 1
    if getattr(_local, "threads", 0) != threads or _dynamic[-1:] != [dynamic]:
        lib = library()
        lib.MKL_Set_Num_Threads_Local(threads)
        lib.MKL_Set_Dynamic(dynamic)
        _local.threads = threads
        if _dynamic[-1:] != [dynamic]:
            _changes[0] += 1
        _dynamic[:] = [dynamic]
    # the fast path above, unless inside the parallel region (where the count is 1)
    local.machine = None if getattr(_local, "serial", 0) else machine
    local.changes = _changes[0]


@contextlib.contextmanager
def single_thread() -> Iterator[None]:
    """MKL on one thread for the calls made inside (ATen's products inside at::parallel_for,
    where OpenMP does not nest)."""
    _local.serial = getattr(_local, "serial", 0) + 1
    _local.machine = None  # configure's fast path is for the count outside
    try:
        yield
    finally:
        _local.serial -= 1
        _local.machine = None


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


def _gnu_openmp_loaded() -> bool:
    """Whether GNU's OpenMP runtime is in the process already (PyTorch imported beside gradcli,
    in a notebook or a test): MKL's Intel threading layer would then run its threads under two
    runtimes, each thread believing it is thread 0 and computing the whole product (measured:
    every sgemm result doubled), so MKL threads with GNU's layer there, as PyTorch's does."""
    try:
        ctypes.CDLL("libgomp.so.1", mode=os.RTLD_NOLOAD)
    except OSError:
        return False
    return True


def _load() -> Any:
    """libmkl_rt with Intel's threading layer, or False."""
    setting = os.environ.get("GRADCLI_MKL", "")
    if setting == "0":
        return False
    paths = [setting] if setting else _candidates()
    for path in paths:
        if not os.path.isfile(path):
            continue
        try:
            lib = ctypes.CDLL(path)
            lib.MKL_Set_Threading_Layer(_GNU if _gnu_openmp_loaded() else _INTEL)
            global _DYNAMIC_DEFAULT, _DEFAULT_THREADS
            _DYNAMIC_DEFAULT = int(lib.MKL_Get_Dynamic())
            _DEFAULT_THREADS = int(lib.MKL_Get_Max_Threads())
        except (OSError, AttributeError):
            continue
        return lib
    return False
