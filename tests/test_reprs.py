"""Tensor reprs must be PyTorch's, character for character (recorded from PyTorch 2.13)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from marks import runs_torch

from gradcli.engine.printing import DEFAULT_OPTIONS, format_scalar, format_tensor, set_printoptions

FIXTURE = Path(__file__).parent / "fixtures" / "torch" / "reprs.json"
nan, inf = math.nan, math.inf

# (values, keyword arguments, repr recorded from PyTorch under the default dtype given)
FIXED: list[tuple[Any, dict[str, Any], str]] = [
    (-8.0, {"grad_fn": "RsubBackward1"}, "tensor(-8., grad_fn=<RsubBackward1>)"),
    ([1e-5, 1e5], {}, "tensor([1.0000e-05, 1.0000e+05])"),
    (
        [[1.5, 2.0], [3.0, 4.0]],
        {"requires_grad": True},
        "tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]], requires_grad=True)",
    ),
    ([1.0, 2.0], {}, "tensor([1., 2.])"),
    ([1.0, 2.0], {"dtype": "float32"}, "tensor([1., 2.], dtype=torch.float32)"),
    ([1.0, 2.0], {"dtype": "float32", "default_dtype": "float32"}, "tensor([1., 2.])"),
    ([1.0, 2.0], {"default_dtype": "float32"}, "tensor([1., 2.], dtype=torch.float64)"),
    ([0.0, -0.0, nan, inf, -inf], {}, "tensor([0., -0., nan, inf, -inf])"),
    ([-0.0, 1.5, nan], {}, "tensor([-0.0000, 1.5000,    nan])"),
    ([1e-5, nan, -inf, -0.0], {}, "tensor([1.0000e-05,        nan,       -inf, -0.0000e+00])"),
    (-0.0, {}, "tensor(-0.)"),
    (nan, {}, "tensor(nan)"),
    (0.1, {}, "tensor(0.1000)"),
    (1e9, {}, "tensor(1.0000e+09)"),
    (100000000.5, {}, "tensor(1.0000e+08)"),
    (1e-5, {"requires_grad": True}, "tensor(1.0000e-05, requires_grad=True)"),
    (np.zeros(0), {}, "tensor([])"),
    (np.zeros((0, 3)), {}, "tensor([], size=(0, 3))"),
    (
        np.zeros((2, 0)),
        {"dtype": "float32", "requires_grad": True},
        "tensor([], size=(2, 0), dtype=torch.float32, requires_grad=True)",
    ),
    ([1.0, 1000.0], {}, "tensor([   1., 1000.])"),
    ([1.0, 1000.5], {}, "tensor([1.0000e+00, 1.0005e+03])"),
    ([1e8, 1.0], {}, "tensor([1.0000e+08, 1.0000e+00])"),
    (
        np.arange(12.0).reshape(2, 3, 2),
        {},
        (
            "tensor([[[ 0.,  1.],\n         [ 2.,  3.],\n         [ 4.,  5.]],\n\n"
            "        [[ 6.,  7.],\n         [ 8.,  9.],\n         [10., 11.]]])"
        ),
    ),
    (
        np.arange(16.0).reshape(2, 2, 2, 2) / 8,
        {},
        (
            "tensor([[[[0.0000, 0.1250],\n          [0.2500, 0.3750]],\n\n"
            "         [[0.5000, 0.6250],\n          [0.7500, 0.8750]]],\n\n\n"
            "        [[[1.0000, 1.1250],\n          [1.2500, 1.3750]],\n\n"
            "         [[1.5000, 1.6250],\n          [1.7500, 1.8750]]]])"
        ),
    ),
    (
        np.arange(20.0) * 1.25 - 3,
        {},
        (
            "tensor([-3.0000, -1.7500, -0.5000,  0.7500,  2.0000,  3.2500,  4.5000,  5.7500,\n"
            "         7.0000,  8.2500,  9.5000, 10.7500, 12.0000, 13.2500, 14.5000, 15.7500,\n"
            "        17.0000, 18.2500, 19.5000, 20.7500])"
        ),
    ),
    (np.arange(1001.0), {}, "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"),
    (
        np.arange(1010.0).reshape(101, 10) / 7,
        {},
        (
            "tensor([[0.0000e+00, 1.4286e-01, 2.8571e-01,  ..., 1.0000e+00, 1.1429e+00,\n"
            "         1.2857e+00],\n"
            "        [1.4286e+00, 1.5714e+00, 1.7143e+00,  ..., 2.4286e+00, 2.5714e+00,\n"
            "         2.7143e+00],\n"
            "        [2.8571e+00, 3.0000e+00, 3.1429e+00,  ..., 3.8571e+00, 4.0000e+00,\n"
            "         4.1429e+00],\n"
            "        ...,\n"
            "        [1.4000e+02, 1.4014e+02, 1.4029e+02,  ..., 1.4100e+02, 1.4114e+02,\n"
            "         1.4129e+02],\n"
            "        [1.4143e+02, 1.4157e+02, 1.4171e+02,  ..., 1.4243e+02, 1.4257e+02,\n"
            "         1.4271e+02],\n"
            "        [1.4286e+02, 1.4300e+02, 1.4314e+02,  ..., 1.4386e+02, 1.4400e+02,\n"
            "         1.4414e+02]])"
        ),
    ),
    (
        np.arange(8.0),
        {"dtype": "float32", "requires_grad": True},
        (
            "tensor([0., 1., 2., 3., 4., 5., 6., 7.], dtype=torch.float32,\n"
            "       requires_grad=True)"
        ),
    ),
]


@pytest.mark.parametrize(("values", "kwargs", "expected"), FIXED)
def test_fixed_reprs(values: Any, kwargs: dict[str, Any], expected: str) -> None:
    """Hand-picked tensors print exactly as PyTorch printed them."""
    assert format_tensor(np.asarray(values, dtype=np.float64), **kwargs) == expected


def test_exactly_1000_elements_is_not_summarised() -> None:
    """The threshold is strict: 1000 elements print in full, 12 to a line."""
    text = format_tensor(np.arange(1000.0))
    assert "..." not in text
    assert text.count("\n") == 83
    assert text.endswith(" 996., 997., 998., 999.])")


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        ("float64", "tensor([10000000.2500,   100000.0000])"),
        ("float32", "tensor([10000000.,   100000.], dtype=torch.float32)"),
        ("float16", "tensor([inf, inf], dtype=torch.float16)"),
        ("bfloat16", "tensor([10027008.,    99840.], dtype=torch.bfloat16)"),
    ],
)
def test_values_are_rounded_to_dtype(dtype: str, expected: str) -> None:
    """Values are stored in the tensor's dtype before printing, as the tensor would hold them."""
    assert format_tensor(np.array([1e7 + 0.25, 1e5]), dtype=dtype) == expected


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        ("float16", "tensor([1.], dtype=torch.float16)"),
        ("bfloat16", "tensor([1.], dtype=torch.bfloat16)"),
    ],
)
def test_half_dtypes_round_through_float32(dtype: str, expected: str) -> None:
    """float64 is narrowed to half types through float32, as PyTorch does (ties land on 1.0)."""
    tie = {"float16": 2.0**-11, "bfloat16": 2.0**-8}[dtype]
    assert format_tensor(np.array([1 + tie + 2.0**-30]), dtype=dtype) == expected


def test_unknown_dtype_is_rejected() -> None:
    """Only the dtypes gradcli has are accepted."""
    with pytest.raises(ValueError, match="unsupported dtype"):
        format_tensor(np.zeros(2), dtype="complex64")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, "1"),
        (-0.0, "-0.0"),
        (2.5, "2.5"),
        (1e-5, "1e-05"),
        (True, "True"),
        (nan, "nan"),
        (np.float64(0.1), "0.1"),
        (np.int64(3), "3"),
        (1e16, "1e+16"),
    ],
)
def test_format_scalar(value: object, expected: str) -> None:
    """Plain numbers print as Python prints them."""
    assert format_scalar(value) == expected


def _decode(case: dict[str, Any]) -> np.ndarray:
    """Rebuild a fixture case's values (non-finite ones are stored as strings)."""
    return np.array([float(v) for v in case["values"]], dtype=np.float64).reshape(case["shape"])


CASES: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


def test_fixture_is_broad() -> None:
    """The recorded fixture covers every rank, summarisation, both dtypes and autograd flags."""
    assert len(CASES) >= 250
    assert {len(c["shape"]) for c in CASES} >= {0, 1, 2, 3, 4}
    assert any("..." in c["repr"] for c in CASES)
    assert any("dtype=torch.float32" in c["repr"] for c in CASES)
    assert any(c["grad_fn"] for c in CASES) and any(c["requires_grad"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_recorded_reprs(case: dict[str, Any]) -> None:
    """Every case recorded by tools/record_reprs.py prints exactly as PyTorch printed it."""
    got = format_tensor(
        _decode(case),
        grad_fn=case["grad_fn"],
        requires_grad=case["requires_grad"],
        dtype=case["dtype"],
        default_dtype=case["default_dtype"],
        options=set_printoptions(DEFAULT_OPTIONS, **case.get("options", {})),
    )
    assert got == case["repr"]


def test_fixture_covers_every_print_option() -> None:
    """Cases recorded under torch.set_printoptions: each option, each profile, and their text
    differs from the default's (so passing the options is what makes them pass)."""
    options = [c["options"] for c in CASES if "options" in c]
    assert {k for o in options for k in o} == {"precision", "threshold", "edgeitems",
                                               "linewidth", "sci_mode", "profile"}
    assert {o.get("profile") for o in options} >= {"short", "full", "default"}
    changed = [c for c in CASES if "options" in c and c["repr"] != format_tensor(
        _decode(c), grad_fn=c["grad_fn"], requires_grad=c["requires_grad"], dtype=c["dtype"],
        default_dtype=c["default_dtype"])]
    assert len(changed) > 100


# --- against PyTorch itself, when it is installed -------------------------------------------

try:
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")

SPECIAL = st.sampled_from([0.0, -0.0, nan, inf, -inf, 1e-5, 1e8, 1e9, 0.5, 1000.0])
MAGNITUDE = st.sampled_from([1e-10, 1e-5, 1e-4, 1e-3, 1.0, 1e3, 1e4, 1e8, 1e10])


def _torch_repr(arr: np.ndarray, dtype: str, default_dtype: str, mode: str,
                options: Any = DEFAULT_OPTIONS) -> tuple[str, str]:
    """Return PyTorch's repr of ``arr`` and what ``format_tensor`` makes of the same tensor."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, default_dtype))
    try:
        t = torch.from_numpy(np.array(arr, dtype=np.float64)).to(getattr(torch, dtype))
        if mode == "leaf":
            t.requires_grad_(True)
        elif mode == "clone":
            t = t.requires_grad_(True).clone()
        expected = repr(t)
    finally:
        torch.set_default_dtype(previous)
    got = format_tensor(
        t.detach().double().numpy(),
        grad_fn="CloneBackward0" if mode == "clone" else None,
        requires_grad=mode == "leaf",
        dtype=dtype,
        default_dtype=default_dtype,
        options=options,
    )
    return expected, got


@needs_torch
@runs_torch
@settings(max_examples=300, deadline=None)
@given(
    arr=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6),
        elements=st.one_of(st.floats(allow_subnormal=True), SPECIAL, st.integers(-999, 999)),
    ),
    scale=MAGNITUDE,
    dtype=st.sampled_from(["float64", "float32", "float16", "bfloat16"]),
    default_dtype=st.sampled_from(["float64", "float32"]),
    mode=st.sampled_from(["plain", "leaf", "clone"]),
)
def test_matches_torch_small(
    arr: np.ndarray, scale: float, dtype: str, default_dtype: str, mode: str
) -> None:
    """Small tensors of arbitrary floats print as PyTorch prints them."""
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = arr * scale
    expected, got = _torch_repr(scaled, dtype, default_dtype, mode)
    assert got == expected


@needs_torch
@runs_torch
@settings(max_examples=150, deadline=None)
@given(
    arr=hnp.arrays(np.float64, hnp.array_shapes(max_dims=3, max_side=9),
                   elements=st.floats(allow_nan=True, allow_infinity=True) | SPECIAL),
    scale=MAGNITUDE,
    dtype=st.sampled_from(["float64", "float32"]),
    options=st.fixed_dictionaries({}, optional={
        "precision": st.integers(0, 10), "threshold": st.integers(0, 40),
        "edgeitems": st.integers(0, 4), "linewidth": st.integers(1, 130),
        "sci_mode": st.booleans() | st.none(),
        "profile": st.sampled_from(["default", "short", "full"])}),
)
def test_matches_torch_under_print_options(
    arr: np.ndarray, scale: float, dtype: str, options: dict[str, Any]
) -> None:
    """Under any torch.set_printoptions, small tensors print as PyTorch prints them."""
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = arr * scale
    torch.set_printoptions(**options)
    try:
        expected, got = _torch_repr(scaled, dtype, "float64", "leaf",
                                    set_printoptions(DEFAULT_OPTIONS, **options))
    finally:
        torch.set_printoptions(profile="default")
    assert got == expected


@st.composite
def _threshold_shapes(draw: st.DrawFn) -> list[int]:
    """Draw a shape of 1-4 dims whose size is close to the 1000-element threshold."""
    lead = draw(st.lists(st.integers(1, 12), min_size=0, max_size=3))
    target = draw(st.integers(990, 1012))
    return [*lead, max(1, math.ceil(target / math.prod(lead)))]


@needs_torch
@runs_torch
@settings(max_examples=40, deadline=None)
@given(
    shape=_threshold_shapes(),
    seed=st.integers(0, 2**32 - 1),
    scale=MAGNITUDE,
    integral=st.booleans(),
    dtype=st.sampled_from(["float64", "float32"]),
)
def test_matches_torch_around_threshold(
    shape: list[int], seed: int, scale: float, integral: bool, dtype: str
) -> None:
    """Tensors around the 1000-element summarisation threshold print as PyTorch prints them."""
    rng = np.random.default_rng(seed)
    arr = rng.standard_normal(shape) * scale
    expected, got = _torch_repr(np.round(arr) if integral else arr, dtype, "float64", "plain")
    assert got == expected
