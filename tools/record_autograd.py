"""Record PyTorch's answers to tests/autograd_cases.py into tests/fixtures/torch/autograd.json.

Run with PyTorch installed (never imported by the test-suite):

    python tools/record_autograd.py            # every case
    python tools/record_autograd.py --check    # exit 1 if the fixture is out of date
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import machines

machines.pin()  # the setting the tests run under, before PyTorch loads
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import autograd_cases as cases

OUT = ROOT / "tests" / "fixtures" / "torch" / "autograd.json"
TRIGGERED = re.compile(r" \(Triggered internally at [^)]*\.\)")


class Attributes:
    """Tensor attributes are plain Python attributes in PyTorch."""

    get = staticmethod(getattr)
    set = staticmethod(setattr)


def host(t: torch.Tensor) -> tuple:
    t = t.detach()
    return t.tolist(), str(t.dtype).replace("torch.", "")


def run(name: str, fn) -> dict:
    """One case in a fresh state: its logged values, result or error, and warnings."""
    torch.set_default_dtype(torch.float32 if name in cases.FLOAT32 else torch.float64)
    torch.set_grad_enabled(True)
    logged: list = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = {"value": cases.encode(fn(torch, Attributes, logged.append), host)}
        except Exception as exc:  # noqa: BLE001 - the error is the answer
            result = {"error": type(exc).__name__, "message": str(exc)}
    result["log"] = [cases.encode(v, host) for v in logged]
    seen, result["warnings"] = set(), []
    for w in caught:
        text = TRIGGERED.sub("", str(w.message))
        if (w.category.__name__, text) not in seen:  # TORCH_WARN_ONCE, and our run's dedup
            seen.add((w.category.__name__, text))
            result["warnings"].append({"category": w.category.__name__, "message": text})
    return result


def record() -> dict:
    out = {"torch": torch.__version__, **machines.stamp(), "cases": {}}
    for name, fn in inspect.getmembers(cases, inspect.isfunction):
        if name.startswith("case_"):
            out["cases"][name[5:]] = run(name[5:], fn)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = json.dumps(record(), indent=1, sort_keys=True) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print("up to date" if same else f"{OUT} is out of date")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
