"""Record what PyTorch's forward mode gives for tools/forward_cases.py into
tests/fixtures/torch/forward_cases.json.

Usage: ``python tools/record_forward_cases.py`` (needs PyTorch 2.13; runs under
tools/machines.py's pinned setting and records the machine).  Per case: the inputs and their
tangents (drawn with a fixed seed per case), and for float64 and float32 the result's primal
and tangent (``tolist()``, exact), or the error (its type and first line).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import machines

machines.pin()  # the setting the tests run under, before PyTorch loads
import torch
import torch.autograd.forward_ad as fwAD
from forward_cases import CASES

OUT = ROOT / "tests" / "fixtures" / "torch" / "forward_cases.json"


def draw(name: str, shapes: list, domain: tuple) -> tuple[list, list]:
    """The case's inputs and tangents, the same on every run."""
    rng = np.random.default_rng(sum(ord(c) * (i + 1) for i, c in enumerate(name)))
    values = [rng.uniform(*domain, tuple(s)).tolist() for s in shapes]
    tangents = [rng.uniform(-1, 1, tuple(s)).tolist() for s in shapes]
    return values, tangents


def setitem(x: torch.Tensor, index: object, value: torch.Tensor) -> torch.Tensor:
    """A clone of ``x`` with ``[index] = value``."""
    y = x.clone()
    y[index] = value
    return y


def run(expr: str, values: list, tangents: list, dtype: torch.dtype) -> dict:
    """The expression's primal and tangent in PyTorch, or its error."""
    scope = {"torch": torch, "F": torch.nn.functional,
             "I": lambda v: torch.tensor(v, dtype=torch.int64), "S": setitem}
    try:
        with fwAD.dual_level():
            for name, v, t in zip("abcdef", values, tangents):
                scope[name] = fwAD.make_dual(torch.tensor(v, dtype=dtype),
                                             torch.tensor(t, dtype=dtype))
            out = eval(expr, scope)
            primal, tangent = fwAD.unpack_dual(out)
            return {"primal": primal.tolist(), "tangent": None if tangent is None
                    else tangent.tolist(), "dtype": str(primal.dtype)}
    except Exception as exc:  # noqa: BLE001 - recorded as the expected error
        return {"error": {"type": type(exc).__name__, "message": str(exc).split("\n")[0]}}


def second(expr: str, values: list, tangents: list) -> dict:
    """Reverse mode through the tangent (float64, inputs that require grad): the gradient of
    the tangent's sum with respect to each input (None where it does not reach it)."""
    scope = {"torch": torch, "F": torch.nn.functional,
             "I": lambda v: torch.tensor(v, dtype=torch.int64), "S": setitem}
    try:
        inputs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
        with fwAD.dual_level():
            for name, x, t in zip("abcdef", inputs, tangents):
                scope[name] = fwAD.make_dual(x, torch.tensor(t, dtype=torch.float64))
            tangent = fwAD.unpack_dual(eval(expr, scope)).tangent
            if tangent is None or not tangent.requires_grad:
                return {"grads": None}
            grads = torch.autograd.grad(tangent.sum(), inputs, allow_unused=True)
        # (a ZeroTensor gradient has no storage: added to zeros, it has)
        return {"grads": [None if g is None else (g + torch.zeros_like(g)).tolist()
                          for g in grads]}
    except Exception as exc:  # noqa: BLE001 - recorded as the expected error
        return {"error": {"type": type(exc).__name__, "message": str(exc).split("\n")[0]}}


def main() -> None:
    """Record every case."""
    cases = {}
    for name, (expr, shapes, domain) in CASES.items():
        values, tangents = draw(name, shapes, domain)
        cases[name] = {"inputs": values, "tangents": tangents,
                       **{str(dt).split(".")[1]: run(expr, values, tangents, dt)
                          for dt in (torch.float64, torch.float32)},
                       "second": second(expr, values, tangents)}
    data = {"torch": torch.__version__, "settings": machines.PINNED,
            "machine": machines.describe(machines.PINNED), "cases": cases}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
