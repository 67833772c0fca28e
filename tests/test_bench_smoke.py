"""The benchmark harness runs: every workload at a tiny size, gradcli always, torch when present.

No timing is asserted; these tests prove the harness works and that its two halves compute the
same gradients, so a broken bench is caught before someone reads numbers from it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from marks import runs_torch

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_engine.py"
TINY = {"a": 31, "b": 22, "c": 8}  # 31 and 22 exercise the tails (n % 3, n % 4)


def _load():
    spec = importlib.util.spec_from_file_location("bench_engine", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_engine"] = module
    spec.loader.exec_module(module)
    return module


bench = _load()
WORKLOADS = {w.key: w for w in bench.WORKLOADS}


@pytest.fixture(autouse=True)
def _no_settle_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "SETTLE_S", 0.0)


@pytest.mark.parametrize("key", sorted(TINY))
def test_gradcli_half_runs(key: str) -> None:
    w = WORKLOADS[key]
    timing = bench.run_once(w, bench.GradcliLib(), TINY[key])
    assert timing.total >= 0
    assert len(timing.grads) == w.leaves
    for g in timing.grads:
        assert np.all(np.isfinite(g))
        assert np.any(g != 0)


def test_scalar_chain_counts_ops() -> None:
    lib = bench.GradcliLib()
    for n in (30, 31, 32):
        y = bench.scalar_forward(lib, bench.scalar_setup(lib, n), n)
        depth, node = 0, y.grad_fn
        while node is not None and node.fn_name != "AccumulateGrad":
            depth += 1
            node = node.edges[0]
        assert depth == n


@runs_torch
@pytest.mark.parametrize("key", sorted(TINY))
def test_torch_half_agrees(key: str) -> None:
    torch = pytest.importorskip("torch")
    w = WORKLOADS[key]
    best = bench.best_of(w, [bench.GradcliLib(), bench.TorchLib(torch)], TINY[key], reps=1)
    assert set(best) == {"gradcli", "torch"}
    assert bench.max_abs_diff(best["gradcli"].grads, best["torch"].grads) < 1e-10


def test_memory_child_in_process() -> None:
    m = bench.memory_child("gradcli", 1000, 3)
    assert m["saved_mb"] == pytest.approx(3 * 8000 / bench.MB)
    assert m["grad"] != 0


def test_memory_subprocess_and_table_row() -> None:
    m = bench.measure_memory("gradcli", 1000, 2, threads=1)
    assert set(m) >= {"after_forward_mb", "after_backward_mb", "peak_mb"}
    assert bench.table([("a", "bb"), ("ccc", "d")]).splitlines()[1] == "---  --"


def test_cli_quick_gradcli_only(capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "load_torch", lambda: None)
    monkeypatch.setattr(bench, "WORKLOADS", tuple(
        bench.Workload(w.key, w.title, w.setup, w.forward, w.leaves, TINY[w.key], TINY[w.key],
                       w.target) for w in bench.WORKLOADS))
    assert bench.main(["--quick", "--reps", "1", "--only", "abc", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    for label in ("a scalar chain 31 ops", "b 3x3 chain 22 ops", "c mlp 8x8 f64"):
        assert label in out
    assert "MISS" not in out and "PASS" not in out  # no torch, no verdict


def test_program_bench_halves_print_the_same() -> None:
    """bench/bench_program.py: its PyTorch program and its grad script are one computation."""
    spec = importlib.util.spec_from_file_location(
        "bench_program", BENCH.parent / "bench_program.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, program = module.run_in_process(module.program(3), "train.py")
    _, script = module.run_in_process(module.script(3), "train.grad")
    assert program == script and program[0].startswith("step 0: loss ")


def test_cli_bench_matmul_row_parses_gradclis_answer() -> None:
    """bench/bench_cli.py's matmul row: the grad script runs and its printed gradient (the
    row compares it with PyTorch's g.tolist()) is read back element for element."""
    spec = importlib.util.spec_from_file_location("bench_cli", BENCH.parent / "bench_cli.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from gradcli import pipeline, views
    from gradcli.render import json as json_render

    result = pipeline.run(module.MATMUL_GRAD.format(n=3), wrt=("W",))
    grads = result.grad("L", ["W"])
    doc = json_render.grad_doc("L", None, {"W": views.tensor_view(grads[0])}, None)
    values = module._grad_numbers(json_render.dumps(doc))
    assert len(values) == 9 and values == np.asarray(grads[0].data).reshape(-1).tolist()
