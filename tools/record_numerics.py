"""Record PyTorch's exact float32/float64 results for tools/numerics_cases.py.

Usage: ``python tools/record_numerics.py`` (needs PyTorch 2.13; the test suite does not).  Writes
``tests/fixtures/torch/numerics.json``: the machine the bits come from (torch version, CPU
capability, threads, MKL, glibc — PyTorch's kernels, and so its last bits, depend on them) and,
per case id, each output's shape and raw little-endian bytes in base64 (a sha256 digest for
large outputs of ops gradcli reproduces exactly, numerics_cases.compact).
"""

from __future__ import annotations

import base64
import hashlib
import json
import platform
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from numerics_cases import OPS, apply_view, cases, compact, make_input

OUT = ROOT / "tests" / "fixtures" / "torch" / "numerics.json"


def machine() -> dict:
    """The facts PyTorch's CPU results depend on."""
    return {"torch": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "threads": torch.get_num_threads(), "mkl": torch.backends.mkl.is_available(),
            "blas": next((line.strip() for line in torch.__config__.show().splitlines()
                          if "Math Kernel Library" in line), ""),
            "libc": " ".join(platform.libc_ver()), "machine": platform.machine()}


def run(case: dict) -> dict:
    """One case on PyTorch: its outputs' shapes and bytes."""
    tensors = []
    for r in case["inputs"]:
        arr = make_input(r, case["dtype"])
        tensors.append(apply_view(torch, torch.from_numpy(arr.copy()), r))
    out = OPS[case["op"]](torch, *tensors, **case["params"])
    outs = out if isinstance(out, list) else [out]
    arrays = [np.ascontiguousarray(o.detach().numpy()) for o in outs]
    return {"shape": [list(a.shape) for a in arrays], "out": [encode(case, a) for a in arrays]}


def encode(case: dict, a: np.ndarray) -> str:
    """An output's bytes in base64, or "sha256:" and their digest when it is large and of an op
    gradcli reproduces exactly (numerics_cases.compact): then the digest says all there is."""
    if compact(case, a.size):
        return "sha256:" + hashlib.sha256(a.tobytes()).hexdigest()
    return base64.b64encode(a.tobytes()).decode()


def main() -> None:
    """Record every case."""
    all_cases = cases()
    data = {"machine": machine(), "cases": {c["id"]: run(c) for c in all_cases}}
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {len(all_cases)} cases to {OUT.relative_to(ROOT)} "
          f"({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
