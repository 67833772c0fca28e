"""Record PyTorch's float32 ``F.gelu`` and its gradient into tests/fixtures/torch/gelu.json.

Usage: ``python tools/record_gelu.py`` (needs PyTorch 2.13; the test suite does not).  It runs
under tools/machines.py's ``avx2`` setting (as tools/record_loss_backward.py) and records the
machine.  PyTorch hands a contiguous float32 input of more than one element to oneDNN (its
``gelu_erf`` JIT kernel, whose ISA oneDNN picks from the CPU itself: AVX2 on a CPU without
AVX-512, which is what this records) and everything else to ATen's GeluKernel (one element, a
transposed input).  No MKL is involved: the bits are the same on any AVX2 CPU without AVX-512.
Each case: a length or a 2-D shape (transposed when ``transpose``), a thread count, the input
(normals times 3, or edge values: zeros, subnormals, huge, infinities, NaN, the range where
exp(-x * x / 2) underflows), the incoming gradient, and PyTorch's output and input gradient,
as raw little-endian float32 bytes, base64.
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

SETTING = machines.VARIANTS["avx2"]
machines.pin(SETTING)  # before PyTorch loads
import torch
import torch.nn.functional as F

OUT = ROOT / "tests" / "fixtures" / "torch" / "gelu.json"


def _encode(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a, np.float32).tobytes()).decode()


def edge_values() -> np.ndarray:
    v = [0.0, 1e-45, 1e-40, 1e-38, 1.2e-38, 1e-30, 1e-10, 1e-7, 3e-4, 0.5, 1, 2, 3, 5.5, 6, 8,
         9.3, 10, 13, 13.2, 13.3, 14, 20, 100, 1e4, 1e30, 3.4e38, np.inf, np.nan]
    v = v + [-a for a in v]
    v += list(np.linspace(-14, 14, 401))
    return np.array(v, np.float32)


def cases() -> list[dict]:
    rng = np.random.default_rng(2013)
    out = []
    specs = [("edge", None, False)] + [(None, (n,), False)
                                       for n in (1, 2, 7, 8, 9, 16, 17, 100, 1024, 4097)]
    specs += [(None, (37, 53), True), (None, (16, 16), True), (None, (64, 64), False)]
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for kind, shape, transpose in specs:
            if threads == 2 and shape is not None and np.prod(shape) > 2048:
                continue  # (the fixture's size: the long ones once)
            x = edge_values() if kind == "edge" else \
                (rng.standard_normal(shape) * 3).astype(np.float32)
            xt = torch.from_numpy(x.copy()).requires_grad_(True)
            src = xt.t() if transpose else xt
            y = F.gelu(src)
            g = rng.standard_normal(tuple(y.shape)).astype(np.float32)
            y.backward(torch.from_numpy(g))
            out.append({"shape": list(x.shape), "transpose": transpose, "threads": threads,
                        "x": _encode(x), "grad": _encode(g),
                        "y": _encode(y.detach().contiguous().numpy()),
                        "x_grad": _encode(xt.grad.numpy())})
    return out


def main() -> None:
    why = machines.torch_cannot_run(SETTING)
    if why:
        sys.exit(f"cannot record here: {why}")
    if "avx512f" in machines.describe(SETTING)["cpu"].get("flags", ()):
        sys.exit("cannot record here: oneDNN would run its AVX-512 kernel on this CPU")
    doc = {"torch": torch.__version__, "settings": SETTING,
           "machine": machines.describe(SETTING), "cases": cases()}
    OUT.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(doc['cases'])} cases")


if __name__ == "__main__":
    main()
