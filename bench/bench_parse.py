"""Parse+compile speed of gradcli's front end on a generated 100,000-line scalar script.

Run: PYTHONPATH=src python bench/bench_parse.py [--lines N] [--repeat R]
Prints lines/s for parse+compile (best of R), the cold parser build (Lark's LALR analysis)
and the warm build (tables read from the per-user cache), and CPython's ast.parse for scale;
then the same for the corpus programs (tests/corpus), each parsed on its own as the CLI parses
one: short programs of varied lines.
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from gradcli.language import grammar
from gradcli.language import parser as syntax


def make_script(n: int, seed: int = 0) -> str:
    """A scalar script of ``n`` lines mixing assignments, calls, updates and one-line ifs."""
    rng = random.Random(seed)
    lines = ["x0 = 1", "w0 = 0.5"]
    k = 1
    while len(lines) < n:
        a, b, c = (rng.randrange(max(1, k - 20), k + 1) for _ in range(3))
        r = rng.random()
        if r < 0.5:
            lines.append(f"x{k} = w{a % 7} * x{b} + tanh(x{c}) - 1")
        elif r < 0.7:
            lines.append(f"w{k % 7} = {rng.random():.4f}")
        elif r < 0.8:
            lines.append(f"x{k} = -x{a}**2 / (1 + exp(-x{b}))")
        elif r < 0.9:
            lines.append(f"x{k} += 0.1 * x{a}  # step")
        else:
            lines.append(f"if x{a} > 0: x{k} = x{b} * 2")
        k += 1
    return "\n".join(lines) + "\n"


def best(fn: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` timed calls, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main() -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    src = make_script(args.lines)

    text = grammar.grammar_text()
    cold = best(lambda: grammar.from_data(grammar.compile_tables(text)), args.repeat)
    saved = os.environ.get("GRADCLI_CACHE_DIR")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GRADCLI_CACHE_DIR"] = tmp
        grammar.load()  # fills the cache
        warm = best(grammar.load, args.repeat)
    if saved is None:
        del os.environ["GRADCLI_CACHE_DIR"]
    else:
        os.environ["GRADCLI_CACHE_DIR"] = saved

    syntax.parse("x = 1\n")  # build the parser outside the timing
    t = best(lambda: syntax.parse(src), args.repeat)
    print(f"parse+compile: {args.lines / t:,.0f} lines/s ({t:.2f} s for {args.lines:,} lines)")
    print(
        f"parser build: cold {cold * 1000:.0f} ms (Lark LALR analysis), "
        f"warm {warm * 1000:.1f} ms (JSON tables from the cache)"
    )

    def python_ast() -> None:
        gc.disable()
        try:
            tree = ast.parse(src)
            sum(1 for _ in ast.walk(tree))
        finally:
            gc.enable()

    t_ast = best(python_ast, args.repeat)
    print(f"for scale, CPython ast.parse + one walk: {args.lines / t_ast:,.0f} lines/s")

    corpus = sorted(Path(__file__).resolve().parents[1].glob("tests/corpus/*.py"))
    programs = [p.read_text(encoding="utf-8") for p in corpus]
    if programs:
        lines = sum(p.count("\n") for p in programs)
        t = best(lambda: [syntax.parse(p) for p in programs], args.repeat)
        print(f"corpus: {lines / t:,.0f} lines/s ({len(programs)} programs, {lines:,} lines, "
              f"{t * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
