"""What a demanding user saw running every command on the samples and the corpus (the QA pass):
wrong dtypes in documents, unhelpful names and messages, tables that waste a narrow terminal.

Every test here was written against a reproduced fault and fails without its fix.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gradcli import cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
runner = CliRunner()


def invoke(*args: str, input: str | None = None):
    """The app in-process; stdout and stderr are kept apart."""
    return runner.invoke(cli.app, list(args), input=input)


def program(tmp_path: Path, text: str, name: str = "prog.py") -> str:
    """A PyTorch program written to a file; its path."""
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# -- dtypes: a tensor's own, never the run's default ------------------------------------------------
DTYPES = """\
import torch
a = torch.tensor([1, 2, 3])
m = a > 1
d = torch.tensor([0.1, 2.5], dtype=torch.float64)
x = torch.ones(3, requires_grad=True)
y = (x * a).sum()
y.backward()
i = a.sum()
"""


def test_run_json_keeps_int64_bool_and_float64_tensors_as_they_are(tmp_path):
    r = invoke("run", program(tmp_path, DTYPES), "--format", "json")
    assert r.exit_code == 0, r.stderr
    b = json.loads(r.stdout)["bindings"]
    got = {k: (v["dtype"], json.dumps(v["data"])) for k, v in b.items() if "dtype" in v}
    assert got == {"a": ("int64", "[1, 2, 3]"), "m": ("bool", "[false, true, true]"),
                   "d": ("float64", "[0.1, 2.5]"),  # not rounded to float32
                   "x": ("float32", "[1.0, 1.0, 1.0]"), "y": ("float32", "6.0"),
                   "i": ("int64", "6")}
    assert b["x"]["grad"] == [1.0, 2.0, 3.0]


def test_graph_json_writes_each_node_in_its_own_dtype(tmp_path):
    r = invoke("graph", program(tmp_path, DTYPES), "--format", "json")
    assert r.exit_code == 0, r.stderr
    data = {n["name"]: n["data"] for n in json.loads(r.stdout)["nodes"] if n["name"]}
    # compared as text: 1 == 1.0 and True == 1 in Python, not in a JSON reader's types
    assert json.dumps(data) == json.dumps({"a": [1, 2, 3], "m": [False, True, True],
                                           "d": [0.1, 2.5], "x": [1.0, 1.0, 1.0], "y": 6.0,
                                           "i": 6})
