"""The `gradcli html` page in a real browser: headless Chromium driven by Playwright.

Every page is opened with the network blocked (anything but the page's own file is aborted and
recorded) and with console errors collected; each test ends by asserting that nothing was
requested and nothing went wrong.  Debian's ``chromium`` is used (Playwright's own browser
download is not needed); the tests skip, saying why, when it or Playwright is missing.
"""

from __future__ import annotations

import html as htmllib
import os
import re
import shutil
from pathlib import Path

import pytest
from marks import needs_dot
from typer.testing import CliRunner

import gradcli
from gradcli import cli

ROOT = Path(__file__).resolve().parents[1]
CHAIN = str(ROOT / "samples" / "chain_rule.grad")
GD = str(ROOT / "samples" / "gradient_descent.grad")
CHROMIUM = os.environ.get("GRADCLI_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# 1,000 passes of a two-op loop body: 2,001 graph nodes
BIG = "h = param(0.5)\nfor i in range(1000):\n    h = tanh(h * 0.9)\n"
# a two-layer LSTM called three times on 4-step sequences
LSTM = ("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
        "rnn = nn.LSTM(3, 4, num_layers=2)\nfor i in range(3):\n"
        "    out, (h, c) = rnn(torch.randn(4, 1, 3))\n    loss = out.sum()\n    loss.backward()\n")

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed "
                               "(pip install playwright)")
pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason=f"chromium is not installed ({CHROMIUM}; apt install chromium)"),
    needs_dot,
]


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    """The pages the tests open, written once by the real command."""
    folder = tmp_path_factory.mktemp("pages")
    big = folder / "big.grad"
    big.write_text(BIG)
    lstm = folder / "lstm.py"
    lstm.write_text(LSTM)
    specs = {"chain": [CHAIN, "--wrt", "w1"], "backward": [CHAIN, "--wrt", "w1", "--backward"],
             "forward": [CHAIN, "--wrt", "w1", "--mode", "forward"],
             "rolled": [GD, "--rolled"], "big": [str(big)], "lstm": [str(lstm), "--rolled"]}
    out = {}
    runner = CliRunner()
    for name, args in specs.items():
        out[name] = folder / f"{name}.html"
        r = runner.invoke(cli.app, ["html", *args, "-o", str(out[name])])
        assert r.exit_code == 0, r.stderr
    frame = folder / "notebook.html"
    frame.write_text("<!doctype html><title>notebook</title>" +
                     gradcli.run("w = param(2.0)\ny = w ** 3\n")._repr_html_())
    out["notebook"] = frame
    return out


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Opened:
    """A page in a fresh context, with what it requested and the errors it logged."""

    def __init__(self, browser, path: Path, scheme: str = "light",
                 ready: str = "body[data-ready]") -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 800},
                                           color_scheme=scheme)
        self.url = path.as_uri()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text)
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(self.url)
        self.page.wait_for_selector(ready)

    def _route(self, route) -> None:
        if route.request.url == self.url:
            route.continue_()
        else:
            route.abort()

    def close(self) -> None:
        """Nothing but the page itself was requested; nothing was logged as an error."""
        self.context.close()
        assert self.requests == [self.url]
        assert self.errors == []


@pytest.fixture
def open_page(browser):
    opened = []

    def _open(path: Path, scheme: str = "light", ready: str = "body[data-ready]") -> Opened:
        o = Opened(browser, path, scheme, ready)
        opened.append(o)
        return o

    yield _open
    for o in opened:
        o.close()


def node(page, name: str):
    return page.locator(f'g.node[data-name="{name}"]')


def classes(page, name: str) -> list[str]:
    return (node(page, name).get_attribute("class") or "").split()


def active_names(page) -> list[str]:
    return page.eval_on_selector_all("g.node.active", "els => els.map(e => e.dataset.name)")


def transform(page) -> tuple[float, float, float]:
    text = page.eval_on_selector("#canvas", "e => e.style.transform")
    x, y, k = map(float, re.findall(r"-?[\d.]+(?:e-?\d+)?", text))
    return x, y, k


def test_click_a_node_shows_its_details(open_page, pages):
    page = open_page(pages["chain"]).page
    node(page, "x3").click()
    text = page.inner_text("#details")
    for part in ("x3", "mul", "MulBackward0", "float64", "line 6", "x3 = w1 * x1", "other"):
        assert part in text
    assert active_names(page) == ["x3"]
    node(page, "w1").click()
    assert active_names(page) == ["w1"] and "leaf" in page.inner_text("#details")
    assert page.eval_on_selector("#source li.current", "e => e.dataset.line") == "5"


def test_a_forward_mode_run_shows_each_tangent_beside_its_value(open_page, pages, tmp_path):
    """--mode forward: each box draws its value and, in the tangent's colour, its tangent; the
    details panel lists the tangent; the screenshot is kept for a look."""
    page = open_page(pages["forward"]).page
    assert "forward mode: tangents d·/dw1" in page.inner_text("header")
    texts = node(page, "L").locator("text").all_text_contents()
    assert texts[texts.index("-7.") + 1] == "tangent -8."
    colour = page.eval_on_selector(
        'g.node[data-name="L"] text:last-of-type', "e => getComputedStyle(e).fill")
    assert colour == "rgb(31, 95, 168)"
    assert node(page, "x1").locator("text").all_text_contents() == ["x1"]  # a constant: none
    node(page, "x4").click()
    text = page.inner_text("#details")
    assert "\nvalue\n2.\ntangent\n2.\ngrad\n" in text
    shot = tmp_path / "forward.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000


def test_a_forward_mode_run_in_the_dark_theme(open_page, pages):
    page = open_page(pages["forward"], scheme="dark").page
    colour = page.eval_on_selector(
        'g.node[data-name="L"] text:last-of-type', "e => getComputedStyle(e).fill")
    assert colour == "rgb(116, 192, 252)"
    node(page, "L").click()
    assert page.eval_on_selector("pre.value.tangent", "e => getComputedStyle(e).color") == \
        "rgb(116, 192, 252)"


def test_hover_lights_inputs_and_outputs(open_page, pages):
    page = open_page(pages["chain"]).page
    node(page, "x3").hover()
    assert "hl-in" in classes(page, "w1") and "hl-in" in classes(page, "x1")
    assert "hl-out" in classes(page, "7") and "hl-in" not in classes(page, "x4")
    assert "hovering" in page.get_attribute("#graph", "class")


def test_the_stepper_walks_forward_then_backward(open_page, pages):
    page = open_page(pages["chain"]).page
    assert page.is_disabled("#step-prev")
    page.click("#step-next")
    assert "x3" in page.inner_text("#step-text") and "MulBackward0" in page.inner_text("#step-text")
    assert active_names(page) == ["x3"]
    assert "future" in classes(page, "L") and "future" not in classes(page, "w1")
    for _ in range(10):  # the trace: six ops and four saves; then a backward from L
        page.click("#step-next")
    # --wrt w1: the gradient as gradcli grad computes it, torch.autograd.grad from L
    assert "grad() from L" in page.inner_text("#step-text") and active_names(page) == ["L"]
    page.click("#step-next")
    assert page.locator("g.edge.flow").count() == 1 and "reached" in classes(page, "L")
    while not page.is_disabled("#step-next"):
        page.click("#step-next")
    assert "AccumulateGrad" in page.inner_text("#step-text") and active_names(page) == ["w1"]
    assert page.locator("g.reached").count() >= 6
    page.keyboard.press("ArrowLeft")
    assert page.input_value("#step-range") == str(int(page.get_attribute("#step-range", "max")) - 1)
    page.click("#step-prev")
    assert not page.is_disabled("#step-next")


def test_wrt_shows_the_gradient_in_the_details_and_at_the_last_event(open_page, pages):
    # chain_rule.grad calls no backward(): the page shows dL/dw1 as gradcli grad computes it
    page = open_page(pages["chain"]).page
    node(page, "w1").click()
    details = page.inner_text("#details")
    assert "dL/dw1" in details and "-8." in details
    while not page.is_disabled("#step-next"):
        page.click("#step-next")
    assert "AccumulateGrad: dL/dw1 = -8." in page.inner_text("#step-text")
    assert active_names(page) == ["w1"]


def test_search_by_name(open_page, pages):
    page = open_page(pages["chain"]).page
    page.fill("#search", "x")
    sync_api.expect(page.locator("#search-count")).to_have_text("5 matches")
    assert page.locator("g.node.match").count() == 5
    page.press("#search", "Enter")
    assert active_names(page) == ["x1"] and page.inner_text("#search-count") == "1 of 5"
    page.press("#search", "Escape")
    assert page.locator("g.node.match").count() == 0


def test_pan_and_zoom(open_page, pages):
    page = open_page(pages["chain"]).page
    k0 = transform(page)[2]
    box = page.locator("#viewport").bounding_box()
    page.mouse.move(box["x"] + 100, box["y"] + 100)
    page.mouse.wheel(0, -400)
    x1, y1, k1 = transform(page)
    assert k1 > k0
    page.mouse.down()
    page.mouse.move(box["x"] + 180, box["y"] + 160, steps=4)
    page.mouse.up()
    x2, y2, k2 = transform(page)
    assert (round(x2 - x1), round(y2 - y1), k2) == (80, 60, k1)
    page.click("#zoom-fit")
    assert transform(page)[2] == pytest.approx(k0)
    page.click("#zoom-reset")
    assert transform(page)[2] == pytest.approx(1.0)
    page.click("#zoom-out")
    assert transform(page)[2] == pytest.approx(0.8)
    assert page.inner_text("#zoom-level") == "80%"


def test_backward_view_details(open_page, pages):
    page = open_page(pages["backward"]).page
    node(page, "x3").click()
    text = page.inner_text("#details")
    assert "MulBackward0" in text and "other" in text and "line 6" in text
    node(page, "w1").click()
    assert "AccumulateGrad" in page.inner_text("#details")


def test_rolled_node_lists_its_iterations(open_page, pages):
    page = open_page(pages["rolled"]).page
    node(page, "pred").click()
    assert "×200" in page.inner_text("#details")
    assert page.locator("table.members tr").count() == 100
    page.click("text=show all 200")
    assert page.locator("table.members tr").count() == 200
    assert page.locator("g.edge.back").count() == 4  # w, b and their sub_ ops (w.grad: a new state each backward)


def test_a_rolled_recurrent_layer_is_one_node_with_its_steps_and_calls(open_page, pages):
    page = open_page(pages["lstm"]).page
    layers = page.locator("g.op", has_text="LSTM")
    assert layers.count() == 2 and page.locator("g.op", has_text="sigmoid").count() == 0
    layers.filter(has_text="layer 1, 4 steps").click()
    text = page.inner_text("#details")
    assert "rnn (LSTM) layer 1: 4 steps" in text and "×3" in text  # called three times
    assert page.locator("table.members tr").count() == 3  # its output at each call
    assert node(page, "out").count() == 1


def test_dark_mode_follows_the_system(open_page, pages):
    fill = "e => getComputedStyle(e.querySelector('path')).fill"
    light = open_page(pages["chain"]).page
    dark = open_page(pages["chain"], "dark").page
    assert light.eval_on_selector('g.node[data-name="w1"]', fill) == "rgb(207, 231, 251)"
    assert dark.eval_on_selector('g.node[data-name="w1"]', fill) == "rgb(31, 74, 112)"
    dark.click("#theme")
    assert dark.eval_on_selector('g.node[data-name="w1"]', fill) == "rgb(207, 231, 251)"


def test_a_2000_node_graph(open_page, pages, tmp_path):
    o = open_page(pages["big"])
    page = o.page
    assert page.locator("g.node").count() == 2001
    assert "2,001 nodes" in page.inner_text("#details")
    node(page, "h").click()
    assert "TanhBackward0" in page.inner_text("#details")
    k = transform(page)[2]
    page.click("#zoom-in")
    assert transform(page)[2] == pytest.approx(k * 1.25)
    page.keyboard.press("End")
    page.fill("#step-range", "2000")
    page.dispatch_event("#step-range", "input")
    assert "2000 / " in page.inner_text("#step-text")
    page.screenshot(path=str(tmp_path / "big.png"))
    assert (tmp_path / "big.png").read_bytes().startswith(b"\x89PNG")


def test_the_notebook_display_runs_the_viewer_in_its_frame(open_page, pages):
    page = open_page(pages["notebook"], ready="iframe").page
    frame = page.frame_locator("iframe")
    frame.locator("body[data-ready]").wait_for()
    frame.locator('g.node[data-name="y"]').click()
    assert "PowBackward0" in frame.locator("#details").inner_text()
    srcdoc = page.get_attribute("iframe", "srcdoc")
    assert 'data-name="w"' in htmllib.unescape(srcdoc) or 'data-name="w"' in srcdoc
