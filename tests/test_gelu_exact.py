"""F.gelu and its gradient against PyTorch's bits (tests/fixtures/torch/gelu.json, written by
tools/record_gelu.py under the ``avx2`` setting): oneDNN's AVX2 gelu_erf kernel for contiguous
float32 inputs of more than one element, ATen's GeluKernel for one element and a transposed
input; the old series stand-in fails them; the AVX-512 minimax forward (ported from oneDNN's
source, not compared with PyTorch) stays within a few ulp of GELU."""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path

import numpy as np
import pytest

from gradcli.engine import kernels as K
from gradcli.engine import shape as S
from gradcli.engine.backend import get_backend
from gradcli.engine.context import RunContext, use
from gradcli.engine.exact import onednn
from gradcli.engine.functions import SURFACED
from gradcli.engine.machine import Machine
from gradcli.engine.tensor import Tensor

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "torch" / "gelu.json")
                     .read_text(encoding="utf-8"))
CASES = FIXTURE["cases"]


def _array(text: str, shape: list) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float32).copy().reshape(shape)


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a, np.float32).reshape(-1), np.asarray(b, np.float32).reshape(-1)
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


def _run(case: dict) -> tuple[np.ndarray, np.ndarray]:
    ctx = RunContext(get_backend("numpy", "float32"))
    ctx.machine = Machine("AVX2", case["threads"])
    x = _array(case["x"], case["shape"])
    g_shape = case["shape"][::-1] if case["transpose"] else case["shape"]
    with use(ctx):
        leaf = Tensor(x, ctx.backend, requires_grad=True)
        src = S.transpose(leaf, 0, 1) if case["transpose"] else leaf
        y = SURFACED["gelu"](src)
        y.backward(Tensor(_array(case["grad"], g_shape), ctx.backend))
    return np.asarray(y.data), np.asarray(leaf.grad.data)


def _id(case: dict) -> str:
    return f"{'x'.join(map(str, case['shape']))}{'-T' if case['transpose'] else ''}-" \
           f"t{case['threads']}"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_gelu_and_gradient_are_pytorchs(case: dict) -> None:
    y, x_grad = _run(case)
    g_shape = case["shape"][::-1] if case["transpose"] else case["shape"]
    assert _same_bits(y, _array(case["y"], g_shape)).all()
    assert _same_bits(x_grad, _array(case["x_grad"], case["shape"])).all()


def test_the_series_stand_in_is_not_pytorchs() -> None:
    """The formula F.gelu had before (x / 2 * (1 + erf) with a 110-term series erf) misses
    PyTorch's bits on most of the oneDNN cases: the comparison above can tell."""
    case = next(c for c in CASES if c["shape"] == [1024] and c["threads"] == 1)
    x = _array(case["x"], case["shape"])
    with np.errstate(all="ignore"):
        old = (x * np.float32(0.5) * (1 + K.erf_series(np, x * math.sqrt(0.5)))).astype(
            np.float32)
    assert (~_same_bits(old, _array(case["y"], case["shape"]))).sum() > 100


def test_avx512_minimax_forward_is_close_to_gelu() -> None:
    """The AVX-512 forward is unverified against PyTorch: hold it to GELU itself (float64 erf)
    within 2e-6 on [-8, 8] (oneDNN's minimax polynomials are within about 1.1e-6, its AVX2
    kernel 3.7e-7; both lose the relative accuracy where 1 + erf cancels), and to its special
    values."""
    x = np.concatenate([np.linspace(-8, 8, 20001), [1e-30, -1e-30, 0.0, 6.0, -6.0]]) \
        .astype(np.float32)
    got = onednn.gelu_avx512(x).astype(np.float64)
    erf = np.array([math.erf(v / math.sqrt(2)) for v in x.astype(np.float64)])
    want = x.astype(np.float64) * 0.5 * (1 + erf)
    assert np.abs(got - want).max() <= 2e-6
    assert not np.array_equal(got, onednn.gelu_avx2(x))  # another kernel
    assert onednn.gelu_avx512(np.float32([1e3]))[0] == np.float32(1e3)
    assert np.isnan(onednn.gelu_avx512(np.float32([np.nan]))[0])


def test_machine_picks_the_onednn_isa() -> None:
    """An AVX512 machine runs the minimax forward, an AVX2 one Abramowitz and Stegun's; both
    the same backward."""
    x = (np.random.default_rng(7).standard_normal(64) * 3).astype(np.float32)
    for capability, fwd in (("AVX2", onednn.gelu_avx2), ("AVX512", onednn.gelu_avx512)):
        ctx = RunContext(get_backend("numpy", "float32"))
        ctx.machine = Machine(capability, 1)
        with use(ctx):
            assert K.gelu(np, x).tobytes() == fwd(x).tobytes()
            assert K.gelu_backward(np, np.ones_like(x), x).tobytes() == \
                onednn.gelu_backward(np.ones_like(x), x).tobytes()


@pytest.mark.skipif(onednn.native.lib is None,
                    reason="gradcli's C kernels are not built here (no C compiler at install "
                           "time, or GRADCLI_PURE is set)")
def test_compiled_kernels_match_the_numpy_port():
    """The oneDNN kernels' C loops and onednn.py's NumPy steps: random bit patterns (NaN and
    infinities included), the range where exp underflows, a transposed input, a 0-d one, a
    gradient of one element broadcast."""
    rng = np.random.default_rng(43)
    inputs = [rng.integers(0, 2 ** 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
              rng.uniform(-16, 16, 200_000).astype(np.float32),
              (rng.standard_normal((37, 53)) * 3).astype(np.float32).T, np.float32(0.7),
              np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4e38, -3.4e38], np.float32)]
    lib = onednn.native.lib
    for x in inputs:
        grad = rng.standard_normal(np.shape(x)).astype(np.float32)
        for fn, args in ((onednn.gelu_avx2, (x,)), (onednn.gelu_avx512, (x,)),
                         (onednn.gelu_backward, (grad, x)),
                         (onednn.gelu_backward, (np.float32(1.5), x))):
            compiled = fn(*args)
            onednn.native.lib = None
            try:
                port = fn(*args)
            finally:
                onednn.native.lib = lib
            assert np.shape(compiled) == np.shape(port)
            assert _same_bits(compiled, port).all()
