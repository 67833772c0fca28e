"""The graph viewer and big-graph drawing: write times, page readiness, frame times.

    python bench/bench_html.py [--reps N] [--shots DIR] [--chromium PATH]

Rows (each command a fresh `gradcli` process, best of N wall times):
  html, 2,001-node chain        `gradcli html` of `h = tanh(h * 0.9)` looped 1,000 times
                                (target: the page written in under 5 s)
  html, gradient_descent        the sample's 1,807 nodes, unrolled
  html --rolled, 2,000 steps    a 2,000-step gradient descent (18,007 nodes), rolled
  dot --lines 11-12 -o .svg     gradient_descent's loop body, rendered (target: under 5 s)
  dot -o .svg                   gradient_descent whole, rendered (reference tags keep it short)

Then, in headless Chromium (Debian's `chromium`, network blocked), for the 2,001-node page:
navigation start to the viewer's handlers being ready and to the first frame painted after it
(target: interactive under 2 s), the time a click takes to fill the details panel, and frame
intervals while zooming with the wheel and dragging (smooth: p95 near 16 ms). `--shots DIR`
also saves screenshots (samples light and dark, a rolled loop, the 2,001-node graph).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GD = ROOT / "samples" / "gradient_descent.grad"
BIG = "h = param(0.5)\nfor i in range(1000):\n    h = tanh(h * 0.9)\n"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def gradcli(*args: str) -> float:
    """Wall time of one `gradcli` process (it must succeed)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gradcli", *args, "-q"], env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"gradcli {' '.join(args)} failed:\n{proc.stderr}")
    return wall


def best(reps: int, *args: str) -> float:
    return min(gradcli(*args) for _ in range(reps))


def writes(work: Path, reps: int) -> list[tuple[str, float, str]]:
    big = work / "big.grad"
    big.write_text(BIG)
    long_gd = work / "gradient_descent_2000.grad"
    long_gd.write_text(GD.read_text().replace("range(4)", "range(40)"))  # 40 x 50 steps
    rows = [
        ("html, 2,001-node chain", best(reps, "html", str(big), "-o", str(work / "big.html")),
         "< 5 s"),
        ("html, gradient_descent (1,807 nodes)",
         best(reps, "html", str(GD), "-o", str(work / "gd.html")), ""),
        ("html --rolled, 2,000 steps (18,007 nodes)",
         best(reps, "html", str(long_gd), "--rolled", "-o", str(work / "gd2000.html")), ""),
        ("dot --lines 11-12 -o .svg (gradient_descent)",
         best(reps, "dot", str(GD), "--lines", "11-12", "-o", str(work / "lines.svg")), "< 5 s"),
        ("dot -o .svg (gradient_descent, whole)",
         best(reps, "dot", str(GD), "-o", str(work / "gd.svg")), ""),
    ]
    return rows


class Browser:
    """Headless Chromium with every request but the page's own aborted."""

    def __init__(self, chromium: str) -> None:
        from playwright.sync_api import sync_playwright

        self._p = sync_playwright().start()
        self.browser = self._p.chromium.launch(executable_path=chromium, args=ARGS)

    def open(self, path: Path, scheme: str = "light", width: int = 1400, height: int = 850):
        context = self.browser.new_context(viewport={"width": width, "height": height},
                                           color_scheme=scheme)
        url = path.as_uri()
        context.route("**/*", lambda r: r.continue_() if r.request.url == url else r.abort())
        page = context.new_page()
        # frame timestamps from the first frame on, to find the first paint after readiness
        page.add_init_script("window.__frames=[];(function f(){requestAnimationFrame(function(t)"
                             "{window.__frames.push(performance.now());f();});})();")
        page.goto(url)
        page.wait_for_selector("body[data-ready]")
        return page

    def close(self) -> None:
        self.browser.close()
        self._p.stop()


def interactivity(browser: Browser, page_path: Path, reps: int) -> dict[str, float]:
    ready, painted, click = [], [], []
    for _ in range(reps):
        page = browser.open(page_path)
        page.wait_for_timeout(800)
        r = page.evaluate("window.gradcliReady")
        after = [f for f in page.evaluate("window.__frames") if f > r]
        ready.append(r)
        # a frame callback runs before its paint: the next one starts once it has painted
        painted.append(after[1] if len(after) > 1 else float("nan"))
        click.append(page.evaluate(CLICK))
        page.context.close()
    page = browser.open(page_path)
    page.wait_for_timeout(800)
    out = {"ready": min(ready), "painted": min(painted), "click": min(click)}
    for gesture in ("zoom", "drag", "hover"):
        gaps = _gaps(page.evaluate(GESTURE, gesture))
        out[gesture] = (statistics.median(gaps), gaps[max(0, int(len(gaps) * 0.95) - 1)])
    page.context.close()
    return out


def _gaps(frames: list[float]) -> list[float]:
    return sorted(b - a for a, b in itertools.pairwise(frames))


CLICK = """() => {
    const g = document.querySelector('g.node[data-name="h"]');
    const b = g.getBoundingClientRect(), t0 = performance.now();
    const o = {bubbles: true, button: 0, pointerId: 1, clientX: b.x + 2, clientY: b.y + 2};
    g.dispatchEvent(new PointerEvent('pointerdown', o));
    g.dispatchEvent(new PointerEvent('pointerup', o));
    document.getElementById('details').getBoundingClientRect();  // force its layout
    return performance.now() - t0; }"""

# 60 input events, one every 16 ms from a timer in the page (no round trips to the driver),
# and the frame timestamps meanwhile: zoom = wheel events, drag = pointer moves with the
# button down, hover = pointerover on 40 different nodes
GESTURE = """(kind) => new Promise(resolve => {
  const vp = document.getElementById('viewport'), r = vp.getBoundingClientRect();
  const nodes = Array.from(document.querySelectorAll('g.node')).slice(-40);
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2, frames = [];
  let n = 0, stop = false;
  (function f() { requestAnimationFrame(t => { frames.push(t); if (!stop) f(); }); })();
  const ev = (type, x, y) => new PointerEvent(type, {bubbles: true, button: 0, pointerId: 7,
                                                      clientX: x, clientY: y});
  if (kind === 'drag') vp.dispatchEvent(ev('pointerdown', cx, cy));
  const timer = setInterval(() => {
    n++;
    if (kind === 'zoom') vp.dispatchEvent(new WheelEvent('wheel', {bubbles: true,
      cancelable: true, deltaY: n <= 30 ? -40 : 40, clientX: cx, clientY: cy}));
    else if (kind === 'drag') window.dispatchEvent(ev('pointermove', cx + 3 * n, cy + 2 * n));
    else nodes[n % nodes.length].firstElementChild.dispatchEvent(ev('pointerover', 0, 0));
    if (n < 60) return;
    clearInterval(timer);
    if (kind === 'drag') window.dispatchEvent(ev('pointerup', cx + 3 * n, cy + 2 * n));
    setTimeout(() => { stop = true; resolve(frames); }, 400);
  }, 16);
})"""


def shots(browser: Browser, work: Path, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    specs = [("chain_rule_light", ["samples/chain_rule.grad", "--wrt", "w1"], "light", "x3"),
             ("chain_rule_dark", ["samples/chain_rule.grad", "--wrt", "w1"], "dark", "x3"),
             ("rnn_cell_backward_light", ["samples/rnn_cell.grad", "--backward"], "light", None),
             ("retain_graph_backward_dark", ["samples/retain_graph.grad", "--backward"], "dark",
              None),
             ("gradient_descent_rolled_light", ["samples/gradient_descent.grad", "--rolled"],
              "light", "pred"),
             ("gradient_descent_rolled_dark", ["samples/gradient_descent.grad", "--rolled"],
              "dark", "w")]
    for name, args, scheme, click in specs:
        path = work / f"{name}.html"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        subprocess.run([sys.executable, "-m", "gradcli", "html", *args, "-o", str(path), "-q"],
                       cwd=ROOT, env=env, capture_output=True, check=False)
        page = browser.open(path, scheme)
        if click:
            page.click(f'g.node[data-name="{click}"]')
            page.mouse.move(5, 5)
        page.wait_for_timeout(300)
        page.screenshot(path=str(folder / f"{name}.png"))
        made.append(folder / f"{name}.png")
        page.context.close()
    for name, scheme in (("big_2001_nodes_light", "light"), ("big_2001_nodes_fit_dark", "dark")):
        page = browser.open(work / "big.html", scheme)
        if "fit" in name:
            page.click("#zoom-fit")
        page.wait_for_timeout(400)
        page.screenshot(path=str(folder / f"{name}.png"))
        made.append(folder / f"{name}.png")
        page.context.close()
    return made


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--shots", type=Path, default=None, help="save screenshots into DIR")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores shared: rerun when above ~1)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for label, wall, target in writes(work, args.reps):
            print(f"{label:46} {wall:7.2f} s   {target}")
        try:
            browser = Browser(args.chromium)
        except Exception as exc:  # noqa: BLE001 - the browser half is optional
            print(f"no browser figures: {exc}")
            return
        try:
            f = interactivity(browser, work / "big.html", args.reps)
            print(f"{'page ready (2,001 nodes), from navigation':46} {f['ready'] / 1000:7.2f} s"
                  "   < 2 s")
            print(f"{'first frame painted, from navigation':46} {f['painted'] / 1000:7.2f} s"
                  "   < 2 s")
            print(f"{'click -> details filled':46} {f['click']:7.1f} ms")
            for gesture in ("zoom", "drag", "hover"):
                p50, p95 = f[gesture]
                print(f"{'frame interval, ' + gesture + ' (p50 / p95)':46} {p50:7.1f} / "
                      f"{p95:.1f} ms")
            if args.shots:
                for path in shots(browser, work, args.shots):
                    print(f"screenshot {path}")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
