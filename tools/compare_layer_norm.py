"""F.layer_norm on gradcli's engine against this machine's PyTorch: the share of equal bits of
the output, the saved mean and rstd, and the gradients of input, weight and bias.

    python tools/compare_layer_norm.py [--rows 64] [--seeds 3] [--threads 1,2]

Needs PyTorch (not a test: the suite runs without it).  Inputs are random normals with a random
offset and scale per case (an offset large against the scale is where the row statistics' order
of operations shows), 2-D and 3-D, with and without weight and bias.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import types
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from gradcli import api
from gradcli.engine import RunContext, use
from gradcli.engine.backend import get_backend, quiet, to_host
from gradcli.engine.machine import Machine
from gradcli.engine.tensor import Tensor

SIZES = (3, 5, 8, 16, 17, 64, 100, 768)
GC = types.SimpleNamespace(**api.NN_FUNCTIONS)


def inputs(rng, lead: tuple, size: int, dtype: str, affine: str) -> list:
    scale = 10.0 ** rng.uniform(-3, 3)
    offset = rng.uniform(-1, 1) * scale * 10.0 ** rng.uniform(-1, 3)
    x = rng.standard_normal(lead + (size,)) * scale + offset
    w = rng.standard_normal(size) if "w" in affine else None
    b = rng.standard_normal(size) if "b" in affine else None
    g = rng.standard_normal(lead + (size,))
    return [None if a is None else np.asarray(a, dtype) for a in (x, w, b, g)]


def run_torch(x, w, b, g, eps):
    t = [None if a is None else torch.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b)]
    y, mean, rstd = torch.native_layer_norm(t[0], (x.shape[-1],), t[1], t[2], eps)
    y.backward(torch.from_numpy(g))
    return [y.detach().numpy(), mean.detach().numpy(), rstd.detach().numpy()] + \
        [None if a is None else a.grad.numpy() for a in t]


def run_gradcli(x, w, b, g, eps, threads):
    ctx = RunContext(get_backend("numpy", str(x.dtype)), warnings=[],
                     machine=Machine("AVX2", threads))
    with use(ctx), quiet():
        t = [None if a is None else Tensor(ctx.backend.asarray(a.copy()), ctx.backend)
             for a in (x, w, b)]
        leaves = [None if a is None else a.requires_grad_(True) for a in t]
        y = GC.layer_norm(leaves[0], (x.shape[-1],), leaves[1], leaves[2], eps)
        node = y.grad_fn
        saved = [np.asarray(to_host(node._saved_result1.data)),
                 np.asarray(to_host(node._saved_result2.data))] if hasattr(
                     node, "_saved_result1") else [None, None]
        y.backward(Tensor(ctx.backend.asarray(g), ctx.backend))
        return [np.asarray(to_host(y.data))] + saved + \
            [None if a is None else np.asarray(to_host(a.grad.data)) for a in leaves]


NAMES = ("output", "mean", "rstd", "grad_input", "grad_weight", "grad_bias")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=64)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--threads", default="1,2")
    args = p.parse_args()
    totals: dict = {}
    for threads in map(int, args.threads.split(",")):
        torch.set_num_threads(threads)
        for dtype, size, affine, nd, seed in itertools.product(
                ("float32", "float64"), SIZES, ("", "w", "b", "wb"), (2, 3), range(args.seeds)):
            rng = np.random.default_rng([seed, size, nd, len(affine), threads])
            lead = (args.rows,) if nd == 2 else (3, max(1, args.rows // 3))
            x, w, b, g = inputs(rng, lead, size, dtype, affine)
            want = run_torch(x, w, b, g, 1e-5)
            got = run_gradcli(x, w, b, g, 1e-5, threads)
            for name, a, e in zip(NAMES, got, want):
                if e is None or a is None:
                    continue
                same = (a.reshape(-1) == e.reshape(-1)) | (np.isnan(a.reshape(-1))
                                                           & np.isnan(e.reshape(-1)))
                key = (name, dtype, size)
                eq, n = totals.get(key, (0, 0))
                totals[key] = (eq + int(same.sum()), n + same.size)
    for name in NAMES:
        for dtype in ("float32", "float64"):
            cells = []
            for size in SIZES:
                eq, n = totals.get((name, dtype, size), (0, 0))
                cells.append(f"{size}:{eq / n:.4f}" if n else f"{size}:-")
            print(f"{name:11s} {dtype}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
