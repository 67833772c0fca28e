"""The engine against PyTorch on small PyTorch programs (tools/engine_cases.py).

The same code runs here over ``gradcli.api`` with PyTorch's defaults (float32, int64 tensors from
integer data) and must give the reprs, or the error, that PyTorch 2.13 gave
(tests/fixtures/torch/engine_cases.json, recorded by tools/record_engine_cases.py).
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import pytest

from gradcli import api
from gradcli.engine import RunContext, use
from gradcli.engine.backend import get_backend, quiet
from gradcli.engine.exact import fingerprint, libmkl
from gradcli.errors import GradcliError

ROOT = Path(__file__).resolve().parents[1]
ADDRESS = re.compile(r"0x[0-9a-f]+")  # object addresses differ from run to run
sys.path.insert(0, str(ROOT / "tools"))
import machines
from engine_cases import CASES

FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "torch" / "engine_cases.json").read_text())
# torch.nn's classes are TypeObjects for scripts; Python calls the class they make
NN = types.SimpleNamespace(**{n: getattr(c, "make", c) for n, c in api.NN.items()},
                           init=types.SimpleNamespace(**api.NN_INIT))
TORCH = types.SimpleNamespace(**api.FUNCTIONS, **api.DTYPES, **api.DEFAULT_DTYPE, **api.RANDOM,
                              linalg=types.SimpleNamespace(**api.LINALG), nn=NN,
                              optim=types.SimpleNamespace(**api.OPTIM),
                              autograd=types.SimpleNamespace(**api.AUTOGRAD))
NN_FUNCTIONAL = types.SimpleNamespace(**api.NN_FUNCTIONS)


def graph(t) -> str:
    """The backward graph from ``t.grad_fn`` as tools/record_engine_cases.py writes PyTorch's."""
    def walk(node) -> str:
        if node is None:
            return "None"
        name = node.fn_name
        saved = sorted(s.name for s in node.saved_tensors() if not s.freed)
        kids = [walk(e[0]) for e in node.next_functions]
        return (name.replace("torch::autograd::", "")
                + (f"[{','.join(saved)}]" if saved else "")
                + (f"({', '.join(kids)})" if kids else ""))

    return walk(t.grad_fn)


def run_case(code: str) -> dict:
    """Run one case on gradcli's engine as PyTorch would (float32 default, int64 data); whether
    MKL computed any of it is ``mkl``."""
    ctx = RunContext(get_backend("numpy", "float32"), warnings=[])
    calls = libmkl.calls
    scope = {"torch": TORCH, "F": NN_FUNCTIONAL, "graph": graph}
    with use(ctx), quiet():
        try:
            exec(code, scope)  # noqa: S102 - our own test cases
        except GradcliError as err:
            # the first line, as recorded (PyTorch's argument errors list the overloads after)
            return {"error": {"type": err.kind, "message": err.message.split("\n")[0]}}
    return {"result": [ADDRESS.sub("0xADDR", repr(v)) for v in scope["result"]],
            "warnings": [message for message, _ in ctx.warnings], "mkl": libmkl.calls > calls}


def test_fixture_is_complete():
    """Every case has a recorded answer (re-run tools/record_engine_cases.py after adding one),
    recorded under the tests' setting on a machine the fixture names."""
    assert set(FIXTURE["cases"]) == set(CASES)
    assert FIXTURE["settings"] == machines.PINNED
    assert FIXTURE["machine"]["capability"] == "AVX512" and FIXTURE["machine"]["threads"] == 2


@pytest.fixture(scope="module")
def elsewhere() -> str | None:
    """None on the machine the cases were recorded on, else which of its facts differ."""
    facts = fingerprint.describe()
    if facts.get("mkl"):
        facts["mkl"].pop("path", None)
    return machines.same_machine(FIXTURE["machine"], facts)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_pytorch(name, elsewhere):
    """PyTorch's reprs bit for bit; where MKL computed part of the case on a machine other
    than the recording one, each printed number within tools/machines.py's tolerance, and the
    summary says so."""
    expected = FIXTURE["cases"][name]
    got = run_case(CASES[name])
    if "error" in expected:
        assert got == {"error": expected["error"]}
        return
    assert got.get("error") is None, got
    assert len(got["result"]) == len(expected["result"])
    assert got["warnings"] == expected["warnings"]
    inexact = False
    for i, (g, e) in enumerate(zip(got["result"], expected["result"])):
        if g == e:
            continue
        if not got["mkl"] or elsewhere is None:
            assert g == e, f"result[{i}]"
        difference = machines.close_text(g, e)
        assert difference is None, f"result[{i}]: {difference}"
        inexact = True
    if inexact:
        pytest.skip(f"MKL's numbers within the tolerance, not bit for bit: recorded on another "
                    f"machine ({elsewhere})")
