"""Benchmark gradcli's engine against PyTorch eager on the same workloads, in one process.

    python bench/bench_engine.py [--quick] [--reps N] [--threads N] [--only abcd]
    python bench/bench_engine.py --profile a [--profile-top 25]

Every workload is written once against a tiny library interface (``GradcliLib``/``TorchLib``),
so both engines run exactly the same op sequence on the same float64 data.  Times are the best
of ``--reps`` runs after one warm-up, the two libraries' runs interleaved, the garbage collector
collected before and disabled during every timed run of both (``--gc`` keeps it enabled).  The
timed region is forward + backward + the graph's teardown.  Memory (d) runs each library in a
fresh subprocess and reads its resident set from /proc/self/statm.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("gradcli") is None:  # a plain checkout: use its sources
    sys.path.insert(0, str(ROOT / "src"))

import numpy as np

from gradcli import api as F
from gradcli import engine

MB = 1024 * 1024
KEEP_GC = False  # --gc: leave the collector enabled during timed runs (both libraries)
SETTLE_S = 0.2  # pause before each timed run (see run_once)


# --- the two libraries behind one interface -----------------------------------------------------
class GradcliLib:
    """gradcli's engine on its default backend (NumPy, float64)."""

    name = "gradcli"

    def __init__(self) -> None:
        self.backend = engine.current().backend
        self.tanh, self.relu, self.sum = F.tanh, F.relu, F.sum

    def leaf(self, data: Any) -> Any:
        """A float64 leaf that requires grad."""
        return F.param(np.asarray(data, dtype=np.float64).tolist())

    def const(self, data: Any) -> Any:
        """A float64 tensor that does not require grad."""
        return engine.Tensor(self.backend.asarray(data), self.backend)

    def grad(self, t: Any) -> np.ndarray:
        """A leaf's accumulated gradient as a NumPy array."""
        return np.asarray(t._grad.data)


class TorchLib:
    """PyTorch eager, CPU, float64."""

    name = "torch"

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.tanh, self.relu, self.sum = torch.tanh, torch.relu, torch.sum

    def leaf(self, data: Any) -> Any:
        """A float64 leaf that requires grad."""
        return self.torch.tensor(np.asarray(data, dtype=np.float64), requires_grad=True)

    def const(self, data: Any) -> Any:
        """A float64 tensor that does not require grad."""
        return self.torch.tensor(np.asarray(data, dtype=np.float64))

    def grad(self, t: Any) -> np.ndarray:
        """A leaf's accumulated gradient as a NumPy array."""
        return t.grad.numpy()


def load_torch() -> Any:
    """PyTorch, or None when it is not installed (the gradcli half still runs)."""
    try:
        import torch
    except ImportError:
        return None
    return torch


# --- workloads: setup (untimed) returns (leaves, inputs); run (timed) does forward + backward -----
def scalar_setup(lib: Any, n: int) -> tuple:
    """Three 0-d leaves: w, c and the start value."""
    return lib.leaf(0.9), lib.leaf(0.1), lib.leaf(0.3)


def scalar_forward(lib: Any, state: tuple, n: int) -> Any:
    """(a) ``n`` ops on 0-d tensors: y = tanh(y * w + c) repeated."""
    w, c, y = state
    tanh = lib.tanh
    for _ in range(n // 3):
        y = tanh(y * w + c)
    for k in range(n % 3):
        y = y * w if k == 0 else y + c
    return y


def matrix_setup(lib: Any, n: int) -> tuple:
    """Four 3x3 leaves: A (matmul), B (add), C (mul) and the start value."""
    rng = np.random.default_rng(1)
    a, b, c, y = (rng.standard_normal((3, 3)) for _ in range(4))
    return lib.leaf(0.5 * a), lib.leaf(b), lib.leaf(c), lib.leaf(y)


def matrix_forward(lib: Any, state: tuple, n: int) -> Any:
    """(b) ``n`` ops on 3x3 matrices: y = tanh(y @ A + B) * C repeated, then sum."""
    a, b, c, y = state
    tanh = lib.tanh
    for _ in range(n // 4):
        y = tanh(y @ a + b) * c
    return lib.sum(y)


def mlp_setup(lib: Any, n: int) -> tuple:
    """X (n x n, constant), W1 and W2 (n x n leaves), scaled so activations stay O(1)."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((n, n))
    w1, w2 = (rng.standard_normal((n, n)) / np.sqrt(n) for _ in range(2))
    return lib.leaf(w1), lib.leaf(w2), lib.const(x)


def mlp_forward(lib: Any, state: tuple, n: int) -> Any:
    """(c) sum(relu(X @ W1) @ W2)."""
    w1, w2, x = state
    return lib.sum(lib.relu(x @ w1) @ w2)


@dataclass(frozen=True)
class Workload:
    """One row of the table: sizes, the setup/run pair, and the target ratio."""

    key: str
    title: str
    setup: Callable[[Any, int], tuple]
    forward: Callable[[Any, tuple, int], Any]
    leaves: int  # how many leading entries of the state are leaves with gradients
    full: int
    quick: int
    target: float

    def size(self, quick: bool) -> int:
        """The size parameter for a full or a quick run."""
        return self.quick if quick else self.full

    def label(self, n: int) -> str:
        """The table's workload label."""
        return self.title.format(n=n)


WORKLOADS = (
    Workload("a", "a scalar chain {n:,} ops", scalar_setup, scalar_forward, 3, 100_000, 10_000, 0.75),
    Workload("b", "b 3x3 chain {n:,} ops", matrix_setup, matrix_forward, 4, 20_000, 2_000, 0.75),
    Workload("c", "c mlp {n}x{n} f64", mlp_setup, mlp_forward, 2, 1024, 256, 1.10),
)


@dataclass
class Timing:
    """One run's phases in seconds (forward, backward, freeing the graph) and the gradients."""

    forward: float
    backward: float
    free: float
    grads: list

    @property
    def total(self) -> float:
        """The figure compared: forward + backward + freeing the graph."""
        return self.forward + self.backward + self.free


def run_once(w: Workload, lib: Any, n: int) -> Timing:
    """One timed forward + backward + graph teardown (gc collected before, off during)."""
    state = w.setup(lib, n)
    gc.collect()
    # NOTE: OpenBLAS and OpenMP workers spin for a while after a call; let them park so one
    # library's idle threads do not steal a core from the other's timed run.
    time.sleep(SETTLE_S)
    enabled = gc.isenabled()
    if not KEEP_GC:
        gc.disable()
    try:
        t0 = time.perf_counter()
        out = w.forward(lib, state, n)
        t1 = time.perf_counter()
        out.backward()
        t2 = time.perf_counter()
        del out  # the last reference to the graph: its nodes are freed here
        t3 = time.perf_counter()
    finally:
        if enabled:
            gc.enable()
    return Timing(t1 - t0, t2 - t1, t3 - t2, [lib.grad(t) for t in state[: w.leaves]])


def best_of(w: Workload, libs: list, n: int, reps: int) -> dict[str, Timing]:
    """Best run per library over ``reps`` interleaved runs, after one warm-up each."""
    best: dict[str, Timing] = {}
    for lib in libs:
        run_once(w, lib, n)
    for _ in range(reps):
        for lib in libs:
            t = run_once(w, lib, n)
            if lib.name not in best or t.total < best[lib.name].total:
                best[lib.name] = t
    return best


def max_abs_diff(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    """Largest absolute difference over all leaves' gradients."""
    return max(float(np.max(np.abs(x - y))) for x, y in zip(a, b))


# --- (d) memory: a chain holding big saved tensors, before and after backward ------------------
def rss() -> int:
    """Resident set size of this process in bytes (/proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_child(libname: str, elems: int, depth: int) -> dict[str, float]:
    """In this process: y = tanh^depth(x * s) on ``elems`` floats; RSS around a backward.

    Each tanh saves its result (PyTorch's rule), so the graph holds ``depth`` saved arrays plus
    the product.  After a backward without retain_graph only the final output should remain.
    """
    lib = GradcliLib() if libname == "gradcli" else TorchLib(__import__("torch"))
    x = lib.const(np.full(elems, 0.5))
    s = lib.leaf(1.5)
    gc.collect()
    base = rss()
    y = x * s
    for _ in range(depth):
        y = lib.tanh(y)
    fwd = rss()
    lib.sum(y).backward()
    gc.collect()
    bwd = rss()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    return {"chunk_mb": elems * 8 / MB, "saved_mb": depth * elems * 8 / MB,
            "after_forward_mb": (fwd - base) / MB, "after_backward_mb": (bwd - base) / MB,
            "peak_mb": (peak - base) / MB, "grad": float(lib.grad(s))}


def measure_memory(libname: str, elems: int, depth: int, threads: int) -> dict[str, float]:
    """Run ``memory_child`` in a fresh interpreter so RSS numbers are its own."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--memory-child", libname,
           str(elems), str(depth)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def memory_passes(m: dict[str, float]) -> bool:
    """Released: what stays after backward is at most the live output plus 10% of what was held."""
    return m["after_backward_mb"] <= m["chunk_mb"] + 0.1 * m["after_forward_mb"]


# --- environment --------------------------------------------------------------------------------
def set_threads(n: int, torch: Any) -> tuple[Any, str]:
    """Limit NumPy's BLAS (threadpoolctl) and PyTorch to ``n`` threads; describe the BLAS."""
    if torch is not None:
        torch.set_num_threads(n)
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        return None, "threadpoolctl not installed: NumPy's BLAS threads not limited"
    limiter = threadpool_limits(n, user_api="blas")
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    text = "; ".join(f"{i['internal_api']} {i.get('version')} kernel={i.get('architecture')} "
                     f"threads={i['num_threads']}" for i in blas) or "no BLAS found"
    return limiter, text


def header(threads: int, blas: str, torch: Any, reps: int) -> list[str]:
    """What the numbers were measured on."""
    core = os.environ.get("OPENBLAS_CORETYPE", "<unset>")
    return [
        (f"python {platform.python_version()}  numpy {np.__version__}  torch "
         f"{torch.__version__ if torch is not None else '<not installed>'}  "
         f"cpus {os.cpu_count()}  load {os.getloadavg()[0]:.2f}"),
        f"threads {threads} (torch.set_num_threads + threadpoolctl)  OPENBLAS_CORETYPE={core}",
        f"numpy BLAS: {blas}",
        (f"best of {reps} after 1 warm-up, interleaved; gc "
         f"{'enabled' if KEEP_GC else 'collected before, disabled during'} each timed run"),
    ]


# --- main ---------------------------------------------------------------------------------------
def table(rows: list[tuple[str, ...]]) -> str:
    """Columns padded to width, the first left-aligned, a rule under the header."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(wd) if j == 0 else c.rjust(wd)
                       for j, (c, wd) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "  ".join("-" * wd for wd in widths))
    return "\n".join(lines)


def time_rows(args: argparse.Namespace, libs: list, reps: int) -> tuple[list, list]:
    """Rows of the main table for workloads a-c, and rows of the phase breakdown."""
    rows, phases = [], []
    for w in WORKLOADS:
        if w.key not in args.only:
            continue
        n = w.size(args.quick)
        best = best_of(w, libs, n, reps)
        g, t = best["gradcli"], best.get("torch")
        ratio = g.total / t.total if t is not None else None
        rows.append((
            w.label(n), f"{g.total:.4f}", f"{t.total:.4f}" if t else "-",
            f"{ratio:.2f}x" if ratio else "-", f"<= {w.target:.2f}x",
            "-" if ratio is None else ("PASS" if ratio <= w.target else "MISS"),
            f"{max_abs_diff(g.grads, t.grads):.1e}" if t else "-"))
        for name, r in best.items():
            phases.append((f"{w.key} {name}", f"{r.forward:.4f}", f"{r.backward:.4f}",
                           f"{r.free:.4f}"))
    return rows, phases


def memory_row(args: argparse.Namespace, libs: list) -> tuple[str, ...]:
    """The table's row for (d): MB above baseline after forward -> after backward."""
    elems, depth = (2**22, 4) if args.quick else (2**23, 8)
    got = {lib.name: measure_memory(lib.name, elems, depth, args.threads) for lib in libs}

    def cell(name: str) -> str:
        m = got.get(name)
        return "-" if m is None else (f"{m['after_forward_mb']:.0f}->"
                                      f"{m['after_backward_mb']:.0f} MB")

    g = got["gradcli"]
    return (f"d memory, {g['saved_mb']:.0f} MB saved", cell("gradcli"), cell("torch"), "-",
            "released", "PASS" if memory_passes(g) else "MISS", "-")


def bench(args: argparse.Namespace) -> int:
    """Run the selected workloads and print the tables; exit code 0 (MISS is not an error)."""
    global KEEP_GC
    KEEP_GC = args.gc
    torch = load_torch()
    libs: list = [GradcliLib()] + ([TorchLib(torch)] if torch is not None else [])
    limiter, blas = set_threads(args.threads, torch)
    reps = args.reps or (2 if args.quick else 5)
    print("\n".join(header(args.threads, blas, torch, reps)), end="\n\n")
    if os.getloadavg()[0] > 1.0:
        print(f"note: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus: other work "
              "is running; absolute times are inflated and ratios noisy (multi-threaded BLAS stalls when a "
              "core is taken: compare with --threads 1)\n")
    rows, phases = time_rows(args, libs, reps)
    if "d" in args.only:
        rows.append(memory_row(args, libs))
    head = ("workload", "gradcli s", "torch s", "ratio", "target", "result", "grad max|diff|")
    print(table([head, *rows]))
    if phases:
        print("\nphases of the best run (s)\n" + table([("run", "forward", "backward", "free graph"),
                                                         *phases]))
    if "d" in args.only:
        print("\nd: RSS above baseline after forward -> after backward (no retain_graph); PASS "
              "when what stays is at most the live output plus 10%")
    if limiter is not None:
        limiter.restore_original_limits()
    return 0


def profile(args: argparse.Namespace) -> int:
    """Profile the gradcli half of one workload (gc off, as when timed); print the hot spots."""
    w = next(w for w in WORKLOADS if w.key == args.profile)
    lib, n = GradcliLib(), w.size(args.quick)
    state = w.setup(lib, n)
    gc.collect()
    gc.disable()
    if args.profiler == "pyinstrument":
        from pyinstrument import Profiler

        prof = Profiler(interval=0.0002)
        prof.start()
        w.forward(lib, state, n).backward()
        prof.stop()
        print(prof.output_text(unicode=False, color=False, show_all=False))
    else:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.runcall(lambda: w.forward(lib, state, n).backward())
        pstats.Stats(prof).strip_dirs().sort_stats("tottime").print_stats(args.profile_top)
    gc.enable()
    return 0


def parse(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller sizes for a smoke run (<20 s)")
    p.add_argument("--reps", type=int, default=0, help="timed runs per library (best is kept)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="threads for NumPy's BLAS and PyTorch (default: all cpus)")
    p.add_argument("--only", default="abcd", help="workloads to run, e.g. 'ab'")
    p.add_argument("--gc", action="store_true", help="keep the garbage collector enabled")
    p.add_argument("--profile", choices=[w.key for w in WORKLOADS],
                   help="profile the gradcli half of one workload instead of benchmarking")
    p.add_argument("--profiler", choices=("cprofile", "pyinstrument"), default="cprofile")
    p.add_argument("--profile-top", type=int, default=25, help="rows of cProfile's listing")
    p.add_argument("--memory-child", nargs=3, metavar=("LIB", "ELEMS", "DEPTH"),
                   help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = parse(argv)
    if args.memory_child:
        name, elems, depth = args.memory_child
        print(json.dumps(memory_child(name, int(elems), int(depth))))
        return 0
    return profile(args) if args.profile else bench(args)


if __name__ == "__main__":
    sys.exit(main())
