"""``explain``: path contributions add up to the gradient (every op, PyTorch's fixtures), path
counts, the K largest, zero-gradient reasons, and the command's three output forms."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli import cli, pipeline, targets
from gradcli.analysis import paths as P
from gradcli.analysis.explain import check_sum, explain
from gradcli.engine import OPS, RunContext, Tensor, grad, use
from gradcli.engine import kernels as K
from gradcli.engine.backend import get_backend, to_host
from gradcli.engine.dtypes import FLOAT64
from gradcli.engine.graph import edge
from gradcli.engine.ops import _filled
from gradcli.engine.record import apply
from gradcli.errors import GradcliError

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "torch"
OPS_FIXTURE = json.loads((FIXTURES / "ops.json").read_text())["ops"]
runner = CliRunner()


def _targets(result, of: str, wrt: str) -> tuple:
    """(result, the output, the --wrt tensor) as the command line resolves the names."""
    return result, targets.output(result, of, need=True), targets.inputs(result, [wrt])[0]


# -- every op of the table: the paths through it add up to the gradient ---------------------------
def _inputs(name: str, x: Tensor) -> tuple[tuple, dict]:
    """Arguments for one op, each depending on x in another way, so there are several paths."""
    e = x.exp()
    params = {p: d for p, d in OPS[name].params}
    shape = tuple(x.shape)
    special = {
        "mul_scalar": ((x,), {"other": 3.0}), "div_scalar": ((x,), {"other": 4.0}),
        "add_scalar": ((x,), {"other": 2.0}), "sub_scalar": ((x,), {"other": 2.0}),
        "add_alpha": ((x, e), {"alpha": 0.7}), "sub_alpha": ((x, e), {"alpha": -1.5}),
        "rsub": ((x,), {"other": 2.0}), "pow": ((x,), {"exponent": 3.0}),
        "pow_tensor": ((x, e * 0.5), {}), "pow_scalar_base": ((x,), {"base": 2.0}),
        "remainder_scalar": ((x,), {"other": 0.5}), "floor_divide_scalar": ((x,), {"other": 0.5}),
        "clamp": ((x,), {"min": 0.3, "max": 0.65}),
        "where": ((Tensor(to_host(x.data) > 0.5, x.backend), x, e), {}),
        "sum_dim": ((x,), {"dim": (0,), "keepdim": False}),
        "mean_dim": ((x,), {"dim": (1,), "keepdim": True}),
        "mm": ((x, x.t() * 0.5), {}), "mv": ((x, x[0] * 0.5), {}), "dot": ((x[0], x[1]), {}),
        "addmm": ((e[0, :2], x, x.t() * 0.5), {}),
        "view": ((x,), {"shape": (3, 2)}), "unsafe_view": ((x,), {"shape": (6,)}),
        "permute": ((x,), {"dims": (1, 0)}), "transpose": ((x,), {"dim0": 0, "dim1": 1}),
        "unsqueeze": ((x,), {"dim": 0}),
        "squeeze": ((x.unsqueeze(0),), {"shape": (1, *shape)}),
        "squeeze_dim": ((x.unsqueeze(0),), {"shape": (1, *shape), "dim": 0}),
        "squeeze_sym": ((x.unsqueeze(0),), {"shape": (1, *shape), "dim": (0,)}),
        "select": ((x,), {"dim": 0, "index": 1}),
        "slice": ((x,), {"dim": 1, "start": 1, "stop": 3, "step": 1}),
        "expand": ((x[0:1],), {"shape": (4, 3)}),
        "select_backward": ((x[0],), {"shape": shape, "dim": 0, "index": 1}),
        "slice_backward": ((x[:, 0:2],), {"shape": shape, "dim": 1, "start": 1, "stop": 3,
                                          "step": 1}),
        "softmax": ((x,), {"dim": 1}), "log_softmax": ((x,), {"dim": 1}),
        "mse_loss": ((x, e), {"reduction": 1}),
        "to_copy": ((x,), {"dtype": FLOAT64}), "unbind": ((x,), {"dim": 0, "index": 1}),
        "split": ((x,), {"dim": 1, "start": 1, "stop": 3}),
        "split_with_sizes": ((x,), {"dim": 0, "start": 0, "stop": 1}),
        "index": ((x, np.array([[0, 4], [5, 0]])), {}),
        "index_put_": ((x, np.array([0, 4]), e[0, 1:]), {}),
        "copy_": ((e, x[1]), {}),
        "index_backward": ((x, np.array([[0, 1, 2], [3, 4, 3]])), {"shape": (4, 3)}),
        # engine.joins, reductions, linalg, nn_functional
        "masked_fill": ((x, Tensor(to_host(x.data) > 0.5, x.backend)), {"value": 0.0}),
        "cat": ((x, e, x), {"dim": 1, "sizes": (3, 3, 3)}), "stack": ((x, e), {"dim": 0}),
        "repeat": ((x,), {"repeats": (2, 1, 2)}), "reshape_alias": ((x,), {"shape": (3, 2)}),
        "max_dim": ((x, _ints(x, [2, 1])), {"dim": 1, "keepdim": False}),
        "min_dim": ((x, _ints(x, [[1, 0, 1]])), {"dim": 0, "keepdim": True}),
        "var": ((x,), {"dim": (1,), "correction": 1, "keepdim": False}),
        "std": ((x,), {"dim": None, "correction": 0, "keepdim": False}),
        "linalg_vector_norm": ((x,), {"ord": 3.0, "dim": (1,), "keepdim": False}),
        "prod_dim": ((x,), {"dim": 1, "keepdim": False}),
        "bmm": ((x.reshape(1, 2, 3), (e.t() * 0.5).reshape(1, 3, 2)), {}),
        "clamp_min": ((x,), {"min": 0.5}), "clamp_max": ((x,), {"max": 0.5}),
        "round_decimals": ((x,), {"decimals": 1}),
        "nll_loss": ((x, _ints(x, [2, 0]), None, Tensor(np.array(2.0), x.backend)),
                     {"reduction": "mean", "ignore_index": -100}),
        "binary_cross_entropy": ((x, e * 0.3, None), {"reduction": "mean"}),
        "binary_cross_entropy_with_logits": ((x, e * 0.3, None, None), {"reduction": "sum"}),
        "smooth_l1_loss": ((x, e), {"reduction": "mean", "beta": 1.0}),
        "huber_loss": ((x, e), {"reduction": "none", "delta": 1.0}),
        # ops group A
        "acosh": ((x + 1,), {}), "fmod_scalar": ((x,), {"other": 0.35}),
        "copysign_scalar": ((x,), {"other": -1.0}), "lerp_scalar": ((x, e), {"weight": 0.3}),
        "lerp": ((x, e, x * 0.5), {}), "addcmul": ((x, e, x), {"value": 0.5}),
        "addcdiv": ((x, e, x + 1), {"value": -2.0}),
        "xlogy_other_number": ((x,), {"other": 2.5}), "xlogy_self_number": ((x,), {"self": 1.5}),
        "cumsum": ((x,), {"dim": 1, "reverse": False}), "cumprod": ((x,), {"dim": 1}),
        "logsumexp": ((x,), {"dim": (1,), "keepdim": False}),
        "amax": ((x,), {"dim": (1,), "keepdim": False}),
        "amin": ((x,), {"dim": (0, 1), "keepdim": True}),
        "aminmax_min": ((x,), {"dim": (1,), "keepdim": False}),
        "aminmax_max": ((x,), {"dim": (0, 1), "keepdim": False}),
        "nansum": ((x,), {"dim": None, "keepdim": False}), "dist": ((x, e), {"p": 3.0}),
        "nansum_to": ((x,), {"dim": (1,), "keepdim": True, "dtype": FLOAT64}),
        "cumsum_to": ((x,), {"dim": 0, "reverse": False, "dtype": FLOAT64}),
        "cumprod_to": ((x,), {"dim": 1, "dtype": FLOAT64}),
        "linalg_vector_norm_to": ((x,), {"ord": 2, "dim": None, "keepdim": False,
                                         "dtype": FLOAT64}),
        # torch.nn.functional (engine.nn_functional, nn_layers)
        "threshold": ((x,), {"threshold": 0.5, "value": -1.0}),
        "threshold_": ((x,), {"threshold": 0.5, "value": -1.0}),
        "glu": ((x,), {"dim": 0}),
        "native_layer_norm": ((x, e[0], None, *_row_stats(x, 1)), {"normalized_shape": (3,),
                                                                  "eps": 1e-5}),
        "native_batch_norm": ((x, e[0], None, None, None, *_row_stats(x, 0)),
                              {"training": True, "eps": 1e-5}),
        "constant_pad_nd": ((x,), {"pad": (1, -1, 0, 1), "value": 0.5}),
        "norm_dim": ((x,), {"p": 3.0, "dim": (1,), "keepdim": False}),
        "soft_margin_loss": ((x, Tensor(np.array([[1.0, -1.0, 1.0]] * 2), x.backend)),
                             {"reduction": "mean"}),
        **{f"{kind}_pad{k}d": ((x.reshape(*(1,) * (k - 1), 2, 3),),
                               {"padding": (2, 1, 1, 0, 0, 0)[:2 * k]})
           for kind in ("reflection", "replication") for k in (1, 2, 3)},
        **{f"{kind}_pad{k}d_backward": ((x.reshape(*(1,) * (k - 1), 2, 3),),
                                        {"input_shape": (1,) * (k - 1) + (2, 2),
                                         "padding": (1, 0, 0, 0, 0, 0)[:2 * k]})
           for kind in ("reflection", "replication") for k in (1, 2, 3)},
        # the activations' backward kernels (ops of their own under create_graph=True)
        "softmax_backward": ((x, e), {"dim": 1}), "log_softmax_backward": ((x, e), {"dim": 1}),
        "threshold_backward": ((x, e), {"threshold": 1.5}),
        "leaky_relu_backward": ((x, e - 1.5), {"negative_slope": 0.1, "self_is_result": False}),
        "hardtanh_backward": ((x, e), {"min_val": -1.0, "max_val": 1.5}),
        "elu_backward": ((x, e - 1.5), {"alpha": 1.0, "scale": 1.0, "input_scale": 1.0,
                                        "is_result": False}),
        "softplus_backward": ((x, e), {"beta": 1.0, "threshold": 20.0}),
        # embeddings, convolutions, poolings, the recurrent cells' pieces
        "embedding": ((e, _ints(x, [[0, 1], [1, 1]])), {"padding_idx": -1,
                                                         "scale_grad_by_freq": False,
                                                         "sparse": False}),
        "embedding_dense_backward": ((x, _ints(x, [1, 0])), {
            "num_weights": 3, "padding_idx": -1, "scale_grad_by_freq": False}),
        "convolution": ((x.reshape(1, 1, 2, 3), e.reshape(2, 1, 1, 3), None), _CONV),
        "convolution_backward_input": ((x.reshape(1, 2, 1, 3), e.reshape(2, 1, 1, 3)),
                                       {"input_shape": (1, 1, 1, 5), **_CONV_GRAD}),
        "convolution_backward_weight": ((x.reshape(1, 2, 1, 3), e.reshape(1, 1, 2, 3)),
                                        {"weight_shape": (2, 1, 2, 1), **_CONV_GRAD}),
        "max_pool2d_with_indices": ((x.reshape(1, 1, 2, 3), _ints(x, [[[[1, 5]]]])),
                                    {"kernel_size": (2, 2), "stride": (1, 1)}),
        "max_pool2d_with_indices_backward": ((x.reshape(1, 1, 2, 3),
                                              _ints(x, [[[[0, 1, 5], [6, 7, 11]]]])),
                                             {"self_shape": (1, 1, 3, 4)}),
        "avg_pool2d": ((x.reshape(1, 1, 2, 3),), _POOL),
        "avg_pool2d_backward": ((x.reshape(1, 1, 2, 3),), {"self_shape": (1, 1, 3, 4), **_POOL}),
        "_adaptive_avg_pool2d": ((x.reshape(1, 1, 2, 3),), {"output_size": (1, 2)}),
        "adaptive_avg_pool2d_backward": ((x.reshape(1, 1, 2, 3),), {"self_shape": (1, 1, 3, 4)}),
        "unsafe_split": ((x,), {"dim": 1, "start": 1, "stop": 3}),
        "transpose_": ((x,), {"dim0": 0, "dim1": 1}),
        # selection, reordering, shape (engine.selection, shape, linalg)
        "gather": ((x, _ints(x, [[0, 2], [1, 1]])), {"dim": 1}),
        "scatter": ((x, _ints(x, [[1, 0, 1]]), e[:1]), {"dim": 0}),
        "scatter_value": ((x, _ints(x, [[1, 0, 1]])), {"dim": 0, "value": 2.0}),
        "scatter_add": ((x, _ints(x, [[1, 0, 1], [1, 1, 0]]), e), {"dim": 0}),
        "index_select": ((x, _ints(x, [2, 0, 2])), {"dim": 1}),
        "index_add": ((x, _ints(x, [1, 1]), e), {"dim": 0, "alpha": 2.0}),
        "take": ((x, _ints(x, [[0, 5], [-1, 2]])), {}),
        "masked_select": ((x, Tensor(to_host(x.data) > 0.5, x.backend)),
                          {"positions": np.array([0, 2, 4]), "shape": shape}),
        "masked_fill_tensor": ((x, Tensor(to_host(x.data) > 0.5, x.backend), e[0, 0]), {}),
        "sort": ((x, _ints(x, [[1, 0, 2], [2, 0, 1]])), {"dim": 1}),
        "sort_stable": ((x, _ints(x, [[1, 0, 2], [2, 0, 1]])), {"dim": 1}),
        "topk": ((x, _ints(x, [[2, 0], [1, 0]])), {"dim": 1}),
        "cummax": ((x, _ints(x, [[0, 0, 2], [0, 1, 1]])), {"dim": 1}),
        "cummin": ((x, _ints(x, [[0, 1, 1], [0, 0, 2]])), {"dim": 1}),
        "kthvalue": ((x, _ints(x, [0, 0])), {"dim": 1, "keepdim": False}),
        "median_dim": ((x, _ints(x, [[0, 1, 0]])), {"dim": 0, "keepdim": True}),
        "mode": ((x, _ints(x, [2, 1])), {"dim": 1, "keepdim": False}),
        "flip": ((x,), {"dims": (0, 1)}), "roll": ((x,), {"shifts": (1,), "dims": (1,)}),
        "diagonal": ((x,), {"positions": np.array([1, 5]), "offset": 1, "dim1": 0, "dim2": 1}),
        "diag": ((x,), {"positions": np.array([0, 4]), "offset": 0, "dim1": 0, "dim2": 1}),
        "diag_embed": ((x,), {"positions": np.array([[0, 4, 8], [9, 13, 17]]), "shape": (2, 3, 3),
                              "offset": 0, "dim1": 1, "dim2": 2}),
        "cdist": ((x, e), {"p": 2.0}),
        "linalg_det": _lu_args(x[:, :2] + e[:, 1:]),
        "linalg_inv": ((x[:, :2] + e[:, 1:],), {}),
        "linalg_solve": ((x[:, :2] + e[:, 1:], e, *_lu_args(x[:, :2] + e[:, 1:])[0][1:]),
                         {"left": True}),
    }
    if name in special:
        return special[name]
    if OPS[name].forward is _filled:  # in-place fills: values from elsewhere, zero gradient
        return (x,), {"values": 0.25}
    if len(OPS[name].inputs) == 2:
        return (x, e), params
    return (x,), params


_CONV_GRAD = {"stride": (1, 1), "padding": (0, 0), "dilation": (1, 1), "groups": 1}
_CONV = {**_CONV_GRAD, "transposed": False, "output_padding": (0, 0)}
_POOL = {"kernel_size": (2, 2), "stride": (1, 1), "padding": (0, 0), "ceil_mode": False,
         "count_include_pad": True, "divisor_override": None}


def _lu_args(a: Tensor) -> tuple[tuple, dict]:
    """A square matrix with its LU factors and pivots (det and solve save them)."""
    lu, piv = K.lu_factor(a.backend.xp, a.data)
    return (a, Tensor(lu, a.backend), Tensor(piv, a.backend)), {}


def _ints(x: Tensor, values: list) -> Tensor:
    """Class indices or argmax positions: an int64 tensor, never differentiable."""
    return Tensor(np.array(values, dtype=np.int64), x.backend)


def _row_stats(x: Tensor, keep: int) -> tuple[Tensor, Tensor]:
    """Mean and 1 / std over dim 1 (layer_norm, keep=1: kept) or dim 0 (batch_norm, keep=0:
    reduced away), as constants."""
    data = to_host(x.data)
    axis = 1 if keep else 0
    mean = data.mean(axis=axis, keepdims=bool(keep))
    rstd = 1 / np.sqrt(data.var(axis=axis, keepdims=bool(keep)) + 1e-5)
    return Tensor(mean, x.backend), Tensor(rstd, x.backend)


TABLE_OPS = sorted(n for n, op in OPS.items() if op.forward is not None)
# (and the in-place inverse hyperbolics, whose backward PyTorch has not implemented)
NOT_DIFFERENTIABLE = {n for n in TABLE_OPS if OPS[n].grad_fn == "NotImplemented"} | {
    "asinh_", "acosh_", "atanh_"}


def _decompose(out: Tensor, x: Tensor) -> P.Decomposition:
    walker = P.Walker(out.grad_fn, out.shape, edge(x))
    return P.decompose(walker, 10**6)


@pytest.mark.parametrize("name", TABLE_OPS)
def test_paths_add_up_to_the_gradient_for_every_op(name):
    op = OPS[name]
    with use(RunContext(get_backend("numpy", "float64"))):
        x = Tensor(np.array([[0.6, 0.2, 0.9], [0.4, 0.7, 0.3]]), get_backend("numpy"), True)
        args, params = _inputs(name, x)
        y = apply(op, args, params)
        assert y.grad_fn.fn_name == op.grad_fn
        out = (y * y).sum() + y.sum() * 0.5
        if name in NOT_DIFFERENTIABLE:  # PyTorch's error, from the path VJP as from backward
            with pytest.raises(GradcliError, match="not implemented"):
                _decompose(out, x)
            return
        dec = _decompose(out, x)
        expected = to_host(grad(out, [x], retain_graph=True)[0].data)
    assert dec.paths_total >= 2 and len(dec.paths) == dec.paths_total
    assert any(e.node.fn_name == op.grad_fn for p in dec.paths for e in p.edges)
    total = sum(to_host(p.contribution) for p in dec.paths)
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(total, expected, rtol=1e-12, atol=1e-12)
    norms = [p.norm for p in dec.paths]
    assert norms == sorted(norms, reverse=True)


SURFACED = sorted(n for n, op in OPS.items() if op.domain is not None)


@pytest.mark.parametrize("name", SURFACED)
def test_path_sums_equal_pytorchs_gradient(name):
    """y = op(x) reached two ways (x and x*1); sum(y*u)/2 twice is PyTorch's y.backward(u)."""
    case = OPS_FIXTURE[name]
    src = (f"x = param({case['input']})\nu = tensor({case['upstream']})\na = x * 1\n"
           f"L = ({name}(a) * u * 0.5).sum() + ({name}(x) * u * 0.5).sum()\n")
    result = pipeline.run(src, record=True)
    assert result.error is None
    ex = explain(*_targets(result, "L", "x"), 10**6)
    assert ex.paths_total == 2 and len(ex.paths) == 2
    assert {e.grad_fn for p in ex.paths for e in p.edges} >= {case["float64"]["grad_fn"]}
    total = sum(p.contribution for p in ex.paths)
    np.testing.assert_allclose(total, case["float64"]["grad"], rtol=1e-12, atol=1e-12)


def _grad_fixtures():
    for path in sorted(FIXTURES.glob("*.json")):
        doc = json.loads(path.read_text())
        g = doc.get("grad")
        if isinstance(g, dict) and g.get("error") is None and doc.get("script"):
            for w in g["wrt"]:
                yield pytest.param(doc["script"], g["of"], w, g["wrt"][w]["data"],
                                   id=f"{path.stem}-{w}")


@pytest.mark.parametrize(("script", "of", "wrt", "expected"), list(_grad_fixtures()))
def test_path_sums_equal_the_recorded_scripts_gradients(script, of, wrt, expected):
    src = (ROOT / script).read_text()
    head = [ln for ln in src.splitlines() if ln.startswith("# gradcli:") and "wrt=" in ln]
    wrts = [w for ln in head for w in ln.split("wrt=")[1].split()[0].split(",")]
    result = pipeline.run(src, wrt=wrts or [wrt], record=True,
                          base_dir=str((ROOT / script).parent))
    ex = explain(*_targets(result, of, wrt), 10**6)
    assert ex.paths_total == len(ex.paths)
    total = sum(np.asarray(p.contribution) for p in ex.paths) if ex.paths else \
        np.zeros_like(np.asarray(expected, dtype=float))
    np.testing.assert_allclose(total, expected, rtol=1e-10, atol=1e-12)


# -- counting and ranking ------------------------------------------------------------------------
DIAMOND = """w = param(1.0)
x = w
for i in range(60):
    a = x * 0.5
    b = x * 0.5
    x = a + b
L = x
"""


def test_a_60_level_diamond_has_2_to_the_60_paths():
    result = pipeline.run(DIAMOND, record=True)
    ex = explain(*_targets(result, "L", "w"), 3)
    assert ex.paths_total == 2**60
    assert len(ex.paths) == 3 and ex.exact
    for p in ex.paths:
        assert len(p.edges) == 120 and p.contribution == pytest.approx(2.0**-60)
    assert ex.bound == pytest.approx(2.0**-60)


def _random_graph(seed: int, levels: int = 6, width: int = 3) -> str:
    rng = np.random.default_rng(seed)
    lines = ["w = param(0.7)"]
    prev = ["w"]
    for lv in range(levels):
        cur = []
        for k in range(width):
            a, b = rng.choice(prev, 2)
            c = round(float(rng.normal()), 3)
            op = rng.choice(["*", "+", "-"])
            name = f"n{lv}_{k}"
            lines.append(f"{name} = {a} {op} {b} * {c}" if op != "*" else
                         f"{name} = {a} * {b} * {c}")
            cur.append(name)
        prev = cur
    lines.append("L = " + " + ".join(prev))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("search", [False, True])
def test_the_top_k_are_the_largest(seed, search, monkeypatch):
    """Against all paths enumerated: the same K largest, by the best-first search as well."""
    src = _random_graph(seed)
    result = pipeline.run(src, record=True)
    full = explain(*_targets(result, "L", "w"), 10**6)
    assert full.paths_total == len(full.paths) and check_sum(full)
    norms = sorted((p.norm for p in full.paths), reverse=True)
    if search:
        monkeypatch.setattr(P, "ENUMERATE_WORK", 0)
    k = 5
    ex = explain(*_targets(result, "L", "w"), k)
    assert ex.paths_total == full.paths_total and ex.exact
    np.testing.assert_allclose([p.norm for p in ex.paths], norms[:k], rtol=1e-9)
    assert ex.bound is None or ex.bound >= norms[k] * (1 - 1e-9)


@pytest.mark.parametrize("search", [False, True])
def test_tensor_paths_rank_by_norm(search, monkeypatch):
    src = """W = param([[0.5, -1.0], [2.0, 0.3]])
x = tensor([[1.0], [2.0]])
h = tanh(W @ x)
g = sigmoid(W @ h)
L = (h * g).sum() + (W * W).sum()
"""
    result = pipeline.run(src, record=True)
    full = explain(*_targets(result, "L", "W"), 100)
    assert check_sum(full)
    norms = sorted((p.norm for p in full.paths), reverse=True)
    if search:
        monkeypatch.setattr(P, "ENUMERATE_WORK", 0)
    ex = explain(*_targets(result, "L", "W"), 2)
    assert ex.exact
    np.testing.assert_allclose([p.norm for p in ex.paths], norms[:2], rtol=1e-9)
    for p in ex.paths:
        assert p.contribution.shape == (2, 2)
        assert np.linalg.norm(p.contribution) == pytest.approx(p.norm)


def test_search_budget_is_reported(monkeypatch):
    monkeypatch.setattr(P, "ENUMERATE_WORK", 0)
    monkeypatch.setattr(P, "SEARCH_POPS", 3)
    result = pipeline.run(DIAMOND, record=True)
    ex = explain(*_targets(result, "L", "w"), 5)
    assert not ex.exact and ex.bound is not None and len(ex.paths) < 5


def test_local_derivatives_and_lines_of_the_walkthrough():
    result = pipeline.run((ROOT / "samples" / "chain_rule.grad").read_text(), wrt=["w1"],
                          record=True)
    ex = explain(*_targets(result, "L", "w1"))
    assert [float(p.contribution) for p in ex.paths] == [-6.0, -2.0]
    p = ex.paths[1]
    assert p.nodes == ["L", "x5", "w2*x3", "x3", "w1"]
    assert [float(e.local) for e in p.edges] == [-1.0, 1.0, 2.0, 1.0]
    assert [e.line for e in p.edges] == [9, 8, 8, 6]
    assert [e.grad_fn for e in p.edges] == ["RsubBackward1", "AddBackward0", "MulBackward0",
                                            "MulBackward0"]


def test_tensor_edges_carry_their_jacobian():
    src = "w = param([1.0, 2.0])\ny = w * w\nL = y.sum()\n"
    ex = explain(*_targets(pipeline.run(src, record=True), "L", "w"))
    jac = ex.paths[0].edges[1].local
    assert ex.paths[0].edges[1].local_shape == [2, 2]
    np.testing.assert_array_equal(jac, [[1.0, 0.0], [0.0, 2.0]])


# -- zero gradients: the reason ------------------------------------------------------------------
@pytest.mark.parametrize(("src", "words"), [
    ("w = param(2.0)\nz = w - 5\nh = relu(z)\nL = h * 3\n",
     ["every path crosses a zero local derivative", "relu", "line 3"]),
    ("w = param(5.0)\nh = clamp(w, min=-1, max=1)\nL = h * 3\n",
     ["saturated clamp", "line 2"]),
    ("w = param(1.0)\nv = param([3.0, 4.0])\nm = max(v * w * 0 + v)\nL = m * 2\n",
     ["every path crosses a zero local derivative"]),
    ("w = param(1.0)\nc = param(4.0)\nm = maximum(w, c)\nL = m * 2\n",
     ["maximum that picked the other input", "line 3"]),
    ("w = param(2.0)\nu = param(1.0)\ny = w.detach() * 3\nL = y + u\n",
     ["cut by detach() on line 3: w.detach() is a constant"]),
    ("w = param(2.0)\nu = param(1.0)\nwith no_grad():\n    y = w * 3\nL = y + u\n",
     ["no_grad", "line 4"]),
    ("w = param(2.0)\nu = param(1.0)\nL = (w * 3).argmax() * u\n",
     ["w is on a path to L only through a non-differentiable op (argmax on line 3)"]),
    ("w = param(2.0)\nu = param(1.0)\nL = u * 3\n", ["does not depend on w"]),
    ("w = param(2.0)\nL = w - w\n", ["cancel out"]),
])
def test_zero_gradient_reasons(src, words):
    ex = explain(*_targets(pipeline.run(src, record=True), "L", "w"))
    assert not np.any(ex.grad)
    assert ex.zero_reason is not None
    for word in words:
        assert word in ex.zero_reason


def test_a_nonzero_gradient_has_no_zero_reason():
    ex = explain(*_targets(pipeline.run("w = param(2.0)\nL = w * w\n", record=True), "L", "w"))
    assert ex.zero_reason is None and float(ex.grad) == 4.0


# -- the command ---------------------------------------------------------------------------------
CHAIN = str(ROOT / "samples" / "chain_rule.grad")


def test_explain_plain_writes_the_factors_out():
    r = runner.invoke(cli.app, ["explain", CHAIN, "--wrt", "w1", "--format", "plain"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == "dL/dw1 = -8.0   (2 paths, all listed)"
    assert "  dL/dx5 * dx5/d(w2*x3) * d(w2*x3)/dx3 * dx3/dw1 = -1 * 1 * 2 * 1 = -2" in r.output
    assert "sum of the 2 contributions = -8.0" in r.output


def test_explain_json_matches_the_spec():
    r = runner.invoke(cli.app, ["explain", CHAIN, "--wrt", "w1", "--format", "json", "--top",
                                "1"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert list(doc)[:8] == ["gradcli", "of", "wrt", "grad", "paths_total", "paths",
                             "zero_reason", "ranking"]
    assert doc["grad"] == -8.0 and doc["paths_total"] == 2 and len(doc["paths"]) == 1
    p = doc["paths"][0]
    assert p["nodes"] == ["L", "x5", 8, "x4", "w1"] and p["contribution"] == -6.0
    assert [e["local"] for e in p["edges"]] == [-1.0, 1.0, 3.0, 2.0]
    assert p["edges"][0] == {"op": "rsub", "grad_fn": "RsubBackward1", "line": 9, "local": -1.0,
                             "local_shape": []}
    assert doc["ranking"] == {"by": "abs", "exact": True, "bound": 6.0}
    assert doc["error"] is None


def test_explain_rich_is_a_tree():
    r = runner.invoke(cli.app, ["explain", CHAIN, "--wrt", "w1", "--format", "rich"])
    assert r.exit_code == 0
    assert "├── path 1" in r.output and "= -1 * 1 * 3 * 2 = -6" in r.output


@pytest.mark.parametrize(("args", "code", "text"), [
    (["--wrt", "w1", "--wrt", "w2"], 2, "one --wrt"),
    ([], 2, "needs at least one --wrt"),
    (["--wrt", "nope"], 2, "binds no 'nope'"),
    (["--wrt", "w1", "--top", "-1"], 2, "--top"),
])
def test_explain_usage_errors(args, code, text):
    # chain_rule.grad's header names w1, so "no --wrt" is tried on a script without one
    script = [CHAIN] if args else ["-e", "w = 2\nL = w * w\n"]
    r = runner.invoke(cli.app, ["explain", *script, *args, "--format", "plain"])
    assert r.exit_code == code and text in r.output


def test_explain_after_the_scripts_own_backward():
    """The script's backward() freed the graph; explain still reads what it saved."""
    r = runner.invoke(cli.app, ["explain", str(ROOT / "samples" / "detach.grad"), "--wrt", "x",
                                "--format", "json"])
    doc = json.loads(r.stdout)
    assert r.exit_code == 0, r.output
    assert doc["grad"] == [3.0] * 10 and doc["paths_total"] == 1
    assert [e["grad_fn"] for e in doc["paths"][0]["edges"]] == ["SumBackward0", "AddBackward0",
                                                                "PowBackward0"]


def test_the_scripts_second_backward_still_fails_under_explain():
    r = runner.invoke(cli.app, ["explain", str(ROOT / "samples" / "retain_graph.grad"), "--wrt",
                                "a", "--of", "d", "--format", "json"])
    doc = json.loads(r.stdout)
    assert r.exit_code == 1 and doc["error"]["line"] == 11
    assert doc["error"]["hint"].startswith("call d.backward(retain_graph=True) on line 9")


def test_every_path_is_counted_exactly():
    """Counting by DP equals brute-force enumeration on small random graphs."""
    for seed in range(3):
        result = pipeline.run(_random_graph(seed, levels=4), record=True)
        out = result.bindings["L"]
        walker = P.Walker(out.grad_fn, (), edge(result.bindings["w"]))
        counted = walker.count()[walker.target]
        brute = 0
        stack = [walker.root]
        while stack:
            n = stack.pop()
            if n is walker.target:
                brute += 1
                continue
            stack.extend(e.to for e in walker.out[n])
        assert counted == brute
