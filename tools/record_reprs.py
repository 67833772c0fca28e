"""Record PyTorch's tensor reprs into tests/fixtures/torch/reprs.json (needs PyTorch installed).

Usage: ``python tools/record_reprs.py [OUTPUT]``. Values come from NumPy generators with fixed
seeds, so running it twice gives the same file. Each case stores the tensor's shape, dtype, the
default dtype in force, its autograd flags, its values (row-major; non-finite values as the
strings "nan", "inf", "-inf") and ``repr(t)``; a case printed under ``torch.set_printoptions``
also the keyword arguments it was called with (``options``; the defaults restored after it).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import machines

machines.pin()  # the setting the tests run under, before PyTorch loads
import torch

OUTPUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "torch" / "reprs.json"

# name -> (op applied to a leaf that requires grad, PyTorch's grad_fn name it produces)
OPS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "rsub": lambda x: 1 - x,
    "mul": lambda x: x * 2,
    "div": lambda x: x / 3,
    "neg": lambda x: -x,
    "clone": lambda x: x.clone(),
    "tanh": torch.tanh,
    "exp": torch.exp,
    "pow": lambda x: x**2,
    "sum": lambda x: x.sum(),
    "view": lambda x: x.view(x.shape),
}

SPECIALS = [0.0, -0.0, math.nan, math.inf, -math.inf]

SHAPES: list[tuple[int, ...]] = [
    (),
    (1,),
    (2,),
    (5,),
    (8,),
    (13,),
    (30,),
    (1, 1),
    (2, 2),
    (3, 4),
    (4, 7),
    (6, 6),
    (7, 7),
    (1, 9),
    (9, 1),
    (12, 3),
    (2, 3, 4),
    (3, 1, 5),
    (7, 2, 3),
    (2, 2, 2, 2),
    (1, 2, 3, 4),
    (2, 7, 1, 3),
]

THRESHOLD_SHAPES: list[tuple[int, ...]] = [
    (999,),
    (1000,),
    (1001,),
    (1500,),
    (10, 100),
    (10, 101),
    (7, 143),
    (1, 1001),
    (1001, 1),
    (6, 167),
    (7, 167),
    (10, 10, 10),
    (10, 10, 11),
    (8, 8, 16),
    (2, 3, 4, 42),
    (7, 7, 7, 3),
    (3, 7, 7, 7),
    (40, 40),
    (2, 501),
    (501, 2),
]

MAGNITUDES = [1e-10, 1e-6, 1e-4, 1e-3, 0.1, 1.0, 10.0, 1e3, 1e4, 1e5, 1e8, 1e10]


def encode(values: list[float]) -> list[float | str]:
    """Turn values into JSON: finite floats as numbers, the rest as strings."""
    return [v if math.isfinite(v) else repr(v) for v in values]


def sample(rng: np.random.Generator, shape: tuple[int, ...], kind: str, scale: float) -> np.ndarray:
    """Draw values of one kind (normal, uniform, int, spread, specials) at a magnitude."""
    n = math.prod(shape)
    if kind == "normal":
        data = rng.standard_normal(n) * scale
    elif kind == "uniform":
        data = rng.uniform(0.0, 1.0, n) * scale
    elif kind == "int":
        data = np.round(rng.standard_normal(n) * max(scale, 1.0))
    elif kind == "spread":
        data = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n) * scale
    elif kind == "round":
        data = np.round(rng.standard_normal(n) * scale, 2)
    else:  # specials mixed into normal or integer data
        base = rng.standard_normal(n) * scale
        data = np.round(base) if rng.random() < 0.5 else base
        k = int(rng.integers(1, max(2, n // 3 + 1)))
        for i in rng.choice(n, size=min(k, n), replace=False):
            data[i] = SPECIALS[int(rng.integers(len(SPECIALS)))]
    return data.reshape(shape)


def case(
    data: Any,
    *,
    dtype: str = "float64",
    default_dtype: str = "float64",
    requires_grad: bool = False,
    op: str | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Build the tensor in PyTorch and record its values, flags and repr (under ``options``,
    torch.set_printoptions's keyword arguments, when given)."""
    torch.set_default_dtype(getattr(torch, default_dtype))
    if options is not None:
        torch.set_printoptions(**options)
    try:
        arr = np.asarray(data, dtype=np.float64)
        t = torch.from_numpy(arr.copy()).to(getattr(torch, dtype))
        if op is not None:
            t = OPS[op](t.requires_grad_(True))
        elif requires_grad:
            t.requires_grad_(True)
        text = repr(t)
        grad_fn = None if t.grad_fn is None else type(t.grad_fn).__name__
        values = t.detach().double().reshape(-1).tolist()
        return {
            **({} if options is None else {"options": options}),
            "shape": list(t.shape),
            "dtype": dtype,
            "default_dtype": default_dtype,
            "requires_grad": t.requires_grad,
            "grad_fn": grad_fn,
            "values": encode(values),
            "repr": text,
        }
    finally:
        torch.set_default_dtype(torch.float32)
        torch.set_printoptions(profile="default")  # sci_mode, left out, goes back to None


def fixed_cases() -> Iterator[dict[str, Any]]:
    """Hand-picked cases: the documented examples, special values, empties, wrapping edges."""
    yield case(-7.0, op="rsub")
    yield case([1e-5, 1e5])
    yield case([[1.5, 2.0], [3.0, 4.0]], requires_grad=True)
    yield case([1.0, 2.0])
    yield case([1.0, 2.0], dtype="float32")
    yield case([1.0, 2.0], dtype="float64", default_dtype="float32")
    yield case([1.0, 2.0], dtype="float32", default_dtype="float32")
    for v in [
        0.0,
        -0.0,
        math.nan,
        math.inf,
        -math.inf,
        1.0,
        -8.0,
        0.1,
        1e-5,
        1e8,
        1e9,
        123.456,
        100000000.5,
        2.5e-300,
        1.7976931348623157e308,
        5e-324,
        99999.99995,
    ]:
        yield case(v)
        yield case(v, dtype="float32", requires_grad=True)
    for v in [
        [0.0, -0.0],
        [math.nan],
        [math.inf, -math.inf],
        [0.0, math.nan, 1.5],
        [-0.0, 1.0, math.inf],
        [1e-5, math.nan],
        [1e9, -0.0],
        [1e10, 1.0, math.nan],
        [0.0001, 0.1],
        [0.00009999, 0.1],
        [1.0, 1000.0],
        [1.0, 1000.1],
        [1e8, 1.0],
        [100000000.0, 0.5],
        [1.00000001e8, 2.0],
        [0.00005, 0.00015],
        [1e-4, 1e-1],
    ]:
        yield case(v)
    for shape in [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0), (1, 0, 1, 1)]:
        yield case(np.zeros(shape))
        yield case(np.zeros(shape), dtype="float32", requires_grad=True)
    yield case(np.zeros((0, 2)), dtype="float64", default_dtype="float32")
    for n in range(1, 25):  # rows of growing length around the 80-column wrap
        yield case(
            np.arange(n) * 1.25 - 3.0,
            requires_grad=n % 2 == 0,
            dtype="float32" if n % 3 == 0 else "float64",
        )
    for n in [9, 10, 11, 12, 13]:
        yield case(np.arange(n) * 1.0e3 + 0.5, dtype="float32", op="clone")
    yield case(np.arange(1.0, 7.0).reshape(2, 3) * 1e-3, op="mul")
    yield case(np.full((2, 2), 12345678.0))
    yield case(np.eye(3), requires_grad=True)
    yield case(np.ones((1, 1, 1, 1)), op="sum")
    yield case([0.1, 0.2, 0.3], dtype="float16")
    yield case([[1e-3, 300.0], [-2.5, 7.0]], dtype="bfloat16", default_dtype="float32")


def random_cases() -> Iterator[dict[str, Any]]:
    """Random shapes, magnitudes, value kinds, dtypes and autograd flags from fixed seeds."""
    rng = np.random.default_rng(20240613)
    kinds = ["normal", "uniform", "int", "spread", "round", "specials"]
    ops = list(OPS)
    for i in range(170):
        shape = SHAPES[i % len(SHAPES)]
        kind = kinds[int(rng.integers(len(kinds)))]
        scale = MAGNITUDES[int(rng.integers(len(MAGNITUDES)))]
        dtype = str(rng.choice(["float64", "float64", "float32"]))
        default_dtype = str(rng.choice(["float64", "float64", "float32"]))
        flag = int(rng.integers(4))
        op = None
        if flag == 3:
            op = str(rng.choice(ops))
            if op == "view" and shape == ():
                op = "clone"
        yield case(
            sample(rng, shape, kind, scale),
            dtype=dtype,
            default_dtype=default_dtype,
            requires_grad=flag == 2,
            op=op,
        )


def threshold_cases() -> Iterator[dict[str, Any]]:
    """Sizes just under, at and over the 1000-element summarisation threshold."""
    rng = np.random.default_rng(1000)
    for i, shape in enumerate(THRESHOLD_SHAPES):
        kind = ["round", "int", "specials", "round"][i % 4]
        scale = [1.0, 1e3, 1e-5, 1e9][(i // 4) % 4]
        dtype = "float32" if i % 3 == 0 else "float64"
        yield case(
            sample(rng, shape, kind, scale),
            dtype=dtype,
            requires_grad=i % 2 == 1,
            op="clone" if i % 5 == 2 else None,
        )


# torch.set_printoptions calls: each option alone and at its edges, the profiles, and mixes
PRINT_OPTIONS: list[dict[str, Any]] = [
    {"precision": 0}, {"precision": 1}, {"precision": 2}, {"precision": 8}, {"precision": 12},
    {"threshold": 5}, {"threshold": 0}, {"threshold": 10, "edgeitems": 1},
    {"edgeitems": 0, "threshold": 3}, {"edgeitems": 1}, {"edgeitems": 5, "threshold": 20},
    {"linewidth": 20}, {"linewidth": 120}, {"linewidth": 5},
    {"sci_mode": True}, {"sci_mode": False},
    {"profile": "short"}, {"profile": "full"}, {"profile": "default"},
    {"profile": "short", "precision": 6}, {"profile": "full", "sci_mode": False},
    {"profile": "full", "linewidth": 200, "precision": 3}, {"profile": "unknown"},
]

# (shape, kind, scale, dtype, requires_grad) printed under each of PRINT_OPTIONS
OPTION_TENSORS: list[tuple[tuple[int, ...], str, float, str, bool]] = [
    ((), "normal", 1.0, "float64", False),
    ((5,), "spread", 1.0, "float64", True),
    ((13,), "int", 1e3, "float32", False),
    ((3, 4), "normal", 1e-5, "float64", False),
    ((7, 7), "specials", 1.0, "float64", True),
    ((2, 3, 4), "round", 1e9, "float64", False),
    ((40, 30), "normal", 1.0, "float32", False),
    ((1001,), "int", 1.0, "float64", False),
    ((9,), "int", 10.0, "int64", False),
    ((2, 8), "int", 1.0, "bool", False),
]


def option_cases() -> Iterator[dict[str, Any]]:
    """Tensors printed under torch.set_printoptions (precision, threshold, edgeitems,
    linewidth, sci_mode, profile)."""
    rng = np.random.default_rng(2024)
    tensors = [(sample(rng, shape, kind, scale), dtype, grad)
               for shape, kind, scale, dtype, grad in OPTION_TENSORS]
    for options in PRINT_OPTIONS:
        for data, dtype, grad in tensors:
            if dtype == "bool":
                data = data != 0
            yield case(data, dtype=dtype, requires_grad=grad, options=options)


def main(argv: list[str]) -> int:
    """Write the fixture file and say how many cases it holds."""
    output = Path(argv[1]) if len(argv) > 1 else OUTPUT
    cases = [*fixed_cases(), *random_cases(), *threshold_cases(), *option_cases()]
    for i, c in enumerate(cases):
        c["id"] = f"{i:03d}-{'x'.join(map(str, c['shape'])) or 'scalar'}-{c['dtype']}"
    # one case per line keeps the file diffable without spreading values over thousands of lines
    lines = [json.dumps({"id": c.pop("id"), **c}) for c in cases]
    text = (
        f'{{"torch": {json.dumps(torch.__version__)}, "stamp": {json.dumps(machines.stamp())}, '
        '"cases": [\n' + ",\n".join(lines) + "\n]}\n"
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    print(f"wrote {len(cases)} cases to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
