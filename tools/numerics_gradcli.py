"""tools/numerics_cases.py's cases on gradcli's engine, and how close two answers must be where
their last bits cannot be compared (tests/test_numerics.py, tools/record_numerics.py).

``outputs`` runs a case as PyTorch ran it.  ``bound`` is the most two correct implementations of
the case's op may differ by, elementwise: for a product or a sum of ``k`` terms, each order of
the additions lies within ``gamma_k * M`` of the exact result (gamma_k = k u / (1 - k u), u the
unit roundoff, M the same computation on the terms' absolute values; Higham, *Accuracy and
Stability of Numerical Algorithms*, 2nd ed., section 3.1), so two orders lie within twice that;
for an elementwise function, MKL's VML in high-accuracy mode, SLEEF's u10 functions and the C
library's are each within 1 ulp of the exact value, 2 ulps apart, and a backward formula's one
or two roundings more make 4 ulps of the result.  The bound is the sum of the two terms.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import numerics_cases
from numerics_cases import OPS, apply_view, make_input

from gradcli import api
from gradcli.engine import RunContext, use
from gradcli.engine import machine as machines
from gradcli.engine.backend import get_backend, quiet, to_host
from gradcli.engine.machine import Machine
from gradcli.engine.tensor import Tensor

TORCH = types.SimpleNamespace(**api.FUNCTIONS, **api.DTYPES, **api.DEFAULT_DTYPE,
                              nn=types.SimpleNamespace(
                                  functional=types.SimpleNamespace(**api.NN_FUNCTIONS)))
ULPS = 4  # an elementwise function and a backward formula's roundings (module docstring)


def outputs(case: dict, machine: Machine | None = None, dtype: str | None = None,
            absolute: bool = False) -> list[np.ndarray]:
    """One case on gradcli's engine, as PyTorch ran it on ``machine`` (the process's by
    default), in ``dtype`` if given, on the inputs' absolute values and an absolute upstream
    gradient if ``absolute``."""
    dtype = dtype or case["dtype"]
    ctx = RunContext(get_backend("numpy", dtype), warnings=[],
                     machine=machine or machines.process())
    numerics_cases.ABSOLUTE = absolute
    try:
        with use(ctx), quiet():
            tensors = []
            for r in case["inputs"]:
                data = make_input(r, case["dtype"]).astype(dtype)
                data = np.abs(data) if absolute else data
                tensors.append(apply_view(TORCH, Tensor(ctx.backend.asarray(data), ctx.backend),
                                          r))
            out = OPS[case["op"]](TORCH, *tensors, **case["params"])
    finally:
        numerics_cases.ABSOLUTE = False
    outs = out if isinstance(out, list) else [out]
    return [np.ascontiguousarray(to_host(o.data)) for o in outs]


def calls_mkl(case: dict) -> bool:
    """Whether gradcli computes the case with MKL (its bits then depend on MKL's code path)."""
    from gradcli.engine.exact import libmkl

    before = libmkl.calls
    outputs(case)
    return libmkl.calls > before


def bound(case: dict, want: list[np.ndarray]) -> list[np.ndarray]:
    """Per output, elementwise, how far a correct answer may lie from ``want`` (the module
    docstring): 2 gamma_k M + ULPS ulps of ``want``."""
    u = 2.0 ** -24 if case["dtype"] == "float32" else 2.0 ** -53
    k = max(max(r["shape"]) for r in case["inputs"])
    gamma = k * u / (1 - k * u)
    magnitudes = outputs(case, dtype="float64", absolute=True)
    return [2 * gamma * np.abs(m.astype(np.float64)) + ULPS * _ulp(w)
            for m, w in zip(magnitudes, want)]


def _ulp(x: np.ndarray) -> np.ndarray:
    """The spacing of floats at each element of ``x``, in float64."""
    with np.errstate(all="ignore"):
        return np.abs(np.spacing(np.abs(x))).astype(np.float64)


def within(case: dict, got: list[np.ndarray], want: list[np.ndarray]) -> tuple[int, int, float]:
    """(elements outside the bound, elements that differ at all, the largest difference in
    units of the bound) of ``got`` against ``want``."""
    outside = differ = 0
    worst = 0.0
    for g, w, b in zip(got, want, bound(case, want)):
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        same = (g64 == w64) | (np.isnan(g64) & np.isnan(w64))
        with np.errstate(all="ignore"):
            ratio = np.where(same, 0.0, np.abs(g64 - w64) / b)
        ratio = np.where(np.isnan(ratio), np.inf, ratio)
        outside += int(np.sum(ratio > 1))
        differ += int(np.sum(~same))
        worst = max(worst, float(ratio.max(initial=0.0)))
    return outside, differ, worst


def decode(rec: dict, dtype: str) -> list[np.ndarray] | None:
    """A fixture entry's outputs as arrays (None when they were recorded as a digest)."""
    import base64

    if any(enc.startswith("sha256:") for enc in rec["out"]):
        return None
    return [np.frombuffer(base64.b64decode(enc), dtype=dtype).reshape(shape)
            for enc, shape in zip(rec["out"], rec["shape"])]


__all__ = ["ULPS", "bound", "calls_mkl", "decode", "outputs", "within"]
