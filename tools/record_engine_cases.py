"""Record what PyTorch does with tools/engine_cases.py into tests/fixtures/torch/engine_cases.json.

Usage: ``python tools/record_engine_cases.py`` (needs PyTorch 2.13 installed; the test suite
does not).  Each case records ``{"result": [repr, ...]}`` or ``{"error": {"type", "message"}}``.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from engine_cases import CASES  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "torch" / "engine_cases.json"


def run(code: str) -> dict:
    """Run one case in PyTorch; its result's reprs, or its error."""
    torch.set_default_dtype(torch.float32)  # each case starts from PyTorch's defaults
    scope = {"torch": torch}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, scope)  # noqa: S102 - our own test cases
        except Exception as exc:  # noqa: BLE001 - recorded as the expected error
            return {"error": {"type": type(exc).__name__, "message": str(exc).split("\n")[0]}}
    return {"result": [repr(v) for v in scope["result"]],
            "warnings": [str(w.message) for w in caught]}


def main() -> None:
    """Record every case."""
    data = {"torch": torch.__version__, "cases": {name: run(code) for name, code in CASES.items()}}
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(CASES)} cases to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
