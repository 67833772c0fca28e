"""The views of programs built from layers: listings whose cells stay narrow, parameters by
their module paths, a recurrent layer's time steps rolled into one node (issue 24)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from marks import needs_dot
from rich.console import Console
from typer.testing import CliRunner

from gradcli import cli, pipeline, rolling, scope, targets, views
from gradcli.render import plain, rich

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
LENET = CORPUS / "tutorial_blitz_lenet.py"
runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(cli.app, list(args))


def test_a_large_tensor_is_a_short_head_in_a_plain_listing_and_whole_in_json():
    r = invoke("graph", str(LENET), "--format", "plain")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    rows = lines[next(i for i, ln in enumerate(lines) if ln.startswith("id ")):-1]
    # before: 23,489 columns (conv2's weight, 2,400 elements, was one cell)
    assert len(rows) == 95 and max(map(len, rows)) < 300
    weight = next(ln for ln in rows if " net.conv2.weight " in ln)
    assert "  [[[[5.0887e-02, -6.3925e-02, -1.7271e-02, …  " in weight  # PyTorch's form
    doc = json.loads(invoke("graph", str(LENET), "--format", "json").stdout)
    node = next(n for n in doc["nodes"] if n["name"] == "net.conv2.weight")
    assert np.asarray(node["data"]).shape == (16, 6, 5, 5)


def test_cell_keeps_what_fits_and_cuts_after_an_element():
    assert plain.cell(np.array([1.5, -2.0])) == "[ 1.5000, -2.0000]".replace("[ ", "[")
    long = plain.cell(np.arange(40.0).reshape(2, 20))
    assert len(long) <= plain.CELL_WIDTH and long.endswith(", …")
    assert plain.short(np.arange(40.0).reshape(2, 20)).startswith(long[:-2])


def test_parameters_go_by_their_module_paths_not_a_lists_items():
    doc = json.loads(invoke("graph", str(LENET), "--format", "json").stdout)
    names = {n["name"] for n in doc["nodes"]}
    assert {"net.conv1.weight", "net.conv1.bias", "net.fc3.weight", "input"} <= names
    assert not any(n and n.startswith("params[") for n in names)


def test_a_view_of_a_parameter_shows_the_values_it_was_made_from():
    # nn.Linear's weight is filled in place (kaiming_uniform_) before the forward's t() view
    src = ("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\nlin = nn.Linear(3, 2)\n"
           "y = lin(torch.randn(4, 3)).sum()\n")
    doc = json.loads(invoke("graph", "-e", src, "--format", "json").stdout)
    w = next(n for n in doc["nodes"] if n["name"] == "lin.weight")
    t = next(n for n in doc["nodes"] if n["op"] == "t")
    assert np.asarray(t["data"]).tolist() == np.asarray(w["data"]).T.tolist() != [[0, 0]] * 3


# -- a recurrent layer rolled ---------------------------------------------------------------------
TAGGER = CORPUS / "tutorial_lstm_tagger.py"


def _recurrent(module: str, **kw) -> str:
    args = ", ".join(["3", "4", *(f"{k}={v}" for k, v in kw.items())])
    return ("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
            f"rnn = nn.{module}({args})\nx = torch.randn(3, 1, 3)\nout, hn = rnn(x)\n"
            "loss = out.sum()\nloss.backward()\n")


def _views(src: str):
    r = pipeline.run(src, record=True)
    out = targets.output(r, None, need=False)
    return views.graph_view(r, out), views.backward_view(r, out)


@pytest.mark.parametrize("module", ["LSTM", "GRU", "RNN"])
def test_each_layer_of_a_recurrent_module_rolls_into_one_node(module):
    forward, backward = _views(_recurrent(module, num_layers=2))
    v, folds = rolling.roll_graph(forward)
    assert sum(n.rnn_step is not None for n in forward.nodes) >= 2 * 3 * 3  # layers x steps
    assert sum(n.rnn_step is not None for n in v.nodes) == 2
    layers = sorted(folds.layers.values(), key=lambda f: f.layer)
    assert [(f.module, f.layer, f.steps, f.calls, f.path) for f in layers] == [
        (module, 0, 3, 1, "rnn"), (module, 1, 3, 1, "rnn")]
    assert layers[0].label() == f"rnn ({module}) layer 0: 3 steps"
    first, second = sorted(folds.layers)
    node = {n.id: n for n in v.nodes}
    assert node[first].op == node[second].op == module and node[second].name == "out"
    assert first in node[second].inputs  # layer 1 reads layer 0's output
    assert (first, first) in folds.back and (second, second) in folds.back  # the recurrence
    weights = {node[j].name for j in node[first].inputs if j in node}
    assert {"rnn.weight_ih_l0", "rnn.weight_hh_l0", "x"} <= weights
    b, bfolds = rolling.roll_backward(backward)
    assert sorted((f.layer, f.steps) for f in bfolds.layers.values()) == [(0, 3), (1, 3)]
    assert [n.name for n in b.nodes].count(module) == 2 and len(b.nodes) < 20


def test_a_loop_over_a_layer_counts_its_calls_and_the_longest_call_s_steps():
    src = ("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\nrnn = nn.GRU(2, 3)\n"
           "for n in (4, 2, 3):\n    out, h = rnn(torch.randn(n, 1, 2))\n    out.sum().backward()\n")
    _, folds = rolling.roll_graph(_views(src)[0])
    [layer] = folds.layers.values()
    assert (layer.steps, layer.calls) == (4, 3) and folds.count(next(iter(folds.layers))) == 3


def test_unrolled_views_keep_every_step_s_nodes():
    forward, _ = _views(_recurrent("LSTM"))
    assert sum(n.op == "sigmoid" for n in forward.nodes) == 9  # 3 gates x 3 steps
    assert all(n.rnn_step is not None for n in forward.nodes if n.op == "sigmoid")
    assert all(n.rnn_step is None for n in forward.nodes if n.op is None)  # the leaves


@needs_dot
def test_dot_rolled_draws_the_tagger_s_lstm_as_one_node(tmp_path):
    r = invoke("dot", str(TAGGER), "--rolled")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.count("model.lstm layer 0, 5 steps") == 1
    assert "sigmoid" not in r.stdout and "unsafe_split" not in r.stdout
    b = invoke("dot", str(TAGGER), "--rolled", "--backward")
    assert b.stdout.count("model.lstm layer 0, 4 steps") == 1  # the last sentence's four words
    assert "SigmoidBackward" not in b.stdout
    for text in (r.stdout, b.stdout):
        proc = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True,
                              timeout=60, check=False)
        assert proc.returncode == 0 and "LSTM" in proc.stdout, proc.stderr


def test_a_module_s_initialisation_is_not_in_the_graph_but_a_script_s_no_grad_update_is():
    doc = json.loads(invoke("graph", str(LENET), "--format", "json").stdout)
    assert not any(n["op"] in ("uniform_", "normal_") for n in doc["nodes"])
    first = next(n for n in doc["nodes"] if (n["name"] or "").startswith("net.conv1.weight"))
    assert np.abs(np.asarray(first["data"])).min() > 0  # the initialised values, not zeros
    src = ("import torch\nw = torch.zeros(3, requires_grad=True)\nwith torch.no_grad():\n"
           "    w.uniform_()\ny = (w * 2).sum()\n")
    doc = json.loads(invoke("graph", "-e", src, "--format", "json").stdout)
    assert [n["op"] for n in doc["nodes"]] == [None, "uniform_", "mul", "sum"]


GD = ROOT / "samples" / "gradient_descent.grad"


def test_graph_rolled_lists_the_folds_with_their_counts():
    doc = json.loads(invoke("graph", str(GD), "--rolled", "--format", "json").stdout)
    assert len(doc["nodes"]) == 16
    pred = next(n for n in doc["nodes"] if n["name"] == "pred")
    assert (pred["count"], pred["layer"]) == (200, None)
    assert "count" not in next(n for n in doc["nodes"] if n["name"] == "x")
    unrolled = json.loads(invoke("graph", str(GD), "--format", "json").stdout)["nodes"]
    assert len(unrolled) > 2000 and not any("count" in n for n in unrolled)
    r = invoke("graph", str(GD), "--rolled", "--format", "plain")
    header, *rows = r.stdout[r.stdout.index("id "):].splitlines()
    assert header.split()[:4] == ["id", "name", "rolled", "op"]
    assert next(ln for ln in rows if " pred " in ln).split()[1:4] == ["pred", "×200", "add"]


def test_graph_rolled_lists_the_tagger_s_lstm_as_one_node():
    doc = json.loads(invoke("graph", str(TAGGER), "--rolled", "--format", "json").stdout)
    [lstm] = [n for n in doc["nodes"] if n.get("layer")]
    assert (lstm["op"], lstm["layer"], lstm["count"]) == (
        "LSTM", "model.lstm (LSTM) layer 0: 5 steps", 62)
    assert lstm["id"] in lstm["inputs"]  # the recurrence
    names = {doc["nodes"][k]["name"] for k in range(len(doc["nodes"]))}
    assert {"model.lstm.weight_ih_l0", "model.lstm.weight_hh_l0"} <= names
    r = invoke("graph", str(TAGGER), "--rolled", "--format", "plain")
    assert "  model.lstm (LSTM) layer 0: 5 steps ×62  LSTM  " in r.stdout


def test_graph_rolled_in_a_terminal_and_not_with_tree():
    view = views.graph_view(pipeline.run(GD.read_text(), record=True), None)
    rolled, _ = rolling.roll_graph(view)
    for width in (80, 160):
        out = Console(width=width, record=True, color_system=None)
        rich.graph(out, rolled)
        text = out.export_text()
        assert "rolled" in text and "×200" in text
        assert max(map(len, text.splitlines())) <= width
    r = invoke("graph", str(GD), "--rolled", "--tree")
    assert r.exit_code == 2 and "--rolled applies to the listing, not to --tree" in r.stderr


def test_a_parameter_s_states_and_a_pooling_s_indices_fold_apart():
    # each step's conv reads the weight's new state, made on the line of the call; the last
    # calls, under no_grad after the loop, make the pooling's int64 indices there, and the
    # second of them nothing else
    src = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
           "torch.manual_seed(0)\nconv = nn.Conv2d(1, 2, 3)\n"
           "opt = torch.optim.SGD(conv.parameters(), lr=0.1)\nx = torch.randn(1, 1, 6, 6)\n"
           "def f(x):\n    return F.max_pool2d(conv(x), 2)\n"
           "for i in range(3):\n    loss = f(x).sum()\n    opt.zero_grad()\n"
           "    loss.backward()\n    opt.step()\nwith torch.no_grad():\n    y = f(x)\n    y = f(x)\n")
    doc = json.loads(invoke("graph", "-e", src, "--rolled", "--format", "json").stdout)
    by_id = {n["id"]: n for n in doc["nodes"]}
    for conv in (n for n in doc["nodes"] if n["op"] == "convolution"):
        assert "conv.weight" in {by_id[i]["name"] for i in conv["inputs"]}


def test_a_terminal_listing_shows_a_large_tensor_s_first_lines():
    r = pipeline.run(LENET.read_text(), record=True, on_print=lambda s: None)
    view = scope.scope(views.graph_view(r, targets.output(r, "out", need=False)), of=True,
                       lines=None)
    out = Console(width=160, record=True, color_system=None)
    rich.graph(out, view)
    lines = out.export_text().splitlines()
    assert len(view.nodes) == 28 and len(lines) < 140  # before: 1,071 lines
    head = lines.index(next(ln for ln in lines if " net.conv2.weight#1 " in ln))
    assert "[[[[ 0.0509, -0.0639, -0.0173, -0.0331, -0.0157]," in lines[head]
    assert "…" in [ln.strip() for ln in lines[head:head + rich.CELL_LINES + 2]]


def test_two_recurrent_modules_called_on_one_line_stay_two_nodes():
    src = ("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
           "a = nn.GRU(3, 4)\nb = nn.GRU(4, 2)\nout, h = b(a(torch.randn(3, 1, 3))[0])\n"
           "out.sum().backward()\n")
    _, folds = rolling.roll_graph(_views(src)[0])
    assert sorted(f.label() for f in folds.layers.values()) == [
        "a (GRU) layer 0: 3 steps", "b (GRU) layer 0: 3 steps"]


def test_a_bidirectional_layer_rolls_into_a_node_per_direction():
    _, folds = rolling.roll_graph(_views(_recurrent("LSTM", bidirectional=True))[0])
    assert sorted(f.label() for f in folds.layers.values()) == [
        "rnn (LSTM) layer 0 reverse: 3 steps", "rnn (LSTM) layer 0: 3 steps"]
