"""explain, trace and profile costs: explain on a 10,000-node graph, trace and profile against
the plain run of the same script (best of N, same process, runs interleaved).

``trace`` is timed as the command does it, from the run to the finished output (without
writing it): the run with its events, naming them and building the plain text, the JSON
document, or (``--rich``) the Rich timeline on a 120-column console.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import io
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("gradcli") is None:  # a plain checkout: use its sources
    sys.path.insert(0, str(ROOT / "src"))

from gradcli import pipeline
from gradcli.analysis.explain import explain
from gradcli.analysis.profile import Profiler
from gradcli.analysis.trace import Tracer
from gradcli.engine.context import process_guard
from gradcli.render import analysis_json, analysis_plain
from gradcli.render import json as render_json

# 10,000 graph nodes: 5,000 levels of a = x * 0.5; x = a + x (2**5000 paths from L to w)
DIAMOND = "w = param(1.0)\nx = w\nfor i in range(5000):\n    a = x * 0.5\n    x = a + x\nL = x\n"
# 10,000 nodes in one chain of tanh/mul, then a backward: the trace's worst case per node
# (50,000 events: each op, its saved tensors, each edge and free of the backward)
CHAIN = ("w = param(0.5)\ny = w\nfor i in range(5000):\n    y = tanh(y * w)\n"
         "y.backward()\n")


def best(fn, reps: int) -> tuple[float, float]:
    """The best wall and CPU seconds of ``reps`` calls (collected before each)."""
    wall, cpu = [], []
    for _ in range(reps):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu)


def trace(src: str, fmt: str) -> str:
    """``gradcli trace`` without parsing options and writing: the run, then the output text."""
    tracer = Tracer()
    result = pipeline.run(src, record=True, tracer=tracer)
    with process_guard():  # as commands.cmd_trace
        tr = tracer.finish(result)
        if fmt == "plain":
            return analysis_plain.trace(tr)
        if fmt == "json":
            doc = analysis_json.trace_doc(tr, result.backend.dtype_name, result.error)
            return render_json.dumps(doc, "events")
        from rich.console import Console

        from gradcli.render import analysis_rich

        out = io.StringIO()
        analysis_rich.trace(Console(file=out, width=120, force_terminal=True), tr)
        return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rich", action="store_true", help="also time the Rich timeline")
    args = ap.parse_args()
    reps = args.reps
    print(f"load average {os.getloadavg()[0]:.2f}; best of {reps}; wall s (cpu s) and the ratio "
          "of cpu to the plain run's")

    result = pipeline.run(DIAMOND, record=True)
    nodes = sum(1 for r in result.records if r.node is not None)
    t_explain, _ = best(lambda: explain(result, "L", "w", 10), reps)
    ex = explain(result, "L", "w", 10)
    print(f"explain, {nodes:,}-node graph, {len(str(ex.paths_total))}-digit path count, "
          f"top 10 (exact={ex.exact}): {t_explain:.3f} s (target < 2 s)")

    formats = ["plain", "json"] + (["rich"] if args.rich else [])
    for name, src in (("chain 10,000 nodes", CHAIN), ("samples/gradient_descent.grad",
                      (ROOT / "samples" / "gradient_descent.grad").read_text())):
        def profiled(s=src):
            p = Profiler()
            p.finish(pipeline.run(s, tracer=p))

        rows = {"run": lambda s=src: pipeline.run(s),
                "run with records": lambda s=src: pipeline.run(s, record=True),
                **{f"trace, {f}": (lambda s=src, f=f: trace(s, f)) for f in formats},
                "profile": profiled}
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in rows}
        for _ in range(reps):  # interleaved: drift on a shared machine hits every row alike
            for k, fn in rows.items():
                times[k].append(best(fn, 1))
        tracer = Tracer()
        events = len(tracer.finish(pipeline.run(src, record=True, tracer=tracer)).events)
        print(f"{name} ({events:,} events):")
        plain_cpu = min(c for _, c in times["run"])
        for k, ts in times.items():
            wall, cpu = min(w for w, _ in ts), min(c for _, c in ts)
            target = "  (target <= 3x)" if k.startswith("trace") else ""
            print(f"  {k:<18} {wall:7.3f} s ({cpu:.3f} s)  {cpu / plain_cpu:5.2f}x{target}")


if __name__ == "__main__":
    main()
