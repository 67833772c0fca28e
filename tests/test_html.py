"""`gradcli html`: the page it writes (DOM contract, self-contained), its errors, Jupyter display.

The page's behaviour in a real browser is tested in test_browser.py.
"""

from __future__ import annotations

import html as htmllib
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from marks import needs_dot
from typer.testing import CliRunner

import gradcli
from gradcli import cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples").glob("*.grad"))
CHAIN = str(ROOT / "samples" / "chain_rule.grad")
GD = str(ROOT / "samples" / "gradient_descent.grad")
SVG = "{http://www.w3.org/2000/svg}"
pytestmark = needs_dot
runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(cli.app, list(args))


def write(tmp_path: Path, *args: str, code: int = 0) -> str:
    out = tmp_path / "g.html"
    r = invoke("html", *args, "-o", str(out))
    assert r.exit_code == code, r.stderr
    return out.read_text(encoding="utf-8")


def data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="gradcli-data">(.*?)</script>', page, re.DOTALL)
    return json.loads(m.group(1))


def svg(page: str) -> ET.Element:
    return ET.fromstring(page[page.index("<svg"):page.index("</svg>") + 6])


def nodes(page: str) -> list[ET.Element]:
    return [g for g in svg(page).iter(f"{SVG}g") if "node" in g.get("class", "").split()]


def test_the_dom_contract(tmp_path):
    page = write(tmp_path, CHAIN, "--wrt", "w1")
    graph = json.loads(invoke("graph", CHAIN, "--wrt", "w1", "--format", "json").stdout)
    names = [g.get("data-name") for g in nodes(page)]
    assert sorted(names) == sorted(n["name"] or str(n["id"]) for n in graph["nodes"])
    for element_id in ("details", "step-prev", "step-next", "step-text", "search"):
        assert f'id="{element_id}"' in page
    d = data(page)
    assert d["view"] == "forward" and d["output"] == "L"
    x3 = d["nodes"]["5"]
    assert (x3["name"], x3["op"], x3["grad_fn"], x3["line"]) == ("x3", "mul", "MulBackward0", 6)
    assert [s["name"] for s in x3["saved"]] == ["other"]
    assert d["source"][5] == "x3 = w1 * x1"


def test_the_page_fetches_nothing(tmp_path):
    page = write(tmp_path, CHAIN)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"""(src|href)\s*=|<link|@import|url\(|fetch\(|XMLHttpRequest""",
                         page.replace('xmlns="http://www.w3.org/2000/svg"', "")
                         .replace('xmlns:xlink="http://www.w3.org/1999/xlink"', ""))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_every_sample_has_a_viewer(tmp_path, sample):
    code = 1 if sample.stem in ("retain_graph", "retain_graph_any_time", "inplace") else 0
    rolled = ("--rolled",) if sample.stem == "gradient_descent" else ()  # 1,807 nodes: bench/
    page = write(tmp_path, str(sample), *rolled, code=code)
    d = data(page)
    assert len(nodes(page)) == sum(1 for n in d["nodes"].values() if n["kind"] == "tensor")
    assert d["events"]
    # every event about a node lights it up (the run's trace, then a derived backward)
    assert all(e["els"] for e in d["events"] if e.get("id", e.get("node_id")) is not None)
    assert (d["error"] is not None) == bool(code)


def test_backward_view(tmp_path):
    page = write(tmp_path, CHAIN, "--wrt", "w1", "--backward")
    d = data(page)
    assert d["view"] == "backward"
    assert {g.get("data-name") for g in nodes(page)} == {"L", "x5", "x3", "x4", "w1", "2", "5"}
    assert {e[0] for e in d["elements"].values()} == {"output", "grad_fn", "variable", "saved"}


def test_rolled_page_lists_the_iterations(tmp_path):
    page = write(tmp_path, GD, "--rolled")
    d = data(page)
    pred = next(n for n in d["nodes"].values() if n["name"] == "pred")
    assert len(pred["members"]) == 200 and pred["members"][0][1] == "pred#1"
    assert len(nodes(page)) == 16
    assert sum("back" in e[3] for e in d["edges"]) == 4  # w, b and their sub_ ops


def test_lines_scope_the_page_and_its_events(tmp_path):
    d = data(write(tmp_path, GD, "--lines", "12"))
    assert {n["op"] for n in d["nodes"].values() if n["kind"] == "tensor"} == {"mse_loss", "add",
                                                                              None}
    assert {e["line"] for e in d["events"] if e["phase"] == "forward"} == {12}


def test_a_failing_script_still_gets_its_page(tmp_path):
    d = data(write(tmp_path, str(ROOT / "samples" / "retain_graph.grad"), code=1))
    assert d["error"]["line"] == 11 and "second time" in d["error"]["message"]


def test_without_graphviz_exit_2_and_no_page(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, **kw: None)
    out = tmp_path / "g.html"
    r = invoke("html", CHAIN, "-o", str(out))
    assert r.exit_code == 2 and not out.exists()
    assert "Graphviz" in r.stderr and "apt install graphviz" in r.stderr


def test_output_errors(tmp_path):
    assert invoke("html", CHAIN, "-o", str(tmp_path / "g.png")).exit_code == 2
    assert invoke("html", CHAIN, "-o", str(tmp_path / "no" / "g.html")).exit_code == 2
    r = invoke("html", CHAIN, "--format", "json")
    assert r.exit_code == 2 and json.loads(r.stdout)["error"]["type"] == "UsageError"
    r = invoke("html", CHAIN)  # a pipe: the page goes to stdout
    assert r.exit_code == 0 and r.stdout.startswith("<!doctype html>")


def test_json_document(tmp_path):
    r = invoke("html", CHAIN, "-o", str(tmp_path / "g.html"), "--format", "json")
    doc = json.loads(r.stdout)
    # the script's header names wrt=w1: its trace's 6 ops and 4 saves, then 9 derived
    # backward events (it calls no backward())
    assert doc == {"gradcli": "1", "file": str(tmp_path / "g.html"), "nodes": 11,
                   "events": 19, "error": None}


# -- Jupyter --------------------------------------------------------------------------------------
def test_a_run_result_displays_its_viewer():
    result = gradcli.run("w = param(2.0)\ny = w ** 3\n")
    frame = result._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in frame
    page = htmllib.unescape(re.search(r'srcdoc="(.*?)"', frame, re.DOTALL).group(1))
    assert [g.get("data-name") for g in nodes(page)] == ["w", "y"]
    assert result.bindings["y"].item() == 8.0  # still the run's result


def test_a_graph_displays_statically_and_saves(tmp_path):
    g = gradcli.run("w = param(2.0)\ny = w ** 3\n").graph(backward=True)
    assert "PowBackward0" in g._repr_svg_() and "<svg" in g._repr_svg_()
    g.save(str(tmp_path / "g.html"))
    assert data((tmp_path / "g.html").read_text())["view"] == "backward"


def test_display_without_records_or_graphviz_explains(monkeypatch):
    assert "record=True" in gradcli.run("y = 1", record=False)._repr_html_()
    monkeypatch.setattr(shutil, "which", lambda name, **kw: None)
    result = gradcli.run("w = param(2.0)\ny = w ** 3\n")
    assert "Graphviz" in result._repr_html_() and result._repr_svg_() is None
