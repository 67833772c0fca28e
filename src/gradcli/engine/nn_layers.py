"""``torch.nn.functional``'s normalisation, distances, padding and dropout, as ATen records
them: ``normalize`` and ``cosine_similarity`` divide by a clamped ``linalg_vector_norm``,
``pairwise_distance`` is ``at::norm`` of the difference, ``layer_norm`` and ``batch_norm``
one node each, ``pad`` ``constant_pad_nd``, ``dropout`` a product with the
generator's ``bernoulli_`` draws.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import kernels as K
from . import ops as O
from .args import broadcast_shape, check_numel, dim_arg, tensor_arg, type_name
from .backend import memory_order, to_host
from .context import GradMode
from .joins import expand_as, where
from .nn_functional import _cast, _reduction
from .record import apply, apply_inplace
from .reductions import norm, vector_norm
from .saved_hooks import before_write
from .shape import _expand, _slice
from .tensor import Size, Tensor


# --- normalisation and distance -----------------------------------------------------------------
def normalize(input: Any, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Any = None) -> Tensor:
    """``input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)``."""
    if out is not None:
        raise ScriptError("normalize(out=...) is not supported by gradcli")
    x = tensor_arg(input, "norm")
    denom = apply(O.CLAMP_MIN, (norm(x, p, dim, True),), {"min": eps})
    return apply(O.DIV, (x, expand_as(denom, x)))


def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """ATen's cosine_similarity: each side divided by its norm (cloned, then clamped to ``eps``
    without recording), multiplied, summed over ``dim``."""
    a = tensor_arg(x1, "cosine_similarity", "x1")
    b = tensor_arg(x2, "cosine_similarity", "x2", 2)
    common = D.promote_types(a.dtype, b.dtype)
    if not common.is_floating_point:
        raise ScriptError("expected common dtype to be floating point, yet common dtype is "
                          f"{D.SCALAR_NAMES[common.name]}")
    a, b = (_cast(t, common) if not t.dtype.is_floating_point else t for t in (a, b))
    if a.shape != b.shape:
        shape = tuple(broadcast_shape(a.shape, b.shape))
        check_numel(shape)
        a, b = _expand(a, shape), _expand(b, shape)
    d = dim_arg(dim, a.ndim)
    parts = []
    for t in (a, b):
        n = apply(O.CLONE, (vector_norm(t, 2, d, True),))
        with GradMode(False):
            apply_inplace(O.CLAMP_MIN, n, (), {"min": eps})
        parts.append(apply(O.DIV, (t, n)))
    return apply(O.SUM_DIM, (apply(O.MUL, tuple(parts)),), {"dim": (d,), "keepdim": False})


def pairwise_distance(x1: Any, x2: Any, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``at::norm(x1 - x2 + eps, p, last dim, keepdim)`` (NormBackward1 over AddBackward1)."""
    a = tensor_arg(x1, "pairwise_distance", "x1")
    b = tensor_arg(x2, "pairwise_distance", "x2", 2)
    broadcast_shape(a.shape, b.shape)
    diff = apply(O.ADD_SCALAR, (apply(O.SUB, (a, b)),), {"other": eps})
    nd = max(a.ndim, b.ndim)
    dims = (nd - 1,) if nd else None
    return apply(O.NORM_DIM, (diff,), {"p": p, "dim": dims, "keepdim": bool(keepdim)})


def layer_norm(input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Tensor:
    """Each row over the last ``normalized_shape`` dims to mean 0 and variance 1, then scaled
    and shifted (NativeLayerNormBackward0)."""
    x = tensor_arg(input, "layer_norm")
    if not isinstance(normalized_shape, (tuple, list)):
        raise ScriptError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                          f"of ints, not {type_name(normalized_shape)}", kind="TypeError")
    shape = tuple(normalized_shape)
    _check_float("layer_norm", "eps", 5, eps)
    k = len(shape)
    if k == 0:
        raise ScriptError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                          "containing at least one element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(tensor_arg(t, "layer_norm", name).shape) != shape:
            raise ScriptError(f"Expected {name} to be of same shape as normalized_shape, but got "
                              f"{name} of shape {list(t.shape)} and normalized_shape = "
                              f"{list(shape)}")
    if x.ndim < k or tuple(x.shape[x.ndim - k:]) != shape:
        dims = "".join(f", {s}" for s in shape)
        raise ScriptError(f"Given normalized_shape={list(shape)}, expected input with shape "
                          f"[*{dims}], but got input of size{list(x.shape)}")
    if not x.dtype.is_floating_point:
        raise D.kernel_error("LayerNormKernelImpl", x.dtype)
    be = x.backend
    xp = be.xp
    mean, rstd = K.layer_norm_stats(xp, x.data, k, eps)
    return apply(O.LAYER_NORM, (x, weight, bias, Tensor(mean, be), Tensor(rstd, be)),
                 {"normalized_shape": shape, "eps": eps})


def batch_norm(input: Any, running_mean: Any, running_var: Any, weight: Any = None,
               bias: Any = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Each channel (dim 1) normalised over the batch when training (the running statistics
    updated in place, the variance unbiased), or by the running statistics (one
    NativeBatchNormBackward0 node either way)."""
    x = tensor_arg(input, "batch_norm")
    _check_float("batch_norm", "momentum", 7, momentum)
    _check_float("batch_norm", "eps", 8, eps)
    if training:
        count = x.shape[0] if x.ndim else 1
        for size in x.shape[2:]:
            count *= size
        if count == 1:
            raise ScriptError("Expected more than 1 value per channel when training, got input "
                              f"size {Size(x.shape)}", kind="ValueError")
    dim_arg(1, x.ndim)
    channels = x.shape[1]
    if not training and (running_mean is None or running_var is None):
        name = "running_mean" if running_mean is None else "running_var"
        raise ScriptError(f"{name} must be defined in evaluation mode")
    stats = []
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and tensor_arg(t, "batch_norm", name).numel() != channels:
            raise ScriptError(f"{name} should contain {channels} elements not {t.numel()}")
        stats.append(t)
    if not x.dtype.is_floating_point:
        raise D.kernel_error("batch_norm", x.dtype)
    be = x.backend
    xp = be.xp
    if training:
        stats = [None, None]
        for i, t in enumerate((running_mean, running_var)):
            if t is not None:  # updated in place by the kernel: no version bump, as PyTorch
                t.data = be.writable(t.data)
                stats[i] = t.data
        mean, invstd = K.batch_norm_stats(xp, x.data, eps, momentum, *stats)
        result1, result2 = Tensor(mean, be), Tensor(invstd, be)
    else:
        result1 = result2 = Tensor(xp.zeros((0,), dtype=x.data.dtype), be)
    return apply(O.BATCH_NORM, (x, weight, bias, running_mean, running_var, result1, result2),
                 {"training": bool(training), "eps": eps})


def _dense(shape: tuple, strides: tuple) -> bool:
    """Whether a strided tensor covers its memory without gaps or overlaps (a permutation of
    a contiguous layout), the layout ``empty_like`` keeps."""
    expected = 1
    for stride, size in sorted((st, n) for n, st in zip(shape, strides) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _torch_batch_norm(input: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any,
                      training: bool, momentum: float, eps: float,
                      cudnn_enabled: bool = True) -> Tensor:
    """``torch.batch_norm``: F.batch_norm's arguments in ATen's order."""
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


# --- padding and dropout ------------------------------------------------------------------------
def pad(input: Any, pad: Any, mode: str = "constant", value: Any = None) -> Tensor:
    """``F.pad``: constant padding (ConstantPadNdBackward0; negative amounts crop), or the
    reflected, replicated (ReflectionPad1DBackward0 ...) or circular edges of the last 1 to 3
    dims."""
    x = tensor_arg(input, "pad")
    amounts = _int_tuple("pad", "pad", pad)
    if mode != "constant" and value is not None:
        raise ScriptError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if len(amounts) % 2:
        raise ScriptError("Padding length must be divisible by 2")
    if len(amounts) // 2 > x.ndim:
        raise ScriptError("Padding length should be less than or equal to two times the input "
                          f"dimension but got padding length {len(amounts)} and input of "
                          f"dimension {x.ndim}")
    if mode == "constant":
        return constant_pad_nd(x, amounts, 0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise ScriptError(f"Unrecognised padding mode {mode}", kind="NotImplementedError")
    k = len(amounts) // 2
    if k not in (1, 2, 3) or x.ndim not in (k + 1, k + 2):
        raise ScriptError(
            f"Padding size {len(amounts)} is not supported for {x.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)",
            kind="NotImplementedError")
    if mode == "circular":
        return _pad_circular(x, amounts)
    _check_pad_sizes(x, amounts, mode)
    ops = O.REFLECTION_PAD if mode == "reflect" else O.REPLICATION_PAD
    return apply(ops[k], (x,), {"padding": amounts})


_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            "operation.")


def _pad_circular(x: Tensor, amounts: tuple) -> Tensor:
    """ATen's ``_pad_circular`` (PadNd.cpp): a new tensor, the input copied into its middle,
    then each padded dim's ends copied from the other side of the result itself, last dim
    first (CopySlices over SliceBackward0 views)."""
    k = len(amounts) // 2
    lead = x.ndim - k
    shape = list(x.shape)
    for i in range(k):
        left, right = amounts[2 * (k - i - 1)], amounts[2 * (k - i - 1) + 1]
        size = x.shape[lead + i]
        shape[lead + i] = size + left + right
        if left > size or right > size:
            raise ScriptError("Padding value causes wrapping around more than once.")
        if shape[lead + i] < 0:
            raise ScriptError("Negative padding value is resulting in an empty dimension")
    check_numel(shape)
    out = Tensor(x.backend.xp.zeros(tuple(shape), dtype=x.data.dtype), x.backend)
    out_slice, in_slice = out, x
    for i in range(k):
        dim = k - i + lead - 1
        left, right = amounts[2 * i], amounts[2 * i + 1]
        out_slice = _slice(out_slice, dim, max(left, 0), shape[dim] - max(right, 0), 1)
        in_slice = _slice(in_slice, dim, max(-left, 0), x.shape[dim] - max(-right, 0), 1)
    apply_inplace(O.COPY, out_slice, (in_slice,))
    for i in range(k):
        dim = k - i + lead - 1
        left, right = amounts[2 * i], amounts[2 * i + 1]
        end, start = shape[dim] - max(right, 0), max(left, 0)
        if (left > 0 and end - left < left) or (right > 0 and start + right > shape[dim] - right):
            raise ScriptError(_OVERLAP)  # copy_ from the same memory (a negative padding)
        if left > 0:
            apply_inplace(O.COPY, _slice(out, dim, 0, left, 1),
                          (_slice(out, dim, end - left, end, 1),))
        if right > 0:
            apply_inplace(O.COPY, _slice(out, dim, shape[dim] - right, shape[dim], 1),
                          (_slice(out, dim, start, start + right, 1),))
    return out


def _check_pad_sizes(x: Tensor, amounts: tuple, mode: str) -> None:
    """ATen's reflection_pad / replication_pad checks, last dim first."""
    k = len(amounts) // 2
    if mode == "reflect":
        for i in range(k):
            d = x.ndim - 1 - i
            left, right = amounts[2 * i], amounts[2 * i + 1]
            if left >= x.shape[d] or right >= x.shape[d]:
                raise ScriptError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                                  f"corresponding input dimension, but got: padding ({left}, "
                                  f"{right}) at dimension {d} of input {list(x.shape)}")
    sizes = [x.shape[x.ndim - 1 - i] for i in range(k)]
    out = [sizes[i] + amounts[2 * i] + amounts[2 * i + 1] for i in range(k)]
    if k == 1 and out[0] < 1:
        raise ScriptError(f"input (W: {sizes[0]}) is too small. Calculated output W: {out[0]}")
    if min(out) < 0:  # 2 and 3 dims: an empty result is allowed, a negative size is not
        shape = list(x.shape[:x.ndim - k]) + out[::-1]
        raise ScriptError(f"Trying to create tensor with negative dimension {min(out)}: {shape}")


def constant_pad_nd(input: Any, pad: Any, value: Any = 0) -> Tensor:
    """``torch.constant_pad_nd`` (ConstantPadNdBackward0)."""
    x = tensor_arg(input, "constant_pad_nd")
    amounts = _int_tuple("constant_pad_nd", "pad", pad)
    for i in range(len(amounts) // 2):  # ATen narrows by the negative amounts first
        if x.shape[x.ndim - 1 - i] + min(amounts[2 * i], 0) + min(amounts[2 * i + 1], 0) < 0:
            raise ScriptError("narrow(): length must be non-negative.")
    check_numel(_padded_shape(x.shape, amounts))
    return apply(O.CONSTANT_PAD_ND, (x,), {"pad": amounts, "value": value})


def _int_tuple(fn: str, arg: str, value: Any) -> tuple[int, ...]:
    """A ``tuple of ints`` argument (a list or tuple), with PyTorch's TypeErrors."""
    if not isinstance(value, (tuple, list)):
        raise ScriptError(f"{fn}(): argument '{arg}' (position 2) must be tuple of ints, not "
                          f"{type_name(value)}", kind="TypeError")
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ScriptError(f"{fn}(): argument '{arg}' (position 2) must be tuple of ints, but "
                              f"found element of type {type_name(v)} at pos {i}",
                              kind="TypeError")
    return tuple(value)


def _check_float(fn: str, arg: str, position: int, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScriptError(f"{fn}(): argument '{arg}' (position {position}) must be float, not "
                          f"{type_name(value)}", kind="TypeError")


def _padded_shape(shape: tuple, amounts: tuple) -> list[int]:
    out = list(shape)
    for i in range(len(amounts) // 2):
        out[len(out) - 1 - i] += amounts[2 * i] + amounts[2 * i + 1]
    return out


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p): ATen's
    ``input * bernoulli_(1 - p) / (1 - p)`` with the run's generator (MulBackward0); the input
    itself when not training."""
    x = tensor_arg(input, "dropout")
    if not isinstance(p, (int, float)):  # Python's own comparison (a bool compares)
        raise ScriptError(f"'<' not supported between instances of '{type_name(p)}' and "
                          "'float'", kind="TypeError")
    if p < 0.0 or p > 1.0:
        raise ScriptError(f"dropout probability has to be between 0 and 1, but got {p}",
                          kind="ValueError")
    if p == 0 or not training or x.numel() == 0:
        return x
    be = x.backend
    if p == 1:
        noise = Tensor(be.xp.zeros((), dtype=x.data.dtype), be)
    else:
        if not x.dtype.is_floating_point:
            raise D.kernel_error("bernoulli_scalar_cpu_", x.dtype)
        if x._strides is not None and _dense(x.shape, x._strides):
            # empty_like keeps a transposed tensor's layout: the draws go in memory order
            flat = be.generator.bernoulli(1 - p, (x.numel(),), x.dtype.name)
            kept = flat[memory_order(x.shape, x._strides)]
        else:
            kept = be.generator.bernoulli(1 - p, tuple(x.shape), x.dtype.name)
        noise = Tensor(be.astype(be.xp.asarray(kept / kept.dtype.type(1 - p)), x.dtype), be)
    return apply_inplace(O.MUL, x, (noise,)) if inplace else apply(O.MUL, (x, noise))


# --- embedding ----------------------------------------------------------------------------------
def embedding(input: Any, weight: Any, padding_idx: Any = None, max_norm: Any = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``F.embedding``: the rows of ``weight`` at ``input`` (EmbeddingBackward0); with
    ``max_norm``, the rows looked up are first renormalised in place, as PyTorch's
    ``embedding_renorm_`` does under no_grad."""
    w = tensor_arg(weight, "embedding", "weight", 2)
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= w.shape[0] or padding_idx < -w.shape[0]:
            raise ScriptError("Padding_idx must be within num_embeddings", kind="AssertionError")
        if padding_idx < 0:
            padding_idx = w.shape[0] + padding_idx
    idx = _indices_arg(input)
    if max_norm is not None:
        _renorm(w, idx, max_norm, norm_type)
    return _torch_embedding(w, idx, -1 if padding_idx is None else padding_idx,
                            scale_grad_by_freq, sparse)


def _indices_arg(input: Any) -> Tensor:
    idx = tensor_arg(input, "embedding", "indices", 2)
    if idx.dtype.name not in ("int64", "int32"):
        raise ScriptError("Expected tensor for argument #1 'indices' to have one of the following "
                          f"scalar types: Long, Int; but got torch.{idx.dtype.legacy} instead "
                          "(while checking arguments for embedding)")
    return idx


def _torch_embedding(weight: Any, indices: Any, padding_idx: int = -1,
                     scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """``torch.embedding(weight, indices, ...)``, ATen's op."""
    w = tensor_arg(weight, "embedding", "weight")
    idx = _indices_arg(indices)
    if w.ndim != 2:
        raise ScriptError("'weight' must be 2-D")
    if sparse:
        raise ScriptError("embedding(sparse=True) is not supported by gradcli",
                          kind="NotImplementedError", hint="sparse gradients are not emulated")
    flat = to_host(idx.data).reshape(-1)
    if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= w.shape[0]):
        raise ScriptError("index out of range in self", kind="IndexError")
    check_numel((*idx.shape, w.shape[1]))
    return apply(O.EMBEDDING, (w, idx), {"padding_idx": int(padding_idx),
                                        "scale_grad_by_freq": bool(scale_grad_by_freq),
                                        "sparse": False})


def _renorm(w: Tensor, idx: Tensor, max_norm: float, norm_type: float) -> None:
    """ATen's embedding_renorm_: each distinct row looked up, in sorted order, scaled by
    ``max_norm / (norm + 1e-7)`` when its norm exceeds ``max_norm``: one in-place op on
    ``weight``, which bumps its version once)."""
    be = w.backend
    flat = to_host(idx.data).reshape(-1)
    if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= w.shape[0]):
        raise ScriptError("index out of range in self", kind="IndexError")
    before_write(w)
    for k in sorted(set(flat.tolist())):
        with GradMode(False):
            norm = vector_norm(Tensor(w.data[k], be), norm_type).item()
        if norm > max_norm:
            w.data = be.writable(w.data)
            w.data[k] = w.data[k] * w.data.dtype.type(max_norm / (norm + 1e-7))
    w._vc[0] += 1


# --- ranking losses (ATen's compositions in Loss.cpp) ------------------------------------------
def _reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return apply(O.MEAN, (loss,))
    return apply(O.SUM, (loss,)) if reduction == "sum" else loss


def margin_ranking_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``(-target * (input1 - input2) + margin).clamp_min_(0)`` reduced, as ATen records it."""
    a = tensor_arg(input1, "margin_ranking_loss", "input1")
    b = tensor_arg(input2, "margin_ranking_loss", "input2", 2)
    t = tensor_arg(target, "margin_ranking_loss", "target", 3)
    reduction = _reduction(reduction, size_average, reduce)
    if a.ndim != b.ndim or a.ndim != t.ndim:
        raise ScriptError("margin_ranking_loss : All input tensors should have same dimension "
                          f"but got sizes: input1: {Size(a.shape)}, input2: {Size(b.shape)}, "
                          f"target: {Size(t.shape)} ")
    loss = apply(O.ADD_SCALAR, (apply(O.MUL, (apply(O.NEG, (t,)), apply(O.SUB, (a, b)))),),
                 {"other": margin})
    apply_inplace(O.CLAMP_MIN, loss, (), {"min": 0})
    return _reduce_loss(loss, reduction)


def cosine_embedding_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:
    """ATen's composite (Loss.cpp): ``cos = (x1 * x2).sum(d) / ((|x1|^2 + eps) * (|x2|^2 +
    eps)).sqrt_()``, then ``1 - cos`` where the target is 1 and ``(cos - margin).clamp_min_(0)``
    where it is -1 (zero elsewhere), reduced."""
    a = tensor_arg(input1, "cosine_embedding_loss", "input1")
    b = tensor_arg(input2, "cosine_embedding_loss", "input2", 2)
    t = tensor_arg(target, "cosine_embedding_loss", "target", 3)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise ScriptError("cosine_embedding_loss(): argument 'margin' (position 4) must be "
                          f"float, not {type_name(margin)}", kind="TypeError")
    reduction = _reduction(reduction, size_average, reduce)
    d = t.ndim
    if d not in (0, 1):
        raise ScriptError("0D or 1D target tensor expected, multi-target not supported")
    if (a.ndim, b.ndim) != (d + 1, d + 1):
        raise ScriptError(f"{d}D target tensor expects {d + 1}D input tensors, but found inputs "
                          f"with sizes {list(a.shape)} and {list(b.shape)}.")
    prod_sum = (a * b).sum(d)
    mag_square1 = apply(O.ADD_SCALAR, ((a * a).sum(d),), {"other": 1e-12})
    mag_square2 = apply(O.ADD_SCALAR, ((b * b).sum(d),), {"other": 1e-12})
    cos = apply(O.DIV, (prod_sum, apply_inplace(O.SQRT, mag_square1 * mag_square2, ())))
    zeros = Tensor(cos.backend.xp.zeros(cos.data.shape, dtype=cos.data.dtype), cos.backend)
    one = Tensor(cos.backend.xp.ones((), dtype=cos.data.dtype), cos.backend)
    pos = apply(O.SUB, (one, cos))  # 1 - cos: a wrapped number, SubBackward0
    neg = apply_inplace(O.CLAMP_MIN, apply(O.SUB_SCALAR, (cos,), {"other": margin}), (),
                        {"min": 0})
    output = apply(O.ADD, (where(t == 1, pos, zeros), where(t == -1, neg, zeros)))
    return _reduce_loss(output, reduction)


def triplet_margin_loss(anchor: Any, positive: Any, negative: Any, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``clamp_min(margin + d(a, p) - d(a, n), 0)`` reduced, ``d`` the pairwise distance (with
    ``swap``, ``d(a, n)`` is ``minimum(d(a, n), d(p, n))``)."""
    a = tensor_arg(anchor, "triplet_margin_loss", "anchor")
    pos = tensor_arg(positive, "triplet_margin_loss", "positive", 2)
    neg = tensor_arg(negative, "triplet_margin_loss", "negative", 3)
    reduction = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ScriptError(f"margin must be greater than 0, got {margin}", kind="ValueError")
    if not a.ndim == pos.ndim == neg.ndim:
        raise ScriptError("The anchor, positive, and negative tensors are expected to have the "
                          f"same number of dimensions, but got: anchor {a.ndim}D, positive "
                          f"{pos.ndim}D, and negative {neg.ndim}D inputs")
    d_pos = pairwise_distance(a, pos, p, eps)
    d_neg = pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = apply(O.MINIMUM, (d_neg, pairwise_distance(pos, neg, p, eps)))
    loss = apply(O.SUB, (apply(O.ADD_SCALAR, (d_pos,), {"other": margin}), d_neg))
    return _reduce_loss(apply(O.CLAMP_MIN, (loss,), {"min": 0}), reduction)


LAYERS: dict[str, Any] = {fn.__name__: fn for fn in (
    normalize, cosine_similarity, pairwise_distance, layer_norm, batch_norm, pad, dropout,
    embedding, margin_ranking_loss, triplet_margin_loss, cosine_embedding_loss)}
# torch.<name> of the same functions
TORCH_LAYERS = {fn.__name__: fn for fn in (
    cosine_similarity, pairwise_distance, layer_norm, constant_pad_nd)}
TORCH_LAYERS["batch_norm"] = _torch_batch_norm
TORCH_LAYERS["embedding"] = _torch_embedding
