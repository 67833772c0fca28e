"""Record PyTorch's float64 results that come from SLEEF's double kernels into
tests/fixtures/torch/sleef64.json.

Usage: ``python tools/record_sleef64.py`` (needs PyTorch 2.13; the test suite does not).  It
runs under tools/machines.py's pinned setting (AVX512: ``Sleef_*d8_u10``) and records the
machine.  Each case is an op on a float64 array whose elements exercise the vector lanes and
the tails (lengths not multiples of the vector's), with the edge cases: huge, tiny, subnormal,
infinite and NaN inputs, and the arguments where SLEEF's functions switch to 0, -1 or inf.
``atan2`` stores its second argument as ``other``.  The inputs are stored with the outputs (raw little-endian bytes, base64), so the test needs
nothing but NumPy and gradcli.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import machines

machines.pin()  # the setting the tests run under, before PyTorch loads
import torch

OUT = ROOT / "tests" / "fixtures" / "torch" / "sleef64.json"
EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300,
         1e-17, 0.5, 1.0, -1.0, 2.0, 18.7, 18.72, 36.7, -36.8, 709.78, 709.79, 710.0, -745.1,
         -745.2, -1000.0, -1000.5, 1023.99, 1024.0, -1074.0, -1075.0, -2000.5, 1e300, -1e300,
         1e307, 7e307, 1.7976931348623157e308]


def _inputs(rng: np.random.Generator, lo: float, hi: float, n: int = 300) -> np.ndarray:
    """``n`` uniform draws in [lo, hi), n normal ones, n magnitudes spread over every binade,
    and the edge cases: 1,035 elements (neither a multiple of 8 nor of 16)."""
    spread = np.exp(rng.uniform(-744, 709, n)) * rng.choice([-1.0, 1.0], n)
    return np.concatenate([rng.uniform(lo, hi, n), rng.standard_normal(n) * 3, spread, EDGES])


def _encode(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a, np.float64).tobytes()).decode()


def cases() -> dict:
    rng = np.random.default_rng(64)
    t = torch.from_numpy
    out = {}
    x = _inputs(rng, -30, 30)
    out["log1p"] = (x, torch.log1p(t(x)))
    out["expm1"] = (x, torch.expm1(t(x)))
    x = _inputs(rng, -1100, 1100)
    out["exp2"] = (x, torch.exp2(t(x)))
    x = _inputs(rng, -720, 720)
    out["sinh"] = (x, torch.sinh(t(x)))
    out["cosh"] = (x, torch.cosh(t(x)))
    x = np.abs(_inputs(rng, 0, 50))
    out["pow(2.5)"] = (x, torch.pow(t(x), 2.5))
    out["pow(-1.5)"] = (x, torch.pow(t(x), -1.5))
    y = _inputs(rng, -30, 30)
    x = rng.permutation(_inputs(rng, -30, 30))
    out["atan2"] = (y, torch.atan2(t(y), t(x)), x)
    # exp and log through the softmaxes: rows of 45 (vector lanes and a tail), spread wide so
    # that exp(x - max) reaches subnormals and 0
    rows = rng.uniform(-800, 30, (23, 45))
    rows[::3] = rng.standard_normal((8, 45)) * 4
    rows[1, 5], rows[4, 7], rows[7, 0] = -np.inf, np.nan, 1e300
    out["softmax"] = (rows, torch.softmax(t(rows), 1))
    out["log_softmax"] = (rows, torch.log_softmax(t(rows), 1))
    out["softmax_dim0"] = (rows, torch.softmax(t(rows), 0))
    return {name: {"shape": list(a.shape), "x": _encode(a), "out": _encode(r.numpy()),
                   **({"other": _encode(more[0])} if more else {})}
            for name, (a, r, *more) in out.items()}


def main() -> None:
    doc = {"torch": torch.__version__, "settings": machines.PINNED,
           "machine": machines.describe(machines.PINNED), "cases": cases()}
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(doc['cases'])} cases)")


if __name__ == "__main__":
    main()
