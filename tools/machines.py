"""The settings PyTorch's answers are recorded under and the tests run gradcli under.

PyTorch's last bits depend on the CPU: the kernels its dispatcher picks (``ATEN_CPU_CAPABILITY``),
its thread count, and MKL's code path for the CPU.  gradcli emulates the first two, so any
machine can reproduce any setting of them: ``PINNED`` is the setting every fixture is recorded
under and the whole test session runs under (tests/conftest.py puts it in the environment before
MKL loads; the commands the tests start inherit it), and ``VARIANTS`` the other capabilities and
thread counts the numerics are recorded for.  ``MKL_DYNAMIC=FALSE`` makes MKL use the threads it
is given on a machine of fewer cores, as it does after ``torch.set_num_threads``.

MKL's code path only the CPU itself runs: a result that comes from MKL is compared bit for bit
where the machine is the recording one (``same_machine``) and within a stated bound elsewhere.
(MKL's reproducible branches, ``MKL_CBWR``, do not help: PyTorch's own MKL keeps its vector math
on the CPU's path under them, measured on torch 2.13, while the library gradcli loads follows
them.)
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PINNED = {"ATEN_CPU_CAPABILITY": "avx512", "OMP_NUM_THREADS": "2", "MKL_DYNAMIC": "FALSE"}
VARIANTS = {
    "avx2": {**PINNED, "ATEN_CPU_CAPABILITY": "avx2"},
    "default": {**PINNED, "ATEN_CPU_CAPABILITY": "default"},
    "threads1": {**PINNED, "OMP_NUM_THREADS": "1"},
    "threads4": {**PINNED, "OMP_NUM_THREADS": "4"},
    "threads8": {**PINNED, "OMP_NUM_THREADS": "8"},
}
# what a setting may set (the rest are cleared: they would change MKL's results)
KEYS = ("ATEN_CPU_CAPABILITY", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_DYNAMIC", "MKL_CBWR",
        "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")


def onednn_cap(recorded: dict | None) -> dict[str, str]:
    """The environment that gives gradcli the oneDNN ISA of a recording machine without
    AVX-512 (oneDNN picks its ISA from the CPU, whatever the setting: F.gelu's kernels) where
    it runs on one with: ``ONEDNN_MAX_CPU_ISA=AVX2``, as oneDNN itself reads it."""
    flags = set((recorded or {}).get("cpu", {}).get("flags", ()))
    if recorded is None or {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags:
        return {}
    return {"ONEDNN_MAX_CPU_ISA": "AVX2"}


def environment(setting: dict[str, str]) -> dict[str, str]:
    """This process's environment with ``setting`` in place of the variables of ``KEYS``."""
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env.update(setting)
    return env


def pin(setting: dict[str, str] = PINNED) -> None:
    """Put ``setting`` in this process's environment (before PyTorch or MKL loads)."""
    for key in KEYS:
        os.environ.pop(key, None)
    os.environ.update(setting)


def describe(setting: dict[str, str]) -> dict:
    """The machine as gradcli sees it under ``setting`` (engine/exact/fingerprint.py), from a
    fresh process: the CPU, capability, threads and MKL's version, code path and probe."""
    code = ("import json; from gradcli.engine.exact import fingerprint; "
            "print(json.dumps(fingerprint.describe()))")
    env = environment(setting)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"),
                                                      env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    facts = json.loads(out.stdout)
    if facts.get("mkl"):
        facts["mkl"].pop("path", None)  # where it is installed here says nothing of its results
    return facts


def stamp() -> dict:
    """What a fixture records of where it was recorded: the pinned setting and the machine."""
    return {"settings": PINNED, "machine": describe(PINNED)}


def same_machine(recorded: dict, here: dict) -> str | None:
    """None when ``here`` reproduces what was recorded on ``recorded`` (the same CPU model and
    instruction sets, capability, threads, MKL library and MKL results on the probe), else what
    differs.  The instruction sets count even where the pinned capability hides them from
    PyTorch's kernels: NumPy and MKL pick their own code paths from them (NumPy's ``sin`` on a
    CPU with AVX-512 is another function, last bits and all, than on one without), and one
    model name covers CPUs with and without AVX-512."""
    def facts(m: dict) -> dict:
        mkl = m.get("mkl") or {}
        return {"CPU": m["cpu"]["model"], "CPU flags": sorted(m["cpu"].get("flags", ())),
                "capability": m["capability"],
                "threads": m["threads"], "MKL": mkl.get("version"),
                "MKL code path": mkl.get("processor"), "MKL branch": mkl.get("branch"),
                "MKL probe": mkl.get("probe")}

    a, b = facts(recorded), facts(here)
    diffs = [f"{k} {a[k]!r} there, {b[k]!r} here" for k in a if a[k] != b[k]]
    return "; ".join(diffs) if diffs else None


def torch_cannot_run(setting: dict[str, str] = PINNED) -> str | None:
    """Why real PyTorch cannot compute in a process under ``setting`` on this CPU, or None.

    PyTorch takes ``ATEN_CPU_CAPABILITY`` without asking the CPU: on a CPU without AVX-512 the
    pinned ``avx512`` makes its first AVX-512 kernel end the process (SIGILL), so the tests that
    run PyTorch itself in the test process skip there (gradcli emulates any capability)."""
    from gradcli.engine import machine

    here = machine.detected_capability()
    wanted = setting.get("ATEN_CPU_CAPABILITY", "").upper()
    wanted = wanted if wanted in machine.CAPABILITIES else here
    order = machine.CAPABILITIES
    if order.index(wanted) <= order.index(here):
        return None
    return (f"PyTorch would run {wanted} kernels (the setting's ATEN_CPU_CAPABILITY) on a CPU "
            f"that has only {here}'s instructions")


# ---- comparing a program's printed output across machines -----------------------------------
# Where a program's numbers come through MKL and the machine is not the recording one, its
# output is compared number by number within this tolerance (a program-level bound: through a
# training loop one op's last-bit difference grows, so it cannot be derived per op): each
# number within RTOL of the larger magnitude, or within ATOL of the largest magnitude the whole
# output prints (a loss that converges to 1e-8 from 3e4 carries 3e4's rounding), or within one
# unit of its last printed digit; everything else, words and punctuation, equal.
RTOL = 1e-3
ATOL = 1e-5
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)\b")


def close_text(got: str, want: str) -> str | None:
    """None when ``got`` prints what ``want`` prints up to the tolerance above (spaces between
    tokens aside), else the first difference."""
    g_parts, w_parts = _NUMBER.split(got), _NUMBER.split(want)
    g_nums, w_nums = _NUMBER.findall(got), _NUMBER.findall(want)
    if len(g_nums) != len(w_nums) or \
            [" ".join(p.split()) for p in g_parts] != [" ".join(p.split()) for p in w_parts]:
        return f"the text around the numbers differs: {_first_line_diff(got, want)}"
    values = [abs(float(w)) for w in w_nums if math.isfinite(float(w))]
    scale = max(values, default=0.0)
    for g, w in zip(g_nums, w_nums):
        a, b = float(g), float(w)
        if a == b or (math.isnan(a) and math.isnan(b)):
            continue
        if not (math.isfinite(a) and math.isfinite(b)):
            return f"{g} where {w} was recorded"
        digit = max(_last_digit(g), _last_digit(w))
        if abs(a - b) > max(RTOL * max(abs(a), abs(b)), ATOL * scale, digit * (1 + 1e-9)):
            return f"{g} where {w} was recorded (beyond the tolerance)"
    return None


def _last_digit(number: str) -> float:
    """The value of one unit in the last printed digit of ``number`` (1e-4 for 0.5000)."""
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def _first_line_diff(got: str, want: str) -> str:
    for i, (g, w) in enumerate(zip(got.splitlines(), want.splitlines()), 1):
        if g != w:
            return f"line {i}: {g!r} where {w!r} was recorded"
    return "the number of lines"
