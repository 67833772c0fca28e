"""The command line: every command and option, exit codes, JSON documents, DOT, diagnostics.

Two ways in: ``typer.testing.CliRunner`` on the Typer app (fast, in-process; Typer's own option
coercion) and a real ``python -m gradcli`` subprocess (the installed entry point, its fast
coercion, pipes, signals and import costs).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from marks import needs_dot, with_default_sigint
from typer.testing import CliRunner

from gradcli import cli, views
from gradcli.render import dot as dotr

ROOT = Path(__file__).resolve().parents[1]
CHAIN = str(ROOT / "samples" / "chain_rule.grad")
SRC = str(ROOT / "src")
runner = CliRunner()

RETAIN = """a = param(2.0)
b = a * a
c = b.exp()
d = c * 3
e = c * 2
d.backward()
e.backward()
"""


def invoke(*args: str, input: str | None = None, env: dict | None = None):
    """The app in-process; stdout and stderr are kept apart."""
    return runner.invoke(cli.app, list(args), input=input, env=env)


def sh(*args: str, input: str | None = None, env: dict | None = None, **kw):
    """``python -m gradcli`` in a subprocess."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full_env.update(PYTHONPATH=SRC, **(env or {}))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=input, check=False,
                          capture_output=True, text=True, env=full_env, timeout=120, **kw)


def jdoc(*args: str, code: int = 0, **kw) -> dict:
    """Run with --format json, check the exit code, parse the document."""
    r = invoke(*args, "--format", "json", **kw)
    assert r.exit_code == code, (r.stdout, r.stderr)
    return json.loads(r.stdout)


@pytest.fixture
def script(tmp_path):
    """Write a script file, return its path."""
    def write(text: str, name: str = "s.grad") -> str:
        p = tmp_path / name
        p.write_text(text)
        return str(p)
    return write


# -- grad -----------------------------------------------------------------------------------------
def test_grad_chain_rule_plain():
    r = invoke("grad", CHAIN, "--wrt", "w1")
    assert r.exit_code == 0
    assert r.stdout == "dL/dw1 = -8.0\n"


def test_grad_prints_one_line_per_wrt_and_tensors_in_full(script):
    p = script("W = param([[1.0, 2.0], [3.0, 4.0]])\nb = 1\nL = (W * W).sum() + b\n")
    r = invoke("grad", p, "--wrt", "W", "--wrt", "b")
    assert r.exit_code == 0
    # a tensor as PyTorch prints it, its rows under the first; a number as Python writes it
    assert r.stdout == "dL/dW = [[2., 4.],\n         [6., 8.]]\ndL/db = 1.0\n"


def test_grad_json_exact():
    assert jdoc("grad", CHAIN, "--wrt", "w1", "--wrt", "w3") == {
        "gradcli": "1", "of": "L", "value": -7.0,
        "wrt": {"w1": {"shape": [], "data": -8.0}, "w3": {"shape": [], "data": -2.0}},
        "error": None}


def test_grad_of_and_unused_wrt_is_zero():
    doc = jdoc("grad", CHAIN, "--wrt", "w1", "--wrt", "x1", "--of", "x4")
    assert doc["of"] == "x4"
    assert doc["wrt"] == {"w1": {"shape": [], "data": 2.0}, "x1": {"shape": [], "data": 0.0}}


def test_grad_does_not_print_the_scripts_output():
    r = invoke("grad", CHAIN, "--wrt", "w1")
    assert "tensor(" not in r.stdout


def test_grad_needs_wrt():
    r = invoke("grad", "-e", "w = 2\nL = w * w\n")  # no --wrt, no header
    assert r.exit_code == 2
    assert "--wrt" in r.stderr


def test_grad_after_the_script_freed_the_graph_still_differentiates(script):
    p = script("w = param(2.0)\nL = w.exp()\nL.backward()\n")
    r = invoke("grad", p, "--wrt", "w", "--format", "plain")
    assert (r.exit_code, r.stdout) == (0, "dL/dw = 7.38905609893065\n"), r.stderr


# -- inputs: stdin, -e, --set, --dtype, --seed ----------------------------------------------------
def test_stdin_dash():
    r = invoke("grad", "-", "--wrt", "w", input="w = 3; y = w * w\n")
    assert (r.exit_code, r.stdout) == (0, "dy/dw = 6.0\n")


def test_eval_text_and_set_override():
    r = invoke("grad", "-e", "w = 2; L = w ** 3", "--wrt", "w", "--set", "w=1")
    assert (r.exit_code, r.stdout) == (0, "dL/dw = 3.0\n")


def test_set_list_value():
    doc = jdoc("grad", "-e", "v = [1.0, 2.0]; L = (v * v).sum()", "--wrt", "v",
               "--set", "v=[3, 4]")
    assert doc["wrt"]["v"] == {"shape": [2], "data": [6.0, 8.0]}


@pytest.mark.parametrize("args", [["--set", "w"], ["--set", "w=abc"], ["--set", "q=1"]])
def test_bad_set_is_usage_error(args):
    assert invoke("grad", "-e", "w = 2; L = w * w", "--wrt", "w", *args).exit_code == 2


def test_script_and_eval_together_is_usage_error():
    assert invoke("grad", CHAIN, "-e", "x = 1", "--wrt", "x").exit_code == 2


def test_dtype_float32():
    doc = jdoc("run", "-e", "x = 0.1", "--dtype", "float32")
    assert doc["bindings"]["x"]["dtype"] == "float32"
    assert doc["bindings"]["x"]["data"] == 0.1  # float32's shortest decimal, not 0.10000000149


def test_seed_changes_random_values():
    a = jdoc("run", "-e", "x = randn(3)", "--seed", "1")["bindings"]["x"]["data"]
    b = jdoc("run", "-e", "x = randn(3)", "--seed", "1")["bindings"]["x"]["data"]
    c = jdoc("run", "-e", "x = randn(3)", "--seed", "2")["bindings"]["x"]["data"]
    assert a == b != c


def test_missing_script_file():
    r = invoke("grad", "no/such/file.grad", "--wrt", "w")
    assert r.exit_code == 2
    assert "no such file" in r.stderr


def test_max_steps_and_max_elements():
    r = invoke("run", "-e", "for i in range(100):\n    pass\n", "--max-steps", "10")
    assert r.exit_code == 1
    assert "step limit" in r.stderr
    r = invoke("run", "-e", "x = zeros(100, 100)", "--max-elements", "1000")
    assert r.exit_code == 1
    assert invoke("run", "-e", "x = 1", "--max-steps", "0").exit_code == 2


# -- run ------------------------------------------------------------------------------------------
def _t(data, *, rg=False, leaf=True, fn=None, grad=None, version=0) -> dict:
    return {"shape": [], "dtype": "float64", "data": data, "requires_grad": rg, "is_leaf": leaf,
            "grad_fn": fn, "grad": grad, "version": version}


def test_run_json_exact():
    assert jdoc("run", CHAIN, "--wrt", "w1") == {
        "gradcli": "1",
        "bindings": {
            "x1": _t(1.0), "x2": _t(2.0), "w1": _t(1.0, rg=True), "w2": _t(2.0), "w3": _t(3.0),
            "x3": _t(1.0, rg=True, leaf=False, fn="MulBackward0"),
            "x4": _t(2.0, rg=True, leaf=False, fn="MulBackward0"),
            "x5": _t(8.0, rg=True, leaf=False, fn="AddBackward0"),
            "L": _t(-7.0, rg=True, leaf=False, fn="RsubBackward1")},
        "prints": ["tensor(-7., grad_fn=<RsubBackward1>)"], "warnings": [], "error": None}


def test_run_plain_prints_then_table():
    r = invoke("run", CHAIN, "--wrt", "w1")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "tensor(-7., grad_fn=<RsubBackward1>)"
    assert lines[1].split() == ["name", "type", "value", "grad_fn", "flags", "grad"]
    assert lines[4].split() == ["w1", "tensor", "()", "1.", "-", "leaf", "requires_grad", "-"]
    assert lines[-1].split() == ["L", "tensor", "()", "-7.", "RsubBackward1", "requires_grad",
                                 "-"]


def test_run_quiet_prints_only_print_output():
    r = invoke("run", CHAIN, "--quiet")  # its header's wrt=w1 applies: L has a grad_fn
    assert (r.exit_code, r.stdout) == (0, "tensor(-7., grad_fn=<RsubBackward1>)\n")


def test_run_grad_and_plain_numbers(script):
    p = script("w = param([1.0, 2.0])\nL = (w * w).sum()\nL.backward()\nn = 3\nk = w.shape[0]\n"
               "f = L.item() > 1\n")
    b = jdoc("run", p)["bindings"]
    assert b["w"]["grad"] == [2.0, 4.0]
    assert b["k"] == {"type": "int", "value": 2}
    assert b["f"] == {"type": "bool", "value": True}
    assert b["n"]["shape"] == []  # a bare literal assignment is a tensor


def test_run_non_tensor_bindings(script):
    p = script("def f(a):\n    return a * 2\nx = param([1.0, 2.0])\ns = x.shape\n"
               "g = f(x).grad_fn\nn = None\n")
    b = jdoc("run", p)["bindings"]
    assert b["f"] == {"type": "function", "value": "f"}
    assert b["s"] == {"type": "Size", "value": [2]}
    assert b["g"] == {"type": "grad_fn", "value": "MulBackward0"}
    assert b["n"] == {"type": "NoneType", "value": None}
    out = invoke("run", p).stdout
    assert "<function f>" in out and "torch.Size([2])" in out and "<MulBackward0>" in out


def test_run_streams_print_output_before_a_failure(script):
    p = script("print(1)\nx = 1\ny = x.nope\n")
    r = invoke("run", p)
    assert r.exit_code == 1
    assert r.stdout == "1\n"  # no table after a failure
    assert r.stderr.startswith(f"{p}:3:")


def test_run_json_error_keeps_earlier_bindings(script):
    p = script("x = 1\nprint(x)\ny = x.nope\nz = 2\n")
    doc = jdoc("run", p, code=1)
    assert list(doc["bindings"]) == ["x"]
    assert doc["prints"] == ["tensor(1.)"]
    assert doc["error"]["type"] == "AttributeError"
    assert (doc["error"]["line"], doc["error"]["column"]) == (3, 5)


def test_json_non_finite_numbers():
    doc = jdoc("run", "-e", "x = param([1.0, -1.0, 0.0])\ny = x / 0\n")
    assert doc["bindings"]["y"]["data"] == ["inf", "-inf", "nan"]
    r = invoke("run", "-e", "x = param([1.0, -1.0, 0.0])\ny = x / 0\n", "--format", "json")
    assert "NaN" not in r.stdout and "Infinity" not in r.stdout


def test_warnings_plain_form_and_quiet(script):
    p = script("x = param(1.0)\ny = x * 2\ny.backward()\ng = y.grad\n")
    r = invoke("run", p)
    assert r.exit_code == 0
    assert r.stderr.startswith(f"{p}:4:")
    assert ": UserWarning: The .grad attribute of a Tensor that is not a leaf" in r.stderr
    assert "    g = y.grad\n" in r.stderr
    assert invoke("run", p, "--quiet").stderr == ""
    doc = jdoc("run", p)
    assert doc["warnings"][0]["line"] == 4
    assert doc["warnings"][0]["message"].startswith("The .grad attribute")


# -- diagnostics ----------------------------------------------------------------------------------
def test_retain_graph_diagnostic_format(script):
    p = script(RETAIN, "retain.grad")
    r = invoke("run", p)
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"{p}:7:1: RuntimeError: Trying to backward through the graph "
                               "a second time (or directly access saved tensors after they have "
                               "already been freed).")
    assert lines[1] == "    e.backward()"
    assert lines[2] == "    ^" + "~" * 11  # under all 12 characters of e.backward()
    assert lines[3].startswith("hint: ") and "retain_graph=True" in lines[3]
    assert "line 6" in lines[3]
    assert len(lines) == 4


def test_syntax_error_exit_3_plain_and_json():
    r = invoke("run", "-e", "x = (1 +\n")
    assert r.exit_code == 3
    assert r.stderr.splitlines()[0] == "<eval>:1:5: SyntaxError: '(' was never closed"
    assert r.stderr.splitlines()[2] == "        ^"
    doc = jdoc("run", "-e", "x = (1 +\n", code=3)
    assert doc["error"]["type"] == "SyntaxError"
    assert doc["bindings"] == {}


def test_usage_error_json_document():
    doc = jdoc("grad", CHAIN, "--wrt", "nope", code=2)
    assert doc["error"]["type"] == "UsageError"
    assert "nope" in doc["error"]["message"]
    assert doc["wrt"] == {}


@pytest.mark.parametrize("args", [
    ["grad", CHAIN, "--wrt", "zz"], ["grad", CHAIN, "--wrt", "w1", "--of", "zz"],
    ["graph", CHAIN, "--of", "zz"], ["run", CHAIN, "--wrt", "zz"],
    ["check", CHAIN, "--wrt", "zz"], ["dot", CHAIN, "--wrt", "zz"],
    ["grad", CHAIN, "--wrt", "w1", "--backend", "tpu"], ["grad", CHAIN, "--bogus"],
    ["grad", CHAIN, "--wrt", "w1", "--seed", "x"], ["grad", CHAIN, "--wrt", "w1", "--dtype", "int8"],
    ["nosuchcommand"],
])
def test_usage_errors_exit_2(args):
    r = invoke(*args)
    assert r.exit_code == 2, (r.stdout, r.stderr)


def test_backend_env_var_is_read():
    r = invoke("grad", CHAIN, "--wrt", "w1", env={"GRADCLI_BACKEND": "tpu"})
    assert r.exit_code == 2


def test_cupy_unavailable_says_why():
    try:
        import cupy  # noqa: F401
    except ImportError:
        r = invoke("grad", CHAIN, "--wrt", "w1", "--backend", "cupy")
        assert r.exit_code == 2
        assert "cupy" in r.stderr.lower()
    else:  # pragma: no cover - a machine with CuPy
        pytest.skip("CuPy is installed")


def test_internal_error_is_one_line_exit_70(monkeypatch):
    def boom(*a, **k):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(views, "graph_view", boom)
    r = invoke("graph", CHAIN)
    assert r.exit_code == 70
    assert r.stderr.startswith("gradcli: internal error: ZeroDivisionError: boom — please report")
    assert "Traceback" not in r.stderr
    assert len(r.stderr.splitlines()) == 1
    r = invoke("graph", CHAIN, "--debug")
    assert "Traceback" in r.stderr
    doc = jdoc("graph", CHAIN, code=70)
    assert doc["error"]["type"] == "InternalError"


def test_keyboard_interrupt_exit_130(monkeypatch):
    from gradcli import pipeline

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "run", interrupted)
    r = invoke("run", CHAIN)
    assert r.exit_code == 130
    assert r.stdout == "" and "Traceback" not in r.stderr


# -- graph ----------------------------------------------------------------------------------------
def _node(i, name, op, fn, inputs, data, rg, leaf, saved=(), d_output=None):
    return {"id": i, "name": name, "op": op, "grad_fn": fn, "inputs": inputs, "shape": [],
            "requires_grad": rg, "is_leaf": leaf, "data": data, "grad": None,
            "d_output": d_output, "tangent": None,  # forward mode's (none in this run)
            "saved": [{"name": s, "freed": False} for s in saved]}


def test_graph_json_exact_chain_rule():
    assert jdoc("graph", CHAIN, "--wrt", "w1") == {
        "gradcli": "1", "output": 10, "error": None, "nodes": [
            _node(0, "x1", None, None, [], 1.0, False, True),
            _node(1, "x2", None, None, [], 2.0, False, True),
            _node(2, "w1", None, None, [], 1.0, True, True, d_output=-8.0),  # --wrt: dL/dw1
            _node(3, "w2", None, None, [], 2.0, False, True),
            _node(4, "w3", None, None, [], 3.0, False, True),
            _node(5, "x3", "mul", "MulBackward0", [2, 0], 1.0, True, False, ["other"]),
            _node(6, "x4", "mul", "MulBackward0", [2, 1], 2.0, True, False, ["other"]),
            _node(7, None, "mul", "MulBackward0", [3, 5], 2.0, True, False, ["self"]),
            _node(8, None, "mul", "MulBackward0", [4, 6], 6.0, True, False, ["self"]),
            _node(9, "x5", "add", "AddBackward0", [7, 8], 8.0, True, False),
            _node(10, "L", "rsub", "RsubBackward1", [9], -7.0, True, False)]}


def test_graph_names_rebinding_and_inplace(script):
    p = script("x = param([1.0, 2.0])\ny = x * 2\ny = y + 1\nh = y * 3\nh += 1\nL = h.sum()\n")
    nodes = jdoc("graph", p)["nodes"]
    assert [n["name"] for n in nodes] == ["x", "y#1", "y", "h#1", "h", "L"]
    assert nodes[4]["inputs"] == [3] and nodes[4]["grad_fn"] == "AddBackward0"


def test_graph_loop_names(script):
    p = script("w = param(2.0)\nh = w\nfor i in range(2):\n    h = h * w\n")
    names = [n["name"] for n in jdoc("graph", p)["nodes"]]
    assert names == ["w", "h#2", "h"]  # h's first binding is w's own tensor, named w


def test_graph_plain_listing_and_output_marker():
    r = invoke("graph", CHAIN, "--wrt", "w1")
    assert r.exit_code == 0
    printed, *lines = r.stdout.splitlines()  # the script's print(L) comes first
    assert printed == "tensor(-7., grad_fn=<RsubBackward1>)"
    assert lines[0].split() == ["id", "name", "op", "grad_fn", "inputs", "shape", "flags",
                                "value", "grad", "dL/d·", "saved"]  # d·: --wrt's gradients
    assert lines[3].split()[:2] == ["2", "w1"] and lines[3].split()[-3:] == ["-", "-8.", "-"]
    assert lines[6].split() == ["5", "x3", "mul", "MulBackward0", "2,0", "()", "requires_grad",
                                "1.", "-", "-", "other"]
    assert lines[11].split()[:4] == ["10*", "L", "rsub", "RsubBackward1"]
    assert lines[-2] == "* output: node 10"
    assert lines[-1] == "dL/d·: as gradcli grad computes it (.grad is not changed)"


def test_graph_after_runtime_error_shows_freed_and_exits_1(script):
    p = script(RETAIN)
    r = invoke("graph", p, "--format", "json")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["error"]["line"] == 7
    exp = next(n for n in doc["nodes"] if n["grad_fn"] == "ExpBackward0")
    assert exp["saved"] == [{"name": "result", "freed": True}]
    r = invoke("graph", p)
    assert "result (freed)" in r.stdout
    assert "RuntimeError" in r.stderr


def test_graph_syntax_error_lists_nothing():
    r = invoke("graph", "-e", "x = = 1")
    assert r.exit_code == 3
    assert r.stdout == ""


def test_graph_tree_plain():
    r = invoke("graph", CHAIN, "--wrt", "w1", "--tree", "-q")  # -q: without print(L)
    assert r.exit_code == 0
    assert r.stdout.splitlines() == [
        "L  shape=()",
        "#0 RsubBackward1 [L]",
        "└── #1 AddBackward0 [x5]",
        "    ├── #2 MulBackward0  saves self",
        "    │   └── #3 MulBackward0 [x3]  saves other",
        "    │       └── #4 AccumulateGrad -> w1 ()  dL/dw1 = -8.",  # --wrt: its gradient
        "    └── #5 MulBackward0  saves self",
        "        └── #6 MulBackward0 [x4]  saves other",
        "            └── #4 AccumulateGrad (see above)"]


def test_graph_tree_json():
    doc = jdoc("graph", CHAIN, "--wrt", "w1", "--tree")
    assert doc["root"] == 0
    assert [n["name"] for n in doc["nodes"]] == [
        "RsubBackward1", "AddBackward0", "MulBackward0", "MulBackward0", "AccumulateGrad",
        "MulBackward0", "MulBackward0"]
    assert doc["nodes"][4]["variable"] == "w1"
    assert doc["nodes"][1]["next"] == [2, 5]


def test_graph_tree_without_grad():
    r = invoke("graph", "-e", "x = 1; y = x * 2", "--tree")
    assert r.exit_code == 0
    assert "no backward graph" in r.stdout


# -- check ----------------------------------------------------------------------------------------
def test_check_ok():
    r = invoke("check", CHAIN, "--wrt", "w1", "--wrt", "w2")
    assert r.exit_code == 0
    assert "gradients match finite differences" in r.stdout
    assert r.stderr == ""  # no progress bar off a terminal
    doc = jdoc("check", CHAIN, "--wrt", "w1")
    assert doc["ok"] is True and doc["error"] is None
    assert doc["wrt"]["w1"]["ok"] is True
    assert doc["wrt"]["w1"]["max_abs_err"] < 1e-7


def test_check_mismatch_exit_4():
    # the whole script re-run: its finite differences go through the detach() autograd cuts
    src = "w = [1.0, 3.0]\nL = (w * w.detach()).sum()\n"
    assert invoke("check", "-e", src, "--wrt", "w").exit_code == 0  # the graph: a constant
    r = invoke("check", "-e", src, "--wrt", "w", "--rerun")
    assert r.exit_code == 4
    assert "MISMATCH" in r.stdout
    doc = jdoc("check", "-e", src, "--wrt", "w", "--rerun", code=4)
    assert doc["ok"] is False
    assert doc["wrt"]["w"]["max_abs_err"] == pytest.approx(3.0, rel=1e-6)
    assert doc["wrt"]["w"]["max_rel_err"] == pytest.approx(0.5, rel=1e-6)


def test_check_relative_error_ignores_values_below_atol_over_rtol():
    from gradcli.gradcheck import compare

    assert compare([1e-9, 2.0], [2e-9, 2.0]) == (pytest.approx(1e-9), 0.0, True)
    abs_err, rel_err, ok = compare([1.0, 2.0], [1.0, 2.1])
    assert (abs_err, ok) == (pytest.approx(0.1), False)
    assert rel_err == pytest.approx(0.1 / 2.1)
    assert compare([float("nan")], [1.0])[2] is False


def test_check_uses_the_last_binding_and_random_draws_repeat():
    src = "seed(3)\nx = randn(3)\nw = param(randn(3))\nw = w * 1\nL = (x * w).sum().tanh()\n"
    assert invoke("check", "-e", src, "--wrt", "w").exit_code == 0


def test_check_caps_elements_with_a_note():
    r = invoke("check", "-e", "w = [1.0, 2.0, 3.0]\nL = (w * w).sum()\n", "--wrt", "w",
               "--max-evals", "4")
    assert r.exit_code == 0
    assert "checked 2 of 3 elements of w, evenly spread" in r.stderr


def test_check_float32_note_and_needs_wrt_and_scalar():
    # the graph recorded in float32 is replayed in float64; --rerun runs the script in float64
    r = invoke("check", CHAIN, "--wrt", "w1", "--dtype", "float32")
    assert (r.exit_code, r.stderr) == (0, "")
    r = invoke("check", CHAIN, "--wrt", "w1", "--dtype", "float32", "--rerun")
    assert r.exit_code == 0 and "float64" in r.stderr
    assert invoke("check", "-e", "w = 2; L = w * w").exit_code == 2  # no --wrt, no header
    r = invoke("check", "-e", "w = [1.0, 2.0]; L = w * 2", "--wrt", "w")  # no scalar output
    assert r.exit_code == 2 and "L (shape (2,), requires grad)" in r.stderr
    r = invoke("check", "-e", "w = [1.0, 2.0]; L = w * 2", "--wrt", "w", "--of", "L")
    assert r.exit_code == 2 and "check needs a one-element output; 'L' has shape (2,)" in r.stderr


# -- dot ------------------------------------------------------------------------------------------
SVG = "{http://www.w3.org/2000/svg}"


def _svg(dot_text: str) -> ET.Element:
    proc = subprocess.run(["dot", "-Tsvg"], input=dot_text, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no Graphviz warnings either
    return ET.fromstring(proc.stdout)


def _texts(svg: ET.Element) -> list[str]:
    return [t.text for t in svg.iter(f"{SVG}text") if t.text]


def _fills(svg: ET.Element) -> set[str]:
    return {p.get("fill") for p in svg.iter() if p.get("fill")}


@needs_dot
def test_dot_forward_renders_with_graphviz():
    r = invoke("dot", CHAIN, "--wrt", "w1")
    assert r.exit_code == 0 and r.stdout.startswith("digraph forward {")
    svg = _svg(r.stdout)
    texts = _texts(svg)
    for name in ("x1", "x2", "w1", "w2", "w3", "x3", "x4", "x5", "L", "MulBackward0"):
        assert name in texts
    assert dotr.LEAF in _fills(svg) and dotr.OUTPUT in _fills(svg)
    edges = [g for g in svg.iter(f"{SVG}g") if g.get("class") == "edge"]
    assert len(edges) == 17  # 11 tensor -> op edges and 6 op -> result edges


@needs_dot
def test_dot_backward_torchviz_style():
    r = invoke("dot", CHAIN, "--wrt", "w1", "--backward", "--show-saved")
    assert r.exit_code == 0 and r.stdout.startswith("digraph backward {")
    svg = _svg(r.stdout)
    texts = _texts(svg)
    assert texts.count("AccumulateGrad") == 1
    assert {"RsubBackward1", "AddBackward0", "w1", "L", "self", "other"} <= set(texts)
    fills = _fills(svg)
    assert {dotr.LEAF, dotr.OUTPUT, dotr.SAVED} <= fills
    plain = _svg(invoke("dot", CHAIN, "--wrt", "w1", "--backward").stdout)
    assert dotr.SAVED not in _fills(plain)


@needs_dot
def test_dot_show_values_and_grads(script):
    p = script("w = param([1.5, 2.5])\nL = (w * w).sum()\nL.backward()\n")
    texts = " ".join(_texts(_svg(invoke("dot", p, "--show-values", "--show-grads").stdout)))
    assert "[1.5000, 2.5000]" in texts and "grad [3., 5.]" in texts  # as PyTorch prints them
    texts = " ".join(_texts(_svg(invoke("dot", p, "--backward", "--show-grads").stdout)))
    assert "grad [3., 5.]" in texts


@needs_dot
def test_dot_freed_saved_tensors_after_error(script):
    r = invoke("dot", script(RETAIN), "--backward", "--show-saved", "--of", "e")
    assert r.exit_code == 1
    assert "(freed)" in _texts(_svg(r.stdout))


def test_dot_is_deterministic():
    a = invoke("dot", CHAIN, "--wrt", "w1", "--backward", "--show-saved").stdout
    b = invoke("dot", CHAIN, "--wrt", "w1", "--backward", "--show-saved").stdout
    assert a == b and "0x" not in a


@needs_dot
def test_dot_label_escaping():
    text = dotr.forward(views.GraphView([views.GraphNode(
        0, 'a<b>&"c"\\[x]', None, None, [], [], False, True, 0.0, None, [])], None, "float64"))
    svg = _svg(text)
    assert 'a<b>&"c"\\[x]' in _texts(svg)
    assert dotr.quote('say "hi"\\\n') == '"say \\"hi\\"\\\\\\n"'


@needs_dot
@pytest.mark.parametrize("ext,magic", [(".svg", b"<?xml"), (".png", b"\x89PNG"),
                                       (".pdf", b"%PDF"), (".dot", b"digraph"),
                                       (".gv", b"digraph")])
def test_dot_output_file(tmp_path, ext, magic):
    out = tmp_path / f"g{ext}"
    r = invoke("dot", CHAIN, "--wrt", "w1", "--backward", "-o", str(out))
    assert r.exit_code == 0 and r.stdout == ""
    assert out.read_bytes().startswith(magic)


def test_dot_output_unknown_extension(tmp_path):
    r = invoke("dot", CHAIN, "-o", str(tmp_path / "g.jpeg"))
    assert r.exit_code == 2
    assert ".svg" in r.stderr


def test_dot_without_graphviz(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    r = invoke("dot", CHAIN, "-o", str(tmp_path / "g.svg"))
    assert r.exit_code == 2
    assert "Graphviz" in r.stderr and "not on PATH" in r.stderr
    assert invoke("dot", CHAIN, "-o", str(tmp_path / "g.dot")).exit_code == 0


def test_dot_json():
    doc = jdoc("dot", CHAIN, "--backward")
    assert doc["dot"].startswith("digraph backward {") and doc["error"] is None


# -- the real command -----------------------------------------------------------------------------
def test_subprocess_grad_and_exit_codes(tmp_path):
    r = sh("grad", CHAIN, "--wrt", "w1")
    assert (r.returncode, r.stdout, r.stderr) == (0, "dL/dw1 = -8.0\n", "")
    assert sh("run", "-e", "x = (").returncode == 3
    assert sh("run", "-e", "x = 1; y = x.nope").returncode == 1
    assert sh("grad", CHAIN, "--wrt", "nope").returncode == 2
    assert sh("grad", CHAIN, "--no-such-option").returncode == 2
    assert sh("check", "-e", "w = 0.0\nL = relu(w)", "--wrt", "w").returncode == 4
    r = sh("grad", "-", "--wrt", "w", input="w = 3; y = w * w\n")
    assert r.stdout == "dy/dw = 6.0\n"


def test_subprocess_version_and_help():
    r = sh("--version")
    assert r.returncode == 0 and r.stdout.startswith("gradcli ")
    r = sh("-h")
    assert r.returncode == 0
    assert "Examples:" in r.stdout and "gradcli grad samples/chain_rule.grad --wrt w1" in r.stdout
    for command in ("run", "grad", "graph", "dot", "check"):
        assert command in r.stdout
    r = sh("dot", "--help")
    assert "--show-saved" in r.stdout and "Example" in r.stdout


def test_subprocess_plain_has_no_escape_codes():
    for args in (["run", CHAIN, "--wrt", "w1"], ["graph", CHAIN, "--tree"],
                 ["check", CHAIN, "--wrt", "w1"], ["run", "-e", "x = ("]):
        r = sh(*args, "--format", "plain", env={"FORCE_COLOR": "1", "TERM": "xterm-256color"})
        assert "\x1b" not in r.stdout + r.stderr


def test_subprocess_rich_and_no_color():
    env = {"FORCE_COLOR": "1", "TERM": "xterm-256color", "COLUMNS": "120"}
    r = sh("run", CHAIN, "--wrt", "w1", "--format", "rich", env=env)
    assert r.returncode == 0
    assert "bindings" in r.stdout and "\x1b[" in r.stdout
    assert "\x1b[3" in r.stdout  # a colour
    r = sh("run", CHAIN, "--wrt", "w1", "--format", "rich", env={**env, "NO_COLOR": "1"})
    assert "bindings" in r.stdout
    assert "\x1b[3" not in r.stdout and "\x1b[9" not in r.stdout  # no colours
    r = sh("run", "-e", "x = (", "--format", "rich", env=env)
    assert "╭" in r.stderr and "SyntaxError" in r.stderr  # the diagnostic panel


def test_subprocess_closed_pipe_is_quiet(tmp_path):
    p = tmp_path / "big.grad"
    p.write_text("w = param(1.0)\nh = w\nfor i in range(3000):\n    h = h * 1.0001\n")
    proc = subprocess.run(
        f"{sys.executable} -m gradcli graph {p} | head -1", shell=True, capture_output=True,
        check=False,
        text=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=120)
    assert proc.stdout.split() == ["id", "name", "op", "grad_fn", "inputs", "shape", "flags",
                                   "value", "grad", "saved"]
    assert proc.stderr == ""
    # The reader goes away before gradcli writes (deterministic, unlike head's timing).
    reader = subprocess.Popen([sys.executable, "-m", "gradcli", "graph", str(p)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": SRC})
    reader.stdout.close()
    err = reader.stderr.read()
    assert (reader.wait(timeout=60), err) == (0, b"")


def test_subprocess_ctrl_c_exits_130(tmp_path):
    p = tmp_path / "slow.grad"
    p.write_text("x = param(1.0)\nfor i in range(100000000):\n    y = x * 2\n")
    proc = subprocess.Popen(with_default_sigint([sys.executable, "-m", "gradcli", "run", str(p),
                                                 "--max-steps", "1000000000"]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": SRC}, text=True)
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


def _imports(*args: str) -> str:
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradcli", *args],
                       check=False, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": SRC}, timeout=120)
    return r.stderr


def test_startup_imports_stay_small():
    help_imports = _imports("--help")
    for heavy in ("pydantic", "rich", "numpy", "lark", "gradcli.engine"):
        assert f" {heavy}\n" not in help_imports and f" {heavy}." not in help_imports, heavy
    grad_imports = _imports("grad", CHAIN, "--wrt", "w1")
    assert "gradcli.engine" in grad_imports  # the measurement sees real imports
    for heavy in ("pydantic", "rich"):
        assert f" {heavy}\n" not in grad_imports and f" {heavy}." not in grad_imports, heavy


_BLAS_CHECK = """
import ctypes, os, sys
from gradcli import launch
launch._import_numpy()
import numpy
libs = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs")
names = [(n, e) for n in os.listdir(libs) for p, e in launch._OPENBLAS.items() if n.startswith(p)]
lib = ctypes.CDLL(os.path.join(libs, names[0][0]))
procs, _ = names[0][1]
threads = getattr(lib, procs.replace("get_num_procs", "get_num_threads"))()
import time
time.sleep(0.3)  # (a pool thread with OpenBLAS's default wait spins about 0.1 s of CPU here)
ticks = 0
for task in os.listdir("/proc/self/task"):
    if int(task) != os.getpid():
        with open(f"/proc/self/task/{task}/stat") as f:
            ticks += sum(int(v) for v in f.read().rsplit(")", 1)[1].split()[11:13])
spent = ticks / os.sysconf("SC_CLK_TCK")
print(threads, getattr(lib, procs)(),
      any(v in os.environ for v in ("OPENBLAS_NUM_THREADS", "OPENBLAS_THREAD_TIMEOUT")), spent)
"""
_NUMPY_PRODUCT = """
import numpy as np
a = np.random.default_rng(0).standard_normal((300, 300)).astype(np.float32)
print(float((a @ a).sum()), float(np.linalg.inv(a.astype(np.float64)).sum()))
"""


def _openblas_wheel() -> bool:
    import numpy

    libs = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs")
    from gradcli import launch

    return os.path.isdir(libs) and any(n.startswith(p) for n in os.listdir(libs)
                                       for p in launch._OPENBLAS)


@pytest.mark.skipif(not _openblas_wheel(), reason="NumPy without its wheel's OpenBLAS: "
                    "the entry point imports it as it is")
def test_numpy_starts_its_blas_on_one_thread_then_has_its_usual_threads(tmp_path):
    """The entry point loads NumPy's OpenBLAS with one thread (its pool's start is a third of
    NumPy's import) and then gives it the threads it would have had, so a script's NumPy
    products print what ``python`` prints (their bits depend on the thread count); the pool's
    threads sleep until a product needs them instead of spinning (the shortest wait)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS",
                        "OPENBLAS_THREAD_TIMEOUT")}
    env["PYTHONPATH"] = SRC
    r = subprocess.run([sys.executable, "-c", _BLAS_CHECK], capture_output=True, text=True,
                       env=env, check=True, timeout=120)
    threads, procs, left, spent = r.stdout.split()
    assert threads == procs and left == "False"
    assert float(spent) < 0.03  # the other threads' CPU seconds: ~0.1 spinning
    script = tmp_path / "product.py"
    script.write_text(_NUMPY_PRODUCT)
    ours = subprocess.run([sys.executable, "-m", "gradcli", "run", str(script)],
                          capture_output=True, text=True, env=env, check=True, timeout=120)
    python = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, check=True, timeout=120)
    assert ours.stdout == python.stdout


def test_the_entry_point_resumes_the_collector_after_start_up(monkeypatch):
    """`gradcli` starts with the collector paused; it is on again, the start-up's objects
    handed to its oldest generation, before the script runs (a run that makes cycles would
    otherwise grow for ever)."""
    import gc

    from gradcli import engine, launch, pipeline

    seen = []
    promote, run = engine.context.promote_to_oldest, pipeline.run
    monkeypatch.setattr(engine.context, "promote_to_oldest",
                        lambda: (seen.append("promote"), promote()))
    monkeypatch.setattr(pipeline, "run",
                        lambda *a, **k: (seen.append(f"run, gc on: {gc.isenabled()}"),
                                         run(*a, **k))[1])
    gc.unfreeze()  # an earlier test in this process may have frozen it
    gc.disable()
    try:
        with runner.isolation():
            launch.main(["run", "-e", "x = 1", "--format", "json"], gc_paused=True)
        assert gc.isenabled() and seen[:2] == ["promote", "run, gc on: True"]
        gc.disable()
        with runner.isolation(), pytest.raises(SystemExit):
            launch.main(["--help"], gc_paused=True)  # Typer's path resumes it too
        assert gc.isenabled()
    finally:
        gc.enable()


def test_the_process_ends_with_all_output_written_and_the_commands_exit_code(tmp_path):
    # The entry point leaves by os._exit after flushing: nothing buffered may be lost, on a
    # pipe (block-buffered) as on the exit paths of a failing script and of a usage error.
    script = tmp_path / "many.grad"
    script.write_text("for i in range(30000):\n    print(i)\nx = 1 / undefined_name\n")
    r = subprocess.run([sys.executable, "-m", "gradcli", "run", str(script)],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC},
                       check=False)
    assert r.stdout.splitlines() == [str(i) for i in range(30000)]
    assert r.returncode == 1 and "undefined_name" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "gradcli", "run", "--no-such-option"],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC},
                       check=False)
    assert r.returncode == 2 and "--no-such-option" in r.stderr


def test_shell_completion_script_is_offered():
    proc = subprocess.run([sys.executable, "-m", "gradcli", "--show-completion", "bash"],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": SRC})
    assert proc.returncode == 0 and "_GRADCLI_COMPLETE" in proc.stdout


# Ctrl-C as the module named here is imported: the hook sends SIGINT to its own process, then
# waits long enough for a watcher thread to end the process first.
_SIGINT_AT = """\
import os, signal, sys, time

signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal's foreground job
AT = sys.argv.pop(1)

class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == AT:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1.0)
        return None

sys.meta_path.insert(0, CtrlC())
from gradcli.__main__ import main
main()
"""


@pytest.mark.parametrize("module, args", [
    ("gradcli.interrupts", ["run", CHAIN]),  # before the watcher is installed
    ("gradcli.launch", ["run", CHAIN]),
    ("gradcli.options", ["run", CHAIN]),
    ("numpy", ["run", CHAIN]),
    ("gradcli.engine", ["grad", CHAIN, "--wrt", "w1"]),
    ("gradcli.language.parser", ["run", CHAIN]),
    ("gradcli.views", ["run", CHAIN]),
    ("gradcli.render.plain", ["run", CHAIN, "--format", "plain"]),  # the run is over
    ("typer", ["--help"]),
])
def test_ctrl_c_during_start_up_exits_130_quietly(module, args):
    r = subprocess.run([sys.executable, "-c", _SIGINT_AT, module, *args], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=120,
                       check=False)
    assert r.returncode == 130, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "KeyboardInterrupt" not in r.stderr, r.stderr


def _element_by_element(a, dtype):
    """render.json.data as it was written first: number() of each element, row by row."""
    import numpy as np

    from gradcli.render import json as jsonr

    a = np.asarray(a)
    return jsonr.number(a, dtype) if a.ndim == 0 else [_element_by_element(r, dtype) for r in a]


def test_json_data_gives_each_element_its_number():
    """The array-at-once conversion (tolist, float32's shortest decimals) gives what number()
    gives each element: the same values of the same Python types, nan/inf as strings."""
    import numpy as np

    from gradcli.render import json as jsonr

    rng = np.random.default_rng(1)
    for _ in range(600):
        shape = tuple(int(d) for d in rng.integers(0, 4, int(rng.integers(0, 4))))
        kind = str(rng.choice(["float32", "float64", "float16", "int64", "uint8", "bool"]))
        if kind == "bool":
            a = rng.random(shape) > 0.5
        else:
            with np.errstate(all="ignore"):
                a = (rng.standard_normal(shape) * 10.0 ** float(rng.integers(-40, 40))).astype(kind)
        if kind.startswith("float") and a.size:
            for _ in range(int(rng.integers(0, 3))):
                a.reshape(-1)[rng.integers(0, a.size)] = rng.choice(
                    [np.nan, np.inf, -np.inf, -0.0, 1e-45])
        name = kind if rng.random() < 0.7 else str(rng.choice(["float32", "float64"]))
        want, got = _element_by_element(a, name), jsonr.data(a, name)
        assert json.dumps(got) == json.dumps(want)
        flat_w, flat_g = [want], [got]
        while flat_w:
            w, g = flat_w.pop(), flat_g.pop()
            assert type(w) is type(g)
            if isinstance(w, list):
                assert len(w) == len(g)
                flat_w += w
                flat_g += g


def test_json_documents_put_rows_of_plain_values_on_one_line():
    from gradcli.render import json as jsonr

    doc = {"gradcli": "1", "t": {"shape": [2, 3], "data": [[1.0, "nan", -2.5], [0, 1, 2]],
                                 "grad": None, "empty": [], "nothing": {}},
           "odd": {1: "a", None: [True, False]}, "events": [{"n": 1}, {"n": 2}],
           "text": "héllo \"quoted\""}
    text = jsonr.dumps(doc, one_per_line="events")
    assert json.loads(text) == json.loads(json.dumps(doc))
    lines = text.splitlines()
    assert '      [1.0, "nan", -2.5],' in lines and '    "shape": [2, 3],' in lines
    assert '    {"n": 1},' in lines and '"text": "héllo \\"quoted\\""' in text
    assert text.endswith("}\n") and text.startswith("{\n  \"gradcli\": \"1\",\n")


_NO_MODULE_INIT = """import torch


class Poly(torch.nn.Module):
    def __init__(self):
        super()._init__()
        self.a = torch.nn.Parameter(torch.randn(()))


model = Poly()
"""


@pytest.mark.parametrize("args", [("graph", "-"), ("dot", "-"), ("graph", "-", "--format", "json"),
                                  ("grad", "-", "--wrt", "self")])
def test_a_module_whose_init_failed_is_no_module_to_name_parameters_in(args):
    """The script's error, exit 1: the views and --wrt skip a module whose Module.__init__
    never ran (its __init__ misspelt super().__init__; a fuzzed sample found the internal
    error the parameter names' walk raised)."""
    r = invoke(*args, input=_NO_MODULE_INIT)
    assert r.exit_code == 1, r.output
    assert "internal error" not in r.output
    assert "'super' object has no attribute '_init__'" in r.output
