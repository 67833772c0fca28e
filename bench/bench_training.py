"""Training loops at PyTorch's pace: `gradcli run prog.py` against `python prog.py`, per step.

    python bench/bench_training.py [--reps N] [--only ma] [--baseline DIR] [--write DIR]

Two programs (and two more on request), each run at a short and a long step count as fresh
processes (best of N, the sides interleaved; both must print the same text):

  m  a makemore-style character MLP: an embedding lookup ``C[Xtr[ix]]`` (random indices in place
     of names.txt), ``tanh(emb.view(-1, 30) @ W1 + b1)``, 200 hidden units, ``F.cross_entropy``,
     ``p.data += -lr * p.grad``, batch 32; 500 and 3,000 steps
  a  an ``nn.Sequential`` 20-64-64-3 classifier, ``torch.optim.Adam`` and ``F.cross_entropy``,
     batch 64; 200 and 2,000 steps
  d  the same classifier in float64 (``torch.set_default_dtype(torch.float64)``): MKL's dgemm,
     SLEEF's double exp and log in the cross-entropy (not run by default)
  g  a small GPT as in the "Let's build GPT" lecture and nanoGPT: token and position
     embeddings, two blocks of four causal attention heads (``masked_fill``, softmax, bmm),
     LayerNorm, a GELU feed-forward, ``AdamW``, ``clip_grad_norm_``, batches sliced from the
     data at random tensor positions; 50 and 200 steps (not run by default)

For each: the end-to-end ratio at the long run (target: at most 0.5 of PyTorch's time) and the
per-step ratio, the slope between the short and the long run against PyTorch's slope (target:
at most 3x).  Wall and CPU seconds (user + system of the child) are both given: on a machine
shared with other work the CPU figures move less.  ``--baseline DIR`` also times another
checkout's ``src`` (e.g. ``git worktree add /tmp/old main``) in the same rounds; ``--write DIR``
leaves the programs there (for a profiler).  ``--threads N`` sets ``OMP_NUM_THREADS`` for both
sides: on a loaded 2-core machine a 2-thread sgemm stalls at OpenMP's barriers whenever another
process holds the other core, which hits both sides by milliseconds a product (PyTorch's 3,000
MLP steps took 39 s at load 7 where they take 2.6 s idle); one thread keeps the comparison to
the two engines' own work.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from bench_cli import once  # one run, timed: wall and CPU seconds and its stdout

ROOT = Path(__file__).resolve().parent.parent

MLP = """\
import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((27, 10), generator=g)
W1 = torch.randn((30, 200), generator=g)
b1 = torch.randn(200, generator=g)
W2 = torch.randn((200, 27), generator=g)
b2 = torch.randn(27, generator=g)
parameters = [C, W1, b1, W2, b2]
for p in parameters:
    p.requires_grad = True
Xtr = torch.randint(0, 27, (1000, 3), generator=g)
Ytr = torch.randint(0, 27, (1000,), generator=g)
for i in range({steps}):
    ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)
    emb = C[Xtr[ix]]
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 100000 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if i % 500 == 0:
        print(i, loss.item())
print(loss.item())
"""

ADAM = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 20)
y = torch.randint(0, 3, (512,))
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                      nn.Linear(64, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range({steps}):
    ix = torch.randint(0, 512, (64,))
    logits = model(X[ix])
    loss = F.cross_entropy(logits, y[ix])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 500 == 0:
        print(step, loss.item())
print(loss.item())
"""

GPT = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1337)
vocab, block, embd, heads = 27, 8, 32, 4


class Head(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.key = nn.Linear(embd, size, bias=False)
        self.query = nn.Linear(embd, size, bias=False)
        self.value = nn.Linear(embd, size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block, block)))

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)
        q = self.query(x)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        return F.softmax(wei, dim=-1) @ self.value(x)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([Head(embd // heads) for _ in range(heads)])
        self.proj = nn.Linear(embd, embd)
        self.ffwd = nn.Sequential(nn.Linear(embd, 4 * embd), nn.GELU(), nn.Linear(4 * embd, embd))
        self.ln1 = nn.LayerNorm(embd)
        self.ln2 = nn.LayerNorm(embd)

    def forward(self, x):
        x = x + self.proj(torch.cat([h(self.ln1(x)) for h in self.heads], dim=-1))
        return x + self.ffwd(self.ln2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(vocab, embd)
        self.pos = nn.Embedding(block, embd)
        self.blocks = nn.Sequential(Block(), Block())
        self.ln_f = nn.LayerNorm(embd)
        self.head = nn.Linear(embd, vocab)

    def forward(self, idx, targets):
        B, T = idx.shape
        x = self.ln_f(self.blocks(self.tok(idx) + self.pos(torch.arange(T))))
        logits = self.head(x)
        return F.cross_entropy(logits.view(B * T, vocab), targets.view(B * T))


data = torch.randint(0, vocab, (2000,))
model = GPT()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range({steps}):
    ix = torch.randint(len(data) - block, (16,))
    xb = torch.stack([data[i:i + block] for i in ix])
    yb = torch.stack([data[i + 1:i + block + 1] for i in ix])
    loss = model(xb, yb)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 50 == 0:
        print(step, loss.item())
print(loss.item())
"""

# name: (title, text, short steps, long steps)
PROGRAMS = {
    "m": ("makemore MLP", MLP, 500, 3000),
    "a": ("Sequential + Adam", ADAM, 200, 2000),
    "d": ("Sequential + Adam, float64", ADAM.replace(
        "torch.manual_seed(0)\n", "torch.set_default_dtype(torch.float64)\ntorch.manual_seed(0)\n"),
        200, 2000),
    "g": ("nanoGPT-style transformer", GPT, 50, 200),
}


def main(argv: list[str] | None = None) -> int:
    """Time each program and print its ratios."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="ma",
                    help="programs: m(akemore MLP) a(dam classifier) d (the classifier in float64)")
    ap.add_argument("--baseline", metavar="DIR", help="another checkout to time alongside")
    ap.add_argument("--write", metavar="DIR", help="write the programs to DIR and stop")
    ap.add_argument("--threads", type=int,
                    help="OMP_NUM_THREADS for both sides (gradcli reproduces that count)")
    args = ap.parse_args(argv)
    if args.write:
        Path(args.write).mkdir(parents=True, exist_ok=True)
        for key in args.only:
            name, text, short, long = PROGRAMS[key]
            for steps in (short, long):
                Path(args.write, f"{key}{steps}.py").write_text(text.format(steps=steps))
        return 0
    script = Path(sys.executable).with_name("gradcli")
    gradcli = [str(script)] if script.is_file() else [sys.executable, "-m", "gradcli"]
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    pycache = tempfile.TemporaryDirectory()
    clean["PYTHONPYCACHEPREFIX"] = pycache.name
    if args.threads:
        clean["OMP_NUM_THREADS"] = str(args.threads)
    sides = {"torch": ([sys.executable], clean),
             "gradcli": ([*gradcli, "run"], dict(clean, PYTHONPATH=str(ROOT / "src")))}
    if args.baseline:
        sides["baseline"] = ([*gradcli, "run"],
                             dict(clean, PYTHONPATH=str(Path(args.baseline).resolve() / "src")))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus; best of {args.reps};"
          f" OMP_NUM_THREADS={clean.get('OMP_NUM_THREADS', 'unset')};"
          f" gradcli is {' '.join(gradcli)}")
    with tempfile.TemporaryDirectory() as tmp:
        for key in args.only:
            name, text, short, long = PROGRAMS[key]
            best: dict[tuple[str, int], list[float]] = {}
            outs: dict[tuple[str, int], str] = {}
            for steps in (short, long):
                Path(tmp, f"p{steps}.py").write_text(text.format(steps=steps))
                for side, (cmd, env) in sides.items():  # untimed: bytecode cache, disk
                    once([*cmd, f"p{steps}.py"], tmp, env)
            for _ in range(args.reps):
                for steps in (short, long):
                    for side, (cmd, env) in sides.items():
                        wall, cpu, out = once([*cmd, f"p{steps}.py"], tmp, env)
                        prev = best.get((side, steps), [float("inf"), float("inf")])
                        best[side, steps] = [min(prev[0], wall), min(prev[1], cpu)]
                        outs[side, steps] = out
            print(f"\n{name}: {short} and {long} steps")
            for side in sides:
                same = all(outs[side, s] == outs["torch", s] for s in (short, long))
                line = f"  {side:9}"
                for i, kind in enumerate(("wall", "cpu")):
                    s_t, l_t = best[side, short][i], best[side, long][i]
                    per = (l_t - s_t) / (long - short) * 1e3
                    line += f"  {kind} {s_t:6.2f} s {l_t:6.2f} s {per:6.3f} ms/step"
                    if side != "torch":
                        t_s, t_l = best["torch", short][i], best["torch", long][i]
                        t_per = (t_l - t_s) / (long - short) * 1e3
                        line += f" (end {l_t / t_l:.2f}, step {per / t_per:.2f}x)"
                if side != "torch":
                    line += "" if same else "  OUTPUT DIFFERS"
                print(line)
    print("\ntargets: end to end <= 0.5 of PyTorch's time at the long run, per step <= 3x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
