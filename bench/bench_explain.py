"""explain, trace and profile costs: explain on a 10,000-node graph, trace and profile against
the plain run of the same script (best of N, same process)."""

from __future__ import annotations

import argparse
import importlib.util
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

# 10,000 graph nodes: 5,000 levels of a = x * 0.5; x = a + x (2**5000 paths from L to w)
DIAMOND = "w = param(1.0)\nx = w\nfor i in range(5000):\n    a = x * 0.5\n    x = a + x\nL = x\n"
# 10,000 nodes in one chain of tanh/mul, then a backward: the trace's worst case per node
CHAIN = ("w = param(0.5)\ny = w\nfor i in range(5000):\n    y = tanh(y * w)\n"
         "y.backward()\n")


def best(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=5)
    reps = ap.parse_args().reps

    result = pipeline.run(DIAMOND, record=True)
    nodes = sum(1 for r in result.records if r.node is not None)
    t_explain = best(lambda: explain(result, "L", "w", 10), reps)
    ex = explain(result, "L", "w", 10)
    print(f"explain, {nodes:,}-node graph, {len(str(ex.paths_total))}-digit path count, "
          f"top 10 (exact={ex.exact}): {t_explain:.3f} s (target < 2 s)")

    for name, src in (("chain 10,000 nodes", CHAIN), ("samples/gradient_descent.grad",
                      (ROOT / "samples" / "gradient_descent.grad").read_text())):
        plain = best(lambda s=src: pipeline.run(s), reps)
        record = best(lambda s=src: pipeline.run(s, record=True), reps)

        def traced(s=src):
            t = Tracer()
            t.finish(pipeline.run(s, record=True, tracer=t))

        def profiled(s=src):
            p = Profiler()
            p.finish(pipeline.run(s, tracer=p))

        tr, pr = best(traced, reps), best(profiled, reps)
        print(f"{name}: run {plain:.3f} s, run with records {record:.3f} s, trace {tr:.3f} s "
              f"({tr / plain:.2f}x, target <= 3x), profile {pr:.3f} s ({pr / plain:.2f}x)")


if __name__ == "__main__":
    main()
