"""The op table is the one place an op is declared: everything else comes from it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gradcli import api
from gradcli.engine import OPS, RunContext, Tensor, use
from gradcli.engine.backend import get_backend
from gradcli.script.builtins import BUILTINS

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "torch" / "ops.json").read_text())["ops"]
SURFACED = sorted(name for name, op in OPS.items() if op.domain is not None)
# NOTE: PyTorch's CPU kernel for logsigmoid also saves a `buffer` its backward reads; gradcli's
# formula needs only `self` (documented in the table).
EXTRA_TORCH_SAVED = {"logsigmoid": {"buffer"}}
TOLERANCE = {"float64": 1e-12, "float32": 2e-6}


def test_every_tested_op_has_a_pytorch_fixture():
    assert sorted(FIXTURE) == SURFACED, "run tools/record_ops.py after changing the table"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", SURFACED)
def test_op_matches_pytorch(name, dtype):
    case, op = FIXTURE[name], OPS[name]
    expected = case[dtype]
    with use(RunContext(get_backend("numpy", dtype))):
        x = api.tensor(case["input"], requires_grad=True)
        fn = api.FUNCTIONS.get(name) or api.NN_FUNCTIONS[name]
        y = fn(x)
        assert y.grad_fn.name() == expected["grad_fn"]
        saved = sorted(s.name for s in y.grad_fn.saved_tensors())
        assert saved == sorted(set(expected["saved"]) - EXTRA_TORCH_SAVED.get(name, set()))
        y.backward(api.tensor(case["upstream"]))
        np.testing.assert_allclose(np.asarray(y.data), expected["value"],
                                   rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])
        np.testing.assert_allclose(np.asarray(x.grad.data), expected["grad"],
                                   rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])
    assert op.surface == tuple(case["surface"])


@pytest.mark.parametrize("name", SURFACED)
def test_surface_comes_from_the_table(name):
    op = OPS[name]
    assert (name in api.FUNCTIONS) == ("torch" in op.surface)
    assert (name in api.NN_FUNCTIONS) == ("F" in op.surface)
    assert hasattr(Tensor, name) == ("Tensor" in op.surface)
    assert name in BUILTINS  # a grad script calls every surfaced op by its bare name


def test_an_op_is_named_in_one_source_file():
    """Adding an op is one table entry: its name appears in no other file of the package (but
    the lists of other modules' names: PyTorch's recorded in api/torch_names.py, Python's math
    module in api/namespace.py)."""
    files = [p for p in (ROOT / "src" / "gradcli").rglob("*.py")
             if "atan" in p.read_text() and p.name not in ("torch_names.py", "namespace.py")]
    assert [p.relative_to(ROOT).as_posix() for p in files] == ["src/gradcli/engine/ops.py"]


def test_scalar_parameters_bind_like_pytorch():
    with use(RunContext(get_backend("numpy", "float64"))):
        x = api.tensor([-3.0, 0.5, 30.0], requires_grad=True)
        assert np.asarray(api.NN_FUNCTIONS["hardtanh"](x, -2.0, max_val=2.0).data).tolist() \
            == [-2.0, 0.5, 2.0]
        y = api.NN_FUNCTIONS["softplus"](x, beta=2.0, threshold=10.0)
        assert float(np.asarray(y.data)[2]) == 30.0  # above the threshold: the identity


def test_readme_lists_every_builtin():
    """README's and docs/language.md's list of built-ins is generated from the table
    (tools/gen_reference.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_reference",
                                                  ROOT / "tools" / "gen_reference.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for path in gen.FILES:  # README.md and docs/language.md
        readme = path.read_text()
        assert gen.updated(readme) == readme, "run tools/gen_reference.py"
        for name in BUILTINS:
            assert f"`{name}`" in readme
