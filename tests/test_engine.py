"""The engine on its own: every op against finite differences, PyTorch's autograd rules."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gradcli import api as F
from gradcli import engine, pipeline
from gradcli.engine import autograd, dtypes
from gradcli.engine import ops as O
from gradcli.engine.backend import from_namespace, get_backend
from gradcli.engine.context import RunContext, current, use
from gradcli.engine.formulas import TENSOR_FORMULAS
from gradcli.engine.record import apply
from gradcli.engine.recurrent import _unsafe_chunk as unsafe_chunk
from gradcli.engine.shape import transpose_result
from gradcli.errors import ScriptError


@pytest.fixture(autouse=True)
def numpy_backend():
    with use(RunContext(get_backend("numpy", "float64"))):
        yield


def _labels(values):
    return F.tensor(values, dtype=dtypes.INT64)


def _param(values):
    return F.param(np.asarray(values, dtype=np.float64).tolist())


rng = np.random.default_rng(7)
A = rng.uniform(0.5, 1.5, (3, 4)).tolist()  # positive: log/sqrt/pow are smooth here
B = rng.uniform(0.5, 1.5, (3, 4)).tolist()
V3 = rng.uniform(0.5, 1.5, 3).tolist()
V4 = rng.uniform(0.5, 1.5, 4).tolist()
M44 = rng.uniform(-1, 1, (4, 4)).tolist()
DISTINCT = [[0.3, -1.2, 2.5, 0.7], [1.9, -0.4, 0.1, 1.1], [-2.2, 0.6, 1.4, -0.9]]

# Each case: (op-table name it exercises, function of the inputs, input values). One case per
# op at least: a test below fails when an op of the table has none.
CASES = [
    ("add", lambda a, b: a + b, [A, B]),
    ("add", lambda a, b: a + b, [A, V4]),  # broadcast undone by the engine
    ("sub", lambda a, b: a - b, [A, B]),
    ("add_alpha", lambda a, b: F.FUNCTIONS["add"](a, b, alpha=0.7), [A, B]),
    ("sub_alpha", lambda a, b: F.FUNCTIONS["sub"](a, b, alpha=-1.5), [A, V4]),
    ("rsub", lambda a: 1 - a, [A]),
    ("mul", lambda a, b: a * b, [A, B]),
    ("mul", lambda a: a * a, [A]),
    ("div", lambda a, b: a / b, [A, B]),
    ("reciprocal", lambda a: 2 / a, [A]),
    ("neg", lambda a: -a, [A]),
    ("pow", lambda a: a ** 3, [A]),
    ("pow", lambda a: a ** 0.5, [A]),
    ("pow_tensor", lambda a, b: a ** b, [A, B]),
    ("pow_scalar_base", lambda a: 2 ** a, [A]),
    ("remainder_scalar", lambda a: a % 0.7, [A]),
    ("remainder", lambda a, b: (a * 3) % b, [A, B]),
    ("maximum", lambda a, b: F.maximum(a, b), [A, B]),
    ("minimum", lambda a, b: F.minimum(a, b), [A, B]),
    ("clamp", lambda a: F.clamp(a, min=0.0, max=0.5), [DISTINCT]),
    ("exp", F.exp, [A]),
    ("log", F.log, [A]),
    ("sqrt", F.sqrt, [A]),
    ("abs", F.abs, [DISTINCT]),
    ("sin", F.sin, [A]),
    ("cos", F.cos, [A]),
    ("tanh", F.tanh, [A]),
    ("sigmoid", F.sigmoid, [A]),
    ("relu", F.relu, [DISTINCT]),
    ("sign", lambda a: F.sign(a) * a, [DISTINCT]),
    ("clone", F.clone, [A]),
    ("to_copy", lambda a: a.to(copy=True), [A]),
    ("sum", F.sum, [A]),
    ("sum_dim", lambda a: F.sum(a, dim=0), [A]),
    ("sum_dim", lambda a: F.sum(a, dim=1, keepdim=True), [A]),
    ("mean", F.mean, [A]),
    ("mean_dim", lambda a: F.mean(a, dim=1), [A]),
    ("max", F.max, [DISTINCT]),
    ("min", F.min, [DISTINCT]),
    ("mm", lambda a, b: a @ b, [A, M44]),
    ("mv", lambda a, v: a @ v, [A, V4]),
    ("dot", lambda a, b: a @ b, [V4, V4]),
    ("addmm", lambda a, w, b: F.linear(a, w, b), [A, M44, V4]),  # the bias broadcast
    ("squeeze_sym", lambda v, a: v @ a, [V3, A]),
    ("view", lambda a: F.reshape(a, 4, 3), [A]),
    ("unsafe_view", lambda a: F.reshape(a.t(), 12), [A]),
    ("t", lambda a: a.t(), [A]),
    ("permute", lambda a: a.T, [A]),
    ("transpose", lambda a: F.transpose(a, 0, 1), [A]),
    ("unsqueeze", lambda a: F.unsqueeze(a, 1), [A]),
    ("squeeze", lambda a: F.squeeze(F.unsqueeze(a, 0)), [A]),
    ("squeeze_dim", lambda a: F.squeeze(F.unsqueeze(a, 2), 2), [A]),
    ("select", lambda a: a[1], [A]),
    ("slice", lambda a: a[0:3:2], [A]),
    ("softmax", lambda a: F.softmax(a, 1), [A]),
    ("log_softmax", lambda a: F.log_softmax(a, 0), [A]),
    ("mse_loss", F.mse_loss, [A, B]),
    ("where", lambda a, b: TENSOR_FORMULAS.where(np.asarray(DISTINCT) > 0, a, b), [A, B]),
    ("expand", lambda a: TENSOR_FORMULAS.broadcast_to(a, (2, 3, 4)), [A]),
    ("select_backward", lambda a: TENSOR_FORMULAS.select_backward(a, (2, 3, 4), 0, 1), [A]),
    ("slice_backward", lambda a: TENSOR_FORMULAS.slice_backward(a, (5, 4), 0, 1, 4, 1), [A]),
    ("unbind", lambda a: F.unbind(a, 1)[2] * F.unbind(a)[0][:3], [A]),
    ("split", lambda a: F.split(a, 2, 1)[1] * F.chunk(a, 2, 1)[0], [A]),
    ("split_with_sizes", lambda a: F.split(a, [1, 3], 1)[1] * F.split(a, [3, 1], 1)[0], [A]),
    ("index", lambda a: a[[0, 2, 0]], [A]),  # a repeated row: its gradients add up
    ("index", lambda a: a[1:, [3, 0]], [A]),
    ("index", lambda a: a[F.tensor(DISTINCT) > 0], [A]),
    ("index_put_", lambda a, v: apply(O.INDEX_PUT, (a, _positions(a, [[0, 2], [1, 3]]), v)),
     [A, [0.5, -0.25]]),
    ("index_backward", lambda g: TENSOR_FORMULAS.index_backward(
        g, (2, 4), _positions(F.zeros(2, 4), [[0, 1, 1], [2, 2, 3]])), [V3]),
    ("copy_", lambda a, b: apply(O.COPY, (a, b)), [A, V4]),  # b broadcast into a's shape
    # joins
    ("cat", lambda a, b: F.cat([a, b, a], 1), [A, B]),
    ("cat", lambda a, v: F.cat((a, F.unsqueeze(v, 0)), 0), [A, V4]),
    ("stack", lambda a, b: F.stack([a, b], 1), [A, B]),
    ("where", lambda a, b: F.where(F.tensor(DISTINCT) > 0, a, b), [A, V4]),
    ("where", lambda a: F.where(F.tensor(DISTINCT) > 0, 2.0, a), [A]),
    ("masked_fill", lambda a: a.masked_fill(F.tensor(DISTINCT) > 0.5, 0.0), [A]),
    ("repeat", lambda a: a.repeat(2, 1, 3), [A]),
    ("expand", lambda v: v.expand(2, 3, 4), [V4]),
    ("reshape_alias", lambda a: F.reshape(a.t(), 4, 3, 1), [A]),
    # reductions along dims, spread, norms, products
    ("max_dim", lambda a: a.max(1).values, [DISTINCT]),
    ("max_dim", lambda a: F.max(a, 0, True)[0], [DISTINCT]),
    ("min_dim", lambda a: a.min(dim=1)[0], [DISTINCT]),
    ("var", lambda a: a.var(1), [A]),
    ("var", lambda a: F.var(a, correction=0), [A]),
    ("std", lambda a: a.std(0, keepdim=True), [A]),
    ("std", lambda a: a.std(), [A]),
    ("linalg_vector_norm", lambda a: a.norm(), [DISTINCT]),
    ("linalg_vector_norm", lambda a: F.norm(a, 3, 1), [DISTINCT]),
    ("linalg_vector_norm", lambda a: a.norm(1, dim=0, keepdim=True), [DISTINCT]),
    ("linalg_vector_norm", lambda a: a.norm(float("inf"), 1), [DISTINCT]),
    ("linalg_vector_norm", lambda a: a.norm(0.5), [DISTINCT]),
    ("linalg_vector_norm", lambda a: F.LINALG["vector_norm"](a, 1.5, (0, 1)), [DISTINCT]),
    ("linalg_vector_norm_to", lambda a: a.norm(3, dim=1, dtype=dtypes.FLOAT64), [DISTINCT]),
    ("linalg_vector_norm_to", lambda a: a.norm(dtype=dtypes.FLOAT64) * a, [DISTINCT]),
    ("linalg_vector_norm_to", lambda a: a.norm(0.5, dtype=dtypes.FLOAT64), [DISTINCT]),
    ("prod", lambda a: a.prod(), [A]),
    ("prod", F.prod, [[[0.0, 1.5], [2.0, 0.5]]]),  # one zero: the product of the others
    ("prod_dim", lambda a: a.prod(1), [A]),
    ("prod_dim", lambda a: F.prod(a, 0, keepdim=True), [[[0.0, 1.5, 0.0], [2.0, 0.0, 0.5]]]),
    # batched matmul, and matmul folding batches into mm
    ("bmm", lambda a, b: F.bmm(F.reshape(a, 3, 2, 2), F.reshape(b, 3, 2, 2)), [A, B]),
    ("bmm", lambda a, b: F.reshape(a, 3, 1, 4) @ F.reshape(b, 3, 4, 1), [A, B]),
    ("mm", lambda a, m: F.reshape(a, 3, 1, 4) @ m, [A, M44]),
    ("mv", lambda v, a: F.unsqueeze(a, 0).expand(2, 3, 4) @ v, [V4, A]),
    # elementwise with a parameter
    # ops group A: two-argument math, lerp, addcmul, cumulative and further reductions
    ("atan2", lambda a, b: F.atan2(a, b - 1), [DISTINCT, B]),
    ("hypot", lambda a, b: F.hypot(a, b), [DISTINCT, V4]),
    ("logaddexp", lambda a, b: F.logaddexp(a, b), [DISTINCT, B]),
    ("fmod_scalar", lambda a: F.fmod(a, 0.65), [DISTINCT]),
    ("fmod", lambda a, b: F.fmod(a * 3, b), [A, B]),
    ("lerp_scalar", lambda a, b: F.lerp(a, b, 0.3), [A, B]),
    ("lerp_scalar", lambda a, b: a.lerp(b, 0.8), [A, V4]),
    ("lerp", lambda a, b, w: F.lerp(a, b, w), [A, B, DISTINCT]),
    ("addcmul", lambda a, b, c: F.addcmul(a, b, c, value=0.5), [A, B, DISTINCT]),
    ("addcdiv", lambda a, b, c: F.addcdiv(a, b, c, value=-2), [A, DISTINCT, B]),
    ("xlogy", lambda a, b: F.xlogy(a, b), [DISTINCT, B]),
    ("xlogy_other_number", lambda a: F.xlogy(a, 2.5), [DISTINCT]),
    ("xlogy_self_number", lambda b: F.xlogy(1.5, b), [B]),
    ("copysign", lambda a, b: F.copysign(a, b) * a, [DISTINCT, A]),
    ("copysign_scalar", lambda a: F.copysign(a, -1.0), [DISTINCT]),
    ("cumsum", lambda a: F.cumsum(a, 1), [A]),
    ("cumsum", lambda a: a.cumsum(dim=0) * a, [A]),
    ("cumprod", lambda a: F.cumprod(a, 1), [DISTINCT]),
    ("cumprod", lambda a: F.cumprod(a, 0), [[[0.0, 1.5], [2.0, 0.0], [0.5, 3.0]]]),
    ("logsumexp", lambda a: F.logsumexp(a, 1), [DISTINCT]),
    ("logsumexp", lambda a: a.logsumexp((0, 1), keepdim=True), [DISTINCT]),
    ("amax", lambda a: F.amax(a, 1), [DISTINCT]),
    ("amax", lambda a: F.amax(a), [[[1.0, 2.0], [2.0, 0.5]]]),  # a tie shares the gradient
    ("amin", lambda a: a.amin(0, True), [DISTINCT]),
    ("aminmax_min", lambda a: F.aminmax(a).min * F.aminmax(a, dim=1)[0], [DISTINCT]),
    ("aminmax_max", lambda a: F.aminmax(a, dim=0, keepdim=True).max, [[[1.0, 2.0], [2.0, 0.5]]]),
    ("nansum", lambda a: F.nansum(a, 1) * F.nansum(a), [A]),
    ("nansum_to", lambda a: F.nansum(a, 1, True, dtype=dtypes.FLOAT64) * a, [A]),
    ("cumsum_to", lambda a: F.cumsum(a, 1, dtype=dtypes.FLOAT64) * a, [A]),
    ("cumprod_to", lambda a: F.cumprod(a, 0, dtype=dtypes.FLOAT64), [DISTINCT]),
    ("trace", lambda a: F.trace(a) * a, [A]),
    ("dist", lambda a, b: F.dist(a, b), [DISTINCT, B]),
    ("dist", lambda a, b: F.dist(a, b, 3), [DISTINCT, V4]),
    ("clamp_min", lambda a: a.clamp_min(0.2), [DISTINCT]),
    ("clamp_max", lambda a: F.clamp_max(a, 0.5), [DISTINCT]),
    ("round_decimals", lambda a: F.round(a, decimals=1) * a, [DISTINCT]),
    ("relu", lambda a: F.NN_FUNCTIONS["relu"](a * 1, inplace=True), [DISTINCT]),
    ("leaky_relu_", lambda a: F.NN_FUNCTIONS["leaky_relu"](a * 1, 0.1, True), [DISTINCT]),
    ("elu_", lambda a: F.NN_FUNCTIONS["elu"](a * 1, inplace=True), [DISTINCT]),
    ("hardtanh", lambda a: F.NN_FUNCTIONS["hardtanh"](a * 2, inplace=True), [DISTINCT]),
    # losses
    ("nll_loss", lambda a: F.nll_loss(a, _labels([0, 3, 1])), [A]),
    ("nll_loss", lambda a: F.nll_loss(a, _labels([0, 3, 1]), weight=F.tensor(V4),
                                      ignore_index=1, reduction="none"), [A]),
    ("nll_loss", lambda a: F.cross_entropy(a, _labels([2, 0, 1]), F.tensor(V4),
                                           label_smoothing=0.2), [A]),
    ("log_softmax", lambda a, b: F.cross_entropy(a, F.softmax(b, 1), reduction="sum"), [A, B]),
    ("binary_cross_entropy", lambda a, b: F.binary_cross_entropy(F.sigmoid(a), F.sigmoid(b)),
     [A, B]),
    ("binary_cross_entropy", lambda a, b: F.binary_cross_entropy(
        F.sigmoid(a), F.sigmoid(b), weight=F.tensor(V4), reduction="sum"), [DISTINCT, B]),
    ("binary_cross_entropy_with_logits",
     lambda a, b: F.binary_cross_entropy_with_logits(a, F.sigmoid(b)), [DISTINCT, B]),
    ("binary_cross_entropy_with_logits", lambda a, b: F.binary_cross_entropy_with_logits(
        a, F.sigmoid(b), weight=F.tensor(V4), pos_weight=F.tensor(V4), reduction="none"),
     [DISTINCT, B]),
    ("smooth_l1_loss", lambda a, b: F.smooth_l1_loss(a * 2, b, beta=0.5), [DISTINCT, B]),
    ("huber_loss", lambda a, b: F.huber_loss(a, b, delta=0.5, reduction="none"), [DISTINCT, B]),
    ("abs", lambda a, b: F.l1_loss(a, b), [DISTINCT, B]),
    # torch.nn.functional: activations in place, normalisation, distances, padding, losses
    ("selu_", lambda a: F.NN_FUNCTIONS["selu"](a * 1, True), [DISTINCT]),
    ("celu_", lambda a: F.NN_FUNCTIONS["celu"](a * 1, 0.5, True), [DISTINCT]),
    ("threshold", lambda a: F.NN_FUNCTIONS["threshold"](a, 0.2, -1.0), [DISTINCT]),
    ("threshold_", lambda a: F.NN_FUNCTIONS["threshold"](a * 1, 0.2, -1.0, True), [DISTINCT]),
    ("glu", lambda a: F.NN_FUNCTIONS["glu"](a), [DISTINCT]),
    ("native_layer_norm", lambda a: F.NN_FUNCTIONS["layer_norm"](a, (4,)), [DISTINCT]),
    ("native_layer_norm", lambda a, w, b: F.NN_FUNCTIONS["layer_norm"](a, [3, 4], w, b),
     [DISTINCT, A, B]),
    ("native_batch_norm", lambda a, w, b: F.NN_FUNCTIONS["batch_norm"](
        a, None, None, w, b, training=True), [DISTINCT, V4, V4]),
    ("native_batch_norm", lambda a, w: F.NN_FUNCTIONS["batch_norm"](
        a, F.tensor(V4), F.tensor(V4), w, eps=0.1), [DISTINCT, V4]),
    ("constant_pad_nd", lambda a: F.NN_FUNCTIONS["pad"](a, (1, -1, 2, 0), value=0.5), [A]),
    *((f"{kind}_pad{k}d", lambda a, k=k, m=mode: F.NN_FUNCTIONS["pad"](
        F.reshape(a, *(1,) * (k - 1), 3, 4), (2, 1, 1, 0, 0, 0)[:2 * k], mode=m), [DISTINCT])
      for kind, mode in (("reflection", "reflect"), ("replication", "replicate"))
      for k in (1, 2, 3)),
    *((f"{kind}_pad{k}d_backward", lambda g, k=k, kind=kind: apply(
        O.OPS[f"{kind}_pad{k}d_backward"], (F.reshape(g, *(1,) * (k - 1), 3, 4),),
        {"input_shape": (1,) * (k - 1) + (2, 3), "padding": (1, 0, 1, 0, 0, 0)[:2 * k]}), [A])
      for kind in ("reflection", "replication") for k in (2, 3)),
    *((f"{kind}_pad1d_backward", lambda g, kind=kind: apply(
        O.OPS[f"{kind}_pad1d_backward"], (g,), {"input_shape": (3, 2), "padding": (1, 1)}), [A])
      for kind in ("reflection", "replication")),
    ("norm_dim", lambda a, b: F.NN_FUNCTIONS["pairwise_distance"](a, b), [DISTINCT, B]),
    ("norm_dim", lambda a, b: F.NN_FUNCTIONS["pairwise_distance"](a, b, p=3, keepdim=True),
     [DISTINCT, B]),
    ("xlogy", lambda a, b: F.NN_FUNCTIONS["kl_div"](F.log_softmax(a, 1), F.softmax(b, 1),
                                                    reduction="batchmean"), [DISTINCT, B]),
    ("soft_margin_loss", lambda a: F.NN_FUNCTIONS["soft_margin_loss"](
        a, F.tensor([[1.0, -1.0, 1.0, 1.0]] * 3), reduction="sum"), [DISTINCT]),
    # the activations' backward kernels, ops of their own under create_graph=True
    ("tanh_backward", lambda g, y: apply(O.TANH_BACKWARD, (g, y)), [A, B]),
    ("sigmoid_backward", lambda g, y: apply(O.SIGMOID_BACKWARD, (g, y)), [A, B]),
    ("softmax_backward", lambda g, y: apply(O.SOFTMAX_BACKWARD, (g, y), {"dim": 1}), [A, B]),
    ("log_softmax_backward", lambda g, y: apply(O.LOG_SOFTMAX_BACKWARD, (g, y), {"dim": 0}),
     [A, B]),
    ("threshold_backward", lambda g, x: apply(O.THRESHOLD_BACKWARD, (g, x), {"threshold": 0.0}),
     [A, DISTINCT]),
    ("leaky_relu_backward", lambda g, x: apply(
        O.LEAKY_RELU_BACKWARD, (g, x), {"negative_slope": 0.1, "self_is_result": False}),
     [A, DISTINCT]),
    ("hardtanh_backward", lambda g, x: apply(
        O.HARDTANH_BACKWARD, (g, x), {"min_val": -1.0, "max_val": 1.0}), [A, DISTINCT]),
    ("elu_backward", lambda g, x: apply(O.ELU_BACKWARD, (g, x), {
        "alpha": 1.3, "scale": 1.1, "input_scale": 0.9, "is_result": False}), [A, DISTINCT]),
    ("elu_backward", lambda g, y: apply(O.ELU_BACKWARD, (g, y), {
        "alpha": 1.3, "scale": 1.1, "input_scale": 0.9, "is_result": True}), [A, DISTINCT]),
    ("softplus_backward", lambda g, x: apply(O.SOFTPLUS_BACKWARD, (g, x), {
        "beta": 2.0, "threshold": 3.0}), [A, DISTINCT]),
    ("logsigmoid_backward", lambda g, x: apply(O.LOGSIGMOID_BACKWARD, (g, x)), [A, DISTINCT]),
    ("gelu_backward", lambda g, x: apply(O.GELU_BACKWARD, (g, x), {"approximate": "none"}),
     [A, DISTINCT]),
    ("gelu_backward", lambda x, g: apply(O.GELU_BACKWARD, (g, x), {"approximate": "none"}),
     [DISTINCT, A]),
    ("gelu_backward", lambda x, g: apply(O.GELU_BACKWARD, (g, x), {"approximate": "tanh"}),
     [DISTINCT, A]),
    # embeddings, convolutions, poolings (and the backward ops their formulas record)
    ("embedding", lambda w: F.NN_FUNCTIONS["embedding"](_labels([[0, 2], [2, 1]]), w), [A]),
    ("embedding_dense_backward", lambda g: apply(
        O.OPS["embedding_dense_backward"], (g, _labels([0, 2, 2])),
        {"num_weights": 4, "padding_idx": -1, "scale_grad_by_freq": False}), [A]),
    ("convolution", lambda a, w, b: F.NN_FUNCTIONS["conv2d"](
        F.reshape(a, 1, 1, 3, 4), F.reshape(w, 2, 1, 2, 3), b[:2], padding=1), [A, B, V4]),
    ("convolution", lambda a, w: F.NN_FUNCTIONS["conv1d"](
        F.reshape(a, 1, 2, 6), F.reshape(w, 2, 2, 3), stride=2, padding=1), [A, B]),
    ("convolution_backward_input", lambda g, w: apply(
        O.OPS["convolution_backward_input"], (F.reshape(g, 1, 2, 2, 3), F.reshape(w[:2], 2, 1, 2, 2)),
        {"input_shape": (1, 1, 3, 4), "stride": (1, 1), "padding": (0, 0), "dilation": (1, 1),
         "groups": 1}), [A, B]),
    ("convolution_backward_weight", lambda g, x: apply(
        O.OPS["convolution_backward_weight"], (F.reshape(g, 1, 2, 2, 3), F.reshape(x, 1, 1, 3, 4)),
        {"weight_shape": (2, 1, 2, 2), "stride": (1, 1), "padding": (0, 0), "dilation": (1, 1),
         "groups": 1}), [A, B]),
    ("max_pool2d_with_indices", lambda a: F.NN_FUNCTIONS["max_pool2d"](
        F.reshape(a, 1, 1, 3, 4), 2, 1), [DISTINCT]),
    ("max_pool2d_with_indices_backward", lambda g: apply(
        O.OPS["max_pool2d_with_indices_backward"], (F.reshape(g[:, :2], 1, 1, 2, 3),
                                                    _labels([[[[0, 6, 6], [4, 9, 11]]]])),
        {"self_shape": (1, 1, 3, 4)}), [A]),
    ("avg_pool2d", lambda a: F.NN_FUNCTIONS["avg_pool2d"](
        F.reshape(a, 1, 1, 3, 4), 2, 1, 1, count_include_pad=False), [A]),
    ("avg_pool2d_backward", lambda g: apply(
        O.OPS["avg_pool2d_backward"], (F.reshape(g[:, :2], 1, 1, 2, 3),),
        {"self_shape": (1, 1, 3, 4), "kernel_size": (2, 2), "stride": (1, 1), "padding": (0, 0),
         "ceil_mode": False, "count_include_pad": True, "divisor_override": None}), [A]),
    ("unsafe_split", lambda a: F.mul(*unsafe_chunk(a, 2)), [A]),
    ("transpose_", lambda a: transpose_result(a * 1, 0, 1), [A]),
    ("_adaptive_avg_pool2d", lambda a: F.NN_FUNCTIONS["adaptive_avg_pool2d"](
        F.reshape(a, 1, 1, 3, 4), (2, 3)), [A]),
    ("adaptive_avg_pool2d_backward", lambda g: apply(
        O.OPS["adaptive_avg_pool2d_backward"], (F.reshape(g[:, :2], 1, 1, 2, 3),),
        {"self_shape": (1, 1, 3, 4)}), [A]),
]


def _positions(t, rows_cols):
    """Flat positions of elements (rows, cols) of a 2-D tensor, as indexing makes them."""
    rows, cols = rows_cols
    return t.backend.xp.asarray([r * t.shape[1] + c for r, c in zip(rows, cols)])
# Every op the table gives a surface and a test domain, called by its name on values drawn
# from that domain: a new table entry is checked without a line here.
CASES += [(op.name, F.FUNCTIONS.get(op.name) or F.NN_FUNCTIONS[op.name],
           [np.random.default_rng(len(op.name)).uniform(*op.domain, (3, 4)).tolist()])
          for op in O.OPS.values() if op.domain is not None]
# ops only an in-place update makes (tested with the in-place cases below)
INPLACE_ONLY = {"zero_", "as_strided", "copy_slices", *(n for n, op in O.OPS.items() if op.forward is O._filled)}
# no derivative: PyTorch records a NotImplemented node (tests/scenarios/arith_remainder_floordiv),
# or a node whose backward fails (asinh_, acosh_, atanh_: tools/engine_cases.py)
NOT_DIFFERENTIABLE = {"floor_divide", "floor_divide_scalar", "asinh_", "acosh_", "atanh_"}


def _in_formula(fn):
    """Run ``fn`` as formulas run under create_graph=True (C++ Scalar overloads)."""
    def run(*xs):
        ctx = current()
        prev, ctx.formula_mode = ctx.formula_mode, True
        try:
            return fn(*xs)
        finally:
            ctx.formula_mode = prev
    return run


CASES += [
    ("mul_scalar", _in_formula(lambda a: a * 3), [A]),
    ("div_scalar", _in_formula(lambda a: a / 3), [A]),
    ("add_scalar", _in_formula(lambda a: a + 3), [A]),
    ("sub_scalar", _in_formula(lambda a: a - 3), [A]),
]

# selection, reordering, shape: index tensors are constants; ties avoided (DISTINCT)
SCATTER_INDEX = [[0, 1, 2, 0], [1, 2, 0, 2]]  # no two writes to one element
ADD_INDEX = [[0, 1, 2, 0], [1, 0, 0, 2], [0, 0, 1, 1]]  # repeats add up
MASK = [[v > 0.5 for v in row] for row in DISTINCT]
CASES += [
    ("gather", lambda a: F.gather(a, 1, _labels([[0, 0], [1, 3], [2, 2]])), [A]),
    ("scatter", lambda a, b: F.scatter(a, 0, _labels(SCATTER_INDEX), b[:2]), [A, B]),
    ("scatter_value", lambda a: F.scatter(a, 0, _labels(SCATTER_INDEX), 2.0), [A]),
    ("scatter_add", lambda a, b: F.scatter_add(a, 0, _labels(ADD_INDEX), b), [A, B]),
    ("index_select", lambda a: F.index_select(a, 1, _labels([0, 2, 2])), [A]),
    ("index_add", lambda a, b: F.index_add(a, 0, _labels([0, 2, 0]), b, alpha=2.0), [A, B]),
    ("take", lambda a: F.take(a, _labels([[0, 5], [-1, 5]])), [A]),
    ("masked_select", lambda a: F.masked_select(a, a > 0.5), [DISTINCT]),
    ("masked_select", lambda b: F.masked_select(b, F.tensor(MASK)), [V4]),  # broadcast
    ("masked_fill_tensor", lambda a, b: F.masked_fill(a, a > 0.5, F.sum(b)), [DISTINCT, B]),
    ("sort", lambda a: F.sort(a, 1, descending=True).values, [DISTINCT]),
    ("sort_stable", lambda a: F.sort(a, 0, stable=True).values, [DISTINCT]),
    ("topk", lambda a: F.topk(a, 2).values, [DISTINCT]),
    ("topk", lambda a: F.topk(a, 2, 0, largest=False).values, [DISTINCT]),
    ("cummax", lambda a: F.cummax(a, 1).values, [DISTINCT]),
    ("cummin", lambda a: F.cummin(a, 0).values, [DISTINCT]),
    ("kthvalue", lambda a: F.kthvalue(a, 2, 1).values, [DISTINCT]),
    ("median_dim", lambda a: F.median(a, 0, keepdim=True).values, [DISTINCT]),
    ("mode", lambda a: F.mode(a, 1).values, [DISTINCT]),
    ("median", F.median, [DISTINCT]),
    ("flip", lambda a: F.flip(a, [0, 1]), [A]),
    ("alias", lambda a: F.movedim(F.sum(a), 0, 0) * 1, [A]),
    ("roll", lambda a: F.roll(a, (1, -1), (0, 1)), [A]),
    ("roll", lambda a: F.roll(a, 5), [A]),
    ("diagonal", lambda a: F.diagonal(a, 1) * 1, [A]),
    ("diag", lambda a: F.diag(a, -1), [A]),
    ("diag_embed", lambda a: F.diag_embed(a, 1), [A]),
    ("diag_embed", lambda a: F.diag(a, -1), [V4]),
    ("cdist", lambda a, b: F.cdist(a, b), [A, B]),
    ("euclidean_dist", lambda a, b: F.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), [A, B]),
    ("linalg_det", F.det, [M44]),
    ("linalg_inv", F.inverse, [M44]),
    ("linalg_solve", lambda a, b: F.LINALG["solve"](a, b), [M44, M44]),
    ("linalg_solve", lambda a, b: F.LINALG["solve"](a, b[0], left=True), [M44, M44]),
    ("linalg_solve", lambda a, b: F.LINALG["solve"](a, b, left=False), [M44, A]),
]


def _numeric_grad(fn, values, i, weights, h=1e-6):
    base = [np.asarray(v, dtype=np.float64) for v in values]
    g = np.zeros_like(base[i])
    for idx in np.ndindex(base[i].shape):
        vals = []
        for sign in (1, -1):
            moved = [b.copy() for b in base]
            moved[i][idx] += sign * h
            out = fn(*[F.tensor(m.tolist()) for m in moved])
            vals.append(float(np.sum(np.asarray(out.data) * weights)))
        g[idx] = (vals[0] - vals[1]) / (2 * h)
    return g


@pytest.mark.parametrize("name,fn,values", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_op_matches_finite_differences(name, fn, values):
    inputs = [_param(v) for v in values]
    out = fn(*inputs)
    weights = np.random.default_rng(1).uniform(-1, 1, out.shape)  # a random upstream gradient
    grads = autograd.grad(out, inputs, grad_outputs=[F.tensor(weights.tolist())])
    for i, g in enumerate(grads):
        expected = _numeric_grad(fn, values, i, weights)
        np.testing.assert_allclose(np.asarray(g.data), expected, rtol=1e-6, atol=1e-8)


def test_formula_mode_uses_scalar_overloads():
    x = F.param(2.0)
    assert _in_formula(lambda a: a * 3)(x).grad_fn.name() == "MulBackward1"
    assert (x * 3).grad_fn.name() == "MulBackward0"


def test_every_op_in_the_table_is_checked():
    checked = {c[0] for c in CASES} | INPLACE_ONLY | NOT_DIFFERENTIABLE
    assert set(O.OPS) - checked == set()


@pytest.mark.parametrize("name,fn,values", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_second_derivatives_match_finite_differences_of_first(name, fn, values):
    """create_graph=True: the gradient is itself differentiable (formulas are recorded ops)."""
    inputs = [_param(v) for v in values]
    out = fn(*inputs)
    weights = F.tensor(np.random.default_rng(2).uniform(-1, 1, out.shape).tolist())
    g = autograd.grad(out, inputs[0], grad_outputs=[weights], create_graph=True)[0]
    if not g.requires_grad:  # linear ops: the gradient does not depend on the input
        return
    w2 = np.random.default_rng(3).uniform(-1, 1, g.shape)
    (h,) = autograd.grad(g, inputs[0], grad_outputs=[F.tensor(w2.tolist())], allow_unused=True)
    if h is None:
        return

    def first(*xs):
        ins = [_param(np.asarray(x.data).tolist()) for x in xs]
        return autograd.grad(fn(*ins), ins[0], grad_outputs=[weights])[0]

    expected = _numeric_grad(first, values, 0, w2)
    np.testing.assert_allclose(np.asarray(h.data), expected, rtol=1e-5, atol=1e-6)


# --- named edge cases -----------------------------------------------------------------------
def test_chain_rule_walkthrough():
    x1, x2, w1, w2, w3 = (F.tensor(v) for v in (1.0, 2.0, 1.0, 2.0, 3.0))
    w1.requires_grad_()
    L = 1 - (w2 * (w1 * x1) + w3 * (w1 * x2))
    assert L.grad_fn.name() == "RsubBackward1"
    L.backward()
    assert w1.grad.item() == -8.0


def test_x_times_x_has_two_edges_and_gradient_2x():
    x = F.param(3.0)
    y = x * x
    assert y.grad_fn.edges[0] is y.grad_fn.edges[1]
    assert sorted(y.grad_fn.saved) == ["other", "self"]
    y.backward()
    assert x.grad.item() == 6.0


def test_saved_tensors_follow_pytorch_guards():
    x, c = F.param([1.0, 2.0]), F.tensor([3.0, 4.0])
    assert list((x * 2).grad_fn.saved) == ["other"]
    assert list((c * x).grad_fn.saved) == ["self"]
    assert (x + 2).grad_fn.saved == {}
    assert sorted((x ** c).grad_fn.saved) == ["exponent", "result", "self"]
    assert sorted((x / 2).grad_fn.saved) == ["other"]


def test_second_backward_fails_only_when_a_freed_tensor_is_needed():
    x = F.param([1.0, 2.0])
    s = F.sum(x + 1)
    s.backward()
    s.backward()  # AddBackward0 and SumBackward0 saved nothing: accumulates again
    assert x.grad.data.tolist() == [2.0, 2.0]
    y = F.sum(x * 2)
    y.backward()
    with pytest.raises(ScriptError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_retain_graph_keeps_saved_tensors():
    x = F.param([1.0, 2.0])
    y = F.sum(x * x)
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.data.tolist() == [4.0, 8.0]


def test_errors_match_pytorch():
    x = F.param([1.0, 2.0])
    with pytest.raises(ScriptError, match="grad can be implicitly created only for scalar"):
        (x * 2).backward()
    with pytest.raises(ScriptError, match="element 0 of tensors does not require grad"):
        F.tensor(1.0).backward()
    with pytest.raises(ScriptError, match="a leaf Variable that requires grad is being used"):
        x += 1


def test_inplace_version_error_names_the_producer():
    w = F.param(2.0)
    y = F.exp(w)
    z = y * 1
    y += 1
    assert y.version == 1 and y.grad_fn.name() == "AddBackward0"
    with pytest.raises(ScriptError) as info:
        z.backward()
    assert ("[torch.DoubleTensor []], which is output 0 of Exp, is at version 1; expected "
            "version 0 instead.") in info.value.message


def test_inplace_on_nonleaf_rebases_grad_fn():
    w = F.param(2.0)
    y = w * 3
    y -= 10
    assert y.grad_fn.name() == "SubBackward0" and y.version == 1 and not y.is_leaf
    y.backward()
    assert w.grad.item() == 3.0


def test_no_grad_inplace_on_leaf_and_detach_shares_version():
    w = F.param([1.0, 2.0])
    with engine.no_grad():
        w -= 1
    assert w.data.tolist() == [0.0, 1.0] and w.version == 1 and w.requires_grad
    d = w.detach()
    d += 1
    assert w.data.tolist() == [1.0, 2.0] and w.version == 2 and not d.requires_grad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, operator", [("add_", np.add), ("sub_", np.subtract),
                                            ("mul_", np.multiply), ("div_", np.divide)])
def test_inplace_update_by_a_tensor_writes_the_out_of_place_bits(dtype, name, operator):
    """An update outside autograd by a tensor of the target's dtype and shape (the training
    loops' ``p.data += -lr * p.grad``) is written straight into the target's memory: the bits
    of the out-of-place op, one version bump, the memory shared with every alias kept."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5)).astype(dtype)
    b = rng.standard_normal((4, 5)).astype(dtype)
    a[0, :2], b[0, :2] = (1e30, 0.0) if dtype == "float32" else (1e300, 0.0), (1e30, 0.0)
    with use(RunContext(get_backend("numpy", dtype))), np.errstate(all="ignore"):
        w = F.param(np.zeros((4, 5), dtype).tolist())
        t = w.detach()
        memory = t.data
        t.data[...] = a
        getattr(t, name)(F.tensor(b.tolist()).to(t.dtype))
        assert t.data is memory and w.data is memory and t.version == 1
        assert t.data.tobytes() == operator(a, b).tobytes()


def test_a_kernel_skips_its_errstate_only_where_reports_go_nowhere():
    """``fp_ignored``: inside ``quiet()`` (a run; the log idle) nothing to enter; outside it,
    and while a script's own NumPy call runs (the log active), NumPy's errstate.  A square
    that overflows is inf and silent everywhere, and the log never hears of it."""
    from gradcli.engine.backend import FloatingPointLog, quiet
    from gradcli.engine.exact.fp import fp_ignored

    def square() -> list:
        with use(RunContext(get_backend("numpy", "float32"))), warnings.catch_warnings():
            warnings.simplefilter("error")
            return (F.tensor([3e30, 2.0]) ** 2).data.tolist()

    assert isinstance(fp_ignored(), np.errstate)
    assert square() == [np.inf, 4.0]
    log = FloatingPointLog()
    with quiet(log):
        assert not isinstance(fp_ignored(), np.errstate)
        assert square() == [np.inf, 4.0]
        log.active = True  # a script's NumPy call: the engine's flags stay out of the log
        assert isinstance(fp_ignored(), np.errstate)
        assert square() == [np.inf, 4.0]
        log.active = False
        with quiet():
            assert not isinstance(fp_ignored(), np.errstate)
        assert not isinstance(fp_ignored(), np.errstate)
    assert log.messages == [] and isinstance(fp_ignored(), np.errstate)


def test_nonleaf_grad_warns_and_retain_grad_keeps_it():
    w = F.param(2.0)
    y = w * 2
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None
    z = w * 2
    z.retain_grad()
    (z * z).backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert z.grad.item() == 8.0


def test_reassignment_dy_is_32():
    w1, w2, x = F.param(2.0), F.param(2.0), F.param(4.0)
    y = w1 * x
    y = w2 * y
    y.retain_grad()
    (y ** 2).backward()
    assert y.grad.item() == 32.0


def test_grad_functional_accumulates_nothing_and_second_derivative():
    x = F.param(3.0)
    y = x ** 3
    (g,) = autograd.grad(y, x, create_graph=True)
    (g2,) = autograd.grad(g, x)
    assert (g.item(), g2.item()) == (27.0, 18.0)
    assert x._grad is None


def test_grad_unused_input_error_and_materialize():
    x, u = F.param(1.0), F.param(1.0)
    with pytest.raises(ScriptError, match="appears to not have been used in the graph"):
        autograd.grad(x * 2, [x, u])
    g = autograd.grad(x * 2, [x, u], materialize_grads=True)
    assert [t.item() for t in g] == [2.0, 0.0]


def test_accumulation_is_in_place_into_the_same_grad_tensor():
    w = F.param([1.0])
    F.sum(w * 2).backward()
    g = w.grad
    F.sum(w * 2).backward()
    assert g is w.grad and g.data.tolist() == [4.0]


def test_reshape_view_or_copy_as_pytorch():
    x = F.param([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert F.reshape(x, 6).grad_fn.name() == "ViewBackward0"
    r = F.reshape(x.t(), 6)
    assert r.grad_fn.name() == "UnsafeViewBackward0"
    assert r.grad_fn.edges[0].name() == "CloneBackward0"
    assert F.reshape(x.t() * 2, 6).grad_fn.name() == "UnsafeViewBackward0"
    assert F.reshape(x.t().t(), 6).grad_fn.name() == "ViewBackward0"
    with pytest.raises(ScriptError, match="view size is not compatible"):
        F.view(x.t(), 6)


def test_indexing_grad_fns():
    x = F.param([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x[0].grad_fn.name() == "SelectBackward0"
    assert x[:].grad_fn.name() == "SliceBackward0"
    assert x[:, 1].grad_fn.name() == "SelectBackward0"
    assert x[0, 1].grad_fn.edges[0].name() == "SelectBackward0"


def test_take_flat_is_the_array_api_gather_on_any_layout():
    """backend.take_flat's NumPy shortcut (ndarray.take) gives what the Array API calls give:
    the flattened elements in C order of any layout, in the positions' shape, and a 0-d array
    (not a NumPy scalar) for 0-d positions."""
    from gradcli.engine.backend import take_flat

    def reference(x, p):
        return np.reshape(np.take(np.reshape(x, (-1,)), np.reshape(p, (-1,))), p.shape)

    base = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    layouts = [base, np.asfortranarray(base), base[:, ::2, ::-1], base.transpose(2, 0, 1),
               np.broadcast_to(np.arange(4.0), (3, 4))]
    for x in layouts:
        for p in (np.array([0, x.size - 1, 3]), np.array([[1, 2], [2, 0]]), np.array(1)):
            got, want = take_flat(np, x, p), reference(x, p)
            assert type(got) is type(want) is np.ndarray and got.shape == want.shape
            assert got.dtype == want.dtype and (got == want).all()


def test_matmul_dispatch_names():
    m, v = F.param([[1.0, 2.0], [3.0, 4.0]]), F.param([1.0, 2.0])
    assert (m @ m).grad_fn.name() == "MmBackward0"
    assert (m @ v).grad_fn.name() == "MvBackward0"
    assert (v @ v).grad_fn.name() == "DotBackward0"
    vm = v @ m
    assert vm.grad_fn.name() == "SqueezeBackward4"
    assert vm.grad_fn.edges[0].name() == "MmBackward0"


def test_subgradients_at_kinks_and_ties():
    x = F.param([0.0, 1.0, 1.0])
    F.sum(F.relu(x)).backward()
    assert x.grad.data.tolist() == [0.0, 1.0, 1.0]
    y = F.param([0.0])
    F.sum(F.abs(y)).backward()
    assert y.grad.data.tolist() == [0.0]
    z = F.param([1.0, 3.0, 3.0])
    F.max(z).backward()
    assert z.grad.data.tolist() == [0.0, 0.5, 0.5]
    a, b = F.param([1.0]), F.param([1.0])
    F.sum(F.maximum(a, b)).backward()
    assert (a.grad.item(), b.grad.item()) == (0.5, 0.5)


def test_million_node_chain_forward_and_backward():
    x = F.param(1.0)
    y = x
    for _ in range(1_000_000):
        y = y + 1.0
    y.backward()
    assert x.grad.item() == 1.0 and y.item() == 1_000_001.0


# --- the Array API: no NumPy-only call hides in the engine ----------------------------------
def test_engine_runs_on_array_api_strict():
    xs = pytest.importorskip("array_api_strict")
    with use(RunContext(from_namespace(xs))):
        _run_cases_on_array_api_strict()


def _run_cases_on_array_api_strict():
    for name, fn, values in CASES:
        inputs = [_param(v) for v in values]
        out = fn(*inputs) if name not in ("where",) else None
        if out is None:
            continue
        grads = autograd.grad(out, inputs, grad_outputs=[F.ones_like(out)])
        assert all(type(g.data).__module__.startswith("array_api_strict") for g in grads), name


def test_cupy_backend_reports_why_it_is_unavailable():
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no CuPy, or no GPU: both mean "unavailable"
        from gradcli.errors import UsageError

        with pytest.raises(UsageError, match="backend 'cupy' is unavailable"):
            get_backend("cupy")
    else:  # pragma: no cover - only on a machine with a GPU
        with use(RunContext(get_backend("cupy"))):
            x = F.param([1.0, 2.0])
            F.sum(x * x).backward()
            assert x.grad.data.get().tolist() == [2.0, 4.0]


@pytest.mark.parametrize("ord", [2, -2, 1, float("inf"), "nuc"])
def test_matrix_norms_other_than_frobenius_are_refused_with_a_hint(ord):
    src = f"import torch\nB = torch.ones(3, 3)\nn = torch.linalg.norm(B, {ord!r})\n"
    r = pipeline.run(src.replace("inf", 'float("inf")'), filename="p.py")
    assert r.error is not None and r.error.span.line == 3
    assert "of a matrix is not supported by gradcli" in r.error.message
    assert "singular values" in r.error.hint


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_gradient_scatter_is_the_formula(dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """NllLossBackward0's plain-backward scatter (kernels.nll_grad) against the op table's
    general formula: ignored targets, an ignore_index that is a class, total weights of
    another dtype, mean and sum, 0-d gradients and NumPy scalars."""
    from gradcli.engine import kernels

    rng = np.random.default_rng(21)
    fx = O.ArrayFormulas(np)
    for n, c in ((32, 27), (5, 3), (1, 4)):
        lsm = rng.standard_normal((n, c)).astype(dtype)
        for t in (rng.integers(0, c, n), np.where(rng.random(n) < 0.3, -100, rng.integers(0, c, n))):
            for tw in (np.asarray(dtype(n)), np.asarray(dtype(7.0)), np.asarray(np.float64(3.0))):
                for reduction in ("mean", "sum"):
                    for ignore in (-100, 1):
                        for g in (np.asarray(dtype(1.0)), np.asarray(dtype(-0.37)), dtype(2.5)):
                            args = (fx, g, lsm, t, None, tw, reduction, ignore)
                            fast = O._nll_grad(*args)
                            with monkeypatch.context() as m:
                                m.setattr(kernels, "nll_grad", lambda *a: None)
                                general = O._nll_grad(*args)
                            assert fast.dtype == general.dtype
                            assert fast.tobytes() == general.tobytes()
