"""Record PyTorch's Jacobians and Hessians of a few grad scripts, for ``grad --jacobian`` and
``grad --hessian``, into tests/fixtures/torch/jacobians.json.

Usage: ``python tools/record_jacobians.py`` (needs PyTorch 2.13; runs under
tools/machines.py's pinned setting and records the machine).  Each case is a grad script and
the same computation written out in PyTorch as a function of the --wrt tensor; for each
output named, ``torch.autograd.functional.jacobian`` (reverse mode, and forward mode:
``strategy="forward-mode", vectorize=True``) or ``torch.autograd.functional.hessian`` (reverse
over reverse) at the script's value, stored with its shape and ``tolist()`` (exact).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import machines

machines.pin()  # the setting the tests run under, before PyTorch loads
import torch
from torch.autograd.functional import hessian, jacobian

OUT = ROOT / "tests" / "fixtures" / "torch" / "jacobians.json"
F64 = torch.float64


def _poly(w: torch.Tensor) -> dict[str, torch.Tensor]:
    y = w * w * 2
    return {"y": y, "L": (y * w).sum()}


def _layer(W: torch.Tensor) -> dict[str, torch.Tensor]:
    x = torch.tensor([1.5, -0.5], dtype=F64)
    h = torch.tanh(W @ x)
    return {"h": h, "L": (h * h).sum() + W.exp().sum()}


def _square(A: torch.Tensor) -> dict[str, torch.Tensor]:
    Y = A @ A
    return {"Y": Y, "L": Y.sin().sum()}


def _mlp(W1: torch.Tensor) -> dict[str, torch.Tensor]:
    x = torch.tensor([[1.0, -2.0]], dtype=F64)
    y = torch.tensor([[0.5]], dtype=F64)
    b1 = torch.tensor([0.1, -0.2], dtype=F64)
    W2 = torch.tensor([[0.7], [-0.5]], dtype=F64)
    b2 = torch.tensor([0.05], dtype=F64)
    h = torch.tanh(x @ W1 + b1)
    out = h @ W2 + b2
    return {"out": out, "L": ((out - y) ** 2).mean()}


# name -> (grad script, the --wrt name, its value, the function, {output: "jacobian"|"hessian"})
CASES = {
    "poly": ("w = [1.0, 2.0, 3.0]\ny = w * w * 2\nL = (y * w).sum()\n",
             "w", [1.0, 2.0, 3.0], _poly, {"y": "jacobian", "L": "hessian"}),
    "layer": (("W = [[0.5, -1.0], [2.0, 0.25]]\nx = [1.5, -0.5]\nh = tanh(W @ x)\n"
               "L = (h * h).sum() + W.exp().sum()\n"),
              "W", [[0.5, -1.0], [2.0, 0.25]], _layer, {"h": "jacobian", "L": "hessian"}),
    "square": ("A = [[0.3, -1.2], [0.7, 0.4]]\nY = A @ A\nL = Y.sin().sum()\n",
               "A", [[0.3, -1.2], [0.7, 0.4]], _square, {"Y": "jacobian", "L": "hessian"}),
    "mlp": ((ROOT / "samples" / "tiny_mlp.grad").read_text(), "W1", [[0.3, -0.1], [0.2, 0.4]],
            _mlp, {"out": "jacobian", "L": "hessian"}),
}


def record(script: str, wrt: str, value: list, fn, outputs: dict[str, str]) -> dict:
    w = torch.tensor(value, dtype=F64)
    found = {}
    for of, kind in outputs.items():
        def f(t: torch.Tensor, of: str = of) -> torch.Tensor:
            return fn(t)[of]
        if kind == "hessian":
            answers = {"reverse": hessian(f, w)}
        else:
            answers = {"reverse": jacobian(f, w),
                       "forward": jacobian(f, w, strategy="forward-mode", vectorize=True)}
        found[of] = {"kind": kind,
                     **{mode: {"shape": list(a.shape), "data": a.tolist()}
                        for mode, a in answers.items()}}
    return {"script": script, "wrt": wrt, "outputs": found}


def main() -> None:
    data = {"torch": torch.__version__, "settings": machines.PINNED,
            "machine": machines.describe(machines.PINNED),
            "cases": {name: record(*case) for name, case in CASES.items()}}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
