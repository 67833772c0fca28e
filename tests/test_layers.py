"""torch.nn's layers in PyTorch programs: finite differences in float64 for each new op
(torch.autograd.gradcheck as PyTorch's slow mode runs it), and what tools/engine_cases.py cannot
reach (class attributes such as ``Embedding.from_pretrained``, errors at a script's line).
Values, gradients, grad_fn names and saved tensors are held to PyTorch by the ``nn_embedding*``,
``nn_batch_norm_module``, ``nn_layer_norm_module``, ``nn_small_modules`` engine cases, and the
bits by tools/numerics_cases.py's ``batch_norm*`` and ``embedding_grad`` families."""

from __future__ import annotations

import pytest

from gradcli import pipeline
from gradcli.errors import ScriptError

PRELUDE = ("import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"
           "torch.manual_seed(0)\n")


def run(code: str):
    out: list[str] = []
    result = pipeline.run(PRELUDE + code + "\n", filename="prog.py", on_print=out.append)
    return result, "".join(out)


# NOTE: padding_idx and scale_grad_by_freq make embedding's gradient differ from the derivative
# on purpose (PyTorch's gradcheck fails them too): the engine cases hold those to PyTorch.
GRADCHECKS = {
    "embedding": "w = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)\n"
                 "i = torch.tensor([[0, 1, 2], [2, 2, 4]])\n"
                 "f = lambda w: F.embedding(i, w) * torch.arange(3.)",
    "embedding_max_norm": "w = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)\n"
                          "f = lambda w: F.embedding(torch.tensor([4, 0, 4]), w.clone(), "
                          "max_norm=10.0).sin()",
    "batch_norm_train": "x = torch.randn(6, 4, dtype=torch.float64, requires_grad=True)\n"
                        "w = torch.randn(4, dtype=torch.float64, requires_grad=True)\n"
                        "b = torch.randn(4, dtype=torch.float64, requires_grad=True)\n"
                        "f = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)"
                        ".sin()",
    "batch_norm_images": "x = torch.randn(3, 2, 2, 3, dtype=torch.float64, requires_grad=True)\n"
                         "w = torch.randn(2, dtype=torch.float64, requires_grad=True)\n"
                         "b = torch.randn(2, dtype=torch.float64, requires_grad=True)\n"
                         "f = lambda x, w, b: F.batch_norm(x, None, None, w, b, "
                         "training=True).sin()",
    "batch_norm_eval": "x = torch.randn(6, 4, dtype=torch.float64, requires_grad=True)\n"
                       "w = torch.randn(4, dtype=torch.float64, requires_grad=True)\n"
                       "b = torch.randn(4, dtype=torch.float64, requires_grad=True)\n"
                       "rm = torch.randn(4, dtype=torch.float64)\n"
                       "rv = torch.rand(4, dtype=torch.float64) + 0.5\n"
                       "f = lambda x, w, b: F.batch_norm(x, rm, rv, w, b).sin()",
    "batch_norm_module": "m = nn.BatchNorm1d(3, dtype=torch.float64)\n"
                         "x = torch.randn(5, 3, 2, dtype=torch.float64, requires_grad=True)\n"
                         "f = lambda x: m(x).cos()",
    "layer_norm_module": "m = nn.LayerNorm(4, dtype=torch.float64)\n"
                         "x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)\n"
                         "f = lambda x: m(x).exp()",
    "small_modules": "x = torch.randn(2, 3, 2, 2, dtype=torch.float64, requires_grad=True)\n"
                     "f = lambda x: (nn.Softmax2d()(x), nn.Hardtanh(-0.5, 0.5)(x), nn.ReLU6()(x * 4), "
                     "nn.CosineSimilarity()(x, x.flip(0)), nn.PairwiseDistance()(x, x * 2))",
    "conv2d": "x = torch.randn(2, 4, 6, 5, dtype=torch.float64, requires_grad=True)\n"
              "w = torch.randn(6, 2, 3, 2, dtype=torch.float64, requires_grad=True)\n"
              "b = torch.randn(6, dtype=torch.float64, requires_grad=True)\n"
              "f = lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2), "
              "groups=2)",
    "conv1d_same": "x = torch.randn(2, 3, 7, dtype=torch.float64, requires_grad=True)\n"
                   "w = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)\n"
                   "f = lambda x, w: F.conv1d(x, w, padding='same').sin()",
    "conv_module": "m = nn.Conv2d(2, 3, 3, padding=1, padding_mode='reflect', dtype=torch.float64)\n"
                   "x = torch.randn(3, 2, 4, 4, dtype=torch.float64, requires_grad=True)\n"
                   "f = lambda x: m(x).tanh()",
    "pad_circular": "x = torch.randn(2, 3, 4, 3, dtype=torch.float64, requires_grad=True)\n"
                    "m = nn.Conv1d(3, 2, 3, padding=2, padding_mode='circular', dtype=torch.float64)\n"
                    "f = lambda x: (F.pad(x, (2, 1, -1, 3), mode='circular'), "
                    "F.pad(x[0], (3, 0), mode='circular'), m(x[:, :, 0]).sin())",
    "pools": "x = torch.randn(2, 3, 7, 6, dtype=torch.float64, requires_grad=True)\n"
             "f = lambda x: (F.max_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, "
             "count_include_pad=False), F.adaptive_avg_pool2d(x, (4, 3)), F.max_pool1d(x[0], 2), "
             "F.avg_pool1d(x[0], 3, 1, 1), F.max_pool2d(x, 2, dilation=2))",
    "recurrent": "ms = [nn.RNN(3, 4, 2, dtype=torch.float64), nn.GRU(3, 4, batch_first=True, "
                 "dtype=torch.float64), nn.LSTM(3, 4, dtype=torch.float64)]\n"
                 "x = torch.randn(4, 2, 3, dtype=torch.float64, requires_grad=True)\n"
                 "f = lambda x: (ms[0](x)[0], ms[1](x)[1], ms[2](x)[1][1])",
    "recurrent_bidirectional": "ms = [nn.RNN(3, 2, 2, bidirectional=True, dtype=torch.float64), "
                               "nn.GRU(3, 2, 2, bidirectional=True, batch_first=True, dtype=torch.float64), "
                               "nn.LSTM(3, 2, 2, bidirectional=True, dtype=torch.float64)]\n"
                               "x = torch.randn(3, 2, 3, dtype=torch.float64, requires_grad=True)\n"
                               "f = lambda x: (ms[0](x)[0], ms[1](x)[1], ms[2](x)[1][1], ms[2](x)[0])",
    "lstm_projections": "ms = [nn.LSTM(3, 4, 2, proj_size=2, dtype=torch.float64), nn.LSTM(3, 3, "
                        "proj_size=1, bidirectional=True, batch_first=True, dtype=torch.float64)]\n"
                        "x = torch.randn(3, 2, 3, dtype=torch.float64, requires_grad=True)\n"
                        "h = torch.randn(2, 3, 1, dtype=torch.float64, requires_grad=True)\n"
                        "f = lambda x, h: (ms[0](x)[0], ms[0](x)[1][1], ms[1](x, (h, h.expand(2, 3, 3)))[0])",
    "cells": "cs = [nn.RNNCell(3, 4, dtype=torch.float64), nn.GRUCell(3, 4, dtype=torch.float64), "
             "nn.LSTMCell(3, 4, dtype=torch.float64)]\n"
             "x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)\n"
             "h = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)\n"
             "f = lambda x, h: (cs[0](x, h), cs[1](x, h), cs[2](x, (h, h * h))[1])",
    # randn draws keep every term away from the clamp's kink at 0
    "margin_ranking_loss": "a = torch.randn(6, dtype=torch.float64, requires_grad=True)\n"
                           "b = torch.randn(6, dtype=torch.float64, requires_grad=True)\n"
                           "t = torch.tensor([1., -1., 1., -1., 1., -1.], dtype=torch.float64)\n"
                           "f = lambda a, b: (F.margin_ranking_loss(a, b, t, 10.0, "
                           "reduction='none'), nn.MarginRankingLoss(0.5)(a, b, t))",
    "cosine_embedding_loss": "a = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
                             "b = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
                             "t = torch.tensor([1., -1., -1., 1.], dtype=torch.float64)\n"
                             "f = lambda a, b: (F.cosine_embedding_loss(a, b, t, -2.0, reduction='none'), "
                             "nn.CosineEmbeddingLoss()(a[0], b[1], torch.tensor(1.)))",
    "triplet_margin_loss": "a = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)\n"
                           "p = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)\n"
                           "n = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)\n"
                           "f = lambda a, p, n: (F.triplet_margin_loss(a, p, n, 20.0, "
                           "reduction='none'), F.triplet_margin_loss(a, p, n, 20.0, p=3, swap=True), "
                           "nn.TripletMarginLoss(margin=20.0, p=1)(a, p, n))",
}

# second derivatives: the convolution's and the pools' backward ops are themselves recorded
GRADGRADCHECKS = {
    "conv2d": "x = torch.randn(2, 2, 5, 4, dtype=torch.float64, requires_grad=True)\n"
              "w = torch.randn(4, 1, 2, 3, dtype=torch.float64, requires_grad=True)\n"
              "f = lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=2) ** 2",
    "conv1d": "x = torch.randn(2, 2, 6, dtype=torch.float64, requires_grad=True)\n"
              "w = torch.randn(3, 2, 3, dtype=torch.float64, requires_grad=True)\n"
              "f = lambda x, w: F.conv1d(x, w, dilation=2) ** 2",
    "pools": "x = torch.randn(1, 2, 6, 5, dtype=torch.float64, requires_grad=True)\n"
             "f = lambda x: (F.max_pool2d(x, 2, 1) ** 2, F.avg_pool2d(x, 3, 2, 1) ** 2, "
             "F.adaptive_avg_pool2d(x, (4, 2)) ** 2)",
}


@pytest.mark.parametrize("name", sorted(GRADGRADCHECKS))
def test_second_derivatives_agree_with_finite_differences(name: str) -> None:
    """gradgradcheck: the gradient's own gradient against central differences."""
    setup = GRADGRADCHECKS[name]
    args = setup.rsplit("f = lambda ", 1)[1].split(":")[0]
    result, out = run(f"{setup}\nprint(torch.autograd.gradgradcheck(f, ({args},)))")
    assert result.error is None, result.error
    assert out == "True\n"


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_finite_differences_agree_with_the_gradients(name: str) -> None:
    """gradcheck compares the backward with central differences in float64."""
    setup = GRADCHECKS[name]
    args = setup.rsplit("f = lambda ", 1)[1].split(":")[0]
    result, out = run(f"{setup}\nprint(torch.autograd.gradcheck(f, ({args},)))")
    assert result.error is None, result.error
    assert out == "True\n"


def test_a_wrong_gradient_fails_the_check() -> None:
    """The check can fail: a function whose gradient is not the function's."""
    result, _ = run("w = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)\n"
                    "f = lambda w: F.embedding(torch.tensor([0, 2]), w) + w.detach()[0] * w[0]"
                    ".detach()\nprint(torch.autograd.gradcheck(lambda w: F.embedding("
                    "torch.tensor([0]), w * w.detach()), (w,)))")
    assert result.error is not None and result.error.kind == "GradcheckError"


def test_from_pretrained_is_a_class_method() -> None:
    result, out = run("e = nn.Embedding.from_pretrained(torch.arange(6.).reshape(3, 2))\n"
                      "f = nn.Embedding.from_pretrained(torch.ones(2, 2), freeze=False, "
                      "padding_idx=0)\n"
                      "print(e, e.weight.requires_grad, e(torch.tensor([2, 0])).tolist(), f,"
                      " f.weight.requires_grad)")
    assert result.error is None, result.error
    assert out == ("Embedding(3, 2) False [[4.0, 5.0], [0.0, 1.0]] Embedding(2, 2, padding_idx=0)"
                   " True\n")


@pytest.mark.parametrize(("line", "kind"), [
    ("nn.Embedding(5, 3)(torch.tensor([5]))", "IndexError"),
    ("nn.Embedding(5, 3)(torch.tensor([1.0]))", "RuntimeError"),
    ("nn.Embedding(5, 3, padding_idx=-6)", "AssertionError"),
    ("nn.Embedding.from_pretrained(torch.ones(3))", "AssertionError"),
    ("F.embedding(torch.tensor([0]), torch.ones(2, 2), sparse=True)", "NotImplementedError"),
    ("nn.Dropout(-0.1)", "ValueError"),
    ("nn.BatchNorm1d(3)(torch.ones(2, 3, 4, 5))", "ValueError"),
    ("nn.BatchNorm1d(3)(5)", "AttributeError"),
    ("nn.LayerNorm(3)(torch.ones(2, 4))", "RuntimeError"),
    ("nn.Softmax2d()(torch.ones(3))", "ValueError"),
    ("nn.Unflatten(1, 3)", "TypeError"),
    ("nn.Unflatten(1, (2, 2))(torch.ones(2, 3))", "RuntimeError"),
    ("nn.Conv2d(1, 2, 3)(torch.ones(1, 2, 5, 5))", "RuntimeError"),
    (("nn.LSTM(3, 4, proj_size=2, bidirectional=True)(torch.ones(2, 1, 3))[1][0].sum() + 1 + "
      "nn.LazyLinear(2).weight"), "ValueError"),
    ("nn.GRU(3, 4, bidirectional=True)(torch.ones(2, 1, 3), torch.ones(1, 1, 4))", "RuntimeError"),
    ("nn.Conv2d(1, 2, 3, padding='full')", "ValueError"),
    ("nn.MaxPool2d(3)(torch.ones(1, 1, 2, 2))", "RuntimeError"),
    ("F.conv2d(torch.ones(1, 1, 3, 3), 2)", "TypeError"),
])
def test_misuse_is_a_positioned_script_error(line: str, kind: str) -> None:
    result, _ = run(line)
    assert isinstance(result.error, ScriptError)
    assert result.error.kind == kind, result.error.message
    assert result.error.span is not None and result.error.span.line == 5


def test_convolutions_and_pools_run_on_any_array_api_namespace() -> None:
    """Off NumPy the kernels are plain Array API formulas: the same values within rounding."""
    xs = pytest.importorskip("array_api_strict")
    import numpy as np

    from gradcli.engine import NN_FUNCTIONS as NN
    from gradcli.engine import RunContext, autograd, use
    from gradcli.engine.backend import from_namespace, get_backend
    from gradcli.engine.tensor import Tensor

    rng = np.random.default_rng(0)
    arrays = rng.standard_normal((2, 4, 7, 6)), rng.standard_normal((6, 2, 3, 2))

    def run(be, f):
        with use(RunContext(be, warnings=[])):
            x, w = (Tensor(be.xp.asarray(a), be).requires_grad_() for a in arrays)
            y = f(x, w)
            ones = Tensor(be.xp.ones(y.shape, dtype=be.xp.float64), be)
            grads = autograd.grad(y, [x, w], grad_outputs=[ones], allow_unused=True)
            return [np.asarray(y.data)] + [np.asarray(g.data) for g in grads if g is not None]

    cases = [lambda x, w: NN["conv2d"](x, w, None, (2, 1), (1, 2), (1, 2), 2),
             lambda x, w: NN["conv1d"](x[:, :2, 0], w[:, :, 0], None, 1, "same"),
             lambda x, w: NN["max_pool2d"](x, 3, 2, 1), lambda x, w: NN["avg_pool2d"](x, 3, 2, 1),
             lambda x, w: NN["adaptive_avg_pool2d"](x, (4, 3))]
    for f in cases:
        for a, b in zip(run(get_backend("numpy", "float64"), f), run(from_namespace(xs), f)):
            assert np.allclose(a, b, rtol=1e-13, atol=1e-13)
