"""Forward-mode AD (engine/forward.py, engine/jvps.py) against PyTorch and finite differences.

Each case of tools/forward_cases.py runs here over ``gradcli.api`` under a dual level, with the
inputs and tangents PyTorch was given (tests/fixtures/torch/forward_cases.json, recorded by
tools/record_forward_cases.py): the primal and the tangent must be PyTorch's (float64 and
float32), and in float64 the tangent must agree with central finite differences of the
expression along the tangent.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from gradcli import api, pipeline
from gradcli.api.forward_ad import FORWARD_AD
from gradcli.engine import OPS, RunContext, use
from gradcli.engine import jvps as J
from gradcli.engine.backend import get_backend, quiet
from gradcli.errors import GradcliError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from forward_cases import CASES

ALL = frozenset({"float64", "float32"})
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "torch" / "forward_cases.json").read_text())
# where gradcli's formula rounds in another order than PyTorch's (a reduction's or a composite's
# sums), the tangent is within a few units in the last place; everywhere else bit for bit
# (the convolutions in float32: PyTorch's oneDNN convolution, bound in tests/test_numerics.py)
INEXACT = {
    "act_gelu": {"float32"}, "act_gelu_tanh": ALL, "act_glu": ALL, "act_logsigmoid": {"float64"},
    "act_silu": ALL, "act_softmax": {"float64"}, "batch_norm": ALL, "batch_norm_3d": ALL,
    "bce": ALL, "bce_logits": ALL, "conv1d_groups": {"float32"}, "conv2d": {"float32"}, "cumprod": ALL, "dist": ALL, "huber": {"float32"}, "inv": ALL,
    "layer_norm": ALL, "layer_norm_plain": ALL, "pow_scalar_base": {"float32"}, "pow_tensor": ALL,
    "smooth_l1": {"float64"}, "solve": ALL, "solve_vector": ALL, "unary_log10": {"float64"},
    "vector_norm": ALL,
}
# gradcli's tangent requires grad where PyTorch's does not (its formula differs in whether the
# primal takes part) or the reverse; the values agree (test_case_matches_pytorch)
FLAT_TANGENT = {
    **dict.fromkeys(("cumprod", "det", "solve", "solve_vector"),
                    "the formula runs on arrays only (jvps.ARRAY_ONLY)"),
}
FW = types.SimpleNamespace(**FORWARD_AD)
TORCH = types.SimpleNamespace(**api.FUNCTIONS, **api.DTYPES, linalg=types.SimpleNamespace(**api.LINALG))
F = types.SimpleNamespace(**api.NN_FUNCTIONS)
SEEN: set[str] = set()  # the ops whose forward formula the cases ran


def setitem(x, index, value):
    """A clone of ``x`` with ``[index] = value``."""
    y = x.clone()
    y[index] = value
    return y


def evaluate(expr: str, values: list, tangents: list | None, dtype: str) -> tuple:
    """(primal, tangent) of ``expr`` in gradcli, as arrays; tangents None: no dual level."""
    ctx = RunContext(get_backend("numpy", "float32"), warnings=[])
    dt = getattr(api.DTYPES, "get", api.DTYPES.get)(dtype)
    scope = {"torch": TORCH, "F": F, "I": lambda v: api.FUNCTIONS["tensor"](v), "S": setitem}
    with use(ctx), quiet():
        inputs = [api.FUNCTIONS["tensor"](v, dtype=dt) for v in values]
        if tangents is None:
            scope.update(zip("abcdef", inputs))
            return np.asarray(eval(expr, scope).data), None
        with FW.dual_level():
            for name, x, t in zip("abcdef", inputs, tangents):
                scope[name] = FW.make_dual(x, api.FUNCTIONS["tensor"](t, dtype=dt))
            out = eval(expr, scope)
            primal, tangent = FW.unpack_dual(out)
            return np.asarray(primal.data), None if tangent is None else np.asarray(tangent.data)


@pytest.fixture(autouse=True, scope="module")
def _seen_ops():
    """Note each op a forward formula ran for (the coverage test reads them)."""
    original = J.tangent

    def tangent(op, *args, **kwargs):
        SEEN.add(op.name)
        return original(op, *args, **kwargs)

    J.tangent = tangent
    from gradcli.engine import forward
    forward.tangent = tangent
    yield
    J.tangent = forward.tangent = original


def test_fixture_is_complete():
    """Every case has PyTorch's answer (re-run tools/record_forward_cases.py after adding one)."""
    assert set(FIXTURE["cases"]) == set(CASES)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_pytorch(name, dtype):
    """The primal bit for bit and the tangent as PyTorch computed it (bit for bit where the
    formula is PyTorch's; else within a few units in the last place), or PyTorch's error."""
    case = FIXTURE["cases"][name]
    expected = case[dtype]
    expr = CASES[name][0]
    if "error" in expected:
        with pytest.raises(GradcliError) as info:
            evaluate(expr, case["inputs"], case["tangents"], dtype)
        assert (info.value.kind, info.value.message.split("\n")[0]) == \
            (expected["error"]["type"], expected["error"]["message"])
        return
    primal, tangent = evaluate(expr, case["inputs"], case["tangents"], dtype)
    tol = 1e-12 if dtype == "float64" else 2e-5
    np.testing.assert_allclose(primal, np.asarray(expected["primal"], dtype=primal.dtype),
                               rtol=tol, atol=tol)
    want = np.asarray(expected["tangent"], dtype=tangent.dtype)
    assert tangent.shape == want.shape
    if dtype not in INEXACT.get(name, ()):
        np.testing.assert_array_equal(tangent, want)
        return
    np.testing.assert_allclose(tangent, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_finite_differences(name):
    """In float64 the tangent is the central difference of the expression along it."""
    case = FIXTURE["cases"][name]
    if "error" in case["float64"]:
        pytest.skip("PyTorch has no forward formula")
    expr = CASES[name][0]
    _, tangent = evaluate(expr, case["inputs"], case["tangents"], "float64")
    h = 1e-6
    shifted = [[np.asarray(v) + s * h * np.asarray(t) for v, t in
                zip(case["inputs"], case["tangents"])] for s in (1, -1)]
    plus, _ = evaluate(expr, [x.tolist() for x in shifted[0]], None, "float64")
    minus, _ = evaluate(expr, [x.tolist() for x in shifted[1]], None, "float64")
    if plus.shape != tangent.shape:  # a selection that moved (masked_select, a[a > 0])
        pytest.skip("the selection differs at the shifted inputs")
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * h), rtol=1e-5, atol=1e-6)


def second(expr: str, values: list, tangents: list) -> tuple:
    """(whether the tangent requires grad, the gradient of its sum for each input) with float64
    inputs that require grad, as tools/record_forward_cases.py's ``second``."""
    ctx = RunContext(get_backend("numpy", "float32"), warnings=[])
    scope = {"torch": TORCH, "F": F, "I": lambda v: api.FUNCTIONS["tensor"](v), "S": setitem}
    with use(ctx), quiet():
        inputs = [api.FUNCTIONS["tensor"](v, dtype=api.DTYPES["float64"], requires_grad=True)
                  for v in values]
        with FW.dual_level():
            for name, x, t in zip("abcdef", inputs, tangents):
                scope[name] = FW.make_dual(x, api.FUNCTIONS["tensor"](
                    t, dtype=api.DTYPES["float64"]))
            tangent = FW.unpack_dual(eval(expr, scope)).tangent
            if tangent is None or not tangent.requires_grad:
                return False, None
            grads = api.AUTOGRAD["grad"](tangent.sum(), inputs, allow_unused=True)
    return True, [None if g is None else np.asarray(g.data) for g in grads]


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_is_differentiable_as_pytorch(name):
    """With inputs that require grad the tangent is made of recorded ops: it requires grad where
    PyTorch's does, and reverse mode through it gives PyTorch's gradients (where PyTorch's own
    formula can be differentiated: its logsumexp_jvp, for one, updates a saved tensor in place)."""
    expected = FIXTURE["cases"][name]["second"]
    if "error" in expected or "error" in FIXTURE["cases"][name]["float64"]:
        pytest.skip("PyTorch fails: " + expected.get("error", {}).get("message", "no formula"))
    case = FIXTURE["cases"][name]
    requires, grads = second(CASES[name][0], case["inputs"], case["tangents"])
    if name in FLAT_TANGENT:
        pytest.skip(FLAT_TANGENT[name])
    if not requires and expected["grads"] is not None:
        # PyTorch's formula reads the primal through a mask (relu's threshold_backward of the
        # result): its tangent requires grad, with zero gradients; gradcli's mask is a constant
        assert not any(np.any(np.asarray(g)) for g in expected["grads"] if g is not None)
        return
    assert requires == (expected["grads"] is not None)
    if grads is None:
        return
    for g, want in zip(grads, expected["grads"]):
        if want is None or g is None:  # an unused input: PyTorch's None or gradcli's zeros
            assert not np.any(g if g is not None else np.asarray(want)), (g, want)
            continue
        np.testing.assert_allclose(g, np.asarray(want), rtol=1e-10, atol=1e-12)


def test_coverage_of_the_table():
    """Every op of the table that a PyTorch program reaches has a forward formula, and the
    cases above ran it (ops only reached by a second backward are listed)."""
    unreached = {"zero_", "fill_", "fill_tensor_", "uniform_", "normal_", "random_to_",
                 "random_from_to_", "bernoulli_scalar_", "bernoulli_tensor_", "exponential_",
                 "as_strided", "copy_slices", "select_backward", "slice_backward",
                 "index_backward", "reflection_pad1d_backward", "reflection_pad2d_backward",
                 "reflection_pad3d_backward", "replication_pad1d_backward",
                 "replication_pad2d_backward", "replication_pad3d_backward"}
    # refused with gradcli's message (test below): PyTorch's tangent of vector_norm(dtype=)
    # keeps the input's float32 beside the float64 primal for some orders, not built yet
    refused = {"linalg_vector_norm_to"}
    missing = sorted(op.name for op in OPS.values()
                     if op.name not in unreached | refused and not J.has_formula(op)
                     and op not in J.NO_FORMULA)
    assert missing == []


def test_forward_ad_through_vector_norm_with_a_dtype_is_refused_clearly():
    src = ("import torch\nimport torch.autograd.forward_ad as fwAD\nx = torch.ones(3)\n"
           "with fwAD.dual_level():\n    d = fwAD.make_dual(x, torch.ones(3))\n"
           "    y = torch.linalg.vector_norm(d, dtype=torch.float64)\n")
    r = pipeline.run(src, filename="p.py")
    assert r.error is not None and r.error.kind == "NotImplementedError"
    assert "forward AD through 'linalg_vector_norm_to'" in r.error.message
    assert r.error.span.line == 6


# --- grad --mode forward --------------------------------------------------------------------

RUNNER = __import__("typer.testing", fromlist=["CliRunner"]).CliRunner()
MODE_CASES = [
    ("samples/chain_rule.grad", ["--wrt", "w1"]),
    ("samples/loop_graph.grad", ["--wrt", "a", "--of", "y"]),
    ("samples/growing_graph.grad", ["--wrt", "A", "--wrt", "y"]),
    ("samples/reassignment.grad", ["--wrt", "w1", "--wrt", "x", "--of", "out"]),
    ("tests/corpus/tutorial_autogradqs.py", ["--wrt", "w", "--wrt", "b", "--of", "loss"]),
    ("-e", [("x = [0.5, -1.0, 2.0]\nW = [[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]]\n"
             "h = tanh(W @ x)\nL = sum(softmax(h, 0) * h) + norm(x) ** 2\n"), "--wrt", "x",
            "--wrt", "W"]),
]


def _grads(*args: str) -> dict:
    from gradcli import cli

    r = RUNNER.invoke(cli.app, ["grad", *args, "--format", "json"])
    assert r.exit_code == 0, (r.stdout, r.stderr)
    return json.loads(r.stdout)


@pytest.mark.parametrize(("script", "args"), MODE_CASES)
def test_grad_mode_forward_equals_reverse(script, args):
    """``grad --mode forward`` (a tangent per element of each --wrt) gives reverse mode's
    answer, and says it computed by forward mode only through the same document."""
    where = [script, *args] if script != "-e" else ["-e", *args]
    if script != "-e":
        where[0] = str(ROOT / script)
    reverse = _grads(*where)
    forward = _grads(*where, "--mode", "forward")
    assert forward["of"] == reverse["of"] and forward["value"] == reverse["value"]
    wrt = {args[i + 1] for i, a in enumerate(args) if a == "--wrt"}
    assert set(forward["wrt"]) == set(reverse["wrt"]) == wrt
    for name, g in reverse["wrt"].items():
        f = forward["wrt"][name]
        assert f["shape"] == g["shape"] and f.get("dtype") == g.get("dtype")
        tol = 1e-12 if g.get("dtype", "float64") == "float64" else 1e-6
        np.testing.assert_allclose(np.asarray(f["data"], dtype=float),
                                   np.asarray(g["data"], dtype=float), rtol=tol, atol=tol)


def test_grad_mode_forward_needs_a_scalar_output():
    """As reverse mode, a non-scalar output is PyTorch's error."""
    from gradcli import cli

    r = RUNNER.invoke(cli.app, ["grad", "-e", "x = [1.0, 2.0]\ny = x * 2\n", "--wrt", "x",
                                "--of", "y", "--mode", "forward"])  # no scalar to default to
    assert r.exit_code != 0 and "grad can be implicitly created only for scalar outputs" in \
        r.stderr


def test_trace_lists_each_tangent():
    """``trace`` has a ``tangent`` event for each dual tensor and each tangent the level carried,
    after the op's own event, with the tangent's values."""
    text = ("import torch\nimport torch.autograd.forward_ad as fwAD\n"
            "with fwAD.dual_level():\n"
            "    x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.5]))\n"
            "    y = (x * x).sum()\n")
    r = RUNNER.invoke(__import__("gradcli.cli", fromlist=["app"]).app,
                      ["trace", "-e", text, "--format", "json"])
    assert r.exit_code == 0, r.stderr
    events = json.loads(r.stdout)["events"]
    tangents = [(e["line"], e["tangent"]) for e in events if e["kind"] == "tangent"]
    assert tangents == [(4, [1.0, 0.5]), (5, [2.0, 2.0]), (5, 4.0)]
    kinds = [e["kind"] for e in events if e["line"] == 5]
    assert kinds.index("tangent") > kinds.index("op")
