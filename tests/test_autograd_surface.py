"""The autograd surface of PyTorch programs against PyTorch's recorded answers.

``tests/autograd_cases.py`` holds the programs; ``tools/record_autograd.py`` ran them with
PyTorch 2.13 into ``fixtures/torch/autograd.json``; here they run on gradcli's surface
(``api.AUTOGRAD``, ``AUTOGRAD_FUNCTIONAL``, ``NN``, ``OPTIM``, ``GRAD_MODE`` and the tensor
attribute table) and every logged value, result, error and warning must agree.  Values are
compared exactly except where a case says otherwise (Adam: see ``api/optim.py``).
"""

from __future__ import annotations

import inspect
import json
import math
from pathlib import Path
from types import SimpleNamespace

import autograd_cases as cases
import numpy as np
import pytest

from gradcli import api
from gradcli.engine import RunContext, Tensor, use
from gradcli.engine.backend import get_backend, quiet, to_host
from gradcli.errors import GradcliError

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "torch" / "autograd.json").read_text())
CASES = {name[5:]: fn for name, fn in inspect.getmembers(cases, inspect.isfunction)
         if name.startswith("case_")}
# relative tolerances where gradcli is not bit-exact: Adam (see api/optim.py), NumPy's tanh
APPROXIMATE = {"adam_close": 1e-5, "saved_attributes": 1e-13}


def _torch() -> SimpleNamespace:
    """gradcli's surface under PyTorch's module names, as a program sees ``torch``."""
    autograd = SimpleNamespace(**api.AUTOGRAD,
                               functional=SimpleNamespace(**api.AUTOGRAD_FUNCTIONAL))
    return SimpleNamespace(**{**api.FUNCTIONS, **api.GRAD_MODE}, autograd=autograd,
                           nn=SimpleNamespace(**api.NN), optim=SimpleNamespace(**api.OPTIM))


class Attributes:
    """Tensor attributes through the engine's getter/setter table (``_version`` as an int)."""

    @staticmethod
    def get(obj, name):
        if isinstance(obj, Tensor):
            if name == "_version":
                return obj.version
            if name in api.TENSOR_ATTRIBUTES:
                return api.TENSOR_ATTRIBUTES[name][0](obj)
        return getattr(obj, name)

    @staticmethod
    def set(obj, name, value):
        api.TENSOR_ATTRIBUTES[name][1](obj, value)


def _host(t: Tensor) -> tuple:
    a = np.asarray(to_host(t.data))
    return a.tolist(), str(a.dtype)


def _run(name: str) -> dict:
    dtype = "float32" if name in cases.FLOAT32 else "float64"
    ctx = RunContext(get_backend("numpy", dtype))
    ctx.warnings = []
    logged: list = []
    with use(ctx), quiet():  # NumPy's floating-point warnings: PyTorch has none
        try:
            result = {"value": cases.encode(CASES[name](_torch(), Attributes, logged.append),
                                            _host)}
        except GradcliError as exc:
            result = {"error": exc.kind, "message": exc.message}
        result["log"] = [cases.encode(v, _host) for v in logged]
    result["warnings"] = [{"category": c, "message": m}
                          for m, c in dict.fromkeys((m, c) for m, c in ctx.warnings)]
    return result


def _same(got, want, where: str, rtol: float | None) -> None:
    if isinstance(want, dict) and "tensor" in want:
        assert isinstance(got, dict) and "tensor" in got, f"{where}: {got!r} is not a tensor"
        for key in ("shape", "dtype", "requires_grad", "is_leaf", "grad_fn"):
            assert got[key] == want[key], f"{where}.{key}: {got[key]!r} != {want[key]!r}"
        _numbers(got["tensor"], want["tensor"], where, rtol)
        if rtol is None:
            assert got["repr"] == want["repr"], f"{where}: repr"
        return
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), f"{where}: {got!r} != {want!r}"
        for k in want:
            _same(got[k], want[k], f"{where}.{k}", rtol)
        return
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]", rtol)
        return
    if isinstance(want, float) and rtol is not None:
        assert math.isclose(got, want, rel_tol=rtol, abs_tol=1e-12), f"{where}: {got} != {want}"
        return
    assert got == want and type(got) is type(want), f"{where}: {got!r} != {want!r}"


def _numbers(got, want, where: str, rtol: float | None) -> None:
    g, w = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if rtol is None:  # bit for bit (float32 values are exact in float64)
        np.testing.assert_array_equal(g, w, err_msg=where)
    else:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12, err_msg=where)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_pytorch(name: str) -> None:
    want = FIXTURE["cases"][name]
    got = _run(name)
    rtol = APPROXIMATE.get(name)
    assert ("error" in got) == ("error" in want), got.get("message") or want.get("message")
    if "error" in want:
        assert (got["error"], got["message"]) == (want["error"], want["message"])
    else:
        _same(got["value"], want["value"], "value", rtol)
    _same(got["log"], want["log"], "log", rtol)
    assert got["warnings"] == want["warnings"]


def test_every_case_is_recorded() -> None:
    assert sorted(FIXTURE["cases"]) == sorted(CASES)
