"""Forward mode in the views: each node's tangent in ``graph`` (plain, rich, JSON), ``dot`` and
``html`` (a program's ``make_dual``, or ``--mode forward --wrt W``), and ``explain --mode
forward``: the tangent node by node and the paths from W's side, equal to reverse mode's."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from gradcli import cli

ROOT = Path(__file__).resolve().parents[1]
CHAIN = str(ROOT / "samples" / "chain_rule.grad")
MLP = str(ROOT / "samples" / "tiny_mlp.grad")
TUTORIAL = str(ROOT / "tests" / "corpus" / "tutorial_forward_ad.py")
runner = CliRunner()

# a two-layer network as a PyTorch program (relu, mse_loss): float32, as PyTorch computes
TORCH_MLP = """import torch

torch.manual_seed(0)
x = torch.randn(3, 2)
y = torch.randn(3, 1)
W1 = torch.randn(2, 2, requires_grad=True)
W2 = torch.randn(2, 1, requires_grad=True)
h = torch.relu(x @ W1)
out = h @ W2
loss = torch.nn.functional.mse_loss(out, y)
loss.backward()
print(W1.grad)
"""


def invoke(*args: str):
    return runner.invoke(cli.app, list(args))


def jdoc(*args: str, code: int = 0) -> dict:
    r = invoke(*args, "--format", "json")
    assert r.exit_code == code, (r.stdout, r.stderr)
    return json.loads(r.stdout)


def by_name(doc: dict) -> dict:
    return {n["name"] if n["name"] is not None else n["id"]: n for n in doc["nodes"]}


# -- graph -----------------------------------------------------------------------------------------
def test_graph_json_has_each_nodes_tangent_under_mode_forward():
    nodes = by_name(jdoc("graph", CHAIN, "--wrt", "w1", "--mode", "forward"))
    # d(node)/dw1 for every node; the constants carry none
    assert {k: n["tangent"] for k, n in nodes.items()} == {
        "x1": None, "x2": None, "w1": 1.0, "w2": None, "w3": None, "x3": 1.0, "x4": 2.0,
        7: 2.0, 8: 6.0, "x5": 8.0, "L": -8.0}
    assert nodes["L"]["data"] == -7.0  # the values are the run's, unchanged


def test_graph_json_shape_is_additive_without_forward_mode():
    doc = jdoc("graph", CHAIN, "--wrt", "w1")
    assert all(n["tangent"] is None for n in doc["nodes"])
    assert set(doc["nodes"][0]) == {"id", "name", "op", "grad_fn", "inputs", "shape",
                                    "requires_grad", "is_leaf", "data", "grad", "d_output",
                                    "tangent", "saved"}
    r = invoke("graph", CHAIN, "--format", "plain")
    assert "tangent" not in r.stdout


def test_graph_plain_puts_the_tangent_beside_the_value():
    r = invoke("graph", CHAIN, "--wrt", "w1", "--mode", "forward", "--format", "plain")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    head = lines[1].split()
    assert head[head.index("value") + 1] == "tangent"
    row = next(line for line in lines if line.startswith("10*")).split()
    assert row[row.index("-7.") + 1] == "-8."
    assert "tangent: d·/dw1 carried forward (forward mode, w1's tangent seeded with ones)" in \
        r.stdout


def test_graph_rich_labels_the_tangent():
    r = invoke("graph", CHAIN, "--wrt", "w1", "--mode", "forward", "--format", "rich")
    assert r.exit_code == 0, r.stderr
    row = r.stdout[re.search(r"\b10 +L ", r.stdout).start():]
    assert "-7." in row and "tangent -8." in row
    assert "tangent: d·/dw1 carried forward" in r.stdout


def test_a_programs_dual_tensors_show_their_tangents():
    """make_dual in a PyTorch program: its tangent, and fn's jvp 2*x*t, on the nodes."""
    nodes = by_name(jdoc("graph", TUTORIAL))
    primal = np.array(nodes["primal"]["data"], dtype=np.float32)
    tangent = np.array(nodes["tangent"]["data"], dtype=np.float32)
    assert nodes["dual_input"]["tangent"] == nodes["tangent"]["data"]
    assert np.array_equal(np.array(nodes["dual_input_alt"]["tangent"], dtype=np.float32),
                          tangent.T)
    jvp = np.array(nodes["dual_output"]["tangent"], dtype=np.float32)
    np.testing.assert_allclose(jvp, 2 * primal * tangent, rtol=1e-6)
    # what the program unpacked and bound as jvp is the tangent the graph shows
    assert nodes["dual_output"]["tangent"] == nodes["jvp#1"]["data"]
    assert nodes["plain_tensor"]["tangent"] is None and nodes["primal"]["tangent"] is None


def test_mode_forward_needs_one_top_level_wrt():
    r = invoke("graph", CHAIN, "--wrt", "w1", "--wrt", "w2", "--mode", "forward")
    assert r.exit_code == 2 and "--mode forward seeds one --wrt NAME" in r.stderr
    r = invoke("explain", CHAIN, "--wrt", "nope", "--mode", "forward")
    assert r.exit_code == 2 and "the script binds no 'nope'" in r.stderr
    r = invoke("graph", "-e", "def f():\n    return param(2.0)\nw = f\ny = w() * 3\n",
               "--wrt", "w", "--mode", "forward")
    assert r.exit_code == 2, r.stdout


# -- dot -------------------------------------------------------------------------------------------
def test_dot_draws_value_and_tangent_in_each_box():
    r = invoke("dot", CHAIN, "--wrt", "w1", "--mode", "forward")
    assert r.exit_code == 0, r.stderr
    box = next(line for line in r.stdout.splitlines() if line.lstrip().startswith("t10 "))
    assert "-7." in box and "tangent -8." in box and 'COLOR="#1f5fa8"' in box
    plain = invoke("dot", CHAIN).stdout
    assert "tangent" not in plain
    if shutil.which("dot"):
        done = subprocess.run(["dot", "-Tsvg"], input=r.stdout, capture_output=True,
                              text=True, check=False)
        assert done.returncode == 0 and "tangent -8." in html.unescape(done.stdout)


# -- explain --mode forward ------------------------------------------------------------------------
CHAIN_FORWARD = """\
dL/dw1 = -8.0
by forward mode: w1's tangent 1 carried forward to L
reverse mode gives the same: -8.0

the tangent node by node (tangent out = sum of local derivative x tangent in):
line  node   op    input  local  tangent in  tangent out
5     w1     -     -      -      -           1 (seed)
6     x3     mul   w1     1      1           1
7     x4     mul   w1     2      1           2
8     w2*x3  mul   x3     2      1           2
8     w3*x4  mul   x4     3      2           6
8     x5     add   w2*x3  1      2           8
                   w3*x4  1      6
9     L      rsub  x5     -1     8           -8

the same 2 paths, seen from w1's side (each path's product of local derivatives):
path 1: w1 -> x4 -> w3*x4 -> x5 -> L
  dx4/dw1 * d(w3*x4)/dx4 * dx5/d(w3*x4) * dL/dx5 = 2 * 3 * 1 * -1 = -6
path 2: w1 -> x3 -> w2*x3 -> x5 -> L
  dx3/dw1 * d(w2*x3)/dx3 * dx5/d(w2*x3) * dL/dx5 = 1 * 2 * 1 * -1 = -2

sum of the 2 paths = -8.0 = L's tangent
"""


def test_explain_forward_plain_on_the_chain_rule():
    r = invoke("explain", CHAIN, "--wrt", "w1", "--mode", "forward", "--format", "plain")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == CHAIN_FORWARD


def test_explain_forward_json_on_the_chain_rule():
    doc = jdoc("explain", CHAIN, "--wrt", "w1", "--mode", "forward")
    assert doc["mode"] == "forward" and doc["grad"] == -8.0 and doc["reverse_grad"] == -8.0
    assert doc["agrees"] is True and doc["seeds"] == 1
    steps = [(n["node"], n["op"], [(t["input"], t["local"], t["tangent_in"])
                                   for t in n["inputs"]], n["tangent_out"])
             for n in doc["nodes"]]
    assert steps == [
        ("w1", None, [], 1.0), ("x3", "mul", [("w1", 1.0, 1.0)], 1.0),
        ("x4", "mul", [("w1", 2.0, 1.0)], 2.0), ("w2*x3", "mul", [("x3", 2.0, 1.0)], 2.0),
        ("w3*x4", "mul", [("x4", 3.0, 2.0)], 6.0),
        ("x5", "add", [("w2*x3", 1.0, 2.0), ("w3*x4", 1.0, 6.0)], 8.0),
        ("L", "rsub", [("x5", -1.0, 8.0)], -8.0)]
    assert all(n["consistent"] for n in doc["nodes"][1:])
    # the paths run from W to L, and add up to L's tangent
    assert [p["nodes"][0] for p in doc["paths"]] == ["w1", "w1"]
    assert [p["nodes"][-1] for p in doc["paths"]] == ["L", "L"]
    assert [e["op"] for e in doc["paths"][0]["edges"]] == ["mul", "mul", "add", "rsub"]
    assert sum(p["contribution"] for p in doc["paths"]) == doc["grad"]


def test_explain_forward_rich_on_the_chain_rule():
    r = invoke("explain", CHAIN, "--wrt", "w1", "--mode", "forward", "--format", "rich")
    assert r.exit_code == 0, r.stderr
    assert "tangent out" in r.stdout and "1 (seed)" in r.stdout
    assert "w1 → x4 → w3*x4 → x5 → L" in r.stdout
    assert "sum of the 2 paths = -8.0 = L's tangent" in r.stdout


def test_explain_forward_on_a_small_network_matches_the_tangents_by_hand():
    """tiny_mlp: h = tanh(x W1 + b1); d(h_k)/d(W1_ij) = x_i [j == k] (1 - h_k^2)."""
    doc = jdoc("explain", MLP, "--wrt", "W1", "--mode", "forward")
    assert doc["seeds"] == 4 and doc["agrees"] is True
    np.testing.assert_allclose(doc["grad"], doc["reverse_grad"], rtol=1e-12)
    x = np.array([[1.0, -2.0]])
    w1 = np.array([[0.3, -0.1], [0.2, 0.4]])
    h = np.tanh(x @ w1 + np.array([0.1, -0.2]))
    expected = np.zeros((2, 2, 1, 2))
    for i in range(2):
        for j in range(2):
            expected[i, j, 0, j] = x[0, i] * (1 - h[0, j] ** 2)
    nodes = {n["node"]: n for n in doc["nodes"]}
    np.testing.assert_allclose(nodes["h"]["tangent_out"], expected, rtol=1e-12)
    assert nodes["h"]["inputs"][0]["tangent_in"] == nodes["x@W1 + b1"]["tangent_out"]
    assert all(n["consistent"] for n in doc["nodes"][1:])
    # L's tangent, as W1's shape, is the gradient
    assert nodes["L"]["tangent_out"] == doc["grad"]


def test_explain_forward_plain_on_a_small_network():
    r = invoke("explain", MLP, "--wrt", "W1", "--mode", "forward", "--format", "plain")
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert out.startswith("dL/dW1 = [[-0.0697,  0.0179],\n          [ 0.1393, -0.0357]]\n")
    assert "by forward mode: 4 re-runs" in out and "reverse mode gives the same" in out
    assert ("h  line 10  [tanh, TanhBackward0]  h = tanh(x @ W1 + b1)\n"
            "  from x@W1 + b1: dh/d(x@W1 + b1) = Jacobian (1, 2, 1, 2)") in out
    assert ("  tangent out (2, 2, 1, 2), one row per element of W1:\n"
            "    [[ 1.0000,  0.0000],\n     [ 0.0000,  0.3592],\n     [-2.0000,  0.0000],\n"
            "     [ 0.0000, -0.7184]]") in out
    assert "path 1: W1 -> x@W1 -> x@W1 + b1 -> h -> h@W2 -> out" in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_explain_forward_on_a_pytorch_program(tmp_path):
    """A PyTorch program's network (float32): forward mode's dloss/dW1 is reverse mode's."""
    prog = tmp_path / "mlp.py"
    prog.write_text(TORCH_MLP)
    doc = jdoc("explain", str(prog), "--wrt", "W1", "--mode", "forward")
    assert doc["agrees"] is True and doc["seeds"] == 4 and doc["of"] == "loss"
    np.testing.assert_allclose(doc["grad"], doc["reverse_grad"], rtol=1e-6)
    # PyTorch 2.13 prints W1.grad as tensor([[ 1.8440, -1.7947], [ 0.8219, -0.7999]])
    np.testing.assert_allclose(doc["grad"], [[1.8440, -1.7947], [0.8219, -0.7999]], atol=1e-4)
    relu = next(n for n in doc["nodes"] if n["op"] == "relu")
    assert all(n["consistent"] for n in doc["nodes"][1:]) and relu["tangent_out"] is not None


def test_explain_forward_when_w_is_not_on_a_path():
    src = "w = param(2.0)\nv = param(3.0)\nL = v * 4\n"
    doc = jdoc("explain", "-e", src, "--wrt", "w", "--of", "L", "--mode", "forward")
    assert doc["grad"] == 0.0 and doc["nodes"] == [] and doc["paths"] == []
    assert "does not depend on w" in doc["zero_reason"]
    r = invoke("explain", "-e", src, "--wrt", "w", "--of", "L", "--mode", "forward",
               "--format", "plain")
    assert r.exit_code == 0 and "zero derivative: " in r.stdout


def test_explain_forward_after_the_scripts_own_backward():
    src = "w = param([1.0, 2.0])\nL = (w * w).sum()\nL.backward()\n"
    doc = jdoc("explain", "-e", src, "--wrt", "w", "--mode", "forward")
    assert doc["grad"] == [2.0, 4.0] == doc["reverse_grad"]
    assert [n["node"] for n in doc["nodes"]] == ["w", "w*w", "L"]
    ww = doc["nodes"][1]
    assert [t["input"] for t in ww["inputs"]] == ["w", "w"]  # x * x: two edges
    assert ww["tangent_out"] == [[2.0, 0.0], [0.0, 4.0]]


# -- PyTorch's tangents (tools/record_forward_views.py) --------------------------------------------
FORWARD_VIEWS = json.loads((ROOT / "tests" / "fixtures" / "torch" / "forward_views.json")
                           .read_text())


def _tangents_against_pytorch(doc: dict, key: str, dtype: type) -> dict[str, float]:
    """Each node's tangent_out against PyTorch's, in units in the last place (max)."""
    nodes = {n["node"]: n for n in doc["nodes"]}
    ulps = {}
    for label, per_seed in FORWARD_VIEWS[key].items():
        want = np.asarray(per_seed).astype(dtype)
        got = np.asarray(nodes[label]["tangent_out"]).astype(dtype).reshape(want.shape)
        spacing = np.spacing(np.maximum(np.abs(want), np.finfo(dtype).tiny))
        ulps[label] = float(np.max(np.abs(got - want) / spacing))
    return ulps


def test_explain_forward_tangents_are_pytorchs_on_a_pytorch_network(tmp_path):
    prog = tmp_path / "mlp.py"
    prog.write_text(TORCH_MLP)
    doc = jdoc("explain", str(prog), "--wrt", "W1", "--mode", "forward")
    assert _tangents_against_pytorch(doc, "torch_mlp", np.float32) == {
        "x@W1": 0.0, "h": 0.0, "out": 0.0, "loss": 0.0}


def test_explain_forward_tangents_are_pytorchs_on_tiny_mlp():
    doc = jdoc("explain", MLP, "--wrt", "W1", "--mode", "forward")
    ulps = _tangents_against_pytorch(doc, "tiny_mlp", np.float64)
    # tanh's tangent is PyTorch's tanh_backward kernel (its 1 - y * y fused), an op of its own
    assert set(ulps.values()) == {0.0}, ulps



def test_a_view_of_an_initialised_parameter_shows_its_values(tmp_path):
    """A view made after a no_grad in-place init (nn.init, as make_dual of a module's weight):
    its state is the base's current version, not the zeros before the init."""
    prog = tmp_path / "init.py"
    prog.write_text("import torch\nimport torch.autograd.forward_ad as fwAD\n"
                    "p = torch.nn.Parameter(torch.zeros(2))\n"
                    "with torch.no_grad():\n    p.add_(3.0)\n"
                    "with fwAD.dual_level():\n    d = fwAD.make_dual(p, torch.ones(2))\n"
                    "    e = d * 2\n")
    nodes = by_name(jdoc("graph", str(prog)))
    assert nodes["d"]["data"] == [3.0, 3.0] and nodes["d"]["tangent"] == [1.0, 1.0]
    assert nodes["e"]["data"] == [6.0, 6.0] and nodes["e"]["tangent"] == [2.0, 2.0]
