"""What the test files share: markers, and how a child process starts."""

import shutil
import sys

import machines  # tools/, on the path by conftest.py
import pytest

# `dot` from Graphviz: the tests that render a graph through it skip where it is not installed
# (CI installs it; a developer's machine may not have it).
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz dot is not installed")

# Real PyTorch computing in the test process: it takes the pinned ATEN_CPU_CAPABILITY (avx512)
# without asking the CPU, so on a CPU without AVX-512 its first such kernel would end the whole
# test process (SIGILL); those tests skip there (gradcli itself emulates any capability).
runs_torch = pytest.mark.skipif(
    machines.torch_cannot_run() is not None,
    reason="this CPU lacks the instructions of the pinned ATEN_CPU_CAPABILITY, which PyTorch "
           "would run without asking (SIGILL)")


def with_default_sigint(argv: list[str]) -> list[str]:
    """``argv`` run with SIGINT as a terminal gives it, for a child the test will Ctrl-C: a
    shell starting the test run in the background (``pytest &``) makes its children ignore
    SIGINT, and gradcli leaves an ignored SIGINT ignored, as a background job should. (The
    same process: a small Python resets the signal and execs ``argv``.)"""
    reset = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
             "os.execv(sys.argv[1], sys.argv[1:])")
    return [sys.executable, "-c", reset, *argv]
