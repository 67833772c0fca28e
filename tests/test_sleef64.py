"""SLEEF's double-precision functions (engine/exact/sleef64.py) against PyTorch's own results.

tools/record_sleef64.py recorded PyTorch 2.13's float64 ``log1p``, ``expm1``, ``exp2``,
``atan2``, ``sinh``, ``cosh``, ``pow`` with a scalar exponent and the softmaxes (their ``exp`` and ``log``) on AVX512, over
inputs with every edge case (huge, tiny, subnormal, infinite, NaN; the arguments where SLEEF's
functions switch to 0, -1 or inf) and lengths that leave a scalar tail.  Every bit must match.
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path

import numpy as np
import pytest

from gradcli.engine import machine
from gradcli.engine.exact import sleef64, softmaxes, unary
from gradcli.engine.machine import Machine

FIXTURE = json.loads((Path(__file__).resolve().parent / "fixtures" / "torch" /
                      "sleef64.json").read_text())
OPS = {
    "log1p": unary.log1p,
    "expm1": unary.expm1,
    "exp2": lambda x: unary.library("exp2", x),
    "sinh": lambda x: unary.mkl("sinh", x),
    "cosh": lambda x: unary.mkl("cosh", x),
    "atan2": lambda y, x: unary.library("arctan2", y, x),
    "pow(2.5)": lambda x: unary.pow_scalar(x, 2.5),
    "pow(-1.5)": lambda x: unary.pow_scalar(x, -1.5),
    "softmax": lambda x: softmaxes.softmax(x, 1),
    "log_softmax": lambda x: softmaxes.log_softmax(x, 1),
    "softmax_dim0": lambda x: softmaxes.softmax(x, 0),
}


def _decode(text: str, shape: list[int]) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), np.float64).reshape(shape)


@pytest.fixture
def avx512():
    token = machine.activate(Machine("AVX512", 2))
    yield
    machine.deactivate(token)


def test_every_recorded_case_is_tested():
    assert set(FIXTURE["cases"]) == set(OPS)
    assert FIXTURE["settings"]["ATEN_CPU_CAPABILITY"] == "avx512"


@pytest.mark.parametrize("name", sorted(OPS))
def test_bits_equal_pytorchs(name, avx512):
    case = FIXTURE["cases"][name]
    x = _decode(case["x"], case["shape"])
    want = _decode(case["out"], case["shape"])
    more = [_decode(case["other"], case["shape"])] if "other" in case else []
    got = np.asarray(OPS[name](x, *more))
    assert got.shape == want.shape
    same = (got.view(np.uint64) == want.view(np.uint64)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same.reshape(-1))
    assert bad.size == 0, [(x.reshape(-1)[i], got.reshape(-1)[i], want.reshape(-1)[i])
                           for i in bad[:5]]


def test_ports_are_within_one_ulp_of_the_true_values():
    """SLEEF's u10 functions are within 1 ulp: so must the ports be (NaN and the edges aside)."""
    x = np.linspace(-700, 700, 2001)
    for fn, ref in ((sleef64.exp, math.exp), (sleef64.expm1, math.expm1),
                    (sleef64.exp2, lambda v: 2.0 ** v)):
        got = fn(x)
        want = np.array([ref(v) for v in x])
        assert np.all(np.abs(got - want) <= np.spacing(np.abs(want)))
    y = np.exp(np.linspace(-700, 700, 2001))
    for fn, ref in ((sleef64.log, math.log), (sleef64.log1p, math.log1p)):
        got = fn(y)
        want = np.array([ref(v) for v in y])
        assert np.all(np.abs(got - want) <= np.spacing(np.abs(want)))


def test_fma64_rounds_huge_operands_once():
    """Operands above 2**996 cannot be split exactly: fma64 settles them exactly (atan2 of a
    tiny angle divides by them), array and scalar alike."""
    from fractions import Fraction

    from gradcli.engine.exact.fp import fma64

    a = np.array([1.6885723421170134e305, 3.706933812663141e301, 1e308])
    b = np.array([1 / 1.6885723421170134e305, -1 / 3.706933812663141e301, 10.0])
    c = np.array([-1.0, 1.0, 0.0])
    want = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a[:2], b, c)]
    got = fma64(a, b, c)
    assert list(got[:2]) == want and got[2] == np.inf
    assert [fma64(float(x), float(y), float(z)) for x, y, z in zip(a[:2], b, c)] == want


def test_power_special_values():
    x = np.array([0.0, -0.0, -2.0, -2.0, np.inf, -np.inf, 1.0, np.nan, 0.5, 2.0])
    y = np.array([-1.0, -3.0, 3.0, 0.5, -2.0, 3.0, np.nan, 0.0, np.inf, -np.inf])
    got = sleef64.power(x, y)
    want = np.array([np.inf, -np.inf, -8.0, np.nan, 0.0, -np.inf, 1.0, 1.0, 0.0, 0.0])
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))
