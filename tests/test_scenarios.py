"""Every scenario and sample against the answers recorded from PyTorch (tools/torch_oracle.py).

A fixture holds what the same script did as a PyTorch program: prints, warnings, the error and
its line, and every top-level binding (value, grad, grad_fn, flags, version and the grad_fn graph
with what each node saved or freed).  The suite needs no PyTorch.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from gradcli import pipeline
from gradcli.engine import AccumulateGrad, Tensor
from gradcli.script.printing import Printer

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "torch"
SCRIPTS = sorted(
    p for p in [*(ROOT / "tests" / "scenarios").glob("*.grad"), *(ROOT / "samples").glob("*.grad")]
    if (FIXTURES / f"{p.stem}.json").exists()
)


def header(source: str) -> dict[str, str]:
    """The `# gradcli: key=value ...` options at the top of a script."""
    opts: dict[str, str] = {}
    for m in re.finditer(r"^#\s*gradcli:\s*(.*)$", source, re.MULTILINE):
        for item in m.group(1).split():
            k, _, v = item.partition("=")
            opts[k] = v
    return opts


def _host(value):
    return np.asarray(value.data, dtype=np.float64)


def _decode(data):
    if isinstance(data, list):
        return [_decode(d) for d in data]
    if isinstance(data, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[data]
    return data


def _close(actual, expected, what):
    np.testing.assert_allclose(actual, np.asarray(_decode(expected), dtype=np.float64),
                               rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=what)


def _graph(t: Tensor) -> list[dict]:
    """The grad_fn graph in the oracle's order (breadth first over next_functions)."""
    order, index = [t.grad_fn], {t.grad_fn: 0}
    for n in order:
        for m in n.edges:
            if m is not None and m not in index:
                index[m] = len(order)
                order.append(m)
    out = []
    for n in order:
        info = n.saved_tensors()
        stale = sorted(s.name for s in info if s.stale)
        saved = sorted(s.name for s in info if not s.freed and not s.stale)
        freed = sorted(s.name for s in info if s.freed)
        out.append({"name": n.fn_name, "saved": saved, "freed": freed, "stale": stale,
                    "next": [None if m is None else index[m] for m in n.edges],
                    "leaf": isinstance(n, AccumulateGrad)})
    return out


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_matches_pytorch(path: Path) -> None:
    fixture = json.loads((FIXTURES / f"{path.stem}.json").read_text())
    source = path.read_text()
    result = pipeline.run(source, filename=path.name, wrt=tuple(fixture.get("wrt", [])),
                          base_dir=str(path.parent))
    err = fixture["error"]
    if err is None:
        assert result.error is None, f"unexpected {result.error.kind}: {result.error.message}"
    else:
        assert result.error is not None, f"expected {err['type']}: {err['message']}"
        assert result.error.kind == err["type"]
        assert result.error.message.split(". ")[0] == err["message"].split(". ")[0]
        assert result.error.span.line == err["line"]
    assert len(result.prints) == len(fixture["prints"]), result.prints
    for got, want in zip(result.prints, fixture["prints"]):
        _same_text(_ADDRESS.sub(" at ADDR", got), want)
    got_warnings = [(w.span.line, w.message) for w in result.warnings]
    want_warnings = [(w["line"], w["message"]) for w in fixture["warnings"]]
    assert got_warnings == want_warnings
    for name, want in fixture["bindings"].items():
        assert name in result.bindings, name
        _check_value(result.bindings[name], want, name)
    if "grad" in fixture and result.error is None:
        g = fixture["grad"]
        grads = result.grad(g["of"], list(g["wrt"]))
        for (w, want), got in zip(g["wrt"].items(), grads):
            _close(_host(got), want["data"], f"d{g['of']}/d{w}")


_ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # <MulBackward0 object at 0x7f…>: any address
_NUM = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _same_text(got: str, want: str) -> None:
    """Printed text equal up to the last digits of long float reprs (summation order)."""
    if got == want:
        return
    g_parts, w_parts = _NUM.split(got), _NUM.split(want)
    assert g_parts == w_parts, (got, want)
    for g, w in zip(_NUM.findall(got), _NUM.findall(want)):
        assert float(g) == pytest.approx(float(w), rel=1e-12), (got, want)


def _check_value(value, want, name):
    if want is None:
        assert value is None, name
        return
    if "type" in want and want["type"] == "list":
        assert isinstance(value, (list, tuple)) and len(value) == len(want["items"])
        for i, (v, w) in enumerate(zip(value, want["items"])):
            _check_value(v, w, f"{name}[{i}]")
        return
    if "repr" in want:  # a dict, a set, ...: as PyTorch's Python printed it
        assert type(value).__name__ == want["type"], name
        _same_text(_ADDRESS.sub(" at ADDR", Printer().repr(value)), want["repr"])
        return
    if "type" in want:
        assert not isinstance(value, Tensor), name
        assert type(value).__name__ == want["type"], name
        if isinstance(value, float):
            assert value == pytest.approx(want["value"], rel=1e-12, nan_ok=True), name
        else:
            assert value == want["value"], name
        return
    assert isinstance(value, Tensor), name
    assert list(value.shape) == want["shape"], name
    _close(_host(value), want["data"], name)
    assert value.requires_grad == want["requires_grad"], name
    assert value.is_leaf == want["is_leaf"], name
    assert (value.grad_fn.fn_name if value.grad_fn else None) == want["grad_fn"], name
    assert value.version == want["version"], name
    if want.get("grad") is not None:
        assert value._grad is not None, f"{name}.grad"
        _close(_host(value._grad), want["grad"], f"{name}.grad")
    else:
        assert value._grad is None, f"{name}.grad should be None"
    if want.get("graph"):
        got = _graph(value)
        for i, (g, w) in enumerate(zip(got, want["graph"])):
            assert g["name"] == w["name"], f"{name} node {i}"
            assert g["saved"] == w["saved"], f"{name} node {i} {w['name']} saved"
            assert g["freed"] == w["freed"], f"{name} node {i} {w['name']} freed"
            assert g["stale"] == w["stale"], f"{name} node {i} {w['name']} stale"
            assert g["next"] == w["next"], f"{name} node {i} {w['name']} edges"
        assert len(got) == len(want["graph"]), name


def test_there_are_fixtures() -> None:
    assert len(SCRIPTS) >= 10
