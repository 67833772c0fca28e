"""Record what PyTorch does with tools/engine_cases.py into tests/fixtures/torch/engine_cases.json.

Usage: ``python tools/record_engine_cases.py`` (needs PyTorch 2.13 installed; the test suite
does not); it runs under tools/machines.py's pinned setting and records the machine.  Each case records ``{"result": [repr, ...], "warnings": [...]}`` or ``{"error":
{"type", "message"}}`` (the first line of the message; warnings without PyTorch's "(Triggered
internally at …)").  A case sees ``torch``, ``F`` (torch.nn.functional) and ``graph(t)``, the
backward graph of ``t`` as one string of grad_fn names with their saved tensors.
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import machines

machines.pin()  # the setting the tests run under, before PyTorch loads
import torch
from engine_cases import CASES

ADDRESS = re.compile(r"0x[0-9a-f]+")  # object addresses differ from run to run

OUT = ROOT / "tests" / "fixtures" / "torch" / "engine_cases.json"


def graph(t: torch.Tensor) -> str:
    """The backward graph from ``t.grad_fn``, depth first: ``Name[saved,...](next, ...)``."""
    def walk(fn: object) -> str:
        if fn is None:
            return "None"
        saved = sorted(a[len("_saved_"):] for a in dir(fn)
                       if a.startswith("_saved_") and isinstance(_saved(fn, a), torch.Tensor))
        kids = [walk(n) for n, _ in fn.next_functions]
        return (fn.name().replace("torch::autograd::", "")
                + (f"[{','.join(saved)}]" if saved else "")
                + (f"({', '.join(kids)})" if kids else ""))

    return walk(t.grad_fn)


def _saved(fn: object, attr: str) -> object:
    try:
        return getattr(fn, attr)
    except RuntimeError:  # freed by a backward
        return None


def run(code: str) -> dict:
    """Run one case in PyTorch; its result's reprs, or its error."""
    torch.set_default_dtype(torch.float32)  # each case starts from PyTorch's defaults
    scope = {"torch": torch, "F": torch.nn.functional, "graph": graph}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, scope)  # noqa: S102 - our own test cases
        except Exception as exc:  # noqa: BLE001 - recorded as the expected error
            return {"error": {"type": type(exc).__name__, "message": str(exc).split("\n")[0]}}
    return {"result": [ADDRESS.sub("0xADDR", repr(v)) for v in scope["result"]],
            "warnings": [str(w.message).split(" (Triggered internally at")[0] for w in caught]}


def main() -> None:
    """Record every case."""
    data = {"torch": torch.__version__, "settings": machines.PINNED,
            "machine": machines.describe(machines.PINNED),
            "cases": {name: run(code) for name, code in CASES.items()}}
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(CASES)} cases to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
