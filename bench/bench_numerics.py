"""The PyTorch-exact kernels (engine/exact) against NumPy's own and PyTorch's, in one run.

    python bench/bench_numerics.py            # every kernel, best of 7
    python bench/bench_numerics.py --reps 3 --only sum

Each row times one call on float32 data: gradcli's exact kernel, the plain NumPy call the engine
used before (NumPy's pairwise sum, its SIMD exp ...) and PyTorch's (when installed), best of N runs
after a warm-up, interleaved.  ``cache`` repeats one array (it stays in the caches); ``stream``
cycles through 16 arrays of the same size, so every call reads from memory.  The brief: a
float32 sum of 1e6 elements within about 3x NumPy's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from gradcli.engine import exact

try:
    import torch
except ImportError:  # the bench runs without it; the torch column is then empty
    torch = None


def _best(fn, arrays: list, reps: int) -> float:
    fn(arrays[0])
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        for a in arrays:
            fn(a)
        best = min(best, (time.perf_counter() - start) / len(arrays))
    return best


def kernels() -> list:
    """(name, size, exact, numpy, torch) per row."""
    t = (lambda f: (lambda a: f(torch.from_numpy(a)))) if torch else (lambda f: None)
    return [
        ("sum", 10 ** 6, exact.sum_, np.sum, t(torch.sum) if torch else None),
        ("sum", 10 ** 4, exact.sum_, np.sum, t(torch.sum) if torch else None),
        ("sum dim=1", (1000, 1000), lambda a: exact.sum_(a, (1,)), lambda a: a.sum(1),
         t(lambda x: x.sum(1)) if torch else None),
        ("sigmoid", 10 ** 5, exact.sigmoid, lambda a: 1 / (1 + np.exp(-a)),
         t(torch.sigmoid) if torch else None),
        ("softmax dim=-1", (1000, 100), lambda a: exact.softmax(a, 1),
         lambda a: np.exp(a - a.max(1, keepdims=True)) / np.exp(a - a.max(1, keepdims=True))
         .sum(1, keepdims=True), t(lambda x: torch.softmax(x, 1)) if torch else None),
        ("exp (MKL stand-in)", 10 ** 5, lambda a: exact.mkl("exp", a), np.exp,
         t(torch.exp) if torch else None),
        ("mm 64x64", (64, 64), lambda a: exact.matmul(a, a), lambda a: a @ a,
         t(lambda x: x @ x) if torch else None),
        ("mv 1000x10", (1000, 10), lambda a: exact.matmul(a, a[0]), lambda a: a @ a[0],
         t(lambda x: x @ x[0]) if torch else None),
    ]


def main() -> None:
    """Time every kernel; print a table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    if torch is not None:
        torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    print(f"{'kernel':22s} {'size':>12s} {'mode':6s} {'exact ms':>9s} {'numpy ms':>9s} "
          f"{'torch ms':>9s} {'exact/numpy':>11s} {'exact/torch':>11s}")
    for name, size, ex, npf, tf in kernels():
        if args.only and args.only not in name:
            continue
        shape = size if isinstance(size, tuple) else (size,)
        pool = [rng.standard_normal(shape).astype(np.float32) for _ in range(16)]
        for mode, arrays in (("cache", pool[:1] * 16), ("stream", pool)):
            te, tn = _best(ex, arrays, args.reps), _best(npf, arrays, args.reps)
            tt = _best(tf, arrays, args.reps) if tf else float("nan")
            print(f"{name:22s} {size!s:>12s} {mode:6s} {te * 1e3:9.3f} {tn * 1e3:9.3f} "
                  f"{tt * 1e3:9.3f} {te / tn:11.2f} {te / tt:11.2f}")


if __name__ == "__main__":
    main()
