"""What this machine's PyTorch computes with, as facts: for ``gradcli doctor`` (what a bug report
needs) and for the fixtures, which record the machine they were recorded on so that a test can
tell whether its last bits can be reproduced here.

PyTorch's CPU results depend on the capability and thread count (machine.py, both emulated
here, so any machine can reproduce any setting) and on MKL's code path, which MKL picks for the
CPU and which only that CPU runs.  MKL's path is named by ``MKLVersion.Processor`` and by its
reproducibility branch (``MKL_CBWR``), and tested by ``probe``: a digest of MKL's results on a
fixed set of products and vector functions, equal on two machines when MKL computes those the
same way there.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
from typing import Any

import numpy as np

from .. import machine
from . import blas, libmkl, vml

# mkl_service.h: MKL_CBWR_Get(MKL_CBWR_BRANCH)'s values
_BRANCHES = {0: "OFF", 1: "OFF", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 6: "SSSE3",
             7: "SSE4_1", 8: "SSE4_2", 9: "AVX", 10: "AVX2", 11: "AVX512_MIC", 12: "AVX512",
             13: "AVX512_MIC_E1", 14: "AVX512_E1", 16: "AVX512_FP16"}


class _Version(ctypes.Structure):
    """mkl_types.h's MKLVersion."""

    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("update", ctypes.c_int),
                ("patch", ctypes.c_int), ("status", ctypes.c_char_p), ("build", ctypes.c_char_p),
                ("processor", ctypes.c_char_p), ("platform", ctypes.c_char_p)]


def mkl() -> dict[str, Any] | None:
    """MKL's version, code path, reproducibility branch, threads and probe digest (None
    without MKL)."""
    lib = libmkl.library()
    if lib is None:
        return None
    text = ctypes.create_string_buffer(512)
    lib.MKL_Get_Version_String(text, len(text))
    version = _Version()
    lib.MKL_Get_Version(ctypes.byref(version))
    return {
        "version": text.value.decode(errors="replace").strip(),
        "processor": (version.processor or b"").decode(errors="replace"),
        "branch": _BRANCHES.get(int(lib.MKL_CBWR_Get(1)), str(int(lib.MKL_CBWR_Get(1)))),
        "max_threads": int(lib.MKL_Get_Max_Threads()),
        "dynamic": bool(lib.MKL_Get_Dynamic()),
        "path": getattr(lib, "_name", ""),
        "probe": probe(),
    }


def probe() -> str:
    """A digest of MKL's bits on fixed inputs: single- and multi-threaded products of both
    float types, a matrix-vector product, dot products and VML's exp, log, sin, tanh."""
    rng = np.random.default_rng(2026)
    digest = hashlib.sha256()
    for dtype in (np.float32, np.float64):
        def mat(*shape: int, dt: Any = dtype) -> Any:
            return rng.standard_normal(shape).astype(dt)

        for m, k, n in ((13, 17, 11), (64, 64, 64), (7, 300, 5), (129, 65, 33)):
            digest.update(blas.mm(mat(m, k), mat(k, n)).tobytes())
        digest.update(blas.mv(mat(65, 33), mat(33)).tobytes())
        digest.update(np.asarray(blas.dot(mat(4099), mat(4099))).tobytes())
        x = mat(1031)
        for name in ("exp", "log", "sin", "tanh"):
            digest.update(vml.call(name, np.abs(x) if name == "log" else x).tobytes())
    return digest.hexdigest()[:16]


def cpu() -> dict[str, Any]:
    """The CPU as Linux describes it: model, vendor, the flags PyTorch's dispatch reads."""
    info = machine.cpu_info()
    flags = machine.cpu_flags()
    return {"model": info.get("model name", platform.processor() or "unknown"),
            "vendor": info.get("vendor_id", ""),
            "processors": os.cpu_count() or 1,
            "flags": sorted(f for f in flags if f in _FLAGS)}


_FLAGS = frozenset({"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512vl", "avx512bw",
                    "avx512dq", "avx512cd", "avx512_vnni", "avx512_bf16", "avx512ifma",
                    "amx_tile", "amx_bf16"})


def describe(current: machine.Machine | None = None) -> dict[str, Any]:
    """Everything above about this process and ``current`` (the process's machine by default)."""
    m = machine.process() if current is None else current
    warning = machine.capability_setting()[1]
    setting = os.environ.get("ATEN_CPU_CAPABILITY")
    return {
        "platform": f"{platform.system()} {platform.machine()}",
        "libc": " ".join(platform.libc_ver()).strip(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu": cpu(),
        "capability": m.capability,
        "capability_source": "ATEN_CPU_CAPABILITY" if setting in ("default", "avx2", "avx512")
        else "cpu",
        "capability_warning": warning,
        "threads": m.threads,
        "environment": {k: os.environ[k] for k in _ENVIRONMENT if k in os.environ},
        "mkl": mkl(),
    }


# the variables PyTorch, OpenMP and MKL read that change what a computation gives
_ENVIRONMENT = ("ATEN_CPU_CAPABILITY", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_DYNAMIC",
                "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS", "GRADCLI_MKL")
