"""The op table's forward-mode formulas: the tangent of an op's result from its inputs'.

PyTorch gives each op a ``result:`` formula in ``derivatives.yaml``; most are one of three
kinds, which this module derives from the table (``ops.py``) rather than writing twice:

* ``auto_element_wise`` (an elementwise op): the backward formula of each input with ``grad``
  replaced by that input's tangent (broadcast to the result's shape), summed over the inputs;
  every ``kind="elementwise"`` op of the table is one.
* ``auto_linear`` (views, sums, gathers, concatenations, pads, the losses linear in their input):
  the op's own forward applied to the tangents (``LINEAR``), a constant argument made 0 where the
  forward writes one (``constant_pad_nd``'s ``value``).
* reductions whose output element reads a slice of the input (``prod``, ``var``, norms,
  ``amax``, ``logsumexp``, the reduced losses): the backward formula read with ``grad`` = 1
  times the tangent, summed over the reduced dims (``REDUCTIONS``), which is PyTorch's
  ``prod``/``var``/``evenly_read_jvp`` formulas' shape.

The rest are written out as PyTorch's (``FORMULAS``: matrix products, softmax, layer norm,
linear algebra, and the elementwise ops whose ``result:`` PyTorch writes itself).  A missing
input tangent is zeros (PyTorch's ZeroTensor).  An op with none of these raises PyTorch's
NotImplementedError where PyTorch has no formula either (``_cdist_forward``), gradcli's
otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from . import ops as O
from .graph import sum_to
from .ops import ArrayFormulas, Op
from .record import apply
from .tensor import Tensor

# the pads (and their backwards, reached by a double backward) are linear
_PAD_OPS = (*O.REFLECTION_PAD.values(), *O.REPLICATION_PAD.values())
_PADS = (*_PAD_OPS, *(O.OPS[p.name + "_backward"] for p in _PAD_OPS))
# ops whose jvp is their forward applied to the tangents (non-differentiable inputs as they are)
LINEAR = frozenset({
    O.ALIAS, O.CAT, O.CLONE, O.COPY, O.CUMMAX, O.CUMMIN, O.CUMSUM, O.CUMSUM_TO, O.DIAG,
    O.DIAGONAL, O.DIAG_EMBED, O.EXPAND, O.FLIP, O.GATHER, O.INDEX, O.INDEX_ADD, O.INDEX_BACKWARD,
    O.INDEX_PUT, O.INDEX_SELECT, O.KTHVALUE, O.MASKED_SELECT, O.MAX_DIM, O.MEAN, O.MEAN_DIM,
    O.MEDIAN_DIM, O.MIN_DIM, O.MODE, O.NLL_LOSS, O.PERMUTE, O.REPEAT, O.RESHAPE_ALIAS, O.ROLL,
    O.SCATTER, O.SCATTER_ADD, O.SELECT, O.SELECT_BACKWARD, O.SLICE, O.SLICE_BACKWARD, O.SORT,
    O.SORT_STABLE, O.SPLIT, O.SPLIT_WITH_SIZES, O.SQUEEZE, O.SQUEEZE_DIM, O.SQUEEZE_SYM, O.STACK,
    O.SUM, O.SUM_DIM, O.T, O.TAKE, O.TOPK, O.TO_COPY, O.TRACE, O.TRANSPOSE, O.TRIL, O.TRIU,
    O.UNBIND, O.UNSAFE_VIEW, O.UNSQUEEZE, O.VIEW, O.TRANSPOSE_INPLACE, O.UNSAFE_SPLIT,
    O.EMBEDDING, O.EMBEDDING_BACKWARD, O.AVG_POOL2D, O.AVG_POOL2D_BACKWARD,
    O.ADAPTIVE_AVG_POOL2D, O.ADAPTIVE_AVG_POOL2D_BACKWARD, O.MAX_POOL2D_BACKWARD,
    O.MAX_POOL2D,  # the tangent gathered at the maxima's indices, as PyTorch's formula
    *_PADS,
})
# linear ops with a constant the forward writes: the param made 0 for the tangent
ZEROED = {O.CONSTANT_PAD_ND: "value", O.SCATTER_VALUE: "value", O.MASKED_FILL: "value"}
# reductions: sum over the reduced dims of (the backward formula at grad = 1) * tangent
REDUCTIONS = frozenset({
    O.AMAX, O.AMIN, O.AMINMAX_MAX, O.AMINMAX_MIN, O.BCE_WITH_LOGITS, O.BINARY_CROSS_ENTROPY,
    O.DIST, O.LOGSUMEXP, O.MAX, O.MEDIAN, O.MIN, O.MSE_LOSS, O.NANSUM, O.NANSUM_TO,
    O.NORM_DIM, O.PROD, O.PROD_DIM, O.STD, O.VAR, O.VECTOR_NORM,
})
# results without a tangent (``unpack_dual``'s primal)
NO_TANGENT = frozenset({"fw_primal"})
# formulas written on arrays only: their tangent is not itself differentiable
ARRAY_ONLY = frozenset({O.CUMPROD, O.CUMPROD_TO, O.GLU, O.LINALG_DET, O.LINALG_SOLVE})
# PyTorch has no forward formula for these (its NotImplementedError names the ATen function)
NO_FORMULA = {O.CDIST: "_cdist_forward", O.EUCLIDEAN_DIST: "_euclidean_dist",
              O.SOFT_MARGIN_LOSS: "soft_margin_loss_backward"}

NOT_IMPLEMENTED = (
    "Trying to use forward AD with {} that does not support it because it has not been "
    "implemented yet.\nPlease file an issue to PyTorch at "
    "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can "
    "prioritize its implementation or submit a PR adding the implementation to derivatives.yaml")


def tangent(op: Any, backend: Any, primals: list, tangents: list, result: Any,
            params: dict, fx: Any = None) -> Any | None:
    """The tangent of ``op``'s ``result`` given its inputs and their tangents (None: no
    tangent, zeros for the formula): arrays, or with ``fx`` the formulas' namespace of recorded
    ops (``formulas.TENSOR_FORMULAS``), tensors whose tangent is itself differentiable."""
    if fx is None:
        fx = backend.formulas
        if fx is None:
            fx = backend.formulas = ArrayFormulas(backend.xp)
    if op.name in NO_TANGENT:
        return None
    if op.__class__ is not Op:  # a custom autograd.Function's: its jvp's (engine/custom.py)
        return None
    formula = FORMULAS.get(op)
    if formula is not None:
        return formula(fx, _filled(fx, op, primals, tangents), primals, result, params)
    if op in LINEAR or op in ZEROED:
        return _linear(fx, op, primals, tangents, params)
    if op.kind == "elementwise":
        return _elementwise(fx, op, primals, tangents, result, params)
    if op in REDUCTIONS:
        return _reduction(fx, op, primals, tangents, result, params)
    if op in NO_FORMULA:
        raise ScriptError(NOT_IMPLEMENTED.format(NO_FORMULA[op]), kind="NotImplementedError")
    raise ScriptError(f"gradcli does not support forward AD through '{op.name}' yet",
                      kind="NotImplementedError")


def has_formula(op: Any) -> bool:
    """Whether ``op`` carries tangents (one of the rules above applies)."""
    return (op in FORMULAS or op in LINEAR or op in ZEROED or op.kind == "elementwise"
            or op in REDUCTIONS)


def differentiable(op: Any) -> bool:
    """Whether the formula also runs on recorded ops (a differentiable tangent)."""
    return op not in ARRAY_ONLY


def _arr(x: Any) -> Any:
    """The array behind a tensor (masks and constants are computed on arrays)."""
    return x.data if x.__class__ is Tensor else x


def _zeros(fx: Any, shape: tuple, dtype: Any) -> Any:
    return fx.const(fx.raw.zeros(tuple(shape), dtype=dtype))


def _filled(fx: Any, op: Any, primals: list, tangents: list) -> list:
    """The tangents with zeros for a differentiable input that has none."""
    out = []
    for i, (p, t) in enumerate(zip(primals, tangents)):
        if t is None and op.differentiable[i] and p is not None:
            # a Python number (a wrapped scalar) has the tangent 0
            t = _zeros(fx, p.shape, _arr(p).dtype) if hasattr(p, "shape") else 0.0
        out.append(t)
    return out


def _linear(fx: Any, op: Any, primals: list, tangents: list, params: dict) -> Any:
    args = _filled(fx, op, primals, tangents)
    args = [t if op.differentiable[i] and t is not None else p
            for i, (p, t) in enumerate(zip(primals, args))]
    zeroed = ZEROED.get(op)
    if zeroed is not None:
        params = {**params, zeroed: 0.0}
    if fx.__class__ is ArrayFormulas:
        return op.forward(fx.raw, *args, **params)
    return apply(op, tuple(args), params)


def _read(fx: Any, op: Any, i: int, grad: Any, primals: list, result: Any,
          params: dict) -> Any:
    """Input ``i``'s backward formula with ``grad``, its saved names read from the primals."""
    formula, plan = op.plans[i]
    args = []
    for kind, nm in plan:
        if kind == 0:
            args.append(grad)
        elif kind == 1:
            args.append(fx)
        elif kind == 2:
            args.append(result if nm == op.result else primals[op.inputs.index(nm)])
        elif kind == 3:
            args.append(tuple(primals[0].shape))
        elif kind == 4:
            args.append(params[nm])
        else:
            args.append(i)
    return formula(*args)


def _elementwise(fx: Any, op: Any, primals: list, tangents: list, result: Any,
                 params: dict) -> Any:
    """PyTorch's auto_element_wise: each backward formula read with the input's tangent."""
    shape = tuple(result.shape)
    total = None
    recorded = fx.__class__ is not ArrayFormulas
    for i, t in enumerate(tangents):
        if op.plans[i] is None:
            continue
        if t is None:
            if not recorded or primals[i].__class__ is not Tensor:
                continue
            # NOTE: as PyTorch's formulas, a missing tangent is a zero term of the sum (so the
            # tangent's node is the sum's, AddBackward0)
            t = _zeros(fx, primals[i].shape, primals[i].data.dtype)
        if tuple(t.shape) != shape:
            t = fx.broadcast_to(t, shape)
        term = _read(fx, op, i, t, primals, result, params)
        total = term if total is None else total + term
    if total is None:
        return _zeros(fx, shape, _arr(result).dtype)
    if tuple(getattr(total, "shape", ())) != shape:
        if not hasattr(total, "shape"):  # a formula that gave a number (a constant's 0)
            total = fx.const(fx.raw.asarray(total, dtype=_arr(result).dtype))
        total = fx.broadcast_to(total, shape)
    return total


def _reduction(fx: Any, op: Any, primals: list, tangents: list, result: Any,
               params: dict) -> Any:
    """Sum over the reduced dims of (the backward formula at grad = 1) * the tangent."""
    ones = fx.const(fx.raw.ones(tuple(result.shape), dtype=_arr(result).dtype))
    total = None
    for i, t in enumerate(tangents):
        if t is None or op.plans[i] is None:
            continue
        d = _read(fx, op, i, ones, primals, result, params)
        if tuple(d.shape) != tuple(t.shape):
            d = fx.broadcast_to(d, tuple(t.shape))
        term = _reduce_to(fx, d * t, result, params)
        total = term if total is None else total + term
    return total


def _reduce_to(fx: Any, x: Any, result: Any, params: dict) -> Any:
    """``x`` (the input's shape) summed to the result's shape over the op's reduced dims."""
    shape = tuple(result.shape)
    if tuple(x.shape) == shape:
        return x
    dim = params.get("dim")
    keepdim = bool(params.get("keepdim", False))
    if dim is None or len(shape) == 0:
        return fx.sum(x, None, False) if len(shape) == 0 else sum_to(fx, x, shape)
    axes = (dim,) if isinstance(dim, int) else tuple(dim)
    axes = tuple(a % x.ndim for a in axes)
    return fx.sum(x, axes, keepdim)


# --- PyTorch's own result: formulas ---------------------------------------------------------

def _bilinear(op: Op) -> Callable:
    """``op(a_t, b) + op(a, b_t)`` (the matrix products)."""
    def jvp(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
        f = getattr(fx, op.name)
        return f(t[0], p[1]) + f(p[0], t[1])
    return jvp


def _convolution(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    """PyTorch's convolution_jvp: conv(input_t, weight) + conv(input, weight_t, bias_t)."""
    return (fx.convolution(t[0], p[1], None, **params)
            + fx.convolution(p[0], t[1], t[2], **params))


def _bilinear_with(op: Op) -> Callable:
    """``op(a_t, b) + op(a, b_t)`` with the op's parameters (a convolution's gradients)."""
    def jvp(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
        f = getattr(fx, op.name)
        return f(t[0], p[1], **params) + f(p[0], t[1], **params)
    return jvp


def _addmm(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # self_t + mat1_t.mm(mat2_p) + mat1_p.mm(mat2_t)
    return t[0] + fx.mm(t[1], p[2]) + fx.mm(p[1], t[2])


def _logsumexp_jvp(fx: Any, x: Any, t: Any, dim: Any, keepdim: bool) -> Any:
    """PyTorch's logsumexp_jvp: sum(exp(x - amax) * t) / sum(exp(x - amax)) (the max, which
    cancels, taken as a constant)."""
    raw = _arr(x)
    axes = (dim,) if isinstance(dim, int) else tuple(dim)
    axes = tuple(a % max(raw.ndim, 1) for a in axes) if raw.ndim else None
    e = fx.exp(x - fx.const(fx.raw.max(raw, axis=axes, keepdims=True))) if raw.size \
        else fx.exp(x)
    return fx.sum(e * t, axes, keepdim) / fx.sum(e, axes, keepdim)


def _softmax(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return result * (t[0] - _logsumexp_jvp(fx, p[0], t[0], params["dim"], True))


def _log_softmax(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return t[0] - _logsumexp_jvp(fx, p[0], t[0], params["dim"], True)


def _softmax_backward(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # _softmax_backward_data(grad_output_t, output) + the output's tangent through
    # softmax_double_backward's formula (the kernel is linear in grad_output)
    dim = params["dim"]
    go, y = p
    return (fx.softmax_backward(t[0], y, dim=dim)
            + t[1] * (go - fx.sum(y * go, dim, True)) - y * fx.sum(t[1] * go, dim, True))


def _log_softmax_backward(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # _log_softmax_backward_data(grad_output_t, output) - output_t * exp(output) * sum(grad_output)
    dim = params["dim"]
    go, y = p
    return (fx.log_softmax_backward(t[0], y, dim=dim)
            - t[1] * fx.exp(y) * fx.sum(go, dim, True))


def _div(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return (t[0] - t[1] * result) / p[1]


def _maximum(fx: Any, t: list, p: list, result: Any, params: dict, sign: int = 1) -> Any:
    # other_t + where(self == other, 0.5, self > other) * (self_t - other_t)
    xp = fx.raw
    a, b = _arr(p[0]), _arr(p[1])
    dtype = _arr(result).dtype
    wins = (a > b) if sign > 0 else (a < b)
    w = xp.where(a == b, xp.asarray(0.5, dtype=dtype), xp.astype(wins, dtype))
    return t[1] + fx.const(w) * (t[0] - t[1])


def _angle(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # the two-argument arctangent: (-self * other_t + other * self_t) / (self^2 + other^2)
    return (-p[0] * t[1] + p[1] * t[0]) / (fx.power(p[0], 2) + fx.power(p[1], 2))


def _hypot(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return t[0] * p[0] / result + t[1] * p[1] / result


def _logaddexp(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return t[0] / (1 + fx.exp(p[1] - p[0])) + t[1] / (1 + fx.exp(p[0] - p[1]))


def _lerp(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # lerp(self_t, end_t, weight_p) + weight_t * (end_p - self_p)
    return fx.lerp(t[0], t[1], p[2]) + t[2] * (p[1] - p[0])


def _lerp_scalar(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return fx.lerp_scalar(t[0], t[1], **params)


def _addcmul(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    v = params.get("value", 1)
    return t[0] + t[1] * p[2] * v + t[2] * p[1] * v


def _addcdiv(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    v = params.get("value", 1)
    return t[0] + t[1] / p[2] * v - t[2] * (p[1] / p[2]) / p[2] * v


def _fmod(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return t[0] - t[1] * fx.const(fx.raw.trunc(_arr(p[0]) / _arr(p[1])))


def _remainder(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return t[0] - t[1] * fx.const(fx.raw.floor(_arr(p[0]) / _arr(p[1])))


def _glu(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # glu_jvp: a_t * sigmoid(b) + result * (1 - sigmoid(b)) * b_t
    xp = fx.raw
    dim = params.get("dim", -1)
    n = p[0].shape[dim] // 2
    a_t, b_t = (xp.take(t[0], xp.arange(n * k, n * (k + 1)), axis=dim) for k in (0, 1))
    b = xp.take(p[0], xp.arange(n, 2 * n), axis=dim)
    sig_b = fx.sigmoid(b)
    return a_t * sig_b + result * (1 - sig_b) * b_t


def _layer_norm(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    """PyTorch's layer_norm_jvp, from the saved mean and rstd."""
    x, weight, mean, rstd = p[0], p[1], p[3], p[4]
    x_t, w_t, b_t = t[0], t[1], t[2]
    nd = len(params["normalized_shape"])
    dims = tuple(range(x.ndim - nd, x.ndim))
    n = 1
    for d in dims:
        n *= x.shape[d]
    kept = tuple(1 if i in dims else s for i, s in enumerate(x.shape))
    mean_p, rstd_p = fx.reshape(mean, kept), fx.reshape(rstd, kept)
    centred_t = x_t - fx.sum(x_t, dims, True) / n
    centred_p = x - mean_p
    rstd_t = -fx.power(rstd_p, 3) * (fx.sum(centred_t * centred_p, dims, True) / n)
    out = centred_t * rstd_p + centred_p * rstd_t
    if weight is not None:
        out = out * weight
    if w_t is not None:
        out = out + w_t * centred_p * rstd_p
    if b_t is not None:
        out = out + b_t
    return out


def _batch_norm(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    """PyTorch's batch_norm_jvp: the batch statistics' tangents when training."""
    x, weight, running_mean, running_var, mean, invstd = p[0], p[1], p[3], p[4], p[5], p[6]
    x_t, w_t, b_t = t[0], t[1], t[2]
    dims = tuple(i for i in range(len(x.shape)) if i != 1)
    view = tuple(s if i == 1 else 1 for i, s in enumerate(x.shape))
    if params["training"]:
        n = 1
        for d in dims:
            n *= x.shape[d]
        mean_p, invstd_p = fx.reshape(mean, view), fx.reshape(invstd, view)
        centred_t = x_t - fx.sum(x_t, dims, True) / n
        invstd_t = -fx.power(invstd_p, 3) * (fx.sum(centred_t * (x - mean_p), dims, True) / n)
        out = centred_t * invstd_p + (x - mean_p) * invstd_t
    else:
        raw = fx.raw
        mean_p = fx.const(raw.reshape(_arr(running_mean), view))
        invstd_p = fx.const(raw.reshape(1.0 / raw.sqrt(_arr(running_var) + params["eps"]),
                                        view))
        out = x_t * invstd_p
    if weight is not None:
        out = out * fx.reshape(weight, view)
    if w_t is not None:
        out = out + fx.reshape(w_t, view) * (x - mean_p) * invstd_p
    if b_t is not None:
        out = out + fx.reshape(b_t, view)
    return out


def _mT(xp: Any, a: Any) -> Any:
    return xp.swapaxes(a, -1, -2)


def _det(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # det * trace(A^-1 A_t), batched
    xp = fx.raw
    solved = xp.linalg.solve(p[0], t[0])
    return result * xp.trace(solved, axis1=-2, axis2=-1)


def _inv(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # -inverse @ A_t @ inverse
    return -fx.matmul(fx.matmul(result, t[0]), result)


def _solve(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # left: A^-1 (B_t - A_t X); right: (B_t - X A_t) A^-1
    xp = fx.raw
    A, B = p[0], p[1]
    A_t, B_t = t[0], t[1]
    if params.get("left", True):
        vec = B.ndim == A.ndim - 1
        Xm = result[..., None] if vec else result
        Bt = B_t[..., None] if vec else B_t
        out = xp.linalg.solve(A, Bt - xp.matmul(A_t, Xm))
        return out[..., 0] if vec else out
    rhs = B_t - xp.matmul(result, A_t)
    return _mT(xp, xp.linalg.solve(_mT(xp, A), _mT(xp, rhs)))


def _cumprod(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # d(prod_{j<=i} x_j) = sum_{k<=i} t_k * prod_{j<=i, j!=k} x_j, computed exactly with zeros
    xp = fx.raw
    dim = params["dim"] % max(p[0].ndim, 1)
    x = xp.moveaxis(p[0], dim, -1)
    tt = xp.moveaxis(t[0], dim, -1)
    n = x.shape[-1]
    out = xp.zeros_like(x)
    for i in range(n):
        acc = xp.zeros_like(x[..., 0])
        for k in range(i + 1):
            others = xp.ones_like(acc)
            for j in range(i + 1):
                if j != k:
                    others = others * x[..., j]
            acc = acc + tt[..., k] * others
        out[..., i] = acc
    return xp.moveaxis(out, -1, dim)


def _count(shape: tuple, dim: Any) -> int:
    n = 1
    for i, d in enumerate(shape):
        if dim is None or i in dim:
            n *= d
    return n


def _var_sum(fx: Any, t: Any, x: Any, params: dict) -> Any:
    """PyTorch's var_backward(self_t, self_p, dim, correction, keepdim=True), summed over dim."""
    dim, keepdim = params["dim"], params["keepdim"]
    n = _count(tuple(x.shape), dim)
    mean = fx.sum(x, dim, True) / n
    return fx.sum((2.0 / (n - params["correction"])) * t * (x - mean), dim, keepdim)


def _var_jvp(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return _var_sum(fx, t[0], p[0], params)


def _std_jvp(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # (var's jvp / (2 * result)).masked_fill_(result == 0, 0)
    out = _var_sum(fx, t[0], p[0], params) / (2.0 * result)
    zero = fx.raw.asarray(_arr(result) == 0)
    return fx.where(zero, fx.const(fx.raw.zeros((), dtype=_arr(result).dtype)), out) \
        if bool(fx.raw.any(zero)) else out


def _norm_jvp(order: str, op: Op) -> Callable:
    """PyTorch's norm_jvp for p = 2: sum(self * self_t) / norm (0 where the norm is 0); the
    reduction rule for the other orders."""
    def jvp(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
        if params.get(order, 2) != 2:
            return _reduction(fx, op, p, t, result, params)
        out = fx.sum(p[0] * t[0], _dims(params.get("dim")), bool(params.get("keepdim"))) / result
        zero = fx.raw.asarray(_arr(result) == 0)
        return fx.where(zero, fx.const(fx.raw.zeros((), dtype=_arr(result).dtype)), out) \
            if bool(fx.raw.any(zero)) else out
    return jvp


def _dims(dim: Any) -> Any:
    return (dim,) if isinstance(dim, int) else None if dim is None else tuple(dim)


def _logsumexp(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    return _logsumexp_jvp(fx, p[0], t[0], params["dim"], params["keepdim"])


def _mse(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
    # mse_loss_backward(self_t, self, target) + mse_loss_backward(target_t, target, self),
    # reduced as the loss
    both = 2.0 * (p[0] - p[1]) * t[0] + 2.0 * (p[1] - p[0]) * t[1]
    reduction = params["reduction"]
    if reduction == "none":
        return both
    return fx.mean(both) if reduction == "mean" else fx.sum(both, None, False)


def _pointwise_loss(grad: Callable, name: str) -> Callable:
    """smooth_l1_loss's and huber_loss's: their backward kernel at reduction 'none' with each
    tangent as the gradient (the inputs swapped for the target's), the sum reduced as the loss
    (derivatives.yaml)."""
    def jvp(fx: Any, t: list, p: list, result: Any, params: dict) -> Any:
        param = params[name]
        both = grad(fx, t[0], p[0], p[1], "none", param) + \
            grad(fx, t[1], p[1], p[0], "none", param)
        reduction = params["reduction"]
        if reduction == "none":
            return both
        return fx.mean(both) if reduction == "mean" else fx.sum(both, None, False)
    return jvp


FORMULAS: dict[Op, Callable] = {
    O.MM: _bilinear(O.MM), O.MV: _bilinear(O.MV), O.DOT: _bilinear(O.DOT),
    O.BMM: _bilinear(O.BMM), O.ADDMM: _addmm, O.SOFTMAX: _softmax, O.LOG_SOFTMAX: _log_softmax,
    O.SOFTMAX_BACKWARD: _softmax_backward, O.LOG_SOFTMAX_BACKWARD: _log_softmax_backward,
    O.DIV: _div, O.MAXIMUM: _maximum,
    O.MINIMUM: lambda fx, t, p, r, params: _maximum(fx, t, p, r, params, -1),
    O.ATAN2: _angle, O.HYPOT: _hypot, O.LOGADDEXP: _logaddexp, O.LERP: _lerp,
    O.LERP_SCALAR: _lerp_scalar, O.ADDCMUL: _addcmul, O.ADDCDIV: _addcdiv, O.FMOD: _fmod,
    O.REMAINDER: _remainder, O.GLU: _glu, O.LAYER_NORM: _layer_norm,
    O.BATCH_NORM: _batch_norm,
    O.VAR: _var_jvp, O.STD: _std_jvp, O.LOGSUMEXP: _logsumexp, O.MSE_LOSS: _mse,
    O.SMOOTH_L1_LOSS: _pointwise_loss(O.smooth_l1_grad, "beta"),
    O.HUBER_LOSS: _pointwise_loss(O.huber_grad, "delta"),
    O.VECTOR_NORM: _norm_jvp("ord", O.VECTOR_NORM),
    O.NORM_DIM: _norm_jvp("p", O.NORM_DIM),
    O.LINALG_DET: _det, O.LINALG_INV: _inv, O.LINALG_SOLVE: _solve, O.CUMPROD: _cumprod,
    O.CUMPROD_TO: _cumprod, O.CONVOLUTION: _convolution,
    O.CONVOLUTION_BACKWARD_INPUT: _bilinear_with(O.CONVOLUTION_BACKWARD_INPUT),
    O.CONVOLUTION_BACKWARD_WEIGHT: _bilinear_with(O.CONVOLUTION_BACKWARD_WEIGHT),
}
