"""The commands on the PyTorch programs users bring (issue 23): a training loop with an
optimizer and a final argmax, an ``nn.Sequential`` trained with Adam, a script whose work is
in ``main()``, a hessian by ``create_graph``.  Each answer is held to what the run itself
computed (the ``.grad`` its own ``backward()`` left, which the corpus holds to PyTorch's) or
to finite differences, never to numbers written here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from marks import needs_dot
from typer.testing import CliRunner

import gradcli
from gradcli import cli
from gradcli.errors import GradcliError

runner = CliRunner()

TRAIN = """\
import torch

torch.manual_seed(0)
X = torch.randn(8, 2)
y = (X[:, 0] > 0).long()
W1 = torch.randn(2, 8, requires_grad=True)
b1 = torch.zeros(8, requires_grad=True)
W2 = torch.randn(8, 3, requires_grad=True)
b2 = torch.zeros(3, requires_grad=True)
opt = torch.optim.SGD([W1, b1, W2, b2], lr=0.1)
for step in range(20):
    h = torch.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    loss = torch.nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("loss", loss.item())
pred = logits.argmax(dim=1)
"""

SEQUENTIAL = """\
import torch
import torch.nn as nn

torch.manual_seed(1)
model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
X = torch.randn(16, 2)
t = X.sum(dim=1, keepdim=True)
for epoch in range(5):
    out = model(X)
    loss = ((out - t) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

MAIN = """\
import torch


def main():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = torch.tensor([3.0, 4.0])
    y = (w * x).sum()
    loss = y * y
    loss.backward()
    print(w.grad)


if __name__ == "__main__":
    main()
"""

HESSIAN = """\
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
f = (x ** 3).sum()
g, = torch.autograd.grad(f, x, create_graph=True)
s = g.sum()
"""


@pytest.fixture
def program(tmp_path):
    def write(text: str, name: str = "prog.py") -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)
    return write


def invoke(*args: str, env: dict | None = None):
    return runner.invoke(cli.app, list(args), env=env)


def grads(*args: str, code: int = 0) -> dict:
    r = invoke("grad", *args, "--format", "json")
    assert r.exit_code == code, r.stderr
    doc = json.loads(r.stdout)
    # the programs compute in float32: JSON holds each element's shortest float32 digits
    return {k: np.asarray(v["data"], dtype=np.float32) for k, v in doc["wrt"].items()} | \
        {"of": doc["of"]}


# -- the output when --of is not given ------------------------------------------------------------
def test_a_training_script_differentiates_the_loss_it_called_backward_on(program):
    p = program(TRAIN)
    got = grads(p, "--wrt", "W2", "--wrt", "b1")
    assert list(grads(p, "--wrt", "opt.param_groups[0]"))[:-1] == ["W1", "b1", "W2", "b2"]
    run = gradcli.run(Path(p))
    assert got["of"] == "loss"  # not pred, the last name assigned
    # the last backward() left these .grad values (zero_grad before it, step after it)
    np.testing.assert_array_equal(got["W2"], np.asarray(run.bindings["W2"].grad.data))
    np.testing.assert_array_equal(got["b1"], np.asarray(run.bindings["b1"].grad.data))


def test_an_output_that_does_not_require_grad_is_pytorchs_error_never_zeros(program):
    p = program(TRAIN)
    r = invoke("grad", p, "--wrt", "W2", "--of", "pred", "--format", "plain")
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith(f"{p}:19:1: RuntimeError: element 0 of tensors does not require "
                               "grad and does not have a grad_fn")
    assert "try --of loss" in r.stderr
    r = invoke("explain", p, "--wrt", "W2", "--of", "pred", "--format", "plain")
    assert r.exit_code == 1
    assert "only through a non-differentiable op (argmax on line 19)" in r.stderr
    r = invoke("grad", "-e", "w = param([1.0, 2.0]); y = (w*3).argmax()", "--wrt", "w")
    assert r.exit_code == 2  # no scalar that requires grad: the candidates, no zeros
    assert "y (scalar, does not require grad)" in r.stderr and r.stdout == ""


def test_a_main_script_is_differentiated_where_its_output_was_made(program):
    p = program(MAIN)
    got = grads(p, "--wrt", "w")
    assert got["of"] == "loss"
    # what the script printed: its own backward's w.grad
    run = gradcli.run(Path(p))
    assert run.prints == ["tensor([66., 88.])"]
    np.testing.assert_array_equal(got["w"], [66.0, 88.0])
    r = invoke("explain", p, "--wrt", "w", "--format", "plain")
    assert r.exit_code == 0 and "path 1: loss <- y <- w*x <- w" in r.stdout
    assert invoke("check", p, "--wrt", "w").exit_code == 0


# -- naming parameters ----------------------------------------------------------------------------
def test_model_parameters_by_their_names(program):
    p = program(SEQUENTIAL)
    run = gradcli.run(Path(p))
    model = run.bindings["model"]
    got = grads(p, "--wrt", "model")
    names = ["model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"]
    assert list(got)[:-1] == names
    for name, (_, param) in zip(names, model.named_parameters()):
        np.testing.assert_array_equal(got[name], np.asarray(param.grad.data))
    group = grads(p, "--wrt", "opt.param_groups[0]")  # each parameter by its module name
    assert list(group)[:-1] == names
    one = grads(p, "--wrt", "model.0.weight")
    np.testing.assert_array_equal(one["model.0.weight"], got["model.0.weight"])
    r = invoke("grad", p, "--wrt", "model.5.weight")
    assert r.exit_code == 2 and "model (Sequential) has no member '5'" in r.stderr
    assert "its members: 0, 1, 2" in r.stderr
    r = invoke("graph", p, "--tree", "--format", "plain")
    assert "AccumulateGrad -> model.0.weight (4, 2)" in r.stdout
    assert "AccumulateGrad -> model.2.bias (1,)" in r.stdout


def test_names_inside_functions_and_expressions_with_their_parentheses():
    src = ("def f(x):\n    z = x * 3\n    return z.sum()\n"
           "w = param([1.0, 2.0])\nu = param(1.0)\nL = f(w) * u + (w * 3).detach().sum()\n")
    r = invoke("graph", "-e", src, "--format", "plain")
    names = [line.split()[1] for line in r.stdout.splitlines()[1:-1]]
    assert "f:z" in names and "f:x" not in names  # x is w's own tensor, named w
    r = invoke("explain", "-e", src, "--wrt", "w", "--format", "plain")
    assert "path 1: L <- sum(f:z)*u <- sum(f:z) <- f:z <- w" in r.stdout


def test_a_custom_functions_input_is_named_by_its_expression(program):
    src = ("import torch\n\n\nclass Square(torch.autograd.Function):\n"
           "    @staticmethod\n    def forward(ctx, x):\n        ctx.save_for_backward(x)\n"
           "        return x * x\n\n    @staticmethod\n    def backward(ctx, g):\n"
           "        (x,) = ctx.saved_tensors\n        return 2 * x * g\n\n\n"
           "w = torch.tensor([1.0, -2.0], requires_grad=True)\n"
           "loss = Square.apply(w * 3).sum()\nloss.backward()\n")
    p = program(src)
    r = invoke("explain", p, "--wrt", "w", "--format", "plain")
    # forward and backward run with grad off: their parameters name nothing
    assert "path 1: loss <- Square(w*3) <- w*3 <- w" in r.stdout
    assert invoke("check", p, "--wrt", "w").exit_code == 0
    # trace: the gradient on the Function's edge is its output's (a part by output index)
    doc = json.loads(invoke("trace", p, "--format", "json").stdout)
    edges = [e for e in doc["events"] if e["kind"] == "edge" and e["grad_fn"] == "SquareBackward"]
    assert edges and edges[0]["grad"] == [6.0, -12.0]
    # a Function's gradients by output reach the trace as parts (the corpus's sinh tutorial)
    corpus = Path(__file__).parent / "corpus" / "tutorial_double_backward_sinh.py"
    for fmt in ("json", "plain"):
        assert invoke("trace", str(corpus), "--format", fmt, "-q").exit_code == 0


def test_a_comprehensions_loop_variables_in_a_recorded_run():
    src = ("w = param([1.0, 2.0])\nys = [x * 2 for x in w]\n"
           "def f(v):\n    return sum([u * u for u in v])\nL = f(w) + ys[0]\n")
    r = invoke("graph", "-e", src, "--wrt", "w", "--format", "plain")
    assert r.exit_code == 0, r.stderr
    assert "f:v" not in r.stdout and "L" in r.stdout  # v is w's own tensor, named w


# -- check: the function autograd differentiated --------------------------------------------------
def test_check_on_a_training_script_checks_the_recorded_graph(program):
    p = program(TRAIN)
    r = invoke("check", p, "--wrt", "W2", "--wrt", "b1", "--format", "json")
    assert r.exit_code == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert doc["ok"] is True and doc["wrt"]["W2"]["max_rel_err"] < 1e-6


def test_check_on_a_hessian_by_create_graph(program):
    p = program(HESSIAN)
    got = grads(p, "--wrt", "x")
    assert got["of"] == "s"  # the last scalar that requires grad
    np.testing.assert_array_equal(got["x"], [6.0, 12.0])  # d(sum 3x^2)/dx = 6x
    assert invoke("check", p, "--wrt", "x").exit_code == 0


# -- the pictures show --wrt's gradients ----------------------------------------------------------
@needs_dot
def test_graph_dot_and_html_show_the_gradient_without_a_backward(tmp_path):
    src = "w1 = param(1.0)\nx = w1 * 3\nL = x * x\n"
    doc = json.loads(invoke("graph", "-e", src, "--wrt", "w1", "--format", "json").stdout)
    assert [n["d_output"] for n in doc["nodes"]] == [18.0, None, None]
    assert doc["nodes"][0]["grad"] is None  # .grad itself is not changed
    dot = invoke("dot", "-e", src, "--wrt", "w1", "--show-grads").stdout
    assert "dL/dw1 = 18." in dot and "grad None" not in dot
    out = tmp_path / "g.html"
    assert invoke("html", "-e", src, "--wrt", "w1", "-o", str(out)).exit_code == 0
    page = out.read_text()
    assert '"d_output":"18."' in page and "AccumulateGrad: dL/dw1 = 18." in page


# -- the script's prints --------------------------------------------------------------------------
def test_trace_graph_and_profile_keep_the_scripts_prints(program):
    p = program(MAIN)
    r = invoke("trace", p, "--format", "plain")
    last = r.stdout.splitlines()[-1].split()
    assert last[1:5] == ["forward", "print", "line", "10"]
    assert r.stdout.splitlines()[-1].endswith("prints: tensor([66., 88.])")
    assert "prints:" not in invoke("trace", p, "--format", "plain", "-q").stdout
    r = invoke("graph", p, "--format", "plain")
    assert r.stdout.startswith("tensor([66., 88.])\nid ")
    r = invoke("graph", p, "--format", "json")
    assert json.loads(r.stdout)["nodes"]  # stdout is the document alone


# -- the library ----------------------------------------------------------------------------------
def test_the_library_reads_a_path_raises_on_request_and_says_what_it_is(program):
    p = program(SEQUENTIAL, "seq.py")
    for source in (p, Path(p)):
        r = gradcli.run(source)
        assert r.error is None and r.mode == "torch"
    assert gradcli.run_file(p).bindings["loss"].numel() == 1
    text = repr(r)
    assert text.startswith(f"<gradcli.Result of {p} (a PyTorch program): ") and "ok>" in text
    model_grads = r.grad("loss", ["model"])
    assert len(model_grads) == 4
    first = next(iter(r.bindings["model"].named_parameters()))[1]
    np.testing.assert_array_equal(np.asarray(model_grads[0].data), np.asarray(first.grad.data))
    with pytest.raises(ValueError, match="has no member '7'"):
        r.grad("loss", ["model.7.weight"])
    with pytest.raises(TypeError, match="source must be script text"):
        gradcli.run(3)
    with pytest.raises(ValueError, match="backend must be one of"):
        gradcli.run("x = 1", backend="torch")
    failing = "w = param(1.0)\ny = w.grad * 2\n"
    assert gradcli.run(failing).error is not None
    with pytest.raises(GradcliError, match="unsupported operand"):
        gradcli.run(failing, raise_error=True)


# -- anomaly mode ---------------------------------------------------------------------------------
ANOMALY = """\
import torch


def f(w):
    return w.exp()


def main():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = f(w)
        y.add_(1)
        y.sum().backward()


main()
"""


def test_detect_anomaly_names_the_forward_call_of_the_failing_node(program):
    p = program(ANOMALY, "anomaly.py")
    r = invoke("run", p, "--format", "plain")
    assert r.exit_code == 1
    # PyTorch's warnings and error, the forward frames in the script's terms
    assert f"{p}:10:5: UserWarning: Anomaly Detection has been enabled." in r.stderr
    assert ("UserWarning: Error detected in ExpBackward0. Traceback of forward call that caused "
            f'the error:\n  File "{p}", line 16, in <module>\n    main()\n'
            f'  File "{p}", line 11, in main\n    y = f(w)\n'
            f'  File "{p}", line 5, in f\n    return w.exp()\n') in r.stderr
    assert ("is at version 1; expected version 0 instead. Hint: the backtrace further above shows "
            "the operation that failed to compute its gradient.") in r.stderr
    assert r.stderr.index("Error detected") < r.stderr.index("RuntimeError")


def test_set_detect_anomaly_checks_backward_for_nan():
    src = ("import torch\ntorch.autograd.set_detect_anomaly(True)\n"
           "x = torch.tensor([0.0, 1.0], requires_grad=True)\ny = x.sqrt() * 0\n"
           "print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())\n"
           "y.sum().backward()\n")
    r = gradcli.run(src)
    assert r.prints == ["True True"]
    assert r.error.message == "Function 'SqrtBackward0' returned nan values in its 0th output."
    off = src.replace("set_detect_anomaly(True)", "set_detect_anomaly(True, check_nan=False)")
    r = gradcli.run(off + "print(x.grad)\n")
    assert r.error is None and r.prints[-1] == "tensor([nan, 0.])"
    r = gradcli.run("import torch\nwith torch.autograd.set_detect_anomaly(True):\n"
                    "    a = torch.is_anomaly_enabled()\nb = torch.is_anomaly_enabled()\n")
    assert (r.bindings["a"], r.bindings["b"]) == (True, False)


@needs_dot
def test_the_notebook_view_shows_the_gradients_of_the_runs_wrt():
    r = gradcli.run("w1 = param(1.0)\nx = w1 * 3\nL = x * x\n", wrt=["w1"])
    page = r._repr_html_()
    assert "&quot;d_output&quot;:&quot;18.&quot;" in page or '"d_output":"18."' in page
    assert "AccumulateGrad: dL/dw1 = 18." in page
    assert "d_output&quot;:null" in page or '"d_output":null' in page  # only w1's node has one


def test_forward_mode_says_it_needs_top_level_bindings(program):
    p = program(MAIN)
    r = invoke("grad", p, "--wrt", "w", "--mode", "forward")
    assert r.exit_code == 2 and "grad --mode forward seeds and reads top-level bindings" in r.stderr
    assert invoke("grad", "-e", "w = param(2.0)\nL = w * w\n", "--wrt", "w", "--mode",
                  "forward").stdout == "dL/dw = 4.0\n"
