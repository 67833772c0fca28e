"""Record PyTorch's forward-mode tangents at each node of the two small networks that
``explain --mode forward`` is tested on, into tests/fixtures/torch/forward_views.json.

Usage: ``python tools/record_forward_views.py`` (needs PyTorch 2.13; runs under
tools/machines.py's pinned setting and records the machine).  For each element i of W1, W1 is
made a dual tensor with the tangent e_i and every intermediate's tangent is unpacked
(``tolist()``, exact), under the label ``explain`` gives that node: samples/tiny_mlp.grad (the
grad script written out in PyTorch, float64) and tests/test_forward_views.py's TORCH_MLP
(float32, its tensors drawn from torch.manual_seed(0)).
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
import torch.autograd.forward_ad as fwAD

OUT = ROOT / "tests" / "fixtures" / "torch" / "forward_views.json"


def tiny_mlp(w1: torch.Tensor) -> dict[str, torch.Tensor]:
    """samples/tiny_mlp.grad, each intermediate under explain's label."""
    f64 = torch.float64
    x = torch.tensor([[1.0, -2.0]], dtype=f64)
    y = torch.tensor([[0.5]], dtype=f64)
    b1 = torch.tensor([0.1, -0.2], dtype=f64)
    w2 = torch.tensor([[0.7], [-0.5]], dtype=f64)
    b2 = torch.tensor([0.05], dtype=f64)
    n = {"x@W1": x @ w1}
    n["x@W1 + b1"] = n["x@W1"] + b1
    n["h"] = torch.tanh(n["x@W1 + b1"])
    n["h@W2"] = n["h"] @ w2
    n["out"] = n["h@W2"] + b2
    n["out - y"] = n["out"] - y
    n["(out - y)**2"] = n["out - y"] ** 2
    n["L"] = n["(out - y)**2"].mean()
    return n


def torch_mlp_inputs() -> tuple:
    torch.manual_seed(0)
    x = torch.randn(3, 2)
    y = torch.randn(3, 1)
    w1 = torch.randn(2, 2)
    w2 = torch.randn(2, 1)
    return x, y, w1, w2


def torch_mlp(w1: torch.Tensor, x: torch.Tensor, y: torch.Tensor,
              w2: torch.Tensor) -> dict[str, torch.Tensor]:
    """TORCH_MLP of tests/test_forward_views.py, each intermediate under explain's label."""
    n = {"x@W1": x @ w1}
    n["h"] = torch.relu(n["x@W1"])
    n["out"] = n["h"] @ w2
    n["loss"] = torch.nn.functional.mse_loss(n["out"], y)
    return n


def tangents(w1: torch.Tensor, net) -> dict[str, list]:
    """Each node's tangent for W1's seeds e_0, e_1, ... (a list per seed)."""
    out: dict[str, list] = {}
    for i in range(w1.numel()):
        seed = torch.zeros_like(w1).reshape(-1)
        seed[i] = 1
        with fwAD.dual_level():
            nodes = net(fwAD.make_dual(w1, seed.reshape(w1.shape)))
            for label, t in nodes.items():
                out.setdefault(label, []).append(fwAD.unpack_dual(t).tangent.tolist())
    return out


def main() -> None:
    w1 = torch.tensor([[0.3, -0.1], [0.2, 0.4]], dtype=torch.float64)
    x, y, tw1, w2 = torch_mlp_inputs()
    data = {"torch": torch.__version__, "settings": machines.PINNED,
            "machine": machines.describe(machines.PINNED),
            "tiny_mlp": tangents(w1, tiny_mlp),
            "torch_mlp": tangents(tw1, lambda w: torch_mlp(w, x, y, w2))}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
