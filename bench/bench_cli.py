"""End-to-end wall time: `gradcli grad` against the same program run by PyTorch, one run.

    python bench/bench_cli.py [--reps N] [--lines N]

Rows (each a fresh process, best of N):
  python -c pass             the interpreter's own start-up, for scale
  chain_rule.grad            `gradcli grad samples/chain_rule.grad --wrt w1` vs the same program
                             in PyTorch (target: at most 0.15 of PyTorch's time)
  scalar script, N stmts     a generated N-statement scalar script, `gradcli grad --wrt w` vs the
                             same program in PyTorch (target: at most 0.75)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

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


def best(cmd: list[str], reps: int) -> tuple[float, str]:
    """Best wall time of ``reps`` runs of ``cmd`` and its (last) stdout."""
    times, out = [], ""
    for _ in range(reps):
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
        out = proc.stdout.strip()
    return min(times), out


def main(argv: list[str] | None = None) -> int:
    """Run the rows and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--lines", type=int, default=20_000)
    args = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        raise SystemExit("PyTorch is needed for the comparison: pip install torch==2.13.0")
    gradcli = shutil.which("gradcli")
    base = [gradcli] if gradcli else [sys.executable, "-m", "gradcli"]
    env_note = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus"
    rows = []
    t_pass, _ = best([sys.executable, "-c", "pass"], args.reps)
    rows.append(("python -c pass", f"{t_pass:.3f}", "", "", "", ""))
    with tempfile.TemporaryDirectory() as tmp:
        chain_py = Path(tmp, "chain.py")
        chain_py.write_text(CHAIN_TORCH)
        t_g, out_g = best([*base, "grad", str(ROOT / "samples" / "chain_rule.grad"), "--wrt",
                           "w1"], args.reps)
        t_t, out_t = best([sys.executable, str(chain_py)], args.reps)
        ok = out_g == out_t
        rows.append(("chain_rule.grad", f"{t_g:.3f}", f"{t_t:.3f}", f"{t_g / t_t:.3f}", "<= 0.15",
                     ("PASS" if t_g / t_t <= 0.15 else "MISS") + ("" if ok else " (answers differ)")))
        grad_src, torch_src = scalar_script(args.lines)
        gpath, tpath = Path(tmp, "scalar.grad"), Path(tmp, "scalar.py")
        gpath.write_text(grad_src)
        tpath.write_text(torch_src)
        t_g, out_g = best([*base, "grad", str(gpath), "--wrt", "w"], max(1, args.reps // 2))
        t_t, out_t = best([sys.executable, str(tpath)], max(1, args.reps // 2))
        same = abs(float(out_g.split("=")[1]) - float(out_t.split("=")[1])) < 1e-9
        rows.append((f"scalar script, {args.lines:,} stmts", f"{t_g:.3f}", f"{t_t:.3f}",
                     f"{t_g / t_t:.3f}", "<= 0.75",
                     ("PASS" if t_g / t_t <= 0.75 else "MISS") + ("" if same else " (differ)")))
    head = ("row", "gradcli s", "torch s", "ratio", "target", "result")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    print(env_note)
    for r in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
