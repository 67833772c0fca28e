"""Record PyTorch's ``F.gelu`` and its gradient in the forms tools/record_gelu.py leaves out
into tests/fixtures/torch/gelu_variants.json: ``approximate='tanh'`` in float32 and float64,
and float64 ``approximate='none'``.

Usage: ``python tools/record_gelu_variants.py`` (needs PyTorch 2.13; the test suite does not).
It runs under tools/machines.py's ``avx2`` setting, as record_gelu.py.  All of these are ATen's
GeluKernelImpl / GeluBackwardKernelImpl (oneDNN takes only float32 ``approximate='none'``):
SLEEF in the vector lanes, the C library in each row's tail, no MKL.

Two kinds of case:

* ``cases``: the input (normals times 3 or edge values: zeros, subnormals, the range where tanh
  saturates, huge, infinities, NaN), the incoming gradient, PyTorch's output and input
  gradient, as raw little-endian bytes of the dtype, base64; one thread (none is long enough
  for a second one to matter).
* ``grain``: the forward kernel's own grain size (``numel / threads`` above 16384 elements)
  under two threads, which moves the threads' boundary into a vector pair: the input a fixed
  integer formula (``spread``), and of PyTorch's output (in memory order) the SHA-256 of its
  bytes and the elements around that boundary.  float32 ``approximate='none'`` too, as a
  transposed input (ATen's kernel, not oneDNN's).
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import machines

SETTING = machines.VARIANTS["avx2"]
machines.pin(SETTING)  # before PyTorch loads
import torch
import torch.nn.functional as F

OUT = ROOT / "tests" / "fixtures" / "torch" / "gelu_variants.json"
GRAIN_N = 16400  # above 16384: two threads cut it at 8200, mid vector pair in both dtypes
WINDOW = (8136, 8264)


def _encode(a: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype).tobytes()).decode()


def edge_values(dtype: str) -> np.ndarray:
    v = [0.0, 1e-45, 1e-40, 1e-38, 1e-30, 1e-10, 1e-7, 3e-4, 0.5, 1, 2, 3, 4, 5, 5.5, 6, 8,
         8.6, 8.7, 9.3, 10, 13, 13.3, 14, 18, 18.7, 18.8, 20, 26, 27, 28, 38, 40, 100, 1e4,
         1e15, 1e30, 3.4e38, np.inf, np.nan]
    if dtype == "float64":
        v += [5e-324, 1e-300, 1e-200, 1e100, 1e200, 1.7e308]
    v = v + [-a for a in v]
    v += list(np.linspace(-30, 30, 601))
    return np.array(v, dtype)


def spread(n: int, dtype: str) -> np.ndarray:
    """A fixed input from integer arithmetic and one division (the same bits everywhere):
    values in [-10, 10)."""
    k = (np.arange(n, dtype=np.int64) * 7919) % 20011
    return ((k / 20011.0 - 0.5) * 20.0).astype(dtype)


def cases() -> list[dict]:
    rng = np.random.default_rng(2014)
    torch.set_num_threads(1)
    out = []
    specs = [("edge", None, False)] + [(None, (n,), False) for n in (1, 2, 7, 8, 9, 16, 17, 1000)]
    specs += [(None, (37, 53), True)]
    for dtype, approximate in (("float32", "tanh"), ("float64", "tanh"), ("float64", "none")):
        for kind, shape, transpose in specs:
            x = edge_values(dtype) if kind == "edge" else \
                (rng.standard_normal(shape) * 3).astype(dtype)
            xt = torch.from_numpy(x.copy()).requires_grad_(True)
            src = xt.t() if transpose else xt
            y = F.gelu(src, approximate=approximate)
            g = rng.standard_normal(tuple(y.shape)).astype(dtype)
            y.backward(torch.from_numpy(g))
            out.append({"dtype": dtype, "approximate": approximate, "shape": list(x.shape),
                        "transpose": transpose, "threads": 1,
                        "x": _encode(x, dtype), "grad": _encode(g, dtype),
                        "y": _encode(y.detach().contiguous().numpy(), dtype),
                        "x_grad": _encode(xt.grad.numpy(), dtype)})
    return out


def grain_cases() -> list[dict]:
    torch.set_num_threads(2)
    out = []
    for dtype, approximate in (("float32", "none"), ("float32", "tanh"), ("float64", "tanh"),
                               ("float64", "none")):
        x = spread(GRAIN_N, dtype)
        # float32 as the transpose of an (n / 2, 2) array, which oneDNN does not take: x in
        # memory order, and so y (the output takes the input's strides)
        if dtype == "float32":
            y = F.gelu(torch.from_numpy(x.reshape(-1, 2)).t(), approximate=approximate).t()
        else:
            y = F.gelu(torch.from_numpy(x), approximate=approximate)
        y = y.contiguous().numpy().reshape(-1)
        out.append({"dtype": dtype, "approximate": approximate, "n": GRAIN_N, "threads": 2,
                    "transpose": dtype == "float32", "window": list(WINDOW),
                    "y_window": _encode(y[WINDOW[0]:WINDOW[1]], dtype),
                    "y_sha256": hashlib.sha256(y.tobytes()).hexdigest()})
    return out


def main() -> None:
    why = machines.torch_cannot_run(SETTING)
    if why:
        sys.exit(f"cannot record here: {why}")
    doc = {"torch": torch.__version__, "settings": SETTING,
           "machine": machines.describe(SETTING), "cases": cases(), "grain": grain_cases()}
    OUT.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(doc['cases'])} cases, "
          f"{len(doc['grain'])} grain cases")


if __name__ == "__main__":
    main()
