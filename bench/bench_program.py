"""PyTorch programs in gradcli: against the same grad script, and against Python with PyTorch.

Run: PYTHONPATH=src python bench/bench_program.py [--steps N] [--reps R]

Two rows, each the best of R runs, the two sides interleaved so that drift hits both:

- *program vs script*: an N-step gradient-descent loop written as a PyTorch program and as the
  same grad script (bare built-ins, float32 for both), run in this process through
  ``pipeline.run``. Target: the program costs no more than the script (ratio <= 1.0).
- *end to end*: the same program as ``python train.py`` (Python importing PyTorch) and as
  ``gradcli run train.py``, fresh processes. Target: gradcli takes at most 0.3 of the time.
  Skipped when PyTorch is not installed; both must print the same text.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from gradcli import pipeline

LOOP = """\
X = {randn}(64, 3)
true_w = {tensor}([1.0, -2.0, 0.5])
y = X @ true_w + 0.1
w = {zeros}(3, requires_grad=True)
b = {zeros}(1, requires_grad=True)
lr = 0.1
for step in range({steps}):
    pred = X @ w + b
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    with {no_grad}():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if step % 500 == 0:
        print(f"step {{step}}: loss {{loss.item():.6f}}")
print(w, b)
"""


def program(steps: int) -> str:
    """The training loop as a PyTorch program."""
    return "import torch\n\ntorch.manual_seed(0)\n" + LOOP.format(
        randn="torch.randn", tensor="torch.tensor", zeros="torch.zeros",
        no_grad="torch.no_grad", steps=steps)


def script(steps: int) -> str:
    """The same loop as a grad script (bare built-ins; the literal lr stays a leaf)."""
    return "seed(0)\n" + LOOP.format(randn="randn", tensor="tensor", zeros="zeros",
                                     no_grad="no_grad", steps=steps)


def run_in_process(source: str, filename: str) -> tuple[float, list[str]]:
    """Seconds for one pipeline.run, and what it printed."""
    out: list[str] = []
    t0 = time.perf_counter()
    result = pipeline.run(source, filename=filename, dtype="float32", on_print=out.append)
    elapsed = time.perf_counter() - t0
    if result.error is not None:
        raise SystemExit(f"{filename}: {result.error.kind}: {result.error.message}")
    return elapsed, out


def run_process(argv: list[str], cwd: str) -> tuple[float, str]:
    """Wall seconds of a fresh process, and its stdout."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stderr[-2000:]}")
    return elapsed, proc.stdout


def has_torch() -> bool:
    """Whether this interpreter can import PyTorch (in a child: it is slow to import)."""
    probe = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True,
                           check=False)
    return probe.returncode == 0


def main(argv: list[str] | None = None) -> int:
    """Measure and print both rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args(argv)
    prog, scr = program(args.steps), script(args.steps)
    best = {"program": float("inf"), "script": float("inf")}
    printed = {}
    for _ in range(args.reps):
        for name, source, filename in (("program", prog, "train.py"),
                                       ("script", scr, "train.grad")):
            seconds, printed[name] = run_in_process(source, filename)
            best[name] = min(best[name], seconds)
    print(f"load average {os.getloadavg()[0]:.2f}, {args.steps} steps, best of {args.reps}")
    ratio = best["program"] / best["script"]
    print(f"program vs script (in process): {best['program']:.3f} s vs {best['script']:.3f} s"
          f" = {ratio:.2f}x (target <= 1.0) {'ok' if ratio <= 1.0 else 'MISS'}")
    if not has_torch():
        print("end to end: skipped (PyTorch is not installed)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "train.py").write_text(prog)
        ends = {"python": float("inf"), "gradcli": float("inf")}
        outs = {}
        for _ in range(args.reps):
            for name, cmd in (("python", [sys.executable, "train.py"]),
                              ("gradcli", [sys.executable, "-m", "gradcli", "run", "train.py"])):
                seconds, outs[name] = run_process(cmd, tmp)
                ends[name] = min(ends[name], seconds)
    same = "same output" if outs["python"] == outs["gradcli"] else "OUTPUT DIFFERS"
    ratio = ends["gradcli"] / ends["python"]
    print(f"end to end: gradcli run {ends['gradcli']:.2f} s vs python {ends['python']:.2f} s"
          f" = {ratio:.2f}x (target <= 0.3) {'ok' if ratio <= 0.3 else 'MISS'}, {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
