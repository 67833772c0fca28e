"""Per-run state: runs in many threads at once give what each gives alone."""

from __future__ import annotations

import sys
import threading
import warnings

import numpy as np

from gradcli import api, pipeline
from gradcli.engine import RunContext, current, is_grad_enabled, no_grad, use
from gradcli.engine.backend import get_backend

# A float32 run that records nothing (no_grad) and warns, and a float64 gradient run that
# draws random numbers, accumulates twice and keeps its graph: they differ in every piece of
# per-run state (dtype, grad mode, generator, warnings, node counter, element limit).
NO_GRAD_F32 = """
x = param([0.1, 0.2, 0.3])
with no_grad():
    y = x * 3
    for i in range(200):
        y = tanh(y) + 0.5
z = x * 2
g = z.grad
print(y.requires_grad, z.requires_grad)
"""
GRAD_F64 = """
seed(7)
w = randn(4, 4)
w.requires_grad_()
for i in range(150):
    loss = sum(tanh(w @ w) * 0.5)
loss.backward(retain_graph=True)
loss.backward()
print(w.grad)
"""
CASES = [
    (NO_GRAD_F32, {"dtype": "float32", "max_elements": 1000}),
    (GRAD_F64, {"dtype": "float64", "wrt": ("w",)}),
]


def _outcome(source: str, kw: dict) -> tuple:
    result = pipeline.run(source, **kw)
    values = {name: np.asarray(v.data).tolist() for name, v in result.bindings.items()
              if hasattr(v, "data")}
    grads = {name: None if v.stored_grad is None else np.asarray(v.stored_grad.data).tolist()
             for name, v in result.bindings.items() if hasattr(v, "data")}
    dtypes = {name: str(np.asarray(v.data).dtype) for name, v in result.bindings.items()
              if hasattr(v, "data")}
    return (result.prints, [w.message for w in result.warnings], values, grads, dtypes,
            None if result.error is None else result.error.message)


def test_eight_threads_mixing_runs_match_each_run_alone():
    alone = [_outcome(src, kw) for src, kw in CASES]
    assert alone[0][1] and not alone[1][1]  # the float32 run warns (non-leaf .grad), not the other
    assert alone[0][4]["y"] == "float32" and alone[1][4]["w"] == "float64"
    rounds, threads = 5, 8
    got: list[list] = [[] for _ in range(threads)]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # threads interleave every few bytecodes, not every 5 ms
    barrier = threading.Barrier(threads)

    def work(k: int) -> None:
        src, kw = CASES[k % 2]
        for _ in range(rounds):
            barrier.wait()
            got[k].append(_outcome(src, kw))

    pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    try:
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    for k in range(threads):
        assert len(got[k]) == rounds
        for outcome in got[k]:
            assert outcome == alone[k % 2]


def test_each_thread_has_its_own_grad_mode():
    inside = threading.Event()
    release = threading.Event()
    seen = []

    def other() -> None:
        with no_grad():
            inside.set()
            release.wait(5)
            seen.append(is_grad_enabled())

    t = threading.Thread(target=other)
    t.start()
    inside.wait(5)
    x = api.param([1.0, 2.0])
    y = x * 2  # recorded here though the other thread is inside no_grad
    release.set()
    t.join()
    assert y.grad_fn is not None and seen == [False]


def test_use_restores_the_previous_context():
    outer = current()
    inner = RunContext(get_backend("numpy", "float32"))
    with use(inner):
        assert current() is inner
        assert api.ones(2).data.dtype == np.float32
    assert current() is outer


def test_library_warnings_go_to_python_warnings_outside_a_run():
    y = api.param([1.0]) * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _ = y.grad
    assert any("not a leaf Tensor" in str(w.message) for w in caught)
