"""The machine whose PyTorch a run reproduces: the CPU kernels its dispatcher picks and its
thread count, decided at run time as PyTorch 2.13 decides them.

* The capability (``torch.backends.cpu.get_cpu_capability()``; DispatchStub.cpp
  ``compute_cpu_capability``): ``ATEN_CPU_CAPABILITY`` if it is exactly ``default``, ``avx2``
  or ``avx512`` (PyTorch takes it without asking the CPU); else AVX512 where the CPU has
  AVX-512 VL, BW and DQ and FMA3, AVX2 where it has AVX2 and FMA3, DEFAULT otherwise.  It
  decides each kernel's vector width (64 bytes for the kernels registered for AVX512, 32 for
  the others and for DEFAULT's generic ``Vectorized``), whether the compiler fused
  multiply-adds (not in DEFAULT's code, built for plain x86-64) and whether a vector lane calls
  SLEEF or the C library (DEFAULT maps ``std::exp`` over the lanes).
* The thread count (``torch.get_num_threads()``): PyTorch's default is MKL's
  ``mkl_get_max_threads()`` (one thread per physical core the process may run on, or
  ``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` when that is lower, any value under
  ``MKL_DYNAMIC=FALSE``), so gradcli asks the same library; ``torch.set_num_threads(n)`` sets
  ``n`` and turns MKL's dynamic adjustment off, as PyTorch's does.  It decides how a long
  reduction is split, how the softmax kernels walk their rows and how MKL splits a product.

A run's machine is ``RunContext.machine``; the kernels read it through ``current()``.  What MKL
itself picks for the CPU (its code path) is left to MKL, as PyTorch leaves it (libmkl.py).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

CAPABILITIES = ("DEFAULT", "AVX2", "AVX512")
GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE
# what ATEN_CPU_CAPABILITY accepts (strcmp: lower case only)
_SETTINGS = {"default": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512"}
_AVX512 = ("avx512vl", "avx512bw", "avx512dq", "fma")  # cpuinfo_has_x86_*: vl, bw, dq, fma3
_AVX2 = ("avx2", "fma")


class Machine:
    """A capability and a thread count (``None``: PyTorch's default, asked of MKL when first
    needed, since loading MKL costs a few tens of milliseconds)."""

    __slots__ = ("_threads", "capability", "explicit_threads", "fma", "onednn_avx512",
                 "vector_bytes")

    def __init__(self, capability: str, threads: int | None = None,
                 onednn_avx512: bool | None = None) -> None:
        if capability not in CAPABILITIES:
            raise ValueError(f"unknown CPU capability {capability!r}")
        self.capability = capability
        self.explicit_threads = threads is not None
        self._threads = threads
        # Kernels registered with ALSO_REGISTER_AVX512_DISPATCH (exp, log1p, expm1, sigmoid,
        # softmax, softplus ...) run 512-bit vectors on AVX512; plain REGISTER_DISPATCH ones
        # (sum, sqrt ...) run their AVX2 code there: SUM_VECTOR_BYTES.  DEFAULT's generic
        # Vectorized is 32 bytes too.
        self.vector_bytes = 64 if capability == "AVX512" else 32
        self.fma = capability != "DEFAULT"
        # oneDNN (F.gelu's float32 kernel) picks its ISA from the CPU itself, whatever
        # ATEN_CPU_CAPABILITY says: its AVX-512 kernels on a CPU with AVX-512 under every
        # capability.  By default the capability's; the process's machine says the CPU's.
        self.onednn_avx512 = capability == "AVX512" if onednn_avx512 is None else onednn_avx512

    @property
    def threads(self) -> int:
        """``torch.get_num_threads()`` on this machine."""
        if self._threads is None:
            self._threads = default_threads()
        return self._threads

    def with_threads(self, threads: int) -> Machine:
        """This machine after ``torch.set_num_threads(threads)``."""
        return Machine(self.capability, threads, self.onednn_avx512)

    def __repr__(self) -> str:
        threads = self._threads if self.explicit_threads else "default"
        return f"Machine({self.capability}, threads={threads})"


SUM_VECTOR_BYTES = 32  # the AVX2 kernels' vectors, on every capability (see Machine)


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags as Linux reports them (``/proc/cpuinfo``), empty elsewhere."""
    return frozenset(cpu_info().get("flags", "").split())


@functools.cache
def cpu_info() -> dict[str, str]:
    """The first processor's fields of ``/proc/cpuinfo`` ("model name", "flags", ...)."""
    info: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    if info:
                        break
                    continue
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return info


def cpu_has_avx512(flags: frozenset[str] | None = None) -> bool:
    """Whether the CPU has the AVX-512 subsets oneDNN's ``avx512_core`` needs (F, BW, DQ, VL)."""
    flags = cpu_flags() if flags is None else flags
    return all(f in flags for f in ("avx512f", "avx512bw", "avx512dq", "avx512vl"))


def detected_capability(flags: frozenset[str] | None = None) -> str:
    """The capability PyTorch picks for a CPU with these flags (the running CPU's by default)."""
    flags = cpu_flags() if flags is None else flags
    if all(f in flags for f in _AVX512):
        return "AVX512"
    if all(f in flags for f in _AVX2):
        return "AVX2"
    return "DEFAULT"


def capability_setting() -> tuple[str, str | None]:
    """The capability of this process and, when ``ATEN_CPU_CAPABILITY`` holds a value PyTorch
    ignores, PyTorch's warning for it."""
    setting = os.environ.get("ATEN_CPU_CAPABILITY")
    if setting is None:
        return detected_capability(), None
    if setting in _SETTINGS:
        return _SETTINGS[setting], None
    return detected_capability(), f"ignoring invalid value for ATEN_CPU_CAPABILITY: {setting}"


def default_threads() -> int:
    """``torch.get_num_threads()`` before any ``set_num_threads``: MKL's ``mkl_get_max_threads``
    (the same library, the same environment: the same answer, measured under OMP_NUM_THREADS,
    MKL_NUM_THREADS, MKL_DYNAMIC and a CPU affinity); without MKL, the same rule counted here:
    MKL_NUM_THREADS, else OMP_NUM_THREADS, at most the physical cores the process may run on
    unless MKL_DYNAMIC=FALSE; the physical cores without either."""
    from .exact import libmkl  # loads MKL: only when a kernel needs the count

    threads = libmkl.max_threads()
    if threads:
        return threads
    cores = physical_cores()
    for name in ("MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            dynamic = os.environ.get("MKL_DYNAMIC", "").upper() not in ("FALSE", "0", "NO")
            return min(int(value), cores) if dynamic else int(value)
    return cores


def physical_cores() -> int:
    """The physical cores among the CPUs this process may run on (Linux's topology), or the
    CPUs' count where that cannot be read."""
    try:
        cpus = os.sched_getaffinity(0)
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "physical_package_id") as f, open(base + "core_id") as g:
                cores.add((f.read().strip(), g.read().strip()))
        except OSError:
            cores.add(("cpu", str(cpu)))
    return max(1, len(cores))


# oneDNN's ISAs below AVX-512, as ONEDNN_MAX_CPU_ISA (DNNL_MAX_CPU_ISA before v3) names them
_BELOW_AVX512 = frozenset({"SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX2_VNNI_2"})


def onednn_avx512(capability: str, environ: Mapping[str, str] | None = None,
                  flags: frozenset[str] | None = None) -> bool:
    """Whether oneDNN runs its AVX-512 kernels: on a CPU with AVX-512 (an AVX512 capability
    says it has: PyTorch would fault without), unless ``ONEDNN_MAX_CPU_ISA`` caps it below."""
    environ = os.environ if environ is None else environ
    cap = environ.get("ONEDNN_MAX_CPU_ISA", environ.get("DNNL_MAX_CPU_ISA", "")).upper()
    if cap in _BELOW_AVX512:
        return False
    return capability == "AVX512" or cpu_has_avx512(flags)


@functools.cache
def process() -> Machine:
    """The machine of this process, as PyTorch would decide it here."""
    capability = capability_setting()[0]
    return Machine(capability, onednn_avx512=onednn_avx512(capability))


_ACTIVE: ContextVar[Machine] = ContextVar("gradcli_machine")


def current() -> Machine:
    """The machine of the run going on in this thread (``activate``), else the process's."""
    m = _ACTIVE.get(None)
    return process() if m is None else m


def activate(machine: Machine) -> Any:
    """Make ``machine`` current (a token for ``deactivate``)."""
    return _ACTIVE.set(machine)


def deactivate(token: Any) -> None:
    """Undo the ``activate`` that returned ``token``."""
    _ACTIVE.reset(token)
