"""The views of programs built from layers: listings whose cells stay narrow, parameters by
their module paths, a recurrent layer's time steps rolled into one node (issue 24)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from gradcli import cli
from gradcli.render import plain

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
    assert len(rows) == 105 and max(map(len, rows)) < 300
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
