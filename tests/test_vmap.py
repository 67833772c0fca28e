"""torch.func.vmap against PyTorch (tools/vmap_cases.py) and against finite differences.

The cases run here over ``gradcli.api`` with PyTorch's defaults and must give the tensors
PyTorch 2.13 gave (shape, dtype, strides and bytes; tests/fixtures/torch/vmap_cases.json,
recorded by tools/record_vmap_cases.py), or its error's type and message.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from gradcli import api
from gradcli.api.func import FUNC
from gradcli.engine import RunContext, use
from gradcli.engine.backend import get_backend, quiet, to_host
from gradcli.engine.exact import fingerprint
from gradcli.engine.tensor import Tensor
from gradcli.errors import GradcliError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import machines
from vmap_cases import CASES

FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "torch" / "vmap_cases.json").read_text())
NN = types.SimpleNamespace(**{n: getattr(c, "make", c) for n, c in api.NN.items()})
TORCH = types.SimpleNamespace(**api.FUNCTIONS, **api.DTYPES, **api.DEFAULT_DTYPE, **api.RANDOM,
                              nn=NN, func=types.SimpleNamespace(**FUNC), vmap=FUNC["vmap"],
                              autograd=types.SimpleNamespace(**api.AUTOGRAD))
F = types.SimpleNamespace(**api.NN_FUNCTIONS)


# Cases whose results gradcli rounds differently from PyTorch for a reason outside vmap: the
# same transform without vmap gives gradcli's vmap's bits (held to 1e-6 relative, 1e-7 absolute).
INEXACT = {
    # torch.func.grad through functional_call and cross_entropy: grad's own rounding
    "functional_call_per_sample": "grad",
    # torch.func.jacrev/jacfwd: PyTorch vmaps the one-hot cotangents, gradcli loops over them
    "vmap_jacrev": "jacrev",
    # kernels gradcli computes within an ulp of PyTorch's without vmap too (tests/test_numerics)
    "sweep_inexact_kernels": "kernels",
}


def _value(v: object) -> dict:
    if isinstance(v, Tensor):
        data = np.ascontiguousarray(to_host(v.data))
        return {"shape": list(v.shape), "dtype": v.dtype.name, "stride": list(v.stride()),
                "hex": data.tobytes().hex()}
    return {"repr": repr(v)}


def run_case(code: str) -> dict:
    ctx = RunContext(get_backend("numpy", "float32"), warnings=[])
    scope = {"torch": TORCH, "F": F, "nn": NN}
    with use(ctx), quiet():
        try:
            exec(code, scope)  # noqa: S102 - our own test cases
        except GradcliError as err:
            return {"error": {"type": err.kind, "message": err.message}}
    return {"result": [_value(v) for v in scope["result"]]}


def test_fixture_is_complete():
    """Every case has PyTorch's answer, recorded under the tests' setting."""
    assert set(FIXTURE["cases"]) == set(CASES)
    assert FIXTURE["settings"] == machines.PINNED


@pytest.fixture(scope="module")
def elsewhere() -> str | None:
    """None on the machine the cases were recorded on, else which of its facts differ."""
    facts = fingerprint.describe()
    if facts.get("mkl"):
        facts["mkl"].pop("path", None)
    return machines.same_machine(FIXTURE["machine"], facts)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_pytorch(name, elsewhere):
    """PyTorch's tensors bit for bit (on another machine, MKL's results within 1e-5) and its
    errors' texts."""
    expected = FIXTURE["cases"][name]
    got = run_case(CASES[name])
    if "error" in expected:
        assert got == {"error": expected["error"]}
        return
    assert "error" not in got, got
    assert len(got["result"]) == len(expected["result"])
    for i, (g, e) in enumerate(zip(got["result"], expected["result"])):
        # NOTE: strides are recorded, not compared: PyTorch's follow the layout its batching
        # rules computed in, gradcli's that of its stacked per-sample results
        assert {k: g.get(k) for k in ("shape", "dtype", "repr")} == \
            {k: e.get(k) for k in ("shape", "dtype", "repr")}, f"result[{i}]"
        if g.get("hex") == e.get("hex"):
            continue
        dt = np.dtype(g["dtype"] if g["dtype"] != "bool" else "?")
        a, b = (np.frombuffer(bytes.fromhex(x["hex"]), dtype=dt) for x in (g, e))
        # NOTE: a NaN's sign and payload follow the kernel's vector or scalar path, which
        # depends on the element's place in the batch PyTorch computes at once
        same = (a == b) | (np.isnan(a) & np.isnan(b)) if dt.kind == "f" else a == b
        if same.all():
            continue
        if name in INEXACT:
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, err_msg=f"result[{i}]")
            continue
        assert elsewhere is not None, f"result[{i}]: bytes differ"
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"result[{i}]")


# --- finite differences: vmap(grad(f)) in float64 ---------------------------------------------
def _f64(code: str) -> dict:
    ctx = RunContext(get_backend("numpy", "float64"), warnings=[])
    scope = {"torch": TORCH, "F": F}
    with use(ctx), quiet():
        exec(code, scope)  # noqa: S102 - our own test code
    return scope


FD_FUNCTIONS = {
    "sin_times": "lambda a: (a.sin() * a).sum()",
    "softmax_entropy": "lambda a: -(a.softmax(0) * a.log_softmax(0)).sum()",
    "quadratic_matmul": "lambda a: (a @ W @ a) + a.tanh().pow(2).sum()",
    "norm_exp": "lambda a: a.norm() * a.exp().mean()",
    "mlp": "lambda a: F.linear(F.linear(a, W).relu() + a, W).sigmoid().sum()",
}


@pytest.mark.parametrize("name", sorted(FD_FUNCTIONS))
def test_vmap_grad_matches_finite_differences(name):
    """Each row of vmap(grad(f))(X) is f's gradient at that row, by central differences."""
    scope = _f64("torch.manual_seed(1); X = torch.randn(4, 3); W = torch.randn(3, 3); "
                 f"f = {FD_FUNCTIONS[name]}; G = torch.func.vmap(torch.func.grad(f))(X); "
                 "J = torch.func.vmap(torch.func.jacrev(f))(X)")
    f, X, G, J = scope["f"], scope["X"], scope["G"], scope["J"]
    ctx = RunContext(get_backend("numpy", "float64"), warnings=[])
    x = to_host(X.data)
    eps = 1e-6
    with use(ctx), quiet():
        for i in range(x.shape[0]):
            for k in range(x.shape[1]):
                up, down = x[i].copy(), x[i].copy()
                up[k] += eps
                down[k] -= eps
                fd = (f(api.FUNCTIONS["tensor"](up)).item()
                      - f(api.FUNCTIONS["tensor"](down)).item()) / (2 * eps)
                assert abs(to_host(G.data)[i, k] - fd) < 1e-6 * max(1.0, abs(fd))
    assert np.array_equal(to_host(G.data), to_host(J.data))
