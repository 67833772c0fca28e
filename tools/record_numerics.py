"""Record PyTorch's exact float32/float64 results for tools/numerics_cases.py, on this machine.

Usage: ``python tools/record_numerics.py`` (needs PyTorch 2.13; the test suite does not).  Each
setting of tools/machines.py is recorded by PyTorch in a process of its own, started with that
setting's environment, and written with the machine it ran on (engine/exact/fingerprint.py: CPU,
capability, threads, MKL's version, code path and probe digest):

* ``tests/fixtures/torch/numerics.json``: every case under ``machines.PINNED`` (AVX512, 2
  threads): per case id, each output's shape and raw little-endian bytes in base64 (a sha256
  digest for large outputs of ops gradcli reproduces exactly, numerics_cases.compact, except
  where the bits come from MKL: those are kept whole, for the comparison within a bound on
  machines whose MKL takes another code path);
* ``numerics_variants.json``: per setting of ``machines.VARIANTS`` (the other capabilities and
  thread counts), the cases whose bits differ from the pinned ones.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import machines
from numerics_cases import OPS, apply_view, cases, compact, make_input

OUT = ROOT / "tests" / "fixtures" / "torch"


def run(case: dict, torch, full: bool) -> dict:
    """One case on PyTorch: its outputs' shapes and bytes."""
    tensors = []
    for r in case["inputs"]:
        arr = make_input(r, case["dtype"])
        tensors.append(apply_view(torch, torch.from_numpy(arr.copy()), r))
    out = OPS[case["op"]](torch, *tensors, **case["params"])
    outs = out if isinstance(out, list) else [out]
    arrays = [np.ascontiguousarray(o.detach().numpy()) for o in outs]
    return {"shape": [list(a.shape) for a in arrays],
            "out": [encode(case, a, full) for a in arrays]}


def encode(case: dict, a: np.ndarray, full: bool = False) -> str:
    """An output's bytes in base64, or "sha256:" and their digest when it is large and of an op
    gradcli reproduces exactly (numerics_cases.compact): then the digest says all there is."""
    if not full and compact(case, a.size):
        return "sha256:" + hashlib.sha256(a.tobytes()).hexdigest()
    return base64.b64encode(a.tobytes()).decode()


def child(full: list[str]) -> None:
    """In the setting's process: PyTorch's answers for every case (those of ``full`` whole)."""
    import torch

    facts = {"version": torch.__version__,
             "cpu_capability": torch.backends.cpu.get_cpu_capability(),
             "threads": torch.get_num_threads(),
             "mkl": next((line.strip() for line in torch.__config__.show().splitlines()
                          if "Math Kernel Library" in line), None)}
    whole = set(full)
    answers = {c["id"]: run(c, torch, c["id"] in whole) for c in cases()}
    json.dump({"torch": facts, "cases": answers}, sys.stdout, separators=(",", ":"))


def record(setting: dict, full: list[str]) -> dict:
    """PyTorch's answers under ``setting``, with the machine that gave them."""
    args = [sys.executable, str(Path(__file__).resolve()), "--child"]
    out = subprocess.run(args, input=json.dumps(full), env=machines.environment(setting),
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    machine = machines.describe(setting)
    torch_facts = data["torch"]
    assert torch_facts["cpu_capability"] == machine["capability"], (torch_facts, machine)
    assert torch_facts["threads"] == machine["threads"], (torch_facts, machine)
    return {"settings": setting, "pytorch": torch_facts, "machine": machine,
            "cases": data["cases"]}


def mkl_cases() -> list[str]:
    """The cases whose gradcli run calls MKL: their bits depend on MKL's code path."""
    sys.path.insert(0, str(ROOT / "src"))
    from numerics_gradcli import calls_mkl

    return [case["id"] for case in cases() if calls_mkl(case)]


def write(name: str, data: dict) -> None:
    path = OUT / name
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {len(data.get('cases', data))} entries to {path.relative_to(ROOT)} "
          f"({path.stat().st_size // 1024} KiB)")


def main() -> None:
    """Record every setting."""
    full = mkl_cases()
    base = record(machines.PINNED, full)
    write("numerics.json", base)
    variants = {}
    for name, setting in machines.VARIANTS.items():
        data = record(setting, full)
        data["cases"] = {k: v for k, v in data["cases"].items() if v != base["cases"][k]}
        variants[name] = data
    write("numerics_variants.json", variants)


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child(json.loads(sys.stdin.read()))
    else:
        main()
