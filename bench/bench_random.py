"""Benchmark gradcli's PyTorch-exact generator against PyTorch and NumPy, in one process.

    python bench/bench_random.py [--quick] [--reps N]

Each row draws the same numbers with ``gradcli.engine.generator.Generator`` and with a
``torch.Generator`` (and checks they are bit for bit equal), and times NumPy's own generator
drawing as many (``numpy.random.Generator``: ziggurat normals, not PyTorch's numbers) as the
yardstick the brief names.  Times are the best of ``--reps`` runs, the three interleaved,
all single-threaded (PyTorch's CPU random kernels are serial anyway).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("gradcli") is None:  # a plain checkout: use its sources
    sys.path.insert(0, str(ROOT / "src"))

import numpy as np

from gradcli.engine.generator import Generator

# name -> (gradcli draw, torch draw, numpy draw); each gets a fresh generator seeded 0
Row = tuple[Callable[[Generator], Any], Callable[[Any, Any], Any], Callable[[Any], Any]]


def rows(torch: Any, big: int, small: int) -> dict[str, Row]:
    f32, f64 = torch.float32, torch.float64
    return {
        f"randn({big:,}) float32": (
            lambda g: g.normal((big,), "float32"),
            lambda t, g: t.randn(big, generator=g),
            lambda r: r.standard_normal(big, dtype=np.float32)),
        f"randn({big:,}) float64": (
            lambda g: g.normal((big,), "float64"),
            lambda t, g: t.randn(big, dtype=f64, generator=g),
            lambda r: r.standard_normal(big)),
        f"rand({big:,}) float32": (
            lambda g: g.uniform((big,), "float32"),
            lambda t, g: t.rand(big, generator=g),
            lambda r: r.random(big, dtype=np.float32)),
        f"rand({big:,}) float64": (
            lambda g: g.uniform((big,), "float64"),
            lambda t, g: t.rand(big, dtype=f64, generator=g),
            lambda r: r.random(big)),
        f"normal(1, 2, {big:,}) float32": (
            lambda g: g.normal((big,), "float32", 1.0, 2.0),
            lambda t, g: t.normal(1.0, 2.0, (big,), dtype=f32, generator=g),
            lambda r: r.normal(1.0, 2.0, big).astype(np.float32)),
        f"randint(0, 1000, {big:,})": (
            lambda g: g.randint(0, 1000, (big,)),
            lambda t, g: t.randint(0, 1000, (big,), generator=g),
            lambda r: r.integers(0, 1000, big)),
        f"randperm({small:,})": (
            lambda g: g.randperm(small),
            lambda t, g: t.randperm(small, generator=g),
            lambda r: r.permutation(small)),
        "randn(3) float64": (
            lambda g: g.normal((3,), "float64"),
            lambda t, g: t.randn(3, dtype=f64, generator=g),
            lambda r: r.standard_normal(3)),
        "randn(100) float32": (
            lambda g: g.normal((100,), "float32"),
            lambda t, g: t.randn(100, generator=g),
            lambda r: r.standard_normal(100, dtype=np.float32)),
    }


def timed(fn: Callable[..., Any], *args: Any) -> float:
    """Seconds one call of ``fn(*args)`` takes."""
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100,000 elements instead of 1,000,000")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        raise SystemExit("PyTorch is needed for the comparison: pip install torch==2.13.0")
    torch.set_num_threads(1)
    big, small = (100_000, 10_000) if args.quick else (1_000_000, 100_000)
    print(f"torch {torch.__version__} ({torch.backends.cpu.get_cpu_capability()}), numpy "
          f"{np.__version__}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus")
    head = ("draw", "gradcli ms", "torch ms", "numpy ms", "/torch", "/numpy", "same bits")
    table = [head]
    for name, (ours, theirs, yardstick) in rows(torch, big, small).items():
        g, tg, rng = Generator(0), torch.Generator().manual_seed(0), np.random.default_rng(0)
        same = np.asarray(ours(g)).tobytes() == theirs(torch, tg).numpy().tobytes()
        times = {"g": [], "t": [], "n": []}
        for _ in range(args.reps):  # interleaved, so load changes hit all three
            times["g"].append(timed(ours, g))
            times["t"].append(timed(theirs, torch, tg))
            times["n"].append(timed(yardstick, rng))
        tg_, tt, tn = (min(times[k]) * 1e3 for k in "gtn")
        table.append((name, f"{tg_:.3f}", f"{tt:.3f}", f"{tn:.3f}", f"{tg_ / tt:.1f}x",
                      f"{tg_ / tn:.1f}x", "yes" if same else "NO"))
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0 if all(r[-1] == "yes" for r in table[1:]) else 1


if __name__ == "__main__":
    sys.exit(main())
