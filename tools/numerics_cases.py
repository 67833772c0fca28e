"""Cases for PyTorch's float32/float64 numerics (tools/record_numerics.py, tests/test_numerics.py).

Each case is an op (a function written once against a ``torch`` namespace, so the same code runs
on PyTorch and on gradcli's engine), a dtype, and input recipes that NumPy turns into the same
arrays everywhere (``make_inputs``), so the test rebuilds the inputs without PyTorch and compares
gradcli's bits with the ones PyTorch recorded.  ``FAMILY`` groups cases for the per-op shares
the test reports and holds.
"""

from __future__ import annotations

import numpy as np

DTYPES = ("float32", "float64")


def recipe(shape: tuple, seed: int, dist: str = "normal", a: float = 0.0, b: float = 1.0,
           view: str | None = None) -> dict:
    """An input: ``normal`` (mean a, std b), ``uniform`` [a, b) or ``logu`` (exp of uniform);
    ``view`` "T" (the first and last dimensions of the reversed shape swapped) or "cut" (a
    column more, dropped)."""
    return {"shape": list(shape), "seed": seed, "dist": dist, "a": a, "b": b, "view": view}


def make_input(r: dict, dtype: str) -> np.ndarray:
    """The array a recipe describes (before its view)."""
    shape = tuple(r["shape"])
    if r["view"] == "T":
        shape = shape[::-1]
    elif r["view"] == "cut":
        shape = shape[:-1] + (shape[-1] + 1,)
    rng = np.random.default_rng(r["seed"])
    if r["dist"] == "normal":
        x = rng.standard_normal(shape) * r["b"] + r["a"]
    elif r["dist"] == "uniform":
        x = rng.uniform(r["a"], r["b"], shape)
    else:
        x = np.exp(rng.uniform(r["a"], r["b"], shape))
    return np.asarray(x, dtype=dtype)


def apply_view(torch, t, r: dict):
    """The recipe's view of tensor ``t``."""
    if r["view"] == "T":
        return t.transpose(0, -1)
    if r["view"] == "cut":
        return t[..., :-1]
    return t


# True while tools/numerics_gradcli.py computes a case on absolute values (its error bound)
ABSOLUTE = False


def _grad(torch, f, *xs):
    """d(sum(f(xs) * g))/dxs for the seeded upstream gradient g: the backward kernels."""
    leaves = [x.detach().requires_grad_(True) for x in xs]
    y = f(*leaves)
    rng = np.random.default_rng(1234)
    g = np.asarray(rng.standard_normal(tuple(y.shape)), dtype=_dtype_name(y))
    g = torch.tensor((np.abs(g) if ABSOLUTE else g).tolist(), dtype=y.dtype)
    y.backward(g)
    return [x.grad for x in leaves]


def _dtype_name(t) -> str:
    return "float32" if "32" in str(t.dtype) else "float64"


# op name -> (function of (torch, *inputs, **params) returning a tensor or a list of tensors)
OPS = {
    "sum": lambda torch, x, dim=None, keepdim=False: x.sum() if dim is None
    else x.sum(dim=tuple(dim), keepdim=keepdim),
    "mean": lambda torch, x, dim=None, keepdim=False: x.mean() if dim is None
    else x.mean(dim=tuple(dim), keepdim=keepdim),
    "div": lambda torch, x, y: x / y,
    "mse_loss": lambda torch, x, y, reduction="mean": torch.nn.functional.mse_loss(
        x, y, reduction=reduction),
    "mse_loss_grad": lambda torch, x, y, reduction="mean": _grad(
        torch, lambda a, b: torch.nn.functional.mse_loss(a, b, reduction=reduction), x, y),
    "softmax": lambda torch, x, dim: torch.softmax(x, dim),
    "log_softmax": lambda torch, x, dim: torch.log_softmax(x, dim),
    "softmax_grad": lambda torch, x, dim: _grad(torch, lambda a: torch.softmax(a, dim), x),
    "log_softmax_grad": lambda torch, x, dim: _grad(torch, lambda a: torch.log_softmax(a, dim),
                                                    x),
    "pow": lambda torch, x, exponent: x ** exponent,
    "pow_grad": lambda torch, x, exponent: _grad(torch, lambda a: a ** exponent, x),
    "mean_grad": lambda torch, x: _grad(torch, lambda a: a.mean(), x),
    "dot": lambda torch, x, y: torch.dot(x, y),
    "mv": lambda torch, a, x: torch.mv(a, x),
    "mm": lambda torch, a, b: torch.mm(a, b),
    "matmul_grad": lambda torch, a, b: _grad(torch, lambda p, q: p @ q, a, b),
    "bmm": lambda torch, a, b: torch.bmm(a, b),
    "bmm_grad": lambda torch, a, b: _grad(torch, torch.bmm, a, b),
    "linear": lambda torch, x, w, b: torch.nn.functional.linear(x, w, b),
    "linear_grad": lambda torch, x, w, b: _grad(torch, torch.nn.functional.linear, x, w, b),
    "std": lambda torch, x, dim=None, correction=1, keepdim=False: x.std(correction=correction)
    if dim is None else x.std(dim=tuple(dim), correction=correction, keepdim=keepdim),
    "var": lambda torch, x, dim=None, correction=1, keepdim=False: x.var(correction=correction)
    if dim is None else x.var(dim=tuple(dim), correction=correction, keepdim=keepdim),
    # torch.norm: linalg.vector_norm for a number p, in PyTorch and in gradcli alike
    "vector_norm": lambda torch, x, ord=2, dim=None, keepdim=False: torch.norm(
        x, ord, None if dim is None else tuple(dim), keepdim),
    "vector_norm_grad": lambda torch, x, ord=2, dim=None, keepdim=False: _grad(
        torch, lambda a: torch.norm(a, ord, None if dim is None else tuple(dim), keepdim), x),
}
UNARY = ("exp", "log", "sqrt", "sin", "cos", "tanh", "atan", "asin", "acos", "sinh", "cosh",
         "erf", "expm1", "log1p", "sigmoid", "reciprocal")
def _unary(name: str, functional: bool) -> tuple:
    """The forward and the gradient case functions of ``torch.<name>`` (or ``F.<name>``)."""
    def fn(torch, x):
        return getattr(torch.nn.functional if functional else torch, name)(x)

    def grad(torch, x):
        return _grad(torch, lambda a: fn(torch, a), x)

    return fn, grad


for _name in UNARY:
    OPS[_name], OPS[_name + "_grad"] = _unary(_name, False)
# torch.nn.functional's activations, with their default arguments
ACTIVATIONS = ("logsigmoid", "softplus", "elu", "selu", "celu", "silu", "softshrink", "hardswish",
               "hardsigmoid", "hardshrink", "mish", "gelu")
for _name in ACTIVATIONS:
    OPS[_name], OPS[_name + "_grad"] = _unary(_name, True)

# where each unary op's inputs come from: (dist, a, b)
DOMAINS = {"exp": ("normal", 0, 3), "log": ("logu", -5, 5), "sqrt": ("logu", -5, 5),
           "sin": ("normal", 0, 4), "cos": ("normal", 0, 4), "tanh": ("normal", 0, 2),
           "atan": ("normal", 0, 3), "asin": ("uniform", -1, 1), "acos": ("uniform", -1, 1),
           "sinh": ("normal", 0, 3), "cosh": ("normal", 0, 3), "erf": ("normal", 0, 1.5),
           "expm1": ("normal", 0, 3), "log1p": ("logu", -6, 4), "sigmoid": ("normal", 0, 4),
           "reciprocal": ("normal", 0, 2), "logsigmoid": ("normal", 0, 4),
           "softplus": ("normal", 0, 6), "elu": ("normal", 0, 3), "selu": ("normal", 0, 3),
           "celu": ("normal", 0, 3), "silu": ("normal", 0, 4), "softshrink": ("normal", 0, 1),
           "hardswish": ("normal", 0, 4), "hardsigmoid": ("normal", 0, 4),
           "hardshrink": ("normal", 0, 1), "mish": ("normal", 0, 3), "gelu": ("normal", 0, 3)}


# ops group A: functions of the C library or SLEEF (correctly rounded stand-ins), fused
# multiply-adds (lerp, addcmul), cumulative sums in double, logsumexp over VML's exp and log
OPS.update({
    "tan": lambda torch, x: torch.tan(x),
    "asinh": lambda torch, x: torch.asinh(x),
    "acosh": lambda torch, x: torch.acosh(x),
    "atanh": lambda torch, x: torch.atanh(x),
    "exp2": lambda torch, x: torch.exp2(x),
    "atan2": lambda torch, x, y: torch.atan2(x, y),
    "hypot": lambda torch, x, y: torch.hypot(x, y),
    "logaddexp": lambda torch, x, y: torch.logaddexp(x, y),
    "fmod": lambda torch, x, y: torch.fmod(x, y),
    "xlogy": lambda torch, x, y: torch.xlogy(x, y),
    "lerp": lambda torch, x, y, weight: torch.lerp(x, y, weight),
    "lerp_tensor": lambda torch, x, y, w: torch.lerp(x, y, w),
    "addcmul": lambda torch, x, y, z, value: torch.addcmul(x, y, z, value=value),
    "addcdiv": lambda torch, x, y, z, value: torch.addcdiv(x, y, z, value=value),
    "cumsum": lambda torch, x, dim: torch.cumsum(x, dim),
    "cumsum_grad": lambda torch, x, dim: _grad(torch, lambda a: torch.cumsum(a, dim), x),
    "cumprod": lambda torch, x, dim: torch.cumprod(x, dim),
    "logsumexp": lambda torch, x, dim: torch.logsumexp(x, dim),
    "logsumexp_grad": lambda torch, x, dim: _grad(torch, lambda a: torch.logsumexp(a, dim), x),
    "nansum": lambda torch, x: torch.nansum(x),
    # x only gives the dtype: linspace makes its values from start, end and steps
    "linspace": lambda torch, x, start, end, steps: torch.linspace(start, end, steps,
                                                                   dtype=x.dtype),
    "trace": lambda torch, x: torch.trace(x),
})


def _batch_norm(torch, x, w, b, rm, rv, training=True):
    """F.batch_norm's output and the running statistics it updated."""
    rm, rv = rm.clone(), rv.clone()
    y = torch.nn.functional.batch_norm(x, rm, rv, w, b, training=training)
    return [y, rm, rv]


# the layers of torch.nn: batch normalisation (Normalization.cpp, batch_norm_kernel.cpp),
# embedding's backward (rows added in order)
OPS.update({
    "batch_norm": _batch_norm,
    "batch_norm_grad": lambda torch, x, w, b, rm, rv, training=True: _grad(
        torch, lambda p, q, r: torch.nn.functional.batch_norm(p, rm, rv, q, r,
                                                              training=training), x, w, b),
    "embedding_grad": lambda torch, w, idx: _grad(
        torch, lambda p: torch.nn.functional.embedding(
            (idx.abs() * 1000).long() % p.shape[0], p), w),
})


def _conv2d(torch, x, w, b, stride=1, padding=0, dilation=1, groups=1):
    return torch.nn.functional.conv2d(x, w, b, stride, padding, dilation, groups)


def _conv2d_grad(torch, x, w, b, stride=1, padding=0, dilation=1, groups=1):
    return _grad(torch, lambda p, q, r: torch.nn.functional.conv2d(p, q, r, stride, padding,
                                                                   dilation, groups), x, w, b)


# convolutions (ConvolutionMM2d.cpp): "conv2d" where ATen takes its slow kernels in both dtypes
# (batch 1, kernels up to 3 x 3), "conv2d_onednn" where float32 goes to oneDNN (float64 never)
OPS.update({"conv2d": _conv2d, "conv2d_grad": _conv2d_grad, "conv2d_onednn": _conv2d,
            "conv2d_onednn_grad": _conv2d_grad})


def _conv_cases(dtype: str) -> list:
    out = []
    for op, (x, w, params) in [
            ("conv2d", ((1, 1, 8, 8), (2, 1, 3, 3), {})),
            ("conv2d", ((1, 8, 12, 12), (16, 8, 3, 3), {"padding": 1})),
            ("conv2d", ((1, 3, 9, 9), (4, 3, 2, 2), {"stride": 2})),
            ("conv2d_onednn", ((4, 3, 10, 10), (5, 3, 3, 3), {"padding": 1})),
            ("conv2d_onednn", ((3, 6, 14, 14), (16, 6, 5, 5), {})),
            ("conv2d_onednn", ((2, 4, 9, 7), (6, 2, 3, 2), {"groups": 2})),
            ("conv2d_onednn", ((2, 3, 9, 9), (4, 3, 3, 3), {"dilation": 2, "stride": 2}))]:
        ins = [recipe(x, 520 + x[1]), recipe(w, 521 + w[0]), recipe((w[0],), 522)]
        out.append(_case(op, dtype, ins, **params))
        out.append(_case(op + "_grad", dtype, ins, **params))
    return out


def _layer_cases(dtype: str) -> list:
    out = []
    for shape in [(32, 64), (4, 5), (100, 10), (2, 7), (1000, 33), (7, 3, 5), (16, 6, 4, 4),
                  (3, 2, 40)]:
        c = shape[1]
        ins = [recipe(shape, 500 + c, "normal", 1, 2), recipe((c,), 501), recipe((c,), 502),
               recipe((c,), 503), recipe((c,), 504, "uniform", 0.5, 2)]
        for training in (True, False):
            out.append(_case("batch_norm", dtype, ins, training=training))
            out.append(_case("batch_norm_grad", dtype, ins, training=training))
    for rows, dim, n in [(10, 3, 40), (50, 16, 7), (1000, 33, 5000)]:
        out.append(_case("embedding_grad", dtype, [recipe((rows, dim), 510),
                                                   recipe((n,), 511)]))
    return out


def _group_a_cases(dtype: str) -> list:
    out = []
    for op, (dist, a, b) in {"tan": ("uniform", -1.5, 1.5), "asinh": ("normal", 0, 5),
                             "acosh": ("uniform", 1, 20), "atanh": ("uniform", -1, 1),
                             "exp2": ("normal", 0, 8)}.items():
        for n in (1024, 7):
            out.append(_case(op, dtype, [recipe((n,), 400 + n, dist, a, b)]))
    for op in ("atan2", "hypot", "logaddexp", "fmod"):
        for n in (1024, 7):
            out.append(_case(op, dtype, [recipe((n,), 410 + n, "normal", 0, 3),
                                         recipe((n,), 411 + n, "normal", 0, 3)]))
    out.append(_case("xlogy", dtype, [recipe((1024,), 420), recipe((1024,), 421, "logu", -5, 5)]))
    for w in (0.3, 0.8, -1.5):
        out.append(_case("lerp", dtype, [recipe((1024,), 430), recipe((1024,), 431)], weight=w))
    out.append(_case("lerp_tensor", dtype, [recipe((1024,), 432), recipe((1024,), 433),
                                            recipe((1024,), 434, "uniform", -1, 2)]))
    for op, value in (("addcmul", 0.3), ("addcmul", -2.0), ("addcdiv", 0.3)):
        out.append(_case(op, dtype, [recipe((1024,), 440), recipe((1024,), 441),
                                     recipe((1024,), 442, "logu", -2, 2)], value=value))
    for shape, dim in (((1000,), 0), ((40, 70), 1), ((40, 70), 0)):
        out.append(_case("cumsum", dtype, [recipe(shape, 450 + dim)], dim=dim))
        out.append(_case("cumsum_grad", dtype, [recipe(shape, 451 + dim)], dim=dim))
        out.append(_case("logsumexp", dtype, [recipe(shape, 452 + dim, "normal", 0, 3)], dim=dim))
        out.append(_case("logsumexp_grad", dtype, [recipe(shape, 453 + dim, "normal", 0, 3)],
                         dim=dim))
    out.append(_case("cumprod", dtype, [recipe((30, 40), 460, "uniform", 0.5, 1.5)], dim=1))
    out.append(_case("nansum", dtype, [recipe((4099,), 461)]))
    for start, end, steps in ((-3.141592653589793, 3.141592653589793, 200), (0.0, 1.0, 7),
                              (-3.7, 12.1, 1001), (2.5, -0.3, 64)):
        out.append(_case("linspace", dtype, [recipe((1,), 463)], start=start, end=end,
                         steps=steps))
    out.append(_case("trace", dtype, [recipe((300, 300), 462)]))
    return out


def _case(op: str, dtype: str, inputs: list, **params) -> dict:
    tag = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
    shapes = "x".join("(" + ",".join(map(str, r["shape"])) + ")" + (r["view"] or "")
                      for r in inputs)
    seeds = "-".join(str(r["seed"]) for r in inputs)
    return {"id": f"{op}/{dtype}/{shapes}/{seeds}/{tag}", "op": op, "dtype": dtype,
            "inputs": inputs, "params": params}


def _sum_cases(dtype: str) -> list:
    out = []
    for n in range(1, 301):  # every length up to 300: each crosses different cascade blocks
        out.append(_case("sum", dtype, [recipe((n,), n)]))
    for n in (1000, 4097, 32768, 40001, 100000, 262147, 1000000):  # threads split from 32768
        for seed in (1, 2):
            out.append(_case("sum", dtype, [recipe((n,), 10_000 + 7 * n + seed)]))
    out.append(_case("sum", dtype, [recipe((300,), 9, view="cut")]))
    multi = [((3, 5), (0,)), ((3, 5), (1,)), ((17, 9), (0,)), ((17, 9), (1,)),
             ((40, 70), (0,)), ((40, 70), (1,)), ((70, 40), (0,)), ((2, 3, 4), (1,)),
             ((4, 33, 5), (0, 2)), ((6, 7, 40), (2,)), ((6, 7, 40), (0, 1)),
             ((200, 300), (0,)), ((200, 300), (1,)), ((300, 200), (0, 1))]
    for shape, dims in multi if dtype == "float32" else multi[::2]:
        for keepdim in (False, True):
            out.append(_case("sum", dtype, [recipe(shape, sum(shape))], dim=list(dims),
                             keepdim=keepdim))
        out.append(_case("sum", dtype, [recipe(shape[::-1], 5, view="T")], dim=list(dims)))
    for n in (1, 7, 16, 17, 100, 299, 4097, 40001):
        out.append(_case("mean", dtype, [recipe((n,), 20 + n)]))
    out.append(_case("mean", dtype, [recipe((40, 70), 3)], dim=[1], keepdim=True))
    out.append(_case("mean_grad", dtype, [recipe((30, 70), 4)]))
    return out


def _unary_cases(dtype: str) -> list:
    out = []
    for op, (dist, a, b) in DOMAINS.items():
        big = 1024 if dtype == "float32" else 512
        sizes = (big, 1, 2, 3, 5, 15, 16, 17, 31, 33, 47, 63) if op in (
            "sigmoid", "softplus", "logsigmoid", "elu", "selu", "silu", "softshrink") else (big, 7)
        for n in sizes:
            out.append(_case(op, dtype, [recipe((n,), 300 + n, dist, a, b)]))
        out.append(_case(op + "_grad", dtype, [recipe((257,), 77, dist, a, b)]))
        if op == "sigmoid":
            out.append(_case(op, dtype, [recipe((40, 33), 5, dist, a, b, view="cut")]))
            out.append(_case(op, dtype, [recipe((33, 40), 6, dist, a, b, view="T")]))
            if dtype == "float32":  # threads split its walk
                out.append(_case(op, dtype, [recipe((40001,), 8, dist, a, b)]))
    for e in (2, 3, 0.5, -0.5, -1, -2, 1.5, 2.5):
        out.append(_case("pow", dtype, [recipe((257,), 40, "logu", -3, 3)], exponent=e))
        out.append(_case("pow_grad", dtype, [recipe((129,), 41, "logu", -3, 3)], exponent=e))
    out.append(_case("div", dtype, [recipe((1024,), 50), recipe((1024,), 51)]))
    return out


def _softmax_cases(dtype: str) -> list:
    out = []
    shapes = [(1,), (5,), (16,), (17,), (31,), (33,), (100,), (3, 10), (4, 37), (64, 10),
              (10, 64), (2, 3, 20), (5, 7, 3), (3, 20, 17), (2, 100, 50)]
    for shape in shapes if dtype == "float32" else shapes[:-1:2]:  # float64: every other one
        for dim in range(len(shape)):
            for op in ("softmax", "log_softmax", "softmax_grad", "log_softmax_grad"):
                out.append(_case(op, dtype, [recipe(shape, 60 + dim, "normal", 0, 3)], dim=dim))
    return out


def _loss_cases(dtype: str) -> list:
    out = []
    for n in (1, 5, 100, 1000, 40001) if dtype == "float32" else (1, 5, 100):
        for reduction in ("mean", "sum"):
            ins = [recipe((n,), 70 + n), recipe((n,), 71 + n)]
            out.append(_case("mse_loss", dtype, ins, reduction=reduction))
            if n < 40001:
                out.append(_case("mse_loss_grad", dtype, ins, reduction=reduction))
    out.append(_case("mse_loss", dtype, [recipe((64, 10), 72), recipe((64, 10), 73)]))
    return out


def _matmul_cases(dtype: str) -> list:
    out = []
    for k in list(range(1, 70)) + [100, 255, 1000, 4099]:
        out.append(_case("dot", dtype, [recipe((k,), 80 + k), recipe((k,), 81 + k)]))
    for m in (1, 2, 3, 4, 5, 7, 13, 100, 103) if dtype == "float32" else (1, 4, 5, 13):
        for k in (1, 3, 5, 9, 12, 13, 17, 20, 24, 33, 100):
            out.append(_case("mv", dtype, [recipe((m, k), m * k), recipe((k,), k)]))
    out.append(_case("mv", dtype, [recipe((13, 9), 3, view="T"), recipe((9,), 4)]))
    shapes = [(1, 1, 100), (1, 5, 13), (2, 2, 2), (3, 3, 3), (4, 4, 4), (8, 8, 8), (5, 3, 7),
              (100, 1, 1), (100, 1, 3), (100, 1, 7), (100, 3, 1), (4, 12, 12), (12, 12, 12),
              (16, 16, 16), (32, 32, 32), (64, 20, 10), (100, 16, 8), (16, 64, 100),
              (33, 33, 33), (6, 12, 12), (7, 20, 32), (3, 13, 12), (10, 10, 10), (2, 6, 9),
              (20, 7, 9), (9, 11, 13)]
    for m, n, k in shapes if dtype == "float32" else [s for s in shapes if s[0] * s[1] <= 64]:
        out.append(_case("mm", dtype, [recipe((m, k), m + k), recipe((k, n), n + k)]))
        out.append(_case("mm", dtype, [recipe((m, k), m, view="T"), recipe((k, n), n)]))
    for m, n, k in [(100, 1, 1), (100, 1, 3), (100, 1, 7), (64, 8, 16), (16, 32, 4), (1, 1, 50)]:
        out.append(_case("matmul_grad", dtype, [recipe((m, k), 90), recipe((k, n), 91)]))
    for m, n, k in [(5, 20, 12), (16, 18, 20), (3, 40, 9), (64, 64, 64)]:  # a transposed B
        out.append(_case("mm", dtype, [recipe((m, k), 92), recipe((k, n), 93, view="T")]))
    # bmm: ATen's own loop under 400 multiply-adds, MKL's batched gemm above it
    for b, m, n, k in [(2, 3, 4, 5), (4, 5, 7, 11), (3, 16, 20, 32), (2, 33, 17, 64)]:
        out.append(_case("bmm", dtype, [recipe((b, m, k), 94), recipe((b, k, n), 95)]))
        out.append(_case("bmm_grad", dtype, [recipe((b, m, k), 96), recipe((b, k, n), 97)]))
    for rows, i, o in [(1, 4, 8), (16, 12, 20), (64, 3, 1), (7, 33, 5), (32, 64, 64)]:
        inputs = [recipe((rows, i), 98), recipe((o, i), 99), recipe((o,), 100)]
        out.append(_case("linear", dtype, inputs))
        out.append(_case("linear_grad", dtype, inputs))
    return out


def _moment_cases(dtype: str) -> list:
    out = []
    for op in ("std", "var"):
        for shape, dims in [((7,), None), ((16, 20), None), ((16, 20), [0]), ((16, 20), [1]),
                            ((3, 4, 5), [1]), ((3, 4, 5), [0, 2]), ((40000,), None),
                            ((64, 3), [0]), ((2, 3000), [1])]:
            for correction in (1, 0):
                params = {"correction": correction} if dims is None else \
                    {"dim": dims, "correction": correction, "keepdim": correction == 0}
                out.append(_case(op, dtype, [recipe(shape, 101, a=1.0, b=3.0)], **params))
        out.append(_case(op, dtype, [recipe((20, 16), 102, view="T")], dim=[0]))
    return out


_NORM_ORDS = (2, 1, 3, 0.5, 0, float("inf"), float("-inf"), -1)


def _norm_cases(dtype: str) -> list:
    """linalg.vector_norm: vectors of every length to 100 and longer ones (the order-2 fast
    path's vectors and tails), (N, C) along each dimension, 3-d and several dimensions, a
    transposed input; the other orders on a few of them, and the backward."""
    out = []
    for n in list(range(1, 101)) + [255, 1000, 1003, 4099, 40000]:
        out.append(_case("vector_norm", dtype, [recipe((n,), 110 + n)]))
    shaped = [((16, 20), [0], False), ((16, 20), [1], True), ((64, 33), [0], False),
              ((64, 33), [1], False), ((5, 6, 7), [1], False), ((5, 6, 7), [0, 2], True),
              ((5, 6, 7), [0, 1], False), ((5, 6, 7), None, False), ((4, 50, 9), [1, 2], False),
              ((3, 1, 9), [1], True), ((300, 200), [0], False), ((200, 300), None, False)]
    for ord in _NORM_ORDS:
        ords = {"ord": ord}
        for shape, dims, keepdim in shaped if ord == 2 else shaped[:9]:
            params = dict(ords) if dims is None else {**ords, "dim": dims, "keepdim": keepdim}
            out.append(_case("vector_norm", dtype, [recipe(shape, 111)], **params))
        out.append(_case("vector_norm", dtype, [recipe((20, 16), 112, view="T")], dim=[0],
                         **ords))
        if ord != 2:
            for n in (7, 100, 1003, 40000):
                out.append(_case("vector_norm", dtype, [recipe((n,), 113 + n)], **ords))
        if ord not in (0, float("-inf")):
            out.append(_case("vector_norm_grad", dtype, [recipe((37,), 114)], **ords))
            out.append(_case("vector_norm_grad", dtype, [recipe((8, 12), 115)], dim=[1],
                             **ords))
    return out


def cases() -> list[dict]:
    """Every case, float32 then float64."""
    out = []
    for dtype in DTYPES:
        for group in (_sum_cases, _unary_cases, _softmax_cases, _loss_cases, _matmul_cases,
                      _moment_cases, _group_a_cases, _layer_cases, _conv_cases, _norm_cases):
            out.extend(group(dtype))
    return out


# float32 families gradcli reproduces exactly: their large outputs are recorded as a digest
EXACT32 = ("sum", "mean", "mean_grad", "div", "mse_loss", "mse_loss_grad", "softmax",
           "log_softmax", "softmax_grad", "log_softmax_grad", "sigmoid", "sigmoid_grad",
           "logsigmoid", "logsigmoid_grad", "expm1", "log1p", "reciprocal", "reciprocal_grad",
           "tanh_grad", "dot", "mv", "mm", "matmul_grad", "bmm", "bmm_grad", "linear",
           "linear_grad", "std", "var", "elu_grad", "selu_grad", "celu", "celu_grad",
           "silu", "silu_grad", "softshrink", "softshrink_grad", "hardswish", "hardswish_grad",
           "hardsigmoid", "hardsigmoid_grad", "hardshrink", "hardshrink_grad")


def compact(case: dict, size: int) -> bool:
    """Whether an output of ``size`` elements is recorded as a digest rather than its bits."""
    return size > 4096 or (size > 256 and case["dtype"] == "float32" and case["op"] in EXACT32)


def family(case: dict) -> str:
    """The op and dtype a case's share is counted under (pow by exponent)."""
    op = case["op"]
    if op in ("pow", "pow_grad"):
        op = f"{op}({case['params']['exponent']})"
    if op in ("vector_norm", "vector_norm_grad"):
        op = f"{op}({case['params'].get('ord', 2)})"
    return f"{op}/{case['dtype']}"
