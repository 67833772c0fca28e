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
from gradcli.errors import GradcliError

ROOT = Path(__file__).resolve().parents[1]
ADDRESS = re.compile(r"0x[0-9a-f]+")  # object addresses differ from run to run
sys.path.insert(0, str(ROOT / "tools"))
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
    """Run one case on gradcli's engine as PyTorch would (float32 default, int64 data)."""
    ctx = RunContext(get_backend("numpy", "float32"), warnings=[])
    scope = {"torch": TORCH, "F": NN_FUNCTIONAL, "graph": graph}
    with use(ctx), quiet():
        try:
            exec(code, scope)  # noqa: S102 - our own test cases
        except GradcliError as err:
            # the first line, as recorded (PyTorch's argument errors list the overloads after)
            return {"error": {"type": err.kind, "message": err.message.split("\n")[0]}}
    return {"result": [ADDRESS.sub("0xADDR", repr(v)) for v in scope["result"]],
            "warnings": [message for message, _ in ctx.warnings]}


def test_fixture_is_complete():
    """Every case has a recorded answer (re-run tools/record_engine_cases.py after adding one)."""
    assert set(FIXTURE["cases"]) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_pytorch(name):
    expected = FIXTURE["cases"][name]
    got = run_case(CASES[name])
    if "error" in expected:
        assert got == {"error": expected["error"]}
        return
    assert got.get("error") is None, got
    for i, (g, e) in enumerate(zip(got["result"], expected["result"])):
        assert g == e, f"result[{i}]"
    assert len(got["result"]) == len(expected["result"])
    assert got["warnings"] == expected["warnings"]
