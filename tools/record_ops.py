"""Record PyTorch's answers for every op of gradcli's op table that has a surface.

Usage: ``PYTHONPATH=src python tools/record_ops.py [--check]`` (needs PyTorch 2.13). Writes
``tests/fixtures/torch/ops.json``; ``--check`` exits 1 when the file is out of date (an op was
added to the table without its fixture).

The table (``gradcli.engine.ops.OPS``) says which ops there are, under which PyTorch names
(``torch.<name>``, ``Tensor.<name>``, ``torch.nn.functional.<name>``) and on which interval
to test each; this tool reads only that.  For each op it records, in float64 and float32, on
inputs drawn with a fixed NumPy seed from the op's domain: the grad_fn name, the names of what
the node saved, the values, and the gradient for a random upstream gradient.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import machines

machines.pin()  # the setting the tests run under, before PyTorch loads
import torch
import torch.nn.functional as F

from gradcli.engine.ops import OPS

OUTPUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "torch" / "ops.json"
SHAPE = (3, 4)


def inputs(op: Any) -> tuple[list, list]:
    """The op's test input and upstream gradient, the same on every run."""
    rng = np.random.default_rng(sum(map(ord, op.name)))
    x = rng.uniform(*op.domain, SHAPE)
    return x.tolist(), rng.uniform(-1, 1, SHAPE).tolist()


def torch_function(op: Any) -> Any:
    """The op under its PyTorch name."""
    return getattr(torch, op.name) if "torch" in op.surface else getattr(F, op.name)


def record(op: Any) -> dict:
    values, upstream = inputs(op)
    case: dict[str, Any] = {"surface": list(op.surface), "input": values, "upstream": upstream}
    for dtype in ("float64", "float32"):
        x = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
        y = torch_function(op)(x)
        if "Tensor" in op.surface:  # the method gives the same node
            assert type(getattr(x, op.name)().grad_fn) is type(y.grad_fn)
        saved = sorted(a[len("_saved_"):] for a in dir(y.grad_fn) if a.startswith("_saved_")
                       and isinstance(getattr(y.grad_fn, a), torch.Tensor))
        y.backward(torch.tensor(upstream, dtype=x.dtype))
        grad = x.grad + torch.zeros_like(x)  # sgn's gradient is a ZeroTensor: no storage
        case[dtype] = {"grad_fn": y.grad_fn.name(), "saved": saved,
                       "value": y.detach().tolist(), "grad": grad.tolist()}
    return case


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args()
    doc = {"torch": torch.__version__, **machines.stamp(),
           "ops": {op.name: record(op) for op in OPS.values() if op.domain is not None}}
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if args.check:
        stale = not OUTPUT.exists() or OUTPUT.read_text() != text
        print(f"{OUTPUT.name}: {'out of date' if stale else 'up to date'}")
        return 1 if stale else 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT} ({len(doc['ops'])} ops)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
