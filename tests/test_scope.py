"""Scoping (--of, --lines), rolled loops (--rolled) and the stepper's derived events."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from marks import needs_dot
from typer.testing import CliRunner

from gradcli import cli, pipeline, rolling, scope, steps, targets, views
from gradcli.engine import Node, autograd
from gradcli.errors import UsageError
from gradcli.render import dot as dotr


def _out(result, of):
    """The output named ``of`` as the command line resolves it (targets.py)."""
    return targets.output(result, of, need=False)


def _backward(result, of):
    return views.backward_view(result, _out(result, of))


ROOT = Path(__file__).resolve().parents[1]
GD = ROOT / "samples" / "gradient_descent.grad"
CHAIN = ROOT / "samples" / "chain_rule.grad"
runner = CliRunner()


def run(src: str, **kw):
    return pipeline.run(src, record=True, **kw)


def forward(src: str, of: str | None = None, **kw) -> views.GraphView:
    r = run(src, **kw)
    return views.graph_view(r, _out(r, of))


def invoke(*args: str):
    return runner.invoke(cli.app, list(args))


# -- --lines and --of -----------------------------------------------------------------------------
@pytest.mark.parametrize("text,ranges", [("11-12", ((11, 12),)), ("7", ((7, 7),)),
                                         ("3-4,9", ((3, 4), (9, 9))), (" 2 - 5 ", ((2, 5),))])
def test_parse_lines(text, ranges):
    assert scope.parse_lines(text) == ranges


@pytest.mark.parametrize("text", ["", "a-b", "5-3", "0-2", "1-2-3", "4,"])
def test_parse_lines_rejects(text):
    with pytest.raises(UsageError):
        scope.parse_lines(text)


def test_nodes_carry_their_line():
    v = forward(CHAIN.read_text(), wrt=["w1"])
    lines = {n.name: n.line for n in v.nodes if n.name}
    assert lines["x1"] == 4 and lines["w3"] == 5 and lines["x5"] == 8 and lines["L"] == 9


def test_lines_keep_the_nodes_of_those_lines_and_their_inputs_as_context():
    v = scope.scope(forward(CHAIN.read_text(), wrt=["w1"]), lines=scope.parse_lines("8"))
    assert [n.name for n in v.nodes] == [None, None, "x5"]
    assert {n.name for n in v.context} == {"w2", "x3", "w3", "x4"}
    assert v.output is None  # L (line 9) is out of scope


def test_of_keeps_what_the_output_depends_on():
    src = "a = param(1.0)\nb = param(2.0)\nu = a * 3\nv = b * 4\nw = u + 1\n"
    full = forward(src, of="w")
    v = scope.scope(full, of=True)
    assert {n.name for n in v.nodes} == {"a", "u", "w"}
    assert v.context == [] and v.output == full.output


def test_lines_that_hold_no_node_say_which_do():
    with pytest.raises(UsageError) as e:
        scope.scope(forward(CHAIN.read_text()), lines=scope.parse_lines("1-3"))
    assert "no graph node" in e.value.message and e.value.hint == "nodes were created on lines 4-9"


def test_backward_view_scoped_by_lines():
    r = run(CHAIN.read_text(), wrt=["w1"])
    b = scope.scope(views.backward_view(r, _out(r, "L")), lines=scope.parse_lines("8-9"))
    assert {n.name for n in b.nodes} == {"RsubBackward1", "AddBackward0", "MulBackward0"}
    assert {n.tensor for n in b.context} == {"x3", "x4"} and b.root == 0


def test_graph_listing_with_lines_and_of():
    r = invoke("graph", str(GD), "--lines", "11-12", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and len(doc["nodes"]) == 600
    assert {n["op"] for n in doc["nodes"]} == {"mul", "add", "mse_loss"}
    r = invoke("graph", "-e", "a = param(1.0)\nb = a * 2\nc = param(3.0) * 5\n", "--of", "b",
               "--format", "json")
    assert [n["name"] for n in json.loads(r.stdout)["nodes"]] == ["a", "b"]


def test_lines_errors_are_usage_errors():
    assert invoke("graph", str(CHAIN), "--lines", "x").exit_code == 2
    r = invoke("graph", str(CHAIN), "--lines", "1-2", "--format", "plain")
    assert r.exit_code == 2 and "no graph node was created on those lines" in r.stderr
    assert invoke("graph", str(CHAIN), "--tree", "--lines", "4-9").exit_code == 2


@needs_dot
def test_dot_with_lines_on_gradient_descent_renders_quickly_enough_to_use():
    r = invoke("dot", str(GD), "--lines", "11-12")
    assert r.exit_code == 0
    assert 'packmode="array_u"' in r.stdout  # 200 separate iterations, packed in rows
    assert "pack" not in invoke("dot", str(CHAIN)).stdout
    proc = subprocess.run(["dot", "-Tsvg"], input=r.stdout, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0 and proc.stdout.count('class="node"') > 600


# -- rolled loops ---------------------------------------------------------------------------------
def test_gradient_descent_rolls_into_a_handful_of_nodes():
    v, folds = rolling.roll_graph(forward(GD.read_text()))
    assert len(v.nodes) == 16
    counts = {n.name: folds.count(n.id) for n in v.nodes if n.name}
    assert counts == {"x": 1, "y": 1, "w#1": 1, "b#1": 1, "lr": 1, "pred": 200, "loss": 200,
                      "w": 200, "b": 200}
    w = next(n for n in v.nodes if n.name == "w")
    assert (w.id, w.id) in folds.back  # w -= ...: each update reads the last one
    pred_mul = next(n for n in v.nodes if n.op == "mul" and n.line == 11)
    assert (w.id, pred_mul.id) in folds.back  # the updated w feeds the next iteration
    w1 = next(n for n in v.nodes if n.name == "w#1")
    assert w1.id in pred_mul.inputs and (w1.id, pred_mul.id) not in folds.back


def test_the_same_op_twice_on_one_line_stays_two_nodes():
    src = "w = param(2.0)\nfor i in range(5):\n    y = w * 3 + w * 4\n"
    v, folds = rolling.roll_graph(forward(src))
    muls = [n for n in v.nodes if n.op == "mul"]
    assert len(muls) == 2 and all(folds.count(n.id) == 5 for n in muls)


def test_a_one_statement_loop_rolls_into_one_node_with_a_back_edge():
    src = "h = param(0.5)\nfor i in range(2000):\n    h = tanh(h)\n"
    v, folds = rolling.roll_graph(forward(src))
    assert len(v.nodes) == 2
    h = v.nodes[1]
    assert folds.count(h.id) == 2000 and (h.id, h.id) in folds.back and h.name == "h"
    b, bf = rolling.roll_backward(_backward(run(src), "h"))
    assert [(n.name, bf.count(n.id)) for n in b.nodes] == [("AccumulateGrad", 1),
                                                           ("TanhBackward0", 2000)]
    tanh = b.nodes[1]
    assert (tanh.id, tanh.id) in bf.back and b.root == tanh.id


def test_function_bodies_roll_across_calls():
    src = ("W = param([[0.5, -0.2], [0.1, 0.3]])\nh = [[1.0], [0.0]]\n"
           "def cell(h):\n    return tanh(W @ h)\n"
           "for t in range(50):\n    h = cell(h)\nL = h.sum()\n")
    v, folds = rolling.roll_graph(forward(src))
    assert sorted(folds.count(n.id) for n in v.nodes) == [1, 1, 1, 50, 50]


@needs_dot
def test_dot_rolled_marks_counts_and_back_edges():
    r = invoke("dot", str(GD), "--rolled")
    assert r.exit_code == 0
    # w, b, pred, loss, their two ops, the grads read (a state each: backward() wrote them)
    # and their zero_(); back edges: w and b updated in place, and their sub_ ops
    assert r.stdout.count("×200") == 11 and r.stdout.count("constraint=false") == 4
    proc = subprocess.run(["dot", "-Tsvg"], input=r.stdout, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr


# -- reference tags in big drawings ---------------------------------------------------------------
def test_big_drawings_repeat_much_read_nodes_as_reference_tags():
    text = dotr.forward(forward(GD.read_text()))
    x_reads = re.findall(r"^  (\S+) -> op\d+;$", text, re.MULTILINE)
    assert x_reads.count("t0") == 1  # x, read 200 times: one edge, 199 tags
    assert len(re.findall(r"^  rt0_\d+ \[", text, re.MULTILINE)) == 199
    small = dotr.forward(forward(CHAIN.read_text(), wrt=["w1"]))
    assert "rt" not in small


# -- derived events -------------------------------------------------------------------------------
def test_derived_events_list_the_ops_in_order_then_the_backward():
    r = run(CHAIN.read_text(), wrt=["w1"])
    evs = steps.events(r, _out(r, "L"))
    fwd = [e for e in evs if e["phase"] == "forward"]
    assert [e["id"] for e in fwd] == [5, 6, 7, 8, 9, 10]
    assert fwd[0] == {"seq": 0, "phase": "forward", "kind": "op", "line": 6, "node": "x3",
                      "grad_fn": "MulBackward0", "op": "mul", "id": 5, "inputs": [2, 0],
                      "inplace": False,
                      "text": "mul: x3 = mul(w1, x1)  -> MulBackward0, saves other"}
    bwd = [e for e in evs if e["phase"] == "backward"]
    assert bwd[0]["kind"] == "backward" and bwd[0]["node_id"] == 10
    assert [e["seq"] for e in evs] == list(range(len(evs)))
    edges = [(e["node"], e["to"]) for e in bwd if e["kind"] == "edge"]
    assert edges == [("L", "x5"), ("x5", "#7"), ("x5", "#8"), ("#8", "x4"), ("#7", "x3"),
                     ("x4", "w1"), ("x3", "w1")]
    assert bwd[-1]["kind"] == "accumulate" and bwd[-1]["node"] == "w1"


@pytest.mark.parametrize("sample", ["chain_rule", "rnn_cell", "exercise", "backprop_demystified",
                                    "growing_graph", "accumulation"])
def test_backward_order_is_the_engines(sample, monkeypatch):
    """The order predicted for the stepper is the order the engine runs the nodes in."""
    lines = (ROOT / "samples" / f"{sample}.grad").read_text().splitlines()
    src = "\n".join(x for x in lines if not re.search(r"backward\(|print\(|zero_", x))
    r = run(src, wrt=["w1"] if sample == "chain_rule" else ())
    out = r.bindings["f_eval" if sample == "growing_graph" else r.last_assigned]
    predicted = steps.backward_order(out.grad_fn)
    ran = []
    real = Node.apply
    monkeypatch.setattr(Node, "apply", lambda n, *a: ran.append(n) or real(n, *a))
    leaves = [t for t in r.bindings.values() if getattr(t, "is_leaf", False) and t.requires_grad]
    autograd.grad(out, leaves, retain_graph=True, allow_unused=True)
    assert len(ran) > 2
    assert [n for n in predicted if n.fn_name != "AccumulateGrad"] == ran
