"""Record PyTorch's random numbers into tests/fixtures/torch/random.json (needs PyTorch 2.13).

Usage: ``python tools/record_random.py [--check]``; ``--check`` exits 1 when a file is out
of date.  PyTorch runs in a process of its own per setting of tools/machines.py: the pinned one
(AVX512) writes the fixture, and the AVX2 and DEFAULT capabilities, whose kernels draw some
distributions differently (DEFAULT's float32 normals come from the scalar fill and the C
library; its uniform is not fused), write ``random_variants.json``: per capability, the cases
whose answers differ.  The fixture holds programs of steps (seed, draw, make a generator, save and restore
its state, an error) and what PyTorch answered at each step; ``tests/test_random.py`` replays
the same steps on ``gradcli.engine.generator.Generator``, so the suite needs no PyTorch.

A tensor answer is its dtype, shape and exact bits: the little-endian bytes in hex when it has
at most 16 elements, else the SHA-256 of the bytes with the first and last 8 elements in hex
and the sum (for reading).  ``prints`` holds grad scripts with the PyTorch program they stand
for (SPEC §2.7) and what that program prints.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import machines

if __name__ == "__main__" and sys.argv[1:] != ["--child"]:
    torch = None  # the parent only starts the children and writes their answers
else:
    import torch

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "torch"
OUTPUT = FIXTURES / "random.json"
VARIANTS = FIXTURES / "random_variants.json"
CAPABILITIES = ("avx2", "default")  # the variants whose random kernels may differ
FULL = 16  # tensors up to this many elements are stored whole
DTYPES = ("float32", "float64")
SIZES = (0, 1, 2, 3, 5, 8, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 100, 255, 256, 257,
         1000, 1023, 1024, 4097, 9999, 10000)
SHAPES = ((), (3, 5), (4, 4), (2, 3, 4), (1, 16), (17, 1))
SEEDS = (0, 1, 7, 42, 2 ** 32 + 7, -1, -(2 ** 63), 2 ** 63, 2 ** 64 - 1, 67280421310721)


# --------------------------------------------------------------------------- deterministic inputs
# Inputs that are tensors (bernoulli's p, normal's tensor mean/std) are formulas of arange, so
# the test builds the same ones with NumPy.


def probabilities(n: int, dtype: str) -> np.ndarray:
    """bernoulli's p: the fractional parts of k * golden ratio."""
    return ((np.arange(n) * 0.6180339887498949) % 1.0).astype(dtype)


def weights(size: list[int], s: dict[str, Any]) -> np.ndarray:
    """multinomial's weights: probabilities() in ``size``, some set to zero (``zeros``, by flat
    position), one made NaN (``bad``), or a row made negative (``bad_row``)."""
    n = math.prod(size)
    w = (probabilities(n, "float64") + 0.01).astype(s["dtype"])
    for i in s.get("zeros", ()):
        w[i] = 0
    if "bad" in s:
        w[s["bad"]] = np.nan
    w = w.reshape(size)
    if "bad_row" in s:
        w[s["bad_row"]] *= -1
    return w


def means(n: int, dtype: str) -> np.ndarray:
    return (np.arange(n) * 0.25 - 1.0).astype(dtype)


def stds(n: int, dtype: str) -> np.ndarray:
    return (np.arange(n) * 0.05 + 0.1).astype(dtype)


# ----------------------------------------------------------------------------------- the cases


def step(op: str, **args: Any) -> dict[str, Any]:
    return {"op": op, **args}


def cases() -> list[dict[str, Any]]:
    """Every program: a name and its steps (each program starts from torch.manual_seed)."""
    out: list[dict[str, Any]] = []

    def case(name: str, seed: int, *steps: dict[str, Any]) -> None:
        out.append({"name": name, "steps": [step("manual_seed", seed=seed), *steps]})

    for dtype in DTYPES:
        for n in SIZES:
            size = [n]
            case(f"rand {dtype} {n}", n, step("rand", size=size, dtype=dtype))
            case(f"randn {dtype} {n}", n + 1, step("randn", size=size, dtype=dtype))
            case(f"normal {dtype} {n}", n + 2,
                 step("normal", mean=0.5, std=2.25, size=size, dtype=dtype))
            case(f"uniform_ {dtype} {n}", n + 3,
                 step("uniform_", low=-3.5, high=1.25, size=size, dtype=dtype))
            case(f"normal_ {dtype} {n}", n + 4,
                 step("normal_", mean=-1.0, std=0.3, size=size, dtype=dtype))
            case(f"bernoulli p {dtype} {n}", n + 5, step("bernoulli", size=size, dtype=dtype))
            case(f"bernoulli_ {dtype} {n}", n + 6,
                 step("bernoulli_", p=0.3, size=size, dtype=dtype))
        for shape in SHAPES:
            case(f"shapes {dtype} {list(shape)}", 9,
                 step("randn", size=list(shape), dtype=dtype),
                 step("rand", size=list(shape), dtype=dtype))
        for kind in ("mean", "std", "both"):
            for n in (3, 20):
                case(f"normal with tensor {kind} {dtype} {n}", 11,
                     step("normal_tensor", kind=kind, n=n, std=0.5, mean=2.0, dtype=dtype))
        for op in ("normal_", "uniform_"):  # a strided view: PyTorch fills it in memory order
            case(f"{op} transposed {dtype}", 13,
                 step(op, mean=0.0, std=1.0, low=0.0, high=1.0, size=[5, 4], dtype=dtype,
                      transposed=True),
                 step(op, mean=1.0, std=2.0, low=-1.0, high=1.0, size=[32, 3], dtype=dtype,
                      transposed=True))
    for n in (0, 1, 15, 16, 17, 100, 10000):  # float16 draws in float32, then rounds
        case(f"rand float16 {n}", n, step("rand", size=[n], dtype="float16"))
        case(f"uniform_ float16 {n}", n + 3,
             step("uniform_", low=0.1, high=0.3, size=[n], dtype="float16"))
    for dtype in ("float16", "float32"):  # 0xFFFFFF is the 1621st word of seed 9668: the
        # value rounds up to `to`, which PyTorch replaces with `from`
        case(f"uniform_ that rounds up to its upper end {dtype}", 9668,
             step("uniform_", low=0.1, high=0.3, size=[1621], dtype=dtype))
    for n in SIZES:
        case(f"randint {n}", n, step("randint", low=-3, high=1000, size=[n]))
    for low, high in ((0, 1), (0, 2), (-5, 7), (0, 2 ** 28 - 1), (5, 5 + 2 ** 28),
                      (-(2 ** 27), 2 ** 27), (0, 2 ** 32 - 1), (0, 2 ** 32), (5, 2 ** 40),
                      (-(2 ** 63), 2 ** 63 - 1), (-(2 ** 62), 2 ** 62)):
        case(f"randint [{low}, {high})", 3, step("randint", low=low, high=high, size=[50]),
             step("rand", size=[3], dtype="float32"))
    for n in (*range(20), 100, 1000, 4097, 10000):
        case(f"randperm {n}", n, step("randperm", n=n))
    for seed in SEEDS:
        case(f"seed {seed}", seed, step("initial_seed"), step("rand", size=[5], dtype="float32"),
             step("randn", size=[5], dtype="float64"), step("randn", size=[20], dtype="float32"))
    case("sequence: state carries across sizes", 0,
         step("randn", size=[3], dtype="float32"), step("randn", size=[20], dtype="float32"),
         step("rand", size=[5], dtype="float32"), step("randn", size=[1], dtype="float32"),
         step("randn", size=[1], dtype="float32"), step("randn", size=[2], dtype="float32"))
    case("sequence: the cached Box-Muller value survives a 16-element fill", 5,
         step("randn", size=[1], dtype="float64"), step("randn", size=[17], dtype="float64"),
         step("rand", size=[2], dtype="float64"), step("randn", size=[1], dtype="float64"),
         step("randn", size=[3], dtype="float64"))
    case("sequence: float32 and float64 share the double cache", 6,
         step("randn", size=[3], dtype="float32"), step("randn", size=[1], dtype="float64"),
         step("randn", size=[5], dtype="float64"), step("randn", size=[1], dtype="float32"))
    case("sequence: the cached value takes the next call's mean and std", 7,
         step("normal_", mean=2.0, std=3.0, size=[5], dtype="float64"),
         step("normal_", mean=-1.0, std=0.5, size=[1], dtype="float64"),
         step("normal", mean=10.0, std=0.0, size=[3], dtype="float32"))
    case("sequence: manual_seed drops the cached value", 8,
         step("randn", size=[1], dtype="float64"), step("manual_seed", seed=8),
         step("randn", size=[1], dtype="float64"), step("randn", size=[1], dtype="float64"))
    case("sequence: everything", 2024,
         step("rand", size=[7], dtype="float64"), step("randint", low=0, high=10, size=[4]),
         step("randperm", n=9), step("randn", size=[33], dtype="float32"),
         step("bernoulli_", p=0.5, size=[6], dtype="float32"),
         step("normal_", mean=1.0, std=2.0, size=[15], dtype="float32"),
         step("uniform_", low=2.0, high=3.0, size=[16], dtype="float64"),
         step("randint", low=0, high=2 ** 33, size=[3]), step("randn", size=[1], dtype="float32"))
    for p_dtype in DTYPES:
        case(f"bernoulli_ with {p_dtype} probabilities broadcast", 10,
             step("bernoulli_", p_size=[1, 20], p_dtype=p_dtype, size=[3, 20], dtype="float32"),
             step("bernoulli_", p_size=[5], p_dtype=p_dtype, size=[2, 5], dtype="float64"))
    for dtype in (*DTYPES, "float16"):
        for n in (1, 5, 17, 1000, 10000):
            case(f"exponential_ {dtype} {n}", n + 7,
                 step("exponential_", lambd=1.0, size=[n], dtype=dtype))
        case(f"exponential_ rate 2.5, transposed {dtype}", 14,
             step("exponential_", lambd=2.5, size=[5, 4], dtype=dtype, transposed=True),
             step("rand", size=[3], dtype=dtype))
        for replacement in (False, True):
            for n_sample in (1, 3, 6):
                case(f"multinomial {dtype} n={n_sample} replacement={replacement}", 15,
                     step("multinomial", size=[6], n=n_sample, replacement=replacement,
                          dtype=dtype),
                     step("multinomial", size=[4, 6], n=n_sample, replacement=replacement,
                          dtype=dtype),
                     step("multinomial", size=[6, 4], n=min(n_sample, 4),
                          replacement=replacement, dtype=dtype, transposed=True),
                     step("rand", size=[2], dtype="float32"))
        case(f"multinomial with zero weights: PyTorch's topk order for ties {dtype}", 16,
             step("multinomial", size=[7], n=7, replacement=False, dtype=dtype, zeros=[0, 2, 3, 5]),
             step("multinomial", size=[7], n=20, replacement=True, dtype=dtype, zeros=[0, 6]))
        case(f"multinomial of many categories {dtype}", 17,
             step("multinomial", size=[3, 1000], n=50, replacement=True, dtype=dtype),
             step("multinomial", size=[3, 1000], n=50, replacement=False, dtype=dtype))
    case("multinomial errors", 18,
         step("exponential_", lambd=-1.0, size=[3], dtype="float32"),
         step("multinomial", size=[3], n=4, replacement=False, dtype="float32"),
         step("multinomial", size=[4], n=2, replacement=True, dtype="float32", bad=2),
         step("multinomial", size=[2, 4], n=2, replacement=True, dtype="float64",
              bad_row=1),  # the first row drew before the second failed
         step("rand", size=[2], dtype="float32"),
         step("multinomial", size=[4], n=1, replacement=True, dtype="float32", bad=1),
         step("multinomial", size=[4], n=2, replacement=False, dtype="float32", zeros=[0, 1, 2, 3]),
         step("multinomial", size=[4], n=2, replacement=True, dtype="float64", zeros=[0, 1, 2, 3]),
         step("rand", size=[2], dtype="float32"))
    case("generators: independent streams", 1,
         step("generator", name="g1"), step("generator", name="g2", seed=1),
         step("initial_seed", gen="g1"), step("initial_seed", gen="g2"),
         step("randn", size=[5], dtype="float32", gen="g2"),
         step("rand", size=[3], dtype="float32", gen="g1"),
         step("randn", size=[5], dtype="float32"),
         step("randn", size=[3], dtype="float64", gen="g2"),
         step("randn", size=[3], dtype="float64"),
         step("randperm", n=12, gen="g1"), step("randint", low=0, high=5, size=[4], gen="g2"),
         step("manual_seed", seed=3, gen="g1"), step("randn", size=[2], dtype="float32", gen="g1"))
    case("state: get_state bytes and set_state", 4,
         step("get_state"), step("randn", size=[3], dtype="float64"), step("get_state"),
         step("save_state", name="s"), step("randn", size=[40], dtype="float32"),
         step("generator", name="g"), step("set_state", name="s", gen="g"),
         step("get_state", gen="g"), step("randn", size=[1], dtype="float64", gen="g"),
         step("randn", size=[40], dtype="float32", gen="g"),
         step("rand", size=[700], dtype="float32"), step("get_state"),
         step("save_state", name="t"), step("set_state", name="t", gen="g"),
         step("rand", size=[3], dtype="float64", gen="g"))
    case("errors", 12,
         step("uniform_", low=3.0, high=1.0, size=[3], dtype="float32"),
         step("uniform_", low=3.0, high=1.0, size=[0], dtype="float32"),
         step("uniform_", low=0.0, high=math.inf, size=[3], dtype="float32"),
         step("uniform_", low=math.nan, high=1.0, size=[3], dtype="float64"),
         step("uniform_", low=-3e38, high=3e38, size=[3], dtype="float32"),
         step("uniform_", low=-1.7e308, high=1.7e308, size=[3], dtype="float64"),
         step("uniform_", low=0.0, high=7e4, size=[3], dtype="float16"),
         step("uniform_", low=-6e4, high=6e4, size=[3], dtype="float16"),
         step("normal_", mean=0.0, std=-1.0, size=[3], dtype="float32"),
         step("normal", mean=0.0, std=math.nan, size=[0], dtype="float64"),
         step("normal_tensor", kind="std", n=3, std=-1.0, mean=0.0, dtype="float32"),
         step("randint", low=5, high=5, size=[3]), step("randint", low=5, high=2, size=[0]),
         step("randint", low=0, high=2 ** 63, size=[3]), step("randperm", n=-1),
         step("bernoulli_", p=1.5, size=[3], dtype="float32"),
         step("bernoulli_", p=-0.25, size=[3], dtype="float64"),
         step("bernoulli", size=[6], dtype="float64", bad=3),
         step("rand", size=[2], dtype="float32"),
         step("bernoulli", size=[6], dtype="float32", bad=0),
         step("rand", size=[2], dtype="float32"),
         step("manual_seed", seed=2 ** 64), step("manual_seed", seed=-(2 ** 63) - 1),
         step("rand", size=[2], dtype="float32"))
    return out


PRINTS = [  # (grad script, its dtype, the PyTorch program it stands for)
    ("seed(3)\nx = randn(4)\nprint(x)\n", "float64",
     "torch.manual_seed(3)\nx = torch.randn(4)\nprint(x)\n"),
    ("seed(3)\nx = randn(4)\nprint(x)\n", "float32",
     "torch.manual_seed(3)\nx = torch.randn(4)\nprint(x)\n"),
    ("x = rand(2, 3)\nprint(x)\ny = randn(17)\nprint(y.sum())\n", "float64",
     ("torch.manual_seed(0)\nx = torch.rand(2, 3)\nprint(x)\ny = torch.randn(17)\n"
     "print(y.sum())\n")),
    ("seed(-5)\nw = randn(3, 3, requires_grad=True)\nprint(w)\nprint(rand(1))\n", "float32",
     ("torch.manual_seed(-5)\nw = torch.randn(3, 3, requires_grad=True)\nprint(w)\n"
     "print(torch.rand(1))\n")),
    ("seed(1)\nprint(randn(1))\nseed(1)\nprint(randn(2))\nprint(randn(1))\n", "float64",
     ("torch.manual_seed(1)\nprint(torch.randn(1))\ntorch.manual_seed(1)\n"
     "print(torch.randn(2))\nprint(torch.randn(1))\n")),
]


# ------------------------------------------------------------------------------------ recording


def encode(t: torch.Tensor) -> dict[str, Any]:
    """A tensor's dtype, shape and exact bits (whole, or hashed with head and tail)."""
    arr = np.ascontiguousarray(t.detach().numpy())
    raw = arr.tobytes()
    out: dict[str, Any] = {"dtype": str(arr.dtype), "shape": list(arr.shape)}
    if arr.size <= FULL:
        out["hex"] = raw.hex()
    else:
        k = 8 * arr.itemsize
        out.update(sha256=hashlib.sha256(raw).hexdigest(), head=raw[:k].hex(),
                   tail=raw[-k:].hex(), sum=float(arr.astype(np.float64).sum()))
    return out


def run_step(s: dict[str, Any], gens: dict[str | None, Any], saved: dict[str, Any]) -> Any:
    """Do one step in PyTorch; its answer (a tensor, a number, or None)."""
    g = gens[s.get("gen")]
    kw = {"generator": g} if g is not None else {}
    op = s["op"]
    dt = getattr(torch, s.get("dtype", "float32"))
    size = s.get("size")
    if op == "manual_seed":
        return (g or torch).manual_seed(s["seed"]) and None
    if op == "initial_seed":
        return (g or torch).initial_seed()
    if op == "generator":
        gens[s["name"]] = torch.Generator()
        if s.get("seed") is not None:
            gens[s["name"]].manual_seed(s["seed"])
        return None
    if op == "get_state":
        state = (g.get_state() if g is not None else torch.get_rng_state()).numpy()
        return {"sha256": hashlib.sha256(state.tobytes()).hexdigest()}
    if op == "save_state":
        saved[s["name"]] = g.get_state() if g is not None else torch.get_rng_state()
        return None
    if op == "set_state":
        (g.set_state if g is not None else torch.set_rng_state)(saved[s["name"]])
        return None
    if op == "rand":
        return torch.rand(size, dtype=dt, **kw)
    if op == "randn":
        return torch.randn(size, dtype=dt, **kw)
    if op == "normal":
        return torch.normal(s["mean"], s["std"], size, dtype=dt, **kw)
    if op in ("normal_", "uniform_"):
        x = torch.empty(size[::-1], dtype=dt).t() if s.get("transposed") else \
            torch.empty(size, dtype=dt)
        if op == "normal_":
            return x.normal_(s["mean"], s["std"], **kw)
        return x.uniform_(s["low"], s["high"], **kw)
    if op == "normal_tensor":
        n, kind = s["n"], s["kind"]
        mean = torch.from_numpy(means(n, s["dtype"])) if kind in ("mean", "both") else s["mean"]
        sign = 1 if s["std"] >= 0 else -1  # a negative std makes every element negative
        std = torch.from_numpy(sign * stds(n, s["dtype"])) if kind in ("std", "both") \
            else s["std"]
        return torch.normal(mean, std, **kw)
    if op == "randint":
        return torch.randint(s["low"], s["high"], size, **kw)
    if op == "randperm":
        return torch.randperm(s["n"], **kw)
    if op == "bernoulli":
        p = probabilities(size[0], s["dtype"])
        if "bad" in s:
            p[s["bad"]] = 1.5
        return torch.bernoulli(torch.from_numpy(p), **kw)
    if op == "bernoulli_":
        if "p_size" in s:  # a tensor of probabilities, broadcast to the tensor filled
            p = torch.from_numpy(probabilities(s["p_size"][-1], s["p_dtype"]))
            return torch.empty(size, dtype=dt).bernoulli_(p.expand(s["p_size"]), **kw)
        return torch.empty(size, dtype=dt).bernoulli_(s["p"], **kw)
    if op == "exponential_":
        x = torch.empty(size[::-1], dtype=dt).t() if s.get("transposed") else \
            torch.empty(size, dtype=dt)
        return x.exponential_(s["lambd"], **kw)
    if op == "multinomial":
        p = torch.from_numpy(weights(size, s))
        if s.get("transposed"):
            p = torch.from_numpy(np.ascontiguousarray(weights(size[::-1], s))).t()
        return torch.multinomial(p, s["n"], s["replacement"], **kw)
    raise ValueError(f"unknown step {op}")


def record_case(case: dict[str, Any]) -> dict[str, Any]:
    gens: dict[str | None, Any] = {None: None}
    saved: dict[str, Any] = {}
    steps = []
    for s in case["steps"]:
        s = dict(s)
        try:
            answer = run_step(s, gens, saved)
        except Exception as exc:  # noqa: BLE001 - PyTorch's error is the answer
            s["error"] = {"type": type(exc).__name__, "message": str(exc).splitlines()[0]}
        else:
            if isinstance(answer, torch.Tensor):
                s["result"] = encode(answer)
            elif answer is not None:
                s["result"] = answer
        steps.append(s)
    return {"name": case["name"], "steps": steps}


def record_print(script: str, dtype: str, program: str) -> dict[str, Any]:
    torch.set_default_dtype(getattr(torch, dtype))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(program, {"torch": torch})  # noqa: S102 - our own fixed programs
    torch.set_default_dtype(torch.float32)
    return {"script": script, "dtype": dtype, "program": program,
            "prints": buf.getvalue().splitlines()}


def build() -> dict[str, Any]:
    return {
        "torch": torch.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "machine": platform.machine(),
        "default_generator_seed": torch.Generator().initial_seed(),
        "cases": [record_case(c) for c in cases()],
        "prints": [record_print(*p) for p in PRINTS],
    }


def dumps(doc: dict[str, Any]) -> str:
    """The fixture as JSON with one case per line (small, and diffs read case by case)."""
    lines = []
    for key, value in doc.items():
        if isinstance(value, list):
            items = ",\n  ".join(json.dumps(v) for v in value)
            lines.append(f"{json.dumps(key)}: [\n  {items}\n ]")
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n " + ",\n ".join(lines) + "\n}\n"


def record(setting: dict[str, str]) -> dict[str, Any]:
    """The whole fixture as PyTorch answers it under ``setting``, in a process of its own."""
    proc = subprocess.run([sys.executable, __file__, "--child"], env=machines.environment(setting),
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a fixture is stale")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        json.dump(build(), sys.stdout)
        return 0
    base = record(machines.PINNED)
    variants = {}
    for name in CAPABILITIES:
        data = record(machines.VARIANTS[name])
        known = {c["name"]: c for c in base["cases"]}
        variants[name] = {"settings": machines.VARIANTS[name],
                          "cpu_capability": data["cpu_capability"],
                          "cases": [c for c in data["cases"] if c != known[c["name"]]]}
    texts = {OUTPUT: dumps(base), VARIANTS: json.dumps(variants, indent=1) + "\n"}
    stale = 0
    for path, text in texts.items():
        if args.check:
            if not path.exists() or path.read_text() != text:
                print(f"{path} is out of date; run tools/record_random.py", file=sys.stderr)
                stale += 1
        else:
            path.write_text(text)
            print(f"wrote {path} ({len(text):,} bytes)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
