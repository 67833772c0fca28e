"""``torch.nn.functional`` beyond the op table's own entries: softmax, the losses and one_hot.

Losses follow PyTorch's Python wrappers (size checks, warnings, broadcasting) and then its C++
composites, recording the same nodes: ``cross_entropy`` is ``log_softmax`` then ``nll_loss``
(or, for probability targets and label smoothing, the arithmetic ATen records), ``l1_loss`` is
``(input - target).abs()`` reduced.  Arithmetic written in ATen's C++ records the C++ overloads
(``tensor * 0.5`` is MulBackward1 there), so these call the table's ops directly.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import ops as O
from .args import broadcast_shape, check_numel, dim_arg, is_number, tensor_arg, type_name
from .backend import to_host
from .context import current
from .dtypes import to_dtype
from .kernels import nll_sum, nll_targets
from .record import apply, apply_inplace
from .shape import _expand, view
from .tensor import Size, Tensor, vmap_from

REDUCTIONS = ("none", "mean", "sum")


# --- softmax ------------------------------------------------------------------------------------
def _softmax_dim(x: Tensor, dim: Any, name: str) -> int | None:
    if dim is None:  # F.softmax(x): PyTorch's legacy choice, with its warning
        current().warn(f"Implicit dimension choice for {name} has been deprecated. Change the "
                       "call to include dim=X as an argument.")
        dim = 0 if x.ndim in (0, 1, 3) else 1
    d = dim_arg(dim, x.ndim)
    return d if x.ndim else None


def _cast(x: Tensor, dtype: Any) -> Tensor:
    if dtype is None or to_dtype(dtype) is x.dtype:
        return x
    return apply(O.TO_COPY, (x,), {"dtype": to_dtype(dtype)})


def _softmax(op: Any, name: str, dim_optional: bool) -> Any:
    def fn(input: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
        x = tensor_arg(input, name)
        if dim is None and not dim_optional:
            raise ScriptError(f'{name}() missing 1 required positional arguments: "dim"',
                              kind="TypeError")
        x = _cast(x, dtype)
        d = _softmax_dim(x, dim, name)
        if not x.dtype.is_floating_point:  # PyTorch's kernel for the last dim has its own name
            kernel = f"{name}_lastdim_kernel_impl" if d is None or d == x.ndim - 1 else \
                f"{name}_kernel_impl"
            raise D.kernel_error(kernel, x.dtype)
        return apply(op, (x,), {"dim": d})

    fn.__name__ = name
    fn.__doc__ = f"{name.capitalize()} over ``dim`` ({op.grad_fn})."
    return fn


softmax = _softmax(O.SOFTMAX, "softmax", False)
log_softmax = _softmax(O.LOG_SOFTMAX, "log_softmax", False)
# torch.nn.functional's versions may leave ``dim`` out (and warn)
F_SOFTMAX = {"softmax": _softmax(O.SOFTMAX, "softmax", True),
             "log_softmax": _softmax(O.LOG_SOFTMAX, "log_softmax", True)}


# --- shared by the losses -----------------------------------------------------------------------
def _reduction(reduction: Any, size_average: Any = None, reduce: Any = None) -> str:
    """``reduction`` checked, or the one the legacy ``size_average``/``reduce`` flags mean."""
    if size_average is not None or reduce is not None:  # PyTorch's legacy_get_string
        reduction = ("mean" if size_average in (None, True) else "sum") \
            if reduce in (None, True) else "none"
        current().warn("size_average and reduce args will be deprecated, please use "
                       f"reduction='{reduction}' instead.")
    if reduction not in REDUCTIONS:
        raise ScriptError(f"{reduction} is not a valid value for reduction", kind="ValueError")
    return reduction


def _target_size_warning(input: Tensor, target: Tensor) -> None:
    if input.shape != target.shape:
        current().warn(f"Using a target size ({Size(target.shape)}) that is different to the "
                       f"input size ({Size(input.shape)}). This will likely lead to incorrect "
                       "results due to broadcasting. Please ensure they have the same size.")


def _broadcast_pair(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """``torch.broadcast_tensors(a, b)``: expanded views (ExpandBackward0) where needed."""
    if a.shape == b.shape:
        return a, b
    shape = tuple(broadcast_shape(a.shape, b.shape))
    check_numel(shape)
    return tuple(t if t.shape == shape else _expand(t, shape) for t in (a, b))  # type: ignore


def _pair(name: str, input: Any, target: Any) -> tuple[Tensor, Tensor]:
    a, b = tensor_arg(input, name), tensor_arg(target, name, "target", 2)
    _target_size_warning(a, b)
    return _broadcast_pair(a, b)


def _weighted(loss: Tensor, weight: Any, input: Tensor, reduction: str, name: str,
              mean_of_weights: bool = True) -> Tensor:
    """The Python-side weighting of PyTorch's regression losses (``weight=``)."""
    w = tensor_arg(weight, name, "weight", 6)
    if w.shape != input.shape:
        raise ScriptError("Weights and input must have the same size.", kind="ValueError")
    weighted = apply(O.MUL, (loss, w))
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return apply(O.SUM, (weighted,))
    if reduction != "mean":
        raise ScriptError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                          "'mean', 'sum'.", kind="ValueError")
    if not mean_of_weights:  # huber_loss: weighted_loss.mean()
        return apply(O.MEAN, (weighted,))
    return apply(O.DIV, (apply(O.SUM, (weighted,)), apply(O.SUM, (w,))))


# --- regression losses --------------------------------------------------------------------------
def mse_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Any = None) -> Tensor:
    """Mean squared error (MseLossBackward0; weighted, PowBackward0 and MulBackward0)."""
    a, b = _pair("mse_loss", input, target)
    if weight is not None:
        if size_average is not None or reduce is not None:
            reduction = _reduction(None, size_average, reduce)
        square = apply(O.POW, (apply(O.SUB, (a, b)),), {"exponent": 2})
        return _weighted(square, weight, tensor_arg(input, "mse_loss"), reduction, "mse_loss")
    return apply(O.MSE_LOSS, (a, b), {"reduction": _reduction(reduction, size_average, reduce)})


def l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Any = None) -> Tensor:
    """Mean absolute error: ``(input - target).abs()`` reduced, as ATen records it."""
    a, b = _pair("l1_loss", input, target)
    if weight is not None:
        if size_average is not None or reduce is not None:
            reduction = _reduction(None, size_average, reduce)
        return _weighted(apply(O.ABS, (apply(O.SUB, (a, b)),)), weight,
                         tensor_arg(input, "l1_loss"), reduction, "l1_loss")
    return _l1(a, b, _reduction(reduction, size_average, reduce))


def _l1(a: Tensor, b: Tensor, reduction: str) -> Tensor:
    loss = apply(O.ABS, (apply(O.SUB, (a, b)),))
    if reduction == "none":
        return loss
    return apply(O.MEAN if reduction == "mean" else O.SUM, (loss,))


def smooth_l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Squared below ``beta``, absolute above (SmoothL1LossBackward0)."""
    a, b = _pair("smooth_l1_loss", input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if beta == 0.0:
        return _l1(a, b, reduction)
    if beta < 0:
        raise ScriptError("smooth_l1_loss does not support negative values for beta.")
    return apply(O.SMOOTH_L1_LOSS, (a, b), {"reduction": reduction, "beta": beta})


def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0,
               weight: Any = None) -> Tensor:
    """Squared below ``delta``, ``delta``-scaled absolute above (HuberLossBackward0)."""
    a, b = _pair("huber_loss", input, target)
    if delta <= 0:
        raise ScriptError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        loss = apply(O.HUBER_LOSS, (a, b), {"reduction": "none", "delta": delta})
        return _weighted(loss, weight, tensor_arg(input, "huber_loss"), reduction,
                         "huber_loss", mean_of_weights=False)
    return apply(O.HUBER_LOSS, (a, b), {"reduction": _reduction(reduction), "delta": delta})


# --- classification losses ----------------------------------------------------------------------
def nll_loss(input: Any, target: Any, weight: Any = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of class-index targets (NllLossBackward0)."""
    x = tensor_arg(input, "nll_loss")
    t = tensor_arg(target, "nll_loss_nd", "target", 2)
    reduction = _reduction(reduction, size_average, reduce)
    return _nll(x, t, _weight(weight, x), reduction, ignore_index)


def _weight(weight: Any, x: Tensor) -> Tensor | None:
    if weight is None:
        return None
    w = tensor_arg(weight, "nll_loss", "weight", 3)
    if w.dtype is not x.dtype and x.dtype.is_floating_point:
        raise ScriptError(f"expected scalar type {D.SCALAR_NAMES[x.dtype.name]} but found "
                          f"{D.SCALAR_NAMES[w.dtype.name]}")
    return w


def _nll(x: Tensor, t: Tensor, w: Tensor | None, reduction: str, ignore_index: int) -> Tensor:
    """ATen's nll_loss_nd and nll_loss_forward checks, then the NllLossBackward0 node."""
    xs, ts = x.data.shape, t.data.shape  # (plain tuples: read once, not per check)
    xd, td = len(xs), len(ts)
    if xd < 1:
        raise ScriptError(f"Expected 1 or more dimensions (got {xd})", kind="ValueError")
    if xd != 1 and (not td or xs[0] != ts[0]):
        got = ts[0] if td else 0  # ATen reads sizes()[0] of a 0-d target: its inline 0
        raise ScriptError(f"Expected input batch_size ({xs[0]}) to match target batch_size "
                          f"({got}).", kind="ValueError")
    if xd > 2:
        raise ScriptError(f"nll_loss of a {xd}-D input (NllLoss2d, per-pixel classes) is not "
                          "supported by gradcli", hint="flatten to (N, C) and (N,) first")
    if t.dtype not in (D.INT64, D.UINT8):
        raise ScriptError("expected target dtype to be Long or Byte, but got "
                          f"{D.SCALAR_NAMES[t.dtype.name]}")
    if not x.dtype.is_floating_point:
        raise D.kernel_error("nll_loss_out_frame", x.dtype)
    if td > 1:
        raise ScriptError("0D or 1D target tensor expected, multi-target not supported")
    if xd == 1 and td == 1 and ts[0] != 1:
        raise ScriptError("For 1D input, 1D target must have size 1, but got target size: "
                          f"{ts[0]}", kind="ValueError")
    c = xs[-1]
    if w is not None and (w.ndim != 1 or w.shape[0] != c):
        raise ScriptError(f"weight tensor should be defined either for all {c} classes or no "
                          f"classes but got weight tensor of shape: {list(w.shape)}")
    total_weight = Tensor(_target_weights(t, w, ignore_index, c, x.dtype), x.backend)
    return apply(O.NLL_LOSS, (x, t, w, total_weight),
                 {"reduction": reduction, "ignore_index": ignore_index})


def _target_weights(t: Tensor, w: Tensor | None, ignore_index: int, c: int, dt: D.DType) -> Any:
    """The sum of the targets' class weights (their count without weights), ignored ones left
    out, as a 0-d array of ``dt``; PyTorch's IndexError for a target out of range."""
    be = t.backend
    xp = be.xp
    labels = xp.reshape(be.astype(t.data, D.INT64), (-1,))
    counted = None if w is not None else nll_targets(xp, labels, ignore_index, c)
    if counted is not None:  # one C loop: the kept targets' count, the first out of range
        kept, bad = counted
        if bad >= 0:
            raise ScriptError(f"Target {int(labels[bad])} is out of bounds.", kind="IndexError")
        return xp.asarray(kept, dtype=be.xp_dtype(dt))
    if w is None and not 0 <= ignore_index < c and labels.shape[0] \
            and int(xp.min(labels)) >= 0 and int(xp.max(labels)) < c:
        return be.astype(xp.asarray(labels.shape[0]), dt)  # every target kept: their count
    kept = labels != ignore_index
    bad = kept & ((labels < 0) | (labels >= c))
    if bool(xp.any(bad)):
        first = to_host(labels)[to_host(bad)][0]
        raise ScriptError(f"Target {int(first)} is out of bounds.", kind="IndexError")
    if w is None:
        return be.astype(xp.sum(be.astype(kept, D.INT64)), dt)
    picked = xp.take(w.data, xp.where(kept, labels, xp.zeros_like(labels)))
    return be.astype(-nll_sum(xp, picked, kept), dt)  # the loss's cascade, with + for -


def cross_entropy(input: Any, target: Any, weight: Any = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy of logits against class indices (log_softmax, then nll_loss) or class
    probabilities, with optional class weights and label smoothing, as ATen records it."""
    x = tensor_arg(input, "cross_entropy_loss")
    t = tensor_arg(target, "cross_entropy_loss", "target", 2)
    reduction = _reduction(reduction, size_average, reduce)
    w = _weight(weight, x)
    if not x.dtype.is_floating_point:
        raise D.kernel_error("log_softmax_lastdim_kernel_impl", x.dtype)
    xs = x.data.shape
    class_dim = 0 if len(xs) == 1 else 1
    if xs == t.data.shape:
        return _cross_entropy_probs(x, t, w, reduction, ignore_index, label_smoothing, class_dim)
    if not xs:
        raise ScriptError(f"Expected floating point type for target with class probabilities, "
                          f"got {D.SCALAR_NAMES[t.dtype.name]}")
    lsm = apply(O.LOG_SOFTMAX, (x,), {"dim": class_dim})
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        return _cross_entropy_smoothed(lsm, t, w, reduction, ignore_index, label_smoothing,
                                       class_dim)
    return _nll(lsm, t, w, reduction, ignore_index)


def _check_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1.0:
        raise ScriptError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")


def _class_view(w: Tensor, ndim: int, class_dim: int) -> Tensor:
    """The weights shaped to broadcast along the class dim (ATen's weight.view)."""
    if ndim <= 1:
        return w
    return view(w, *[w.shape[0] if i == class_dim else 1 for i in range(ndim)])


def _cross_entropy_probs(x: Tensor, t: Tensor, w: Tensor | None, reduction: str,
                         ignore_index: int, smoothing: float, class_dim: int) -> Tensor:
    if not t.dtype.is_floating_point:
        raise ScriptError(f"Expected floating point type for target with class probabilities, "
                          f"got {D.SCALAR_NAMES[t.dtype.name]}")
    if ignore_index >= 0:
        raise ScriptError("ignore_index is not supported for floating point target")
    c = x.shape[class_dim]
    if w is not None and (w.ndim != 1 or w.shape[0] != c):
        raise ScriptError(f"cross_entropy: weight tensor should be defined either for all {c} "
                          f"classes or no classes but got weight tensor of shape: "
                          f"{list(w.shape)}")
    lsm = apply(O.LOG_SOFTMAX, (x,), {"dim": class_dim})
    if smoothing > 0.0:
        _check_smoothing(smoothing)
        t = apply(O.ADD_SCALAR, (apply(O.MUL_SCALAR, (t,), {"other": 1 - smoothing}),),
                  {"other": smoothing / c})
    prod = apply(O.MUL, (lsm, t))
    if w is not None:
        prod = apply(O.MUL, (prod, _class_view(w, x.ndim, class_dim)))
    if reduction == "none":
        return apply(O.NEG, (apply(O.SUM_DIM, (prod,), {"dim": (class_dim,), "keepdim": False}),))
    loss = apply(O.NEG, (apply(O.SUM, (prod,)),))
    if reduction == "sum":
        return loss
    if x.numel() == 0:
        raise ScriptError("cross_entropy of an empty input is not supported by gradcli")
    return apply(O.DIV_SCALAR, (loss,), {"other": x.numel() // c})


def _cross_entropy_smoothed(lsm: Tensor, t: Tensor, w: Tensor | None, reduction: str,
                            ignore_index: int, smoothing: float, class_dim: int) -> Tensor:
    """ATen's cross_entropy_loss_label_smoothing: a mix of nll_loss and the mean over classes."""
    nll = _nll(lsm, t, w, reduction, ignore_index)
    c = lsm.shape[class_dim]
    spread = lsm if w is None else apply(O.MUL, (lsm, _class_view(w, lsm.ndim, class_dim)))
    smooth = apply(O.NEG, (apply(O.SUM_DIM, (spread,), {"dim": (class_dim,), "keepdim": False}),))
    be = t.backend
    ignored = Tensor(t.data == ignore_index, be)
    apply_inplace(O.MASKED_FILL, smooth, (ignored,), {"value": 0.0})
    if reduction == "mean":  # the sum over the kept targets of their weight (int64 count)
        denominator = _target_weights(t, w, ignore_index, c, D.INT64 if w is None else w.dtype)
        smooth = apply(O.DIV, (apply(O.SUM, (smooth,)), Tensor(denominator, be)))
    elif reduction == "sum":
        smooth = apply(O.SUM, (smooth,))
    return apply(O.ADD, (apply(O.MUL_SCALAR, (nll,), {"other": 1 - smoothing}),
                         apply(O.MUL_SCALAR, (smooth,), {"other": smoothing / c})))


def _same_size_target(x: Tensor, t: Tensor, message: str) -> None:
    if x.shape != t.shape:
        raise ScriptError(message, kind="ValueError")


def binary_cross_entropy(input: Any, target: Any, weight: Any = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Binary cross entropy of probabilities (BinaryCrossEntropyBackward0)."""
    x = tensor_arg(input, "binary_cross_entropy")
    t = tensor_arg(target, "binary_cross_entropy", "target", 2)
    reduction = _reduction(reduction, size_average, reduce)
    _same_size_target(x, t, f"Using a target size ({Size(t.shape)}) that is different to the "
                            f"input size ({Size(x.shape)}) is deprecated. Please ensure they "
                            "have the same size.")
    w = None
    if weight is not None:
        w = tensor_arg(weight, "binary_cross_entropy", "weight", 3)
        shape = tuple(_broadcast_to(t.shape, w.shape))
        w = w if w.shape == shape else _expand(w, shape)
    for other in (t, w):
        if other is not None and other.dtype is not x.dtype:
            raise ScriptError(f"Found dtype {D.SCALAR_NAMES[other.dtype.name]} but expected "
                              f"{D.SCALAR_NAMES[x.dtype.name]}")
    if not x.dtype.is_floating_point:
        raise D.kernel_error("binary_cross_entropy", x.dtype)
    be = x.backend
    for name, v in (("input", x), ("target", t)):
        inside = be.xp.all((v.data >= 0) & (v.data <= 1))
        if not bool(inside):
            raise ScriptError(f"all elements of {name} should be between 0 and 1")
    return apply(O.BINARY_CROSS_ENTROPY, (x, t, w), {"reduction": reduction})


def _broadcast_to(target: tuple, weight: tuple) -> list[int]:
    """torch.broadcast_shapes(target, weight) with the message of its Python implementation."""
    try:
        return broadcast_shape(target, weight)
    except ScriptError:
        for i in range(1, len(weight) + 1):
            wd = weight[-i]
            td = target[-i] if i <= len(target) else 1
            if wd != td and wd != 1 and td != 1:
                raise ScriptError(
                    f"Attempting to broadcast a dimension of length {wd} at {-i}! Mismatching "
                    f"argument at index 1 had {Size(weight)}; but expected shape should be "
                    f"broadcastable to {list(target)}") from None
        raise


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None) -> Tensor:
    """Binary cross entropy of logits, stable for large ones, with ``pos_weight`` for the
    positive class (BinaryCrossEntropyWithLogitsBackward0)."""
    x = tensor_arg(input, "binary_cross_entropy_with_logits")
    t = tensor_arg(target, "binary_cross_entropy_with_logits", "target", 2)
    reduction = _reduction(reduction, size_average, reduce)
    _same_size_target(x, t, f"Target size ({Size(t.shape)}) must be the same as input size "
                            f"({Size(x.shape)})")
    if not x.dtype.is_floating_point:  # its first step is log_sigmoid(input)
        raise D.kernel_error("log_sigmoid_cpu", x.dtype)
    if not t.dtype.is_floating_point:
        raise ScriptError(f"result type {D.SCALAR_NAMES[x.dtype.name]} can't be cast to the "
                          f"desired output type {D.SCALAR_NAMES[t.dtype.name]}")
    extra = []
    for name, v, pos in (("weight", weight, 3), ("pos_weight", pos_weight, 7)):
        if v is not None:
            v = tensor_arg(v, "binary_cross_entropy_with_logits", name, pos)
            a, b = (v.shape, t.shape) if name == "pos_weight" else (t.shape, v.shape)
            check_numel(broadcast_shape(a, b))
        extra.append(v)
    return apply(O.BCE_WITH_LOGITS, (x, t, *extra), {"reduction": reduction})


# --- one_hot ------------------------------------------------------------------------------------
def one_hot(tensor: Any, num_classes: int = -1) -> Tensor:
    """Class indices as rows of 0/1 (int64, never differentiable)."""
    x = tensor_arg(tensor, "one_hot", "tensor")
    if isinstance(num_classes, bool) or not isinstance(num_classes, int):
        raise ScriptError(f"one_hot(): argument 'num_classes' must be int, not "
                          f"{type_name(num_classes)}", kind="TypeError")
    if x.dtype is not D.INT64:
        raise ScriptError("one_hot is only applicable to index tensor of type LongTensor.")
    xp, be = x.backend.xp, x.backend
    if x.numel() == 0:
        if num_classes == -1:
            raise ScriptError("Can not infer total number of classes from empty tensor.")
        n = num_classes
    else:
        low, high = int(xp.min(x.data)), int(xp.max(x.data))
        if low < 0:
            raise ScriptError("Class values must be non-negative.")
        n = high + 1 if num_classes == -1 else num_classes
        if high >= n:
            raise ScriptError("Class values must be smaller than num_classes.")
    check_numel((*x.shape, n))
    hot = xp.reshape(x.data, (*x.shape, 1)) == xp.reshape(xp.arange(n, dtype=xp.int64),
                                                          (1,) * x.ndim + (n,))
    return vmap_from(Tensor(be.astype(hot, D.INT64), be), x)


NN_ONLY: dict[str, Any] = {fn.__name__: fn for fn in (
    mse_loss, l1_loss, smooth_l1_loss, huber_loss, nll_loss, cross_entropy,
    binary_cross_entropy, binary_cross_entropy_with_logits, one_hot)}
NN_ONLY.update(F_SOFTMAX)


# --- activations PyTorch writes in Python or as other ops ---------------------------------------
def relu6(input: Any, inplace: bool = False) -> Tensor:
    """``hardtanh(input, 0, 6)`` (HardtanhBackward0, as PyTorch records it)."""
    x = tensor_arg(input, "relu6")
    params = {"min_val": 0.0, "max_val": 6.0}
    return apply_inplace(O.HARDTANH, x, (), params) if inplace else apply(O.HARDTANH, (x,), params)


def softsign(input: Any) -> Tensor:
    """``input / (input.abs() + 1)`` (DivBackward0 over AddBackward0 and AbsBackward0)."""
    x = tensor_arg(input, "abs")
    return apply(O.DIV, (x, apply(O.ADD, (apply(O.ABS, (x,)), 1))))


def tanhshrink(input: Any) -> Tensor:
    """``input - input.tanh()`` (SubBackward0)."""
    x = tensor_arg(input, "tanh")
    return apply(O.SUB, (x, apply(O.TANH, (x,))))


def softmin(input: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``(-input).softmax(dim)`` (SoftmaxBackward0 over NegBackward0)."""
    x = tensor_arg(input, "neg")
    if dim is None:
        dim = _implicit_dim(x, "softmin")
    return F_SOFTMAX["softmax"](apply(O.NEG, (x,)), dim, dtype=dtype)


def _implicit_dim(x: Tensor, name: str) -> int:
    current().warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                   "to include dim=X as an argument.")
    return 0 if x.ndim in (0, 1, 3) else 1


def glu(input: Any, dim: int = -1) -> Tensor:
    """The first half of ``dim`` times the sigmoid of the second (GluBackward0)."""
    x = tensor_arg(input, "glu")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise ScriptError(f"glu(): argument 'dim' (position 2) must be int, not "
                          f"{type_name(dim)}", kind="TypeError")
    if x.ndim == 0:
        raise ScriptError("glu does not support scalars because halving size must be even")
    d = dim_arg(dim, x.ndim)
    if x.shape[d] % 2:
        raise ScriptError(f"Halving dimension must be even, but dimension {d} is size "
                          f"{x.shape[d]}")
    return apply(O.GLU, (x,), {"dim": d})


def threshold(input: Any, threshold: Any, value: Any, inplace: bool = False) -> Tensor:
    """``value`` where ``input <= threshold`` (ThresholdBackward0; in place ThresholdBackward1)."""
    return _threshold(input, threshold, value, inplace)


def threshold_(input: Any, threshold: Any, value: Any) -> Tensor:
    """``torch.threshold_``: in place (ThresholdBackward1)."""
    return _threshold(input, threshold, value, True)


def _threshold(input: Any, threshold: Any, value: Any, inplace: bool) -> Tensor:
    x = tensor_arg(input, "threshold")
    for name, v in (("threshold", threshold), ("value", value)):
        if not is_number(v):
            raise ScriptError(f"threshold(): argument '{name}' must be Number, not "
                              f"{type_name(v)}", kind="TypeError")
    params = {"threshold": threshold, "value": value}
    if inplace:
        return apply_inplace(O.THRESHOLD_, x, (), params)
    return apply(O.THRESHOLD, (x,), params)


def _scaled_elu_(op: Any, name: str) -> Any:
    def fn(input: Any, *args: Any, **kwargs: Any) -> Tensor:
        x = tensor_arg(input, name)
        names = tuple(p for p, _ in op.params)
        bound = dict(zip(names, args), **kwargs)
        return apply_inplace(op, x, (), {p: bound.get(p, d) for p, d in op.params})

    fn.__name__ = name
    fn.__doc__ = f"``torch.{name}``: in place ({op.grad_fn})."
    return fn


selu_ = _scaled_elu_(O.SELU_, "selu_")
celu_ = _scaled_elu_(O.CELU_, "celu_")


# --- more losses --------------------------------------------------------------------------------
def kl_div(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of log-probabilities ``input`` from ``target``, as ATen
    records it: ``xlogy(target, target) - target * input`` (or ``exp(target) * (target -
    input)``), reduced; 'batchmean' divides the sum by the batch size."""
    x = tensor_arg(input, "kl_div")
    t = tensor_arg(target, "kl_div", "target", 2)
    if size_average is not None or reduce is not None:
        reduction = _reduction(None, size_average, reduce)
    elif reduction == "mean":
        current().warn("reduction: 'mean' divides the total loss by both the batch size and the "
                       "support size.'batchmean' divides only by the batch size, and aligns with "
                       "the KL div math definition.'mean' will be changed to behave the same as "
                       "'batchmean' in the next major release.")
    if reduction not in (*REDUCTIONS, "batchmean"):
        raise ScriptError(f"{reduction} is not a valid value for reduction", kind="ValueError")
    broadcast_shape(x.shape, t.shape)
    if log_target:
        loss = apply(O.MUL, (apply(O.EXP, (t,)), apply(O.SUB, (t, x))))
    else:
        loss = apply(O.SUB, (apply(O.XLOGY, (t, t)), apply(O.MUL, (t, x))))
    if reduction == "none":
        return loss
    if reduction == "mean":
        return apply(O.MEAN, (loss,))
    total = apply(O.SUM, (loss,))
    if reduction == "batchmean" and x.ndim:
        return apply(O.DIV, (total, x.shape[0]))
    return total


def soft_margin_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))`` reduced (SoftMarginLossBackward0)."""
    x = tensor_arg(input, "soft_margin_loss")
    t = tensor_arg(target, "soft_margin_loss", "target", 2)
    reduction = _reduction(reduction, size_average, reduce)
    return apply(O.SOFT_MARGIN_LOSS, (x, t), {"reduction": reduction})


NN_ONLY.update({fn.__name__: fn for fn in (
    relu6, softsign, tanhshrink, softmin, glu, threshold, kl_div, soft_margin_loss)})
# torch.<name> of the same functions
TORCH_NN = {fn.__name__: fn for fn in (threshold, threshold_, selu_, celu_)}
