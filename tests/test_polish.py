"""What users see and bounded work (issue 13): tables at 80 columns, grad/check on the samples,
labels and messages, hints, check's report, colours, memory, script size, pipes, hostile input.

Every test here was written against a reproduced fault and fails without its fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli import cli, pipeline, views
from gradcli.render import plain

ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")
SAMPLES = ROOT / "samples"
runner = CliRunner()


def invoke(*args: str, input: str | None = None, env: dict | None = None):
    """The app in-process; stdout and stderr are kept apart."""
    return runner.invoke(cli.app, list(args), input=input, env=env)


def sh(*args: str, input: bytes | None = None, env: dict | None = None, **kw):
    """``python -m gradcli`` in a subprocess (bytes in and out)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full_env.update(PYTHONPATH=SRC, **(env or {}))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=input, check=False,
                          capture_output=True, env=full_env, timeout=120, **kw)


# -- graph --tree stays linear --------------------------------------------------------------------
CHAIN = "x = param(1.0)\ny = x\nfor i in range({n}):\n    y = y * 1.0001\n"


def test_a_deep_tree_is_drawn_in_blocks_with_bounded_indentation():
    r = pipeline.run(CHAIN.format(n=2000), record=True)
    text = plain.tree(views.backward_view(r, "y"))
    lines = text.splitlines()
    assert max(len(line) for line in lines) < 4 * plain.TREE_DEPTH + 60
    assert len(text) < 2000 * 120  # one drawn tree would be ~8 MB (indentation ~ depth)
    # every node is drawn once, and each continuation is drawn as the root of a block
    drawn = [line for line in lines if "MulBackward0 [" in line]
    assert len(drawn) == 2000
    first = next(line for line in lines if "(continued below)" in line)
    number = first.split("#")[1].split()[0]
    assert f"\n#{number} MulBackward0 [" in text
    assert lines[-1].endswith("AccumulateGrad -> x ()")


def test_a_shallow_tree_is_one_block():
    r = pipeline.run((SAMPLES / "chain_rule.grad").read_text(), wrt=["w1"], record=True)
    text = plain.tree(views.backward_view(r, "L"))
    assert "continued" not in text and "\n\n" not in text
    assert "#4 AccumulateGrad (see above)" in text


# -- grad and check on scripts that call backward() themselves ----------------------------------
@pytest.mark.parametrize(("sample", "wrt", "expected"), [
    ("detach", "x", "dout/dx = [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]"),
    ("exercise", "x", "df/dx = -12.0"),
    ("backprop_demystified", "a", "de/da = [3.0]"),
    ("loop_graph", "a", "dy/da = [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]"),
    ("reassignment", "w1", "dout/dw1 = 256.0"),
    ("retain_graph_fixed", "a", "de/da = [[2.0, 4.0, 6.0, 8.0]]"),
])
def test_grad_works_after_the_scripts_own_backward(sample, wrt, expected):
    r = invoke("grad", str(SAMPLES / f"{sample}.grad"), "--wrt", wrt, "--format", "plain")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == expected + "\n"


def test_every_sample_that_runs_to_its_end_has_a_gradient_and_checks():
    wrt = {"accumulation": "Wh", "backprop_demystified": "a", "chain_rule": "w1", "detach": "x",
           "exercise": "x", "gradient_descent": "b", "growing_graph": "A", "loop_graph": "a",
           "reassignment": "w1", "retain_graph_fixed": "a", "rnn_cell": "Wh"}
    for sample, w in wrt.items():
        for command in ("grad", "check"):
            r = invoke(command, str(SAMPLES / f"{sample}.grad"), "--wrt", w, "--format", "json")
            doc = json.loads(r.stdout)
            assert doc["error"] is None, (sample, command, doc["error"])
            assert r.exit_code in (0, 4), (sample, command)


def test_the_scripts_own_failure_is_reported_where_it_happens():
    doc = json.loads(invoke("grad", str(SAMPLES / "retain_graph.grad"), "--wrt", "a",
                            "--format", "json").stdout)
    assert doc["error"]["line"] == 11 and "line 9" in doc["error"]["hint"]


def test_the_library_gradient_works_after_the_scripts_own_backward():
    import gradcli

    r = gradcli.run("x = param([1.0, 2.0])\ny = (x * x).sum()\ny.backward()\n")
    [g] = r.grad("y", ["x"])
    assert g.data.tolist() == [2.0, 4.0] and r.bindings["x"].grad.data.tolist() == [2.0, 4.0]


def test_a_stale_saved_tensor_is_positioned_and_explained():
    src = "w = param(2.0)\ny = w * w\ny.backward()\nwith no_grad():\n    w -= 0.1 * w.grad\n"
    r = invoke("grad", "-e", src, "--wrt", "w", "--format", "plain")
    assert r.exit_code == 1
    assert r.stderr.startswith("<eval>:2:1: RuntimeError: one of the variables needed")
    assert "changed in place later" in r.stderr


def test_the_header_names_wrt_and_of():
    r = invoke("grad", str(SAMPLES / "chain_rule.grad"), "--format", "plain")
    assert (r.exit_code, r.stdout) == (0, "dL/dw1 = -8.0\n")
    r = invoke("grad", str(SAMPLES / "chain_rule.grad"), "--of", "x5", "--format", "plain")
    assert r.stdout == "dx5/dw1 = 8.0\n"
    r = invoke("grad", str(SAMPLES / "chain_rule.grad"), "--wrt", "w2", "--format", "plain")
    assert r.stdout == "dL/dw2 = -1.0\n"
    assert pipeline.script_header("# gradcli: grad of=L wrt=a,b\nx = 1\n# gradcli: wrt=c\n") \
        == {"wrt": ["a", "b"], "of": "L"}


# -- labels and messages: no internal names -------------------------------------------------------
def _err(src: str):
    r = pipeline.run(src)
    assert r.error is not None, src
    return r.error


@pytest.mark.parametrize(("src", "message"), [
    ("x = max(ones(2), foo=1)", "max() got an unexpected keyword argument 'foo'"),
    ("z = ones(2).add_(1, 2, 3)", "add_() takes 2 positional arguments but 4 were given"),
    ("seed(1, 2)", "seed() takes 1 positional argument but 2 were given"),
    ("print(foo=1)", "print() got an unexpected keyword argument 'foo'"),
    ("def f():\n    pass\nx = f + 1", "unsupported operand type(s) for +: 'function' and 'int'"),
])
def test_messages_name_what_the_script_wrote(src, message):
    assert _err(src).message == message


def test_print_shows_built_ins_as_python_does():
    r = pipeline.run("x = ones(2)\nprint(print, tanh, x.zero_)\n")
    assert r.prints == ["<built-in function print> <built-in function tanh> "
                        "<built-in method zero_ of Tensor object>"]
    row = plain.run(views.bindings_view(pipeline.run("x = ones(2)\ny = x.zero_\n")))
    assert "<built-in method zero_ of Tensor object>" in row and "<function <" not in row


def test_an_int_is_named_with_its_article():
    src = "x = 1\nfor n in range(3):\n    pass\n"
    r = invoke("grad", "-e", src, "--wrt", "x", "--of", "n", "--format", "plain")
    assert "'n' is an int, not a tensor" in r.stderr


def test_an_in_place_op_that_ends_in_underscore_is_not_doubled():
    r = pipeline.run("x = ones(2)\nx.zero_()\ny = ones(2)\ny -= 1\n", record=True)
    text = plain.graph(views.graph_view(r, "y"))
    assert " zero_ " in text and "zero__" not in text and " sub_ " in text


def test_accumulate_grad_names_the_leaf_as_it_is_now():
    src = "w = param(1.0)\ny = w * 2\nwith no_grad():\n    w -= 0.5\nz = w * 3\n"
    r = pipeline.run(src, record=True)
    assert plain.tree(views.backward_view(r, "z")).splitlines()[-1] == \
        "└── #1 AccumulateGrad -> w ()"


# -- hints ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("src", "hint"), [
    ("x = torch.exp(2)", "without the 'torch.' prefix (exp(...), not torch.exp(...)); or start "
     "the script with 'import torch'"),
    ("y = F.relu(2)", "without the 'F.' prefix (relu(...), not F.relu(...))"),
    ("x = tnah(2)", "did you mean 'tanh'?"),
    ("x = Treu", "did you mean 'True'?"),
    ("x = ones(2)\ny = x.sum(dmi=0)", "did you mean 'dim'?"),
    ("x = clamp(ones(2), mni=0)", "did you mean 'min'?"),
    ("w = param(1.0)\nw.grad.zero_()", "w.grad is None until a backward() reaches w"),
    ("x = ones(2, 3) @ ones(2, 3)", "A is 2x3 and B is 2x3, so 3 != 2; transpose one"),
])
def test_hints(src, hint):
    assert hint in (_err(src).hint or "")


def test_a_tuple_argument_hints_at_the_shape_forms():
    r = invoke("run", "-e", "x = zeros((2, 3))", "--format", "plain")
    assert r.exit_code == 3 and "zeros(2, 3) or zeros([2, 3])" in r.stderr
