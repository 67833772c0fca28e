"""``grad --jacobian`` and ``grad --hessian``: PyTorch's values (torch.autograd.functional, in
tests/fixtures/torch/jacobians.json, recorded by tools/record_jacobians.py) bit for bit, forward
mode equal to reverse mode, central finite differences in float64, the usage errors and the
output's forms."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli import cli

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "torch" / "jacobians.json").read_text())
CASES = [(name, of) for name, case in FIXTURE["cases"].items() for of in case["outputs"]]
RUNNER = CliRunner()


def _grad(*args: str, code: int = 0) -> dict:
    r = RUNNER.invoke(cli.app, ["grad", *args, "--format", "json"])
    assert r.exit_code == code, (r.stdout, r.stderr)
    return json.loads(r.stdout)


def _case_args(name: str, of: str) -> list[str]:
    case = FIXTURE["cases"][name]
    return ["-e", case["script"], "--wrt", case["wrt"], "--of", of]


@pytest.mark.parametrize(("name", "of"), CASES)
def test_reverse_mode_is_pytorchs(name, of):
    want = FIXTURE["cases"][name]["outputs"][of]
    doc = _grad(*_case_args(name, of), f"--{want['kind']}")
    assert doc["derivative"] == want["kind"]
    got = doc["wrt"][FIXTURE["cases"][name]["wrt"]]
    assert got == want["reverse"]  # shape and every bit (JSON floats round-trip exactly)


@pytest.mark.parametrize(("name", "of"), [c for c in CASES
                                          if FIXTURE["cases"][c[0]]["outputs"][c[1]]["kind"]
                                          == "jacobian"])
def test_forward_mode_is_pytorchs_and_equals_reverse(name, of):
    want = FIXTURE["cases"][name]["outputs"][of]
    wrt = FIXTURE["cases"][name]["wrt"]
    fwd = _grad(*_case_args(name, of), "--jacobian", "--mode", "forward")["wrt"][wrt]
    rev = _grad(*_case_args(name, of), "--jacobian")["wrt"][wrt]
    assert fwd == want["forward"]
    assert fwd == rev


def _perturbed(name: str, i: int, h: float) -> str:
    case = FIXTURE["cases"][name]
    w = np.array(json.loads(case["script"].split("\n")[0].split("=", 1)[1]), dtype=np.float64)
    flat = w.reshape(-1)
    flat[i] += h
    return f"{case['wrt']}={json.dumps(w.tolist())}"


@pytest.mark.parametrize(("name", "of"), [c for c in CASES if c[0] != "mlp"])
def test_central_finite_differences(name, of):
    """A Jacobian column is (of(W + h e_i) - of(W - h e_i)) / 2h; a Hessian column the same of
    the gradient."""
    case = FIXTURE["cases"][name]
    kind = case["outputs"][of]["kind"]
    got = np.array(_grad(*_case_args(name, of), f"--{kind}")["wrt"][case["wrt"]]["data"])
    w0 = np.array(json.loads(case["script"].split("\n")[0].split("=", 1)[1]))
    h = 1e-6
    columns = []
    for i in range(w0.size):
        ends = []
        for sign in (1, -1):
            args = [*_case_args(name, of), "--set", _perturbed(name, i, sign * h)]
            if kind == "hessian":  # the gradient at W ± h e_i
                ends.append(np.array(_grad(*args)["wrt"][case["wrt"]]["data"]))
            else:  # the output's value at W ± h e_i
                ends.append(np.array(_grad(*args, "--jacobian")["value"]))
        columns.append((ends[0] - ends[1]) / (2 * h))
    fd = np.stack(columns, axis=-1).reshape(got.shape)
    assert got.shape == (*(w0.shape if kind == "hessian" else ends[0].shape), *w0.shape)
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-7)


def test_unused_wrt_gets_zeros_of_the_jacobians_shape():
    src = "a = [1.0, 2.0]\nb = [[3.0], [4.0]]\ny = a * 2\nL = (a * a).sum()\n"
    for mode in ("reverse", "forward"):
        doc = _grad("-e", src, "--wrt", "a", "--wrt", "b", "--of", "y", "--jacobian",
                    "--mode", mode)
        assert doc["wrt"]["a"] == {"shape": [2, 2], "data": [[2.0, 0.0], [0.0, 2.0]]}
        assert doc["wrt"]["b"] == {"shape": [2, 2, 1],
                                   "data": [[[0.0], [0.0]], [[0.0], [0.0]]]}
    doc = _grad("-e", src, "--wrt", "a", "--wrt", "b", "--hessian")
    assert doc["wrt"]["a"] == {"shape": [2, 2], "data": [[2.0, 0.0], [0.0, 2.0]]}
    assert doc["wrt"]["b"]["shape"] == [2, 1, 2, 1]
    # linear in a: the gradient does not require grad, the Hessian is zeros
    doc = _grad("-e", "a = [1.0, 2.0]\nL = (a * 3).sum()\n", "--wrt", "a", "--hessian")
    assert doc["wrt"]["a"] == {"shape": [2, 2], "data": [[0.0, 0.0], [0.0, 0.0]]}


def test_a_leaf_output():
    """d(w)/dw is the identity; d²(w)/dw² zeros (the gradient of a leaf has no graph)."""
    for mode in ("reverse", "forward"):
        doc = _grad("-e", "w = [2.0, 3.0]", "--wrt", "w", "--of", "w", "--jacobian",
                    "--mode", mode)
        assert doc["wrt"]["w"] == {"shape": [2, 2], "data": [[1.0, 0.0], [0.0, 1.0]]}
    doc = _grad("-e", "w = 2.0", "--wrt", "w", "--of", "w", "--hessian")
    assert doc["wrt"]["w"] == {"shape": [], "data": 0.0}


def test_a_scalar_outputs_jacobian_is_its_gradient():
    args = ["-e", "w = [1.0, 2.0]\nL = (w * w * w).sum()\n", "--wrt", "w"]
    grad = _grad(*args)["wrt"]
    for mode in ("reverse", "forward"):
        assert _grad(*args, "--jacobian", "--mode", mode)["wrt"] == grad


def test_plain_output():
    src = "w = [1.0, 2.0]\ny = w * w\nL = y.sum() * w[0]\n"
    r = RUNNER.invoke(cli.app, ["grad", "-e", src, "--wrt", "w", "--of", "y", "--jacobian",
                                "--format", "plain"])
    assert r.exit_code == 0
    assert r.stdout == "dy/dw = [[2., 0.],\n         [0., 4.]]\n"
    r = RUNNER.invoke(cli.app, ["grad", "-e", src, "--wrt", "w", "--hessian",
                                "--format", "plain"])
    assert r.exit_code == 0
    assert r.stdout == "d²L/dw² = [[6., 4.],\n           [4., 2.]]\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--of", "y", "--hessian"], "--hessian needs a scalar output: 'y' has shape (2,)"),
    (["--jacobian", "--hessian"], "--jacobian and --hessian cannot be given together"),
    (["--hessian", "--mode", "forward"],
     "--hessian is computed by reverse mode only (reverse over reverse)"),
])
def test_usage_errors(args, message):
    src = "w = [1.0, 2.0]\ny = w * w\nL = y.sum()\n"
    r = RUNNER.invoke(cli.app, ["grad", "-e", src, "--wrt", "w", *args, "--format", "plain"])
    assert r.exit_code == 2
    assert f"error: {message}\n" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    doc = _grad("-e", src, "--wrt", "w", *args, code=2)
    assert doc["error"]["message"] == message


def test_a_non_scalar_output_without_jacobian_is_pytorchs_error_with_a_hint():
    src = "w = [1.0, 2.0]\ny = w * w\n"
    r = RUNNER.invoke(cli.app, ["grad", "-e", src, "--wrt", "w", "--of", "y",
                                "--format", "plain"])
    assert r.exit_code == 1
    assert "RuntimeError: grad can be implicitly created only for scalar outputs" in r.stderr
    assert "--jacobian gives d(y)/dW for an output of any shape" in r.stderr
