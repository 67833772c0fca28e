"""Why a ``.grad`` is None: the non-leaf warning's hint, the reasons trace and explain show, and
the hints of errors that use a None ``.grad`` (PyTorch's own message text stays verbatim)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gradcli import cli, pipeline
from gradcli.analysis.trace import Tracer
from gradcli.engine.tensor import NONLEAF_GRAD_MSG
from gradcli.errors import Span
from gradcli.script.hints import NoneGrad, none_grad_reason

runner = CliRunner()

READS = """x = param(2.0)
y = x * 3
w = param(1.0)
c = tensor(5.0)
L = y * y
print(w.grad)
L.backward()
print(y.grad)
print(w.grad)
print(c.grad)
print(x.grad)
"""
Y_WHY = ("y is not a leaf (it was computed by MulBackward0 on line 2); call y.retain_grad() "
         "before backward() to keep its gradient")
W_BEFORE = "w requires grad but no backward() has run yet"
W_AFTER = ("w requires grad but no backward() has reached it yet: line 7's backward starts from "
           "L, which does not depend on w")
C_WHY = ("c does not require grad, so no backward() fills its .grad; call c.requires_grad_() "
         "before using it")


def _trace(src: str) -> list:
    tracer = Tracer()
    return tracer.finish(pipeline.run(src, record=True, tracer=tracer)).events


# -- the non-leaf warning (PyTorch warns; gradcli's hint says which tensor and why) -------------
def test_nonleaf_warning_keeps_pytorchs_message_and_hints_which_tensor_and_where():
    result = pipeline.run(READS)
    assert [(w.span.line, w.message, w.hint) for w in result.warnings] == [
        (8, NONLEAF_GRAD_MSG, Y_WHY)]


@pytest.mark.parametrize(("src", "hint"), [
    # the op that made its grad_fn: an in-place update's line, not the binding's
    ("x = param(2.0)\ny = x * 3\ny += 1\ny.sum().backward()\nprint(y.grad)\n",
     ("y is not a leaf (it was computed by AddBackward0 on line 3); call y.retain_grad() before "
      "backward() to keep its gradient")),
    # an expression: no name to call retain_grad() on, and no binding that says where
    ("x = param(2.0)\nprint((x * 3).grad)\n",
     ("this tensor is not a leaf (it was computed by MulBackward0); call retain_grad() on it "
      "before backward() to keep its gradient")),
    # inside a function: the local name, its line unknown without graph records
    ("x = param(2.0)\ndef f(a):\n    h = a * 2\n    return h.grad\nf(x)\n",
     ("h is not a leaf (it was computed by MulBackward0); call h.retain_grad() before backward() "
      "to keep its gradient")),
])
def test_nonleaf_hint_forms(src, hint):
    assert [w.hint for w in pipeline.run(src).warnings] == [hint]


def test_each_nonleaf_read_of_a_statement_gets_its_own_hint():
    src = "x = param(2.0)\ny = x * 3\nz = y + 1\nprint(y.grad,\n      z.grad)\n"
    warnings = pipeline.run(src).warnings
    assert [w.hint.split(" (")[0] for w in warnings] == ["y is not a leaf", "z is not a leaf"]
    assert [w.span.line for w in warnings] == [4, 5]  # each where its read is, as Python says
    assert "AddBackward0 on line 3" in warnings[1].hint


def test_a_warning_is_shown_once_per_line():
    """Python's warnings filter shows a warning once per line: two reads on one line, or one
    read in a loop, warn once."""
    src = ("x = param(2.0)\ny = x * 3\nz = y + 1\nprint(y.grad, z.grad)\n"
           "for i in range(3):\n    print(y.grad)\n")
    assert [w.span.line for w in pipeline.run(src).warnings] == [4, 6]


def test_with_graph_records_the_line_is_the_ops_own():
    src = "x = param(2.0)\ndef f(a):\n    h = a * 2\n    return h\nz = f(x)\nprint(z.grad)\n"
    # a plain run knows the statement that made it (through the call), a recorded one the op's
    assert "MulBackward0 on line 5" in pipeline.run(src).warnings[0].hint
    assert "MulBackward0 on line 3" in pipeline.run(src, record=True).warnings[0].hint


def test_run_prints_the_hint_after_pytorchs_warning_and_json_carries_it():
    r = runner.invoke(cli.app, ["run", "-e", READS, "--format", "plain"])
    assert r.exit_code == 0
    assert r.stdout.splitlines()[:5] == ["None", "None", "None", "None", "tensor(36.)"]
    assert f"UserWarning: {NONLEAF_GRAD_MSG}\n" in r.stderr
    assert f"hint: {Y_WHY}\n" in r.stderr
    r = runner.invoke(cli.app, ["run", "-e", READS, "--format", "json"])
    assert json.loads(r.stdout)["warnings"] == [
        {"line": 8, "column": 7, "message": NONLEAF_GRAD_MSG, "hint": Y_WHY}]


def test_run_adds_nothing_for_a_leaf_whose_grad_is_none():
    """PyTorch prints None and warns about nothing (tutorials print it on purpose): run neither."""
    src = "w = param(1.0)\nprint(w.grad)\nL = w * 2\nprint(w.grad)\n"
    r = runner.invoke(cli.app, ["run", "-e", src, "--format", "plain"])
    assert r.exit_code == 0 and r.stderr == ""
    assert r.stdout.splitlines()[:2] == ["None", "None"]
    assert pipeline.run(src).none_grads == []  # a plain run keeps no reads (nor their tensors)


# -- leaves: why no backward filled .grad --------------------------------------------------------
def test_trace_gives_each_none_read_its_reason():
    tracer = Tracer()
    result = pipeline.run(READS, record=True, tracer=tracer)
    events = [e for e in tracer.finish(result) if e.kind == "none_grad"]
    assert [e.fields.pop("node_id") for e in events] == [  # the graph record read
        next(i for i, r in enumerate(result.records) if r.tensor is result.bindings[name])
        for name in "wywc"]
    assert [(e.line, e.node, {k: v for k, v in e.fields.items() if k != "node_id"})
            for e in events] == [
        (6, "w", {"tensor": "w", "warned": False, "reason": W_BEFORE}),
        (8, "y", {"tensor": "y", "warned": True, "reason": Y_WHY}),
        (9, "w", {"tensor": "w", "warned": False, "reason": W_AFTER}),
        (10, "c", {"tensor": "c", "warned": False, "reason": C_WHY}),
    ]


def test_trace_plain_and_json_show_the_reason():
    r = runner.invoke(cli.app, ["trace", "-e", READS, "--format", "plain"])
    assert f"none_grad   line 9    w.grad is None: {W_AFTER}\n" in r.stdout
    r = runner.invoke(cli.app, ["trace", "-e", READS, "--format", "json"])
    events = [e for e in json.loads(r.stdout)["events"] if e["kind"] == "none_grad"]
    assert events[2] == {"seq": events[2]["seq"], "phase": "forward", "kind": "none_grad",
                         "line": 9, "node": "w", "grad_fn": None, "tensor": "w",
                         "warned": False, "reason": W_AFTER, "node_id": 2}


def test_a_backward_that_reached_the_leaf_means_the_grad_was_reset():
    result = pipeline.run("w = param(1.0)\nL = w * 2\nL.backward()\n", record=True)
    w, L = result.bindings["w"], result.bindings["L"]
    w.grad = None  # what `w.grad = None` or an optimizer's zero_grad() does in PyTorch
    at = Span(3, 1, 3, 13)
    read = NoneGrad(w, "w", Span(4, 7, 4, 13), None, (at, "L", L.grad_fn), False)
    assert none_grad_reason(read) == ("w requires grad and line 3's backward from L reached it; "
                                      "its .grad was set to None since")


def test_a_retained_nonleaf_that_no_backward_reached():
    src = "x = param(2.0)\ny = x * 3\ny.retain_grad()\nM = x * 4\nM.backward()\nprint(y.grad)\n"
    result = pipeline.run(src)
    assert result.warnings == []  # it retains its grad: PyTorch does not warn
    (event,) = [e for e in _trace(src) if e.kind == "none_grad"]
    assert event.fields["reason"] == ("y requires grad but no backward() has reached it yet: "
                                      "line 5's backward starts from M, which does not depend "
                                      "on y")


# -- explain: the script's reads of W's .grad ----------------------------------------------------
def test_explain_notes_the_scripts_none_reads_of_w_once_per_line_and_reason():
    src = READS + "for i in range(3):\n    print(w.grad)\n"
    r = runner.invoke(cli.app, ["explain", "-e", src, "--wrt", "w", "--of", "L",
                                "--format", "plain"])
    assert r.exit_code == 0, r.output
    text = r.stdout.replace("\n  ", " ")  # a note wrapped at 80 columns continues indented
    notes = [ln for ln in text.splitlines() if ".grad was None" in ln]
    assert notes == [f"line 6: w.grad was None: {W_BEFORE}", f"line 9: w.grad was None: {W_AFTER}",
                     f"line 13: w.grad was None: {W_AFTER}"]
    r = runner.invoke(cli.app, ["explain", "-e", READS, "--wrt", "w", "--of", "L",
                                "--format", "json"])
    assert json.loads(r.stdout)["none_grads"] == [
        {"line": 6, "tensor": "w", "reason": W_BEFORE},
        {"line": 9, "tensor": "w", "reason": W_AFTER}]
    r = runner.invoke(cli.app, ["explain", "-e", READS, "--wrt", "w", "--of", "L"])
    assert "line 9: w.grad was None" in r.stdout  # rich (CliRunner: no terminal, but asked)


# -- errors that use a None .grad ----------------------------------------------------------------
@pytest.mark.parametrize(("src", "hint"), [
    ("w = param(1.0)\nw.grad.zero_()\n",
     ("w.grad is None here: w requires grad but no backward() has run yet; zero it only when it "
      "exists: if w.grad is not None: w.grad.zero_()")),
    ("w = param(1.0)\nb = param(2.0)\nL = w * 3\nL.backward()\nb2 = b - 0.1 * b.grad\n",
     ("b.grad is None here: b requires grad but no backward() has reached it yet: line 4's "
      "backward starts from L, which does not depend on b")),
    ("w = param(1.0)\nL = w * 2\nL.backward()\nL.grad.zero_()\n",
     ("L.grad is None here: L is not a leaf (it was computed by MulBackward0 on line 2); call "
      "L.retain_grad() before backward() to keep its gradient")),
])
def test_an_error_on_a_none_grad_says_why_it_is_none(src, hint):
    err = pipeline.run(src).error
    assert "'NoneType'" in err.message and err.hint == hint
