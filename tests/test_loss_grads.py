"""The pointwise losses' backward kernels against PyTorch's gradients
(tests/fixtures/torch/loss_backward.json, written by tools/record_loss_backward.py under the
``avx2`` setting): smooth_l1_loss and huber_loss, whose vector lanes and scalar tail round
differently and multiply by 1 / numel under 'mean', bit for bit on any machine;
soft_margin_loss, whose ``exp`` is MKL's, bit for bit on the recording machine and within an ulp
or two elsewhere."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gradcli.engine.backend import get_backend
from gradcli.engine.context import RunContext, use
from gradcli.engine.machine import Machine
from gradcli.engine.nn_functional import huber_loss, smooth_l1_loss, soft_margin_loss
from gradcli.engine.tensor import Tensor

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import machines

FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "torch" / "loss_backward.json")
                     .read_text(encoding="utf-8"))
LOSSES = {"smooth_l1_loss": smooth_l1_loss, "huber_loss": huber_loss,
          "soft_margin_loss": soft_margin_loss}


@pytest.fixture(scope="module")
def same_machine() -> bool:
    return machines.same_machine(FIXTURE["machine"],
                                 machines.describe(FIXTURE["settings"])) is None


def _array(text: str, dtype: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=dtype).copy()


@pytest.mark.parametrize("case", FIXTURE["cases"],
                         ids=lambda c: f"{c['loss']}-{c['dtype']}-{c['reduction']}-{c['n']}")
def test_gradients_are_pytorchs(case: dict, same_machine: bool) -> None:
    dt = case["dtype"]
    ctx = RunContext(get_backend("numpy", dt))
    ctx.machine = Machine("AVX2", int(FIXTURE["settings"]["OMP_NUM_THREADS"]))  # the recording's
    soft = case["loss"] == "soft_margin_loss"
    param = {"smooth_l1_loss": {"beta": case["param"]}, "huber_loss": {"delta": case["param"]},
             "soft_margin_loss": {}}[case["loss"]]
    with use(ctx):
        x = Tensor(_array(case["x"], dt), ctx.backend, requires_grad=True)
        y = Tensor(_array(case["y"], dt), ctx.backend, requires_grad=not soft)
        value = LOSSES[case["loss"]](x, y, reduction=case["reduction"], **param)
        value.backward(Tensor(_array(case["grad"], dt).reshape(value.data.shape), ctx.backend))
    got = [x.grad.data] + ([] if soft else [y.grad.data])
    want = [_array(case["x_grad"], dt)] + ([] if soft else [_array(case["y_grad"], dt)])
    for g, w in zip(got, want):
        if soft and not same_machine:  # MKL's exp on another CPU's code path
            np.testing.assert_allclose(g, w, rtol=4 * np.finfo(dt).eps, atol=0)
        else:
            assert g.tobytes() == w.tobytes(), (g, w)
