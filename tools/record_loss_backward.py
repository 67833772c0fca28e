"""Record PyTorch's gradients of the pointwise losses whose backward kernels take the vector
lanes and the scalar tail apart (smooth_l1_loss, huber_loss) or run their own steps in place
(soft_margin_loss) into tests/fixtures/torch/loss_backward.json.

Usage: ``python tools/record_loss_backward.py`` (needs PyTorch 2.13; the test suite does not).
It runs under tools/machines.py's ``avx2`` setting, which every x86-64 machine since 2013 can
run (the pinned AVX512 one needs a CPU with AVX-512), and records the machine.  smooth_l1 and
huber call no MKL, so their bits are the same on any CPU under that setting; soft_margin's
``exp`` is MKL's (VML), whose code path is the CPU's.  Each case: a loss, a dtype,
a reduction, a length (shorter than a vector pair, and with whole pairs and a tail), beta or
delta; the inputs (NumPy's seeded normals, some differences set to 0 and to +-beta) and the
gradients of input and target are stored as raw little-endian bytes, base64.
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

OUT = ROOT / "tests" / "fixtures" / "torch" / "loss_backward.json"


def _encode(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def inputs(seed: int, n: int, dtype: str, edge: float) -> tuple[np.ndarray, np.ndarray]:
    """(input, target) of ``n`` elements: normals, a difference of 0 and of +-``edge``."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 1.5
    y = rng.standard_normal(n)
    if n > 3:
        y[1], y[2], y[3] = x[1], x[2] - edge, x[3] + edge
    return x.astype(dtype), y.astype(dtype)


def cases() -> list[dict]:
    out = []
    k = 0
    for loss in ("smooth_l1_loss", "huber_loss", "soft_margin_loss"):
        for dtype in ("float32", "float64"):
            for reduction in ("mean", "sum", "none"):
                for n, param in ((3, 1.0), (16, 1.0), (37, 0.7), (45, 0.1)):
                    k += 1
                    x, y = inputs(k, n, dtype, param)
                    if loss == "soft_margin_loss":
                        y = np.where(y >= 0, 1, -1).astype(dtype)
                    xt = torch.from_numpy(x).requires_grad_(True)
                    yt = torch.from_numpy(y).requires_grad_(loss != "soft_margin_loss")
                    kwargs = {"smooth_l1_loss": {"beta": param}, "huber_loss": {"delta": param},
                              "soft_margin_loss": {}}[loss]
                    value = getattr(F, loss)(xt, yt, reduction=reduction, **kwargs)
                    grad = torch.linspace(0.5, 1.5, n, dtype=value.dtype) \
                        if reduction == "none" else torch.tensor(0.75, dtype=value.dtype)
                    value.backward(grad)
                    out.append({"loss": loss, "dtype": dtype, "reduction": reduction, "n": n,
                                "param": param, "x": _encode(x), "y": _encode(y),
                                "grad": _encode(grad.numpy()),
                                "x_grad": _encode(xt.grad.numpy()),
                                "y_grad": None if yt.grad is None else _encode(yt.grad.numpy())})
    return out


def main() -> None:
    why = machines.torch_cannot_run(SETTING)
    if why:
        sys.exit(f"cannot record here: {why}")
    doc = {"torch": torch.__version__, "settings": SETTING,
           "machine": machines.describe(SETTING), "cases": cases()}
    OUT.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(doc['cases'])} cases")


if __name__ == "__main__":
    main()
