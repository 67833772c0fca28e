"""Record what PyTorch does with tools/vmap_cases.py into tests/fixtures/torch/vmap_cases.json.

Usage: ``python tools/record_vmap_cases.py`` (needs PyTorch 2.13; the test suite does not).  It
runs under tools/machines.py's pinned setting and records the machine.  Each case records
``{"result": [value, ...]}`` (a tensor as ``{"shape", "dtype", "stride", "hex"}``, its bytes
in C order; anything else as ``{"repr"}``) or ``{"error": {"type", "message"}}``.
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
import torch.func  # the cases read torch.func
import torch.nn.functional as F
from vmap_cases import CASES

OUT = ROOT / "tests" / "fixtures" / "torch" / "vmap_cases.json"


def value(v: object) -> dict:
    if isinstance(v, torch.Tensor):
        t = v.detach()
        return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
                "stride": list(t.stride()), "hex": t.contiguous().numpy().tobytes().hex()}
    return {"repr": repr(v)}


def run(code: str) -> dict:
    scope = {"torch": torch, "F": F, "nn": torch.nn}
    try:
        exec(code, scope)  # noqa: S102 - our own cases
    except Exception as exc:  # noqa: BLE001 - PyTorch's errors are the answer
        return {"error": {"type": type(exc).__name__, "message": str(exc)}}
    return {"result": [value(v) for v in scope["result"]]}


def main() -> None:
    torch.set_default_dtype(torch.float32)
    cases = {name: run(code) for name, code in CASES.items()}
    doc = {"torch": torch.__version__, "settings": machines.PINNED, "machine": machines.describe(machines.PINNED),
           "cases": cases}
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
