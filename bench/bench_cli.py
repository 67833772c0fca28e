"""End-to-end time: `gradcli` commands against the same programs run by PyTorch, one run each.

    python bench/bench_cli.py [--reps N] [--lines N] [--steps N] [--size N] [--only ROWS]
                              [--baseline DIR] [--no-bytecode]

Rows (each a fresh process, best of N, the two sides interleaved; wall seconds, and the ratio
of CPU seconds too, steadier on a loaded machine):
  python -c pass             the interpreter's own start-up, for scale
  gradcli --version          gradcli's start-up alone
  chain_rule.grad            `gradcli grad samples/chain_rule.grad --wrt w1` vs the same program
                             in PyTorch (target: at most 0.10 of PyTorch's time)
  small.py                   `gradcli run small.py` vs `python small.py`, the same file: a small
                             PyTorch program (target: at most 0.10)
  scalar script, N stmts     a generated N-statement scalar script, `gradcli grad --wrt w` vs the
                             same program in PyTorch (target: at most 0.25)
  training loop, N steps     bench_program's gradient-descent loop, `gradcli run train.py` vs
                             `python train.py` (target: at most 0.20; the same text printed)
  matmul NxN, plain grad     `sum(relu(X @ W))`, `gradcli grad --wrt W --format plain` (the
                             gradient printed in full) vs PyTorch printing `g.tolist()`
                             (target: at most 0.90)

gradcli runs from this checkout's ``src`` through the ``gradcli`` script installed beside this
Python (the entry point users run; ``python -m gradcli`` if there is none); ``--baseline DIR``
also runs each gradcli command from another checkout (DIR/src, e.g. ``git worktree add
/tmp/old main``) in the same rounds, for before/after figures.  Python's bytecode cache is on
for every process (in a temporary ``PYTHONPYCACHEPREFIX``, filled by one untimed run), as after
``pip install``; ``--no-bytecode`` compiles gradcli's modules in every process instead.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_program  # the training loop's text

MATMUL_GRAD = """\
seed(0)
X = randn({n}, {n})
W = randn({n}, {n})
L = sum(relu(X @ W))
"""

MATMUL_TORCH = """\
import torch
torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
X = torch.randn({n}, {n})
W = torch.randn({n}, {n}).requires_grad_()
L = torch.relu(X @ W).sum()
(g,) = torch.autograd.grad(L, [W])
print(f"dL/dW = {{g.tolist()}}")
"""

SMALL_TORCH = """\
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.tensor([1.0, 2.0, 3.0])
y = torch.tanh(w * x).sum()
y.backward()
print(y)
print(w.grad)
"""

CHAIN_TORCH = """\
import torch
torch.set_default_dtype(torch.float64)
x1 = torch.tensor(1.); x2 = torch.tensor(2.)
w1 = torch.tensor(1.).requires_grad_(); w2 = torch.tensor(2.); w3 = torch.tensor(3.)
x3 = w1 * x1
x4 = w1 * x2
x5 = w2 * x3 + w3 * x4
L = 1 - x5
(g,) = torch.autograd.grad(L, [w1], retain_graph=True)
print(f"dL/dw1 = {g.item()}")
"""


def scalar_script(n: int) -> tuple[str, str]:
    """The same n-statement scalar program as a grad script and as a PyTorch program."""
    grad_lines = ["w = 0.5", "c = 0.1", "x0 = 0.3", "x1 = 0.7"]
    torch_lines = [
        "import torch", "torch.set_default_dtype(torch.float64)",
        "w = torch.tensor(0.5).requires_grad_()", "c = torch.tensor(0.1)",
        "x0 = torch.tensor(0.3)", "x1 = torch.tensor(0.7)",
    ]
    for i in range(2, n):
        kind = i % 3
        if kind == 0:
            expr = f"tanh(x{i - 1} * w + c)"
            texpr = f"torch.tanh(x{i - 1} * w + c)"
        elif kind == 1:
            expr = texpr = f"x{i - 1} * 0.9 + x{i - 2} * 0.1"
        else:
            expr = texpr = f"x{i - 1} - w * 0.01"
        grad_lines.append(f"x{i} = {expr}")
        torch_lines.append(f"x{i} = {texpr}")
    grad_lines.append(f"L = x{n - 1} * 1.0")
    torch_lines.append(f"L = x{n - 1} * 1.0")
    torch_lines.append("(g,) = torch.autograd.grad(L, [w], retain_graph=True)")
    torch_lines.append('print(f"dL/dw = {g.item()}")')
    return "\n".join(grad_lines) + "\n", "\n".join(torch_lines) + "\n"


ENVS: dict[str, dict[str, str]] = {}  # the environment of each side (main fills it)


def once(cmd: list[str], cwd: str | None = None, env: dict[str, str] | None = None
         ) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system) of one run of ``cmd``, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=cwd, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout.strip()


BASELINE: list[tuple] = []  # the baseline's (wall, cpu, out) of each pair, with --baseline


def pair(a: list[str], b: list[str], reps: int, cwd: str | None = None) -> tuple:
    """Best wall and CPU seconds of ``a`` (gradcli) and of ``b`` (torch) over ``reps``
    interleaved runs, and the (last) stdout of each: ((wall, cpu, out) of a, (...) of b).
    With a baseline, ``a`` also runs from it in the same rounds (appended to BASELINE)."""
    sides = [(a, ENVS["new"]), (b, ENVS["torch"])]
    if "old" in ENVS:
        sides.append((a, ENVS["old"]))
    for cmd, env in sides:  # untimed: fills the bytecode cache, warms the disk
        once(cmd, cwd, env)
    best = [[float("inf"), float("inf"), ""] for _ in sides]
    for _ in range(reps):
        for side, (cmd, env) in enumerate(sides):
            wall, cpu, out = once(cmd, cwd, env)
            best[side] = [min(best[side][0], wall), min(best[side][1], cpu), out]
    if "old" in ENVS:
        BASELINE.append(tuple(best[2]))
    return tuple(best[0]), tuple(best[1])


def row(name: str, g: tuple, t: tuple, target: float, same: bool) -> tuple:
    """A table row: gradcli's and torch's wall seconds, the wall and CPU ratios, the verdict."""
    ratio, cpu_ratio = g[0] / t[0], g[1] / t[1]
    verdict = ("PASS" if ratio <= target else "MISS") + ("" if same else " (answers differ)")
    return (name, f"{g[0]:.3f}", f"{t[0]:.3f}", f"{ratio:.3f}", f"{cpu_ratio:.3f}",
            f"<= {target}", verdict)


def _grad_numbers(doc: str) -> list[float]:
    """Every element of W's gradient in ``gradcli grad --format json``'s document (its full
    precision; the plain form prints tensors as PyTorch does, to 4 decimals)."""
    out, stack = [], [json.loads(doc)["wrt"]["W"]["data"]]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(reversed(v))
        else:
            out.append(float(v))
    return out


def _numbers(text: str) -> list[float]:
    return [float(v) for v in text.split("=", 1)[1].strip(" []\n").replace("]", "")
            .replace("[", "").split(",")]


def main(argv: list[str] | None = None) -> int:
    """Run the rows and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--only", default="vcpstm",
                    help="rows: v(ersion) c(hain) p (small.py) s(calar) t(raining) m(atmul)")
    ap.add_argument("--baseline", metavar="DIR", help="another checkout to time alongside")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="no bytecode cache for gradcli's modules")
    args = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        raise SystemExit("PyTorch is needed for the comparison: pip install torch==2.13.0")
    script = Path(sys.executable).with_name("gradcli")
    base = [str(script)] if script.is_file() else [sys.executable, "-m", "gradcli"]
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    pycache = tempfile.TemporaryDirectory()
    if args.no_bytecode:
        clean["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        clean["PYTHONPYCACHEPREFIX"] = pycache.name
    ENVS.update(torch=clean, new=dict(clean, PYTHONPATH=str(ROOT / "src")))
    if args.baseline:
        ENVS["old"] = dict(clean, PYTHONPATH=str(Path(args.baseline).resolve() / "src"))
    env_note = (f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus; "
                f"{'no bytecode cache' if args.no_bytecode else 'bytecode cached'}; "
                f"gradcli is {' '.join(base)}")
    py = sys.executable
    rows = []
    t_pass, _, _ = once([py, "-c", "pass"], env=clean)
    rows.append(("python -c pass", f"{t_pass:.3f}", "", "", "", "", ""))
    with tempfile.TemporaryDirectory() as tmp:
        if "v" in args.only:
            g, _ = pair([*base, "--version"], [py, "-c", "pass"], args.reps)
            rows.append(("gradcli --version", f"{g[0]:.3f}", "", "", "", "", ""))
        if "c" in args.only:
            chain_py = Path(tmp, "chain.py")
            chain_py.write_text(CHAIN_TORCH)
            g, t = pair([*base, "grad", str(ROOT / "samples" / "chain_rule.grad"), "--wrt", "w1"],
                        [py, str(chain_py)], args.reps)
            rows.append(row("chain_rule.grad", g, t, 0.10, g[2] == t[2]))
        if "p" in args.only:
            Path(tmp, "small.py").write_text(SMALL_TORCH)
            g, t = pair([*base, "run", "small.py"], [py, "small.py"], args.reps, cwd=tmp)
            rows.append(row("small.py", g, t, 0.10, g[2] == t[2]))
        if "s" in args.only:
            grad_src, torch_src = scalar_script(args.lines)
            gpath, tpath = Path(tmp, "scalar.grad"), Path(tmp, "scalar.py")
            gpath.write_text(grad_src)
            tpath.write_text(torch_src)
            g, t = pair([*base, "grad", str(gpath), "--wrt", "w"], [py, str(tpath)],
                        max(1, args.reps // 2))
            same = abs(float(g[2].split("=")[1]) - float(t[2].split("=")[1])) < 1e-9
            rows.append(row(f"scalar script, {args.lines:,} stmts", g, t, 0.25, same))
        if "t" in args.only:
            Path(tmp, "train.py").write_text(bench_program.program(args.steps))
            g, t = pair([*base, "run", "train.py"], [py, "train.py"], args.reps, cwd=tmp)
            rows.append(row(f"training loop, {args.steps:,} steps", g, t, 0.20, g[2] == t[2]))
        if "m" in args.only:
            gpath, tpath = Path(tmp, "mm.grad"), Path(tmp, "mm.py")
            gpath.write_text(MATMUL_GRAD.format(n=args.size))
            tpath.write_text(MATMUL_TORCH.format(n=args.size))
            g, t = pair([*base, "grad", str(gpath), "--wrt", "W", "--format", "json"],
                        [py, str(tpath)], max(1, args.reps // 2))
            a, b = _grad_numbers(g[2]), _numbers(t[2])  # float64 sums in two BLAS orders
            same = len(a) == len(b) and all(abs(x - y) <= 1e-9 * max(1.0, abs(y))
                                            for x, y in zip(a, b))
            rows.append(row(f"matmul {args.size}x{args.size}, plain grad", g, t, 0.90, same))
    pycache.cleanup()
    head = ("row", "gradcli s", "torch s", "ratio", "cpu ratio", "target", "result")
    if args.baseline:  # the baseline's wall seconds beside gradcli's, row by row
        old = iter(BASELINE)
        head = (*head[:2], "baseline s", *head[2:])
        rows = [(*r[:2], "" if i == 0 else f"{next(old)[0]:.3f}", *r[2:])
                for i, r in enumerate(rows)]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    print(env_note)
    for r in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
