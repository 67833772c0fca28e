"""The machine gradcli reproduces (engine/machine.py): decided as PyTorch decides it, per run,
shown by ``gradcli doctor`` and asked by programs (torch.get_num_threads, torch.backends)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import gradcli
from gradcli.engine import machine
from gradcli.engine.exact.reduce import sum_
from gradcli.engine.machine import Machine

AVX512 = frozenset({"avx2", "fma", "avx512f", "avx512vl", "avx512bw", "avx512dq"})


@pytest.mark.parametrize(("flags", "want"), [
    (AVX512, "AVX512"),
    (AVX512 - {"avx512dq"}, "AVX2"),  # cpuinfo_has_x86_avx512dq is one of PyTorch's four
    (frozenset({"avx2", "fma"}), "AVX2"),
    (frozenset({"avx2"}), "DEFAULT"),  # AVX2 without FMA3 is not PyTorch's AVX2
    (frozenset({"avx", "sse4_2"}), "DEFAULT"),
    (frozenset(), "DEFAULT"),
])
def test_capability_from_the_cpu_flags(flags, want):
    assert machine.detected_capability(flags) == want


@pytest.mark.parametrize(("setting", "want", "warning"), [
    ("avx512", "AVX512", None), ("avx2", "AVX2", None), ("default", "DEFAULT", None),
    ("AVX2", None, "ignoring invalid value for ATEN_CPU_CAPABILITY: AVX2"),  # strcmp: lower case
    ("", None, "ignoring invalid value for ATEN_CPU_CAPABILITY: "),
    ("sve256", None, "ignoring invalid value for ATEN_CPU_CAPABILITY: sve256"),
])
def test_aten_cpu_capability_as_pytorch_reads_it(monkeypatch, setting, want, warning):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", setting)
    capability, said = machine.capability_setting()
    assert capability == (want or machine.detected_capability())
    assert said == warning


def test_machine_of_a_capability():
    assert (Machine("AVX512").vector_bytes, Machine("AVX2").vector_bytes,
            Machine("DEFAULT").vector_bytes) == (64, 32, 32)
    assert Machine("AVX2").fma and not Machine("DEFAULT").fma
    with pytest.raises(ValueError):
        Machine("SSE2")


def _threads(env: dict[str, str], *cpus: int) -> int:
    """default_threads() without MKL in a fresh process with ``env`` (and CPU affinity)."""
    code = "from gradcli.engine import machine; print(machine.default_threads())"
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_DYNAMIC")}
    cmd = [sys.executable, "-c", code]
    if cpus:
        cmd = ["taskset", "-c", ",".join(map(str, cpus)), *cmd]
    proc = subprocess.run(cmd, env={**clean, **env}, capture_output=True, text=True, check=True)
    return int(proc.stdout)


def test_default_threads_follow_pytorchs_rule_without_mkl():
    """torch.get_num_threads() as measured under these variables on a 2-core machine: MKL's
    count, which gradcli counts itself without MKL."""
    cores = machine.physical_cores()
    plain = {"GRADCLI_MKL": "0"}
    assert _threads(plain) == cores
    assert _threads({**plain, "OMP_NUM_THREADS": "1"}) == 1
    assert _threads({**plain, "OMP_NUM_THREADS": str(cores + 3)}) == cores  # capped: dynamic
    assert _threads({**plain, "OMP_NUM_THREADS": "5", "MKL_DYNAMIC": "FALSE"}) == 5
    assert _threads({**plain, "MKL_NUM_THREADS": "1", "OMP_NUM_THREADS": "3"}) == 1


def test_default_threads_with_mkl_agree_with_the_rule():
    """With MKL the count is MKL's own; it says what the rule says."""
    assert _threads({"OMP_NUM_THREADS": "1"}) == 1
    assert _threads({"OMP_NUM_THREADS": "5", "MKL_DYNAMIC": "FALSE"}) == 5


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2
                    or not os.path.exists("/usr/bin/taskset"), reason="needs 2 CPUs and taskset")
def test_default_threads_follow_the_cpu_affinity():
    assert _threads({"GRADCLI_MKL": "0"}, 0) == 1
    assert _threads({}, 0) == 1


PROGRAM = """import torch
print(torch.get_num_threads(), torch.backends.cpu.get_cpu_capability(),
      torch.backends.mkl.is_available())
torch.manual_seed(0)
x = torch.randn(100001)
a = x.sum().item()
torch.set_num_threads(1)
print(torch.get_num_threads(), a == x.sum().item())
"""


def test_a_program_sets_its_threads_for_its_run_only():
    """torch.set_num_threads in one run changes that run's long sums (a 100,001-element sum is
    one partial sum per thread), and not the next run's machine."""
    result = gradcli.run(PROGRAM)
    assert result.error is None
    assert result.prints == ["2 AVX512 True", "1 False"]
    assert gradcli.run(PROGRAM).prints == result.prints


@pytest.mark.parametrize(("call", "kind", "message"), [
    ("torch.set_num_threads(0)", "RuntimeError", "set_num_threads expects a positive integer"),
    ("torch.set_num_threads(2.0)", "RuntimeError", "set_num_threads expects an int, but got float"),
    ("torch.set_num_threads(True)", "RuntimeError", "set_num_threads expects an int, but got bool"),
    ("torch.set_num_threads('2')", "RuntimeError", "set_num_threads expects an int, but got str"),
    ("torch.set_num_threads()", "TypeError",
     "torch.set_num_threads() takes exactly one argument (0 given)"),
    ("torch.get_num_threads(1, 2)", "TypeError",
     "torch.get_num_threads() takes no arguments (2 given)"),
])
def test_thread_errors_are_pytorchs(call, kind, message):
    err = gradcli.run(f"import torch\n{call}\n").error
    assert (err.kind, err.message) == (kind, message)


def test_a_runs_machine_is_its_own():
    """Two machines in one process: each run's kernels read its own (a context variable)."""
    x = np.random.default_rng(3).standard_normal(100_001).astype(np.float32)
    one = machine.activate(Machine("AVX512", 1))
    try:
        single = sum_(x)
        two = machine.activate(Machine("AVX512", 2))
        try:
            assert sum_(x) != single
        finally:
            machine.deactivate(two)
        assert sum_(x) == single
    finally:
        machine.deactivate(one)


def _gradcli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, check=False)


def test_doctor_says_what_gradcli_emulates_and_why():
    proc = _gradcli("doctor", "--format", "json", env={"ATEN_CPU_CAPABILITY": "avx2",
                                                       "OMP_NUM_THREADS": "3"})
    assert proc.returncode == 0, proc.stderr
    facts = json.loads(proc.stdout)
    assert facts["torch"] == "2.13.0+cpu"
    assert (facts["capability"], facts["capability_source"]) == ("AVX2", "ATEN_CPU_CAPABILITY")
    assert facts["threads"] == 3  # MKL_DYNAMIC=FALSE is pinned by the tests' conftest
    assert facts["environment"]["OMP_NUM_THREADS"] == "3"
    assert facts["cpu"]["model"]
    text = _gradcli("doctor", "--format", "plain", env={"ATEN_CPU_CAPABILITY": "avx2",
                                                        "OMP_NUM_THREADS": "3"}).stdout
    assert "capability   AVX2, ATEN_CPU_CAPABILITY=avx2\n" in text
    assert facts["kernels"] in text and text.count("\nkernels ") == 1
    pure = json.loads(_gradcli("doctor", "--format", "json", env={"GRADCLI_PURE": "1"}).stdout)
    assert pure["kernels"] == "numpy (GRADCLI_PURE is set)"
    if facts["mkl"] is not None:
        assert len(facts["mkl"]["probe"]) == 16
        assert "probe " + facts["mkl"]["probe"] in text


def test_doctor_names_an_ignored_setting_and_takes_no_script():
    text = _gradcli("doctor", "--format", "plain", env={"ATEN_CPU_CAPABILITY": "AVX2"}).stdout
    assert "(ignoring invalid value for ATEN_CPU_CAPABILITY: AVX2)" in text
    extra = _gradcli("doctor", "prog.py")
    assert extra.returncode == 2 and "unexpected extra argument" in extra.stderr
    assert "Traceback" not in extra.stderr


def test_a_run_notes_an_ignored_capability_setting():
    proc = _gradcli("grad", "-e", "w = 2; L = w * w", "--wrt", "w",
                    env={"ATEN_CPU_CAPABILITY": "fast"})
    assert proc.stdout == "dL/dw = 4.0\n"
    assert "gradcli: note: ignoring invalid value for ATEN_CPU_CAPABILITY: fast" in proc.stderr


@pytest.mark.parametrize("capability, environ, flags, want", [
    ("AVX2", {}, frozenset({"avx2", "fma"}), False),
    ("AVX2", {}, AVX512, True),  # oneDNN's ISA is the CPU's, not ATen's capability
    ("DEFAULT", {}, AVX512, True),
    ("AVX512", {}, frozenset({"avx2", "fma"}), True),  # (an AVX512 capability implies the CPU)
    ("AVX512", {"ONEDNN_MAX_CPU_ISA": "AVX2"}, AVX512, False),
    ("AVX2", {"ONEDNN_MAX_CPU_ISA": "avx2_vnni"}, AVX512, False),
    ("AVX2", {"DNNL_MAX_CPU_ISA": "SSE41"}, AVX512, False),
    ("AVX2", {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE"}, AVX512, True),
    ("AVX2", {"ONEDNN_MAX_CPU_ISA": "ALL"}, frozenset({"avx2", "fma"}), False),
])
def test_onednn_isa_is_the_cpus_unless_capped(capability, environ, flags, want):
    assert machine.onednn_avx512(capability, environ, flags) is want
