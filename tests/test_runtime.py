"""The runtime's own rules (SPEC §2.4, §3): literals, --wrt, --set, scopes, history, hints."""

from __future__ import annotations

import warnings

import pytest

from gradcli import pipeline
from gradcli.engine import Tensor
from gradcli.errors import ScriptError, UsageError
from gradcli.render.plain import source_excerpt


def run(source: str, **kw):
    return pipeline.run(source, filename="t.grad", **kw)


def test_bare_literal_assignment_makes_a_leaf_and_literals_in_expressions_stay_numbers():
    r = run("a = 1\nb = [1.0, -2.0]\nc = -[3, 4]\nd = 2 * 3\ne = 1 - a\n")
    assert isinstance(r.bindings["a"], Tensor) and r.bindings["a"].is_leaf
    assert r.bindings["c"].data.tolist() == [-3.0, -4.0]
    assert r.bindings["d"] == 6 and not isinstance(r.bindings["d"], Tensor)
    assert r.bindings["e"].grad_fn is None  # nothing requires grad: no graph is recorded


def test_wrt_marks_leaves_at_binding_time_even_intermediates():
    src = "x1 = 1; w1 = 1\nx3 = w1 * x1\nL = 1 - x3\n"
    r = run(src, wrt=("x3",))
    assert r.bindings["x3"].requires_grad and r.bindings["x3"].is_leaf
    assert r.bindings["L"].grad_fn.name() == "RsubBackward1"
    assert [t.item() for t in r.grad("L", ["x3"])] == [-1.0]


def test_wrt_does_not_mark_bindings_inside_functions_and_unused_gets_zero():
    src = "def f():\n    w = 2\n    return w * 3\nw = 5\ny = f()\nz = w * 0 + y\n"
    r = run(src, wrt=("w",))
    assert not r.bindings["y"].requires_grad
    # an output that does not require grad is PyTorch's error, never zeros (issue 23)
    with pytest.raises(ScriptError, match="element 0 of tensors does not require grad"):
        r.grad("y", ["w"])
    assert [t.item() for t in r.grad("z", ["w"])] == [0.0]
    assert [t.item() for t in r.grad("z", ["y"])] == [0.0]  # unused: zero (SPEC §3)


def test_set_replaces_the_literal_and_unknown_names_are_usage_errors():
    r = run("w = 2\ny = w ** 3\n", wrt=("w",), overrides={"w": 3})
    assert r.grad("y", ["w"])[0].item() == 27.0
    with pytest.raises(UsageError, match="no assignment of a literal to 'q'"):
        run("w = 2\n", overrides={"q": 1})


def test_seed_makes_random_values_repeatable():
    a = run("x = randn(3)\n", seed=5).bindings["x"].data.tolist()
    b = run("x = randn(3)\n", seed=5).bindings["x"].data.tolist()
    c = run("x = randn(3)\n", seed=6).bindings["x"].data.tolist()
    assert a == b != c


def test_function_scope_is_pythons():
    r = run("w = 1\ndef f():\n    w += 1\n    return w\ny = f()\n")
    assert r.error.kind == "UnboundLocalError" and r.error.span.line == 3


def test_binding_counts_and_last_assigned():
    r = run("y = param(1.0)\ny = y * 2\ny = y + 1\nz = 0\n")
    assert r.binding_counts["y"] == 3 and r.last_assigned == "z"


def test_older_bindings_are_not_kept_alive():
    """A loop rebinding a big tensor holds one at a time, not every one ever bound (issue 13)."""
    import gc
    import weakref

    from gradcli.engine import Tensor

    seen: list = []
    original = Tensor.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        seen.append(weakref.ref(self))

    Tensor.__init__ = spy
    try:
        r = run("for i in range(50):\n    x = ones(100, 100)\n")
    finally:
        Tensor.__init__ = original
    gc.collect()
    alive = [ref() for ref in seen if ref() is not None]
    assert r.error is None and alive == [r.bindings["x"]]


def test_a_training_loops_old_graphs_go_away_when_freed_values_are_kept():
    """grad, check and explain keep what each backward() frees (for the after-the-run
    gradient of the last graph), on each node itself; every older step's graph still goes
    away with its nodes: as many nodes live after 40 steps as after 4, though each step's
    tanh saves its own output (a node and its saved values form a cycle the collector frees)."""
    import gc

    from gradcli.engine.graph import Node

    src = ("import torch\nw = torch.randn(3, requires_grad=True)\nx = torch.ones(3)\n"
           "for i in range({n}):\n    loss = (torch.tanh(w * x) * x).sum()\n"
           "    loss.backward()\n    last = w.grad.clone()\n    with torch.no_grad():\n        w -= 0.1 * w.grad\n"
           "    w.grad = None\n")
    alive = []
    for n in (4, 40):
        r = pipeline.run(src.format(n=n), keep_freed=True)
        gc.collect()
        alive.append(sum(1 for o in gc.get_objects() if isinstance(o, Node)))
        assert r.error is None
        # the last graph is still differentiated as recorded, before the step changed w
        (g,) = r.gradients(r.bindings["loss"], [r.bindings["w"]])
        assert g.data.tolist() == r.bindings["last"].data.tolist()
        del r, g
    assert alive[1] == alive[0]


def test_if_on_a_one_element_tensor_and_loop_variable_is_an_int():
    r = run("x = param(2.0)\nfor i in range(3):\n    if x > 1:\n        x = x * 2\n")
    assert r.bindings["i"] == 2 and r.bindings["x"].item() == 16.0


def test_comparison_of_a_vector_prints_bools_as_pytorch():
    r = run("x = [1.0, -1.0]\nprint(x > 0)\nprint(x[0] > 0)\n")
    assert r.prints == ["tensor([ True, False])", "tensor(True)"]


def test_retain_graph_hint_names_the_backward_that_freed_the_graph():
    r = run("a = param([1.0, 2.0])\nc = (a * 2).sum()\nc.backward()\nc.backward()\n")
    assert r.error.span.line == 4
    assert r.error.hint == "call c.backward(retain_graph=True) on line 3 to keep the saved tensors"


def test_nonfinite_gradients_come_without_numpy_warnings():
    r = run("x = param([0.0, 4.0])\ny = sqrt(x).sum()\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = r.grad("y", ["x"])[0]
    assert g.data.tolist()[0] == float("inf")
    m = run("x = tensor([])\ny = x.mean()\n")
    assert m.error is None and m.warnings == []


def test_arange_with_a_step_of_the_wrong_sign_is_pytorchs_error():
    r = run("x = arange(0, 5, -1)\n")
    assert r.error.message == "upper bound and lower bound inconsistent with step sign"


def test_a_long_source_line_is_clipped_around_the_error():
    from gradcli.errors import Span

    line = "x = " + "1 + " * 5000 + "y"
    col = len(line)
    text, caret = source_excerpt(line, Span(1, col, 1, col + 1))
    assert len(text) < 120 and text.rstrip().endswith("y")
    assert caret.index("^") == text.rstrip().index("y")


def test_long_runs_report_progress_every_few_thousand_statements():
    seen: list[int] = []
    run("for i in range(20000):\n    pass\n", on_progress=seen.append)  # 20,001 statements
    assert seen == [8192, 16384]


def test_a_run_hands_what_it_made_to_the_collectors_oldest_generation():
    """The collector is paused during a run; after it the young generation must not hold the
    run's objects, or the first young collection walks them all (0.25 s per 20,000 lines)."""
    import gc

    was_enabled = gc.isenabled()
    gc.unfreeze()  # an earlier test in this process may have frozen or paused it
    gc.enable()
    try:
        src = "".join(f"x{i} = {i}.5 * 2 + 1\n" for i in range(3000))
        r = run(src)
        young = len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1))
    finally:
        if not was_enabled:
            gc.disable()
    assert r.error is None and len(r.bindings) == 3000
    assert young < 3000, young  # the program alone is ~30,000 objects


_FAILING = {  # an expression of each kind script/closures.py compiles, failing
    "operator": "x + 'a'",
    "attribute": "x.nope",
    "method": "x.sum(9, 9, 9)",
    "call": "undefined_name(x)",
    "subscript": "x[5]",
    "compare": "x < 'a'",
    "nested": "(x * 2).exp()[1] + x.nope",
}


@pytest.mark.parametrize("kind", sorted(_FAILING))
def test_a_functions_compiled_calls_fail_as_its_walked_first_call_does(kind):
    """A function's body is walked at its first call and compiled from its second
    (script/closures.py): the same error, at the same place, with the same hint."""
    define = ("def f(x, fail):\n    y = x * 2\n    if fail:\n"
              f"        z = {_FAILING[kind]}\n    return y\nx = param([1.0, 2.0])\n")
    first = run(define + "f(x, True)\n").error
    later = run(define + "f(x, False)\nf(x, False)\nf(x, True)\n").error
    assert first is not None and later is not None
    assert (later.kind, later.message, later.span, later.hint) == \
        (first.kind, first.message, first.span, first.hint)
    assert first.span.line == 4 and [c.line for c in later.calls] == [9]
