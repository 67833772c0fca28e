"""End-to-end time: `gradcli` commands against the same programs run by PyTorch, one run each.

    python bench/bench_cli.py [--reps N] [--lines N] [--steps N] [--size N] [--only ROWS]

Rows (each a fresh process, best of N, the two sides interleaved; wall seconds, and the ratio
of CPU seconds too, steadier on a loaded machine):
  python -c pass             the interpreter's own start-up, for scale
  chain_rule.grad            `gradcli grad samples/chain_rule.grad --wrt w1` vs the same program
                             in PyTorch (target: at most 0.10 of PyTorch's time)
  scalar script, N stmts     a generated N-statement scalar script, `gradcli grad --wrt w` vs the
                             same program in PyTorch (target: at most 0.25)
  training loop, N steps     bench_program's gradient-descent loop, `gradcli run train.py` vs
                             `python train.py` (target: at most 0.20; the same text printed)
  matmul NxN, plain grad     `sum(relu(X @ W))`, `gradcli grad --wrt W --format plain` (the
                             gradient printed in full) vs PyTorch printing `g.tolist()`
                             (target: at most 0.90)
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
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


def once(cmd: list[str], cwd: str | None = None) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system) of one run of ``cmd``, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=cwd)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout.strip()


def pair(a: list[str], b: list[str], reps: int, cwd: str | None = None) -> tuple:
    """Best wall and CPU seconds of ``a`` and of ``b`` over ``reps`` interleaved runs, and the
    (last) stdout of each: ((wall, cpu, out) of a, (wall, cpu, out) of b)."""
    best = [[float("inf"), float("inf"), ""], [float("inf"), float("inf"), ""]]
    for _ in range(reps):
        for side, cmd in ((0, a), (1, b)):
            wall, cpu, out = once(cmd, cwd)
            best[side] = [min(best[side][0], wall), min(best[side][1], cpu), out]
    return tuple(best[0]), tuple(best[1])


def row(name: str, g: tuple, t: tuple, target: float, same: bool) -> tuple:
    """A table row: gradcli's and torch's wall seconds, the wall and CPU ratios, the verdict."""
    ratio, cpu_ratio = g[0] / t[0], g[1] / t[1]
    verdict = ("PASS" if ratio <= target else "MISS") + ("" if same else " (answers differ)")
    return (name, f"{g[0]:.3f}", f"{t[0]:.3f}", f"{ratio:.3f}", f"{cpu_ratio:.3f}",
            f"<= {target}", verdict)


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
    ap.add_argument("--only", default="cstm", help="rows: c(hain) s(calar) t(raining) m(atmul)")
    args = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        raise SystemExit("PyTorch is needed for the comparison: pip install torch==2.13.0")
    gradcli = shutil.which("gradcli")
    base = [gradcli] if gradcli else [sys.executable, "-m", "gradcli"]
    env_note = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus"
    py = sys.executable
    rows = []
    t_pass, _, _ = once([py, "-c", "pass"])
    rows.append(("python -c pass", f"{t_pass:.3f}", "", "", "", "", ""))
    with tempfile.TemporaryDirectory() as tmp:
        if "c" in args.only:
            chain_py = Path(tmp, "chain.py")
            chain_py.write_text(CHAIN_TORCH)
            g, t = pair([*base, "grad", str(ROOT / "samples" / "chain_rule.grad"), "--wrt", "w1"],
                        [py, str(chain_py)], args.reps)
            rows.append(row("chain_rule.grad", g, t, 0.10, g[2] == t[2]))
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
            g, t = pair([*base, "grad", str(gpath), "--wrt", "W", "--format", "plain"],
                        [py, str(tpath)], max(1, args.reps // 2))
            a, b = _numbers(g[2]), _numbers(t[2])  # float64 sums in two BLAS orders
            same = len(a) == len(b) and all(abs(x - y) <= 1e-9 * max(1.0, abs(y))
                                            for x, y in zip(a, b))
            rows.append(row(f"matmul {args.size}x{args.size}, plain grad", g, t, 0.90, same))
    head = ("row", "gradcli s", "torch s", "ratio", "cpu ratio", "target", "result")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    print(env_note)
    for r in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
