"""Joining and spreading tensors as PyTorch does: cat, stack, where (and its one-argument form,
nonzero), expand (broadcast_to), repeat (tile), repeat_interleave and masked_fill, with
PyTorch's argument errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import ops as O
from .args import broadcast_shape, check_numel, dim_arg, is_number, tensor_arg, type_name
from .record import apply, apply_inplace
from .selection import index_select
from .shape import _expand, _keyword_dims, flatten, reshape, unsqueeze, view
from .tensor import Tensor, vmap_from


def _tensor_list(tensors: Any, name: str) -> list[Tensor]:
    if not isinstance(tensors, (list, tuple)):
        raise ScriptError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                          f"not {type_name(tensors)}", kind="TypeError")
    for i, t in enumerate(tensors):
        if t.__class__ is not Tensor:
            raise ScriptError(f"expected Tensor as element {i} in argument 0, but got "
                              f"{type_name(t)}", kind="TypeError")
    return list(tensors)


def cat(tensors: Any, dim: int = 0) -> Tensor:
    """Concatenate along an existing ``dim`` (CatBackward0)."""
    ts = _tensor_list(tensors, "cat")
    if not ts:
        raise ScriptError("torch.cat(): expected a non-empty list of Tensors", kind="ValueError")
    for i, t in enumerate(ts):
        if t.ndim == 0:
            raise ScriptError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # NOTE: PyTorch still skips 1-D empty tensors (a legacy rule), whatever their shape
    kept = [t for t in ts if t.shape != (0,)] or ts[:1]
    ref = kept[0]
    d = dim_arg(dim, ref.ndim)
    for t in kept[1:]:
        if t.ndim != ref.ndim:
            raise ScriptError(f"Tensors must have same number of dimensions: got {ref.ndim} and "
                              f"{t.ndim}")
    for i, t in enumerate(ts):
        if t.shape == (0,) and len(kept) < len(ts):
            continue
        for j in range(ref.ndim):
            if j != d and t.shape[j] != ref.shape[j]:
                raise ScriptError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref.shape[j]} but got size {t.shape[j]} for tensor number {i} in the "
                    "list.")
    sizes = tuple(t.shape[d] for t in kept)
    check_numel((*ref.shape[:d], sum(sizes), *ref.shape[d + 1:]))
    return apply(O.CAT, tuple(kept), {"dim": d, "sizes": sizes})


def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Stack along a new ``dim`` (StackBackward0)."""
    ts = _tensor_list(tensors, "stack")
    if not ts:
        raise ScriptError("stack expects a non-empty TensorList")
    ref = ts[0]
    for i, t in enumerate(ts[1:], 1):
        if t.shape != ref.shape:
            raise ScriptError(f"stack expects each tensor to be equal size, but got "
                              f"{list(ref.shape)} at entry 0 and {list(t.shape)} at entry {i}")
    d = dim_arg(dim, ref.ndim + 1)
    check_numel((len(ts), *ref.shape))
    return apply(O.STACK, tuple(ts), {"dim": d})


_MISSING = object()


def where(condition: Any, input: Any = _MISSING, other: Any = _MISSING) -> Any:
    """``input`` where ``condition`` holds, else ``other`` (WhereBackward0); numbers allowed.

    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.
    """
    if input is _MISSING and other is _MISSING:
        return nonzero(condition, as_tuple=True)
    if input is _MISSING or other is _MISSING:
        raise ScriptError("where() takes a condition and two values, or the condition alone",
                          kind="TypeError")
    cond = tensor_arg(condition, "where", "condition")
    if cond.dtype is not D.BOOL:
        raise ScriptError("where expected condition to be a boolean tensor, but got a tensor "
                          f"with dtype {D.SCALAR_NAMES[cond.dtype.name]}")
    shape: Sequence[int] = cond.shape
    for name, v in (("input", input), ("other", other)):
        if v.__class__ is Tensor:
            shape = broadcast_shape(shape, v.shape)
        elif not is_number(v):
            raise ScriptError(f"where(): argument '{name}' must be Tensor or Number, not "
                              f"{type_name(v)}", kind="TypeError")
    check_numel(shape)
    return apply(O.WHERE, (cond, input, other))


def nonzero(input: Any, as_tuple: bool = False) -> Any:
    """Indices of the nonzero elements: an (n, ndim) int64 tensor, or one tensor per dim."""
    x = tensor_arg(input, "nonzero")
    xp, be = x.backend.xp, x.backend
    data = x.data if x.ndim else xp.reshape(x.data, (1,))  # a 0-d tensor counts as one element
    found = xp.nonzero(data)
    parts = [vmap_from(Tensor(be.astype(xp.asarray(i), D.INT64), be), x) for i in found]
    if as_tuple:
        return tuple(parts)
    if not x.ndim:
        return Tensor(be.astype(xp.zeros((parts[0].shape[0], 0), dtype=xp.int64), D.INT64), be)
    return vmap_from(Tensor(be.astype(xp.stack([p.data for p in parts], axis=1), D.INT64), be), x)


def _sizes(sizes: tuple) -> tuple:
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, int):
            raise ScriptError(f"sizes must be ints, not {type_name(s)}", kind="TypeError")
    return sizes


def expand(self: Tensor, *sizes: Any) -> Tensor:
    """A view repeating size-1 dims (and new leading ones) without copying (ExpandBackward0)."""
    shape = _sizes(sizes)
    if len(shape) < self.ndim:
        raise ScriptError(
            f"expand(torch.{self.dtype.legacy}{{{list(self.shape)}}}, size={list(shape)}): the "
            f"number of sizes provided ({len(shape)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({self.ndim})")
    lead = len(shape) - self.ndim
    out = []
    for i, s in enumerate(shape):
        if i < lead:
            if s < 0:
                raise ScriptError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                  f"leading, non-existing dimension {i}")
            out.append(s)
            continue
        have = self.shape[i - lead]
        if s == -1:
            s = have
        if have != s and have != 1:
            raise ScriptError(
                f"The expanded size of the tensor ({s}) must match the existing size ({have}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(shape)}.  Tensor sizes: "
                f"{list(self.shape)}")
        out.append(s)
    check_numel(out)
    return _expand(self, tuple(out))


def expand_as(self: Tensor, other: Any) -> Tensor:
    """``self.expand(other.size())``."""
    return expand(self, *tensor_arg(other, "expand_as", "other", 2).shape)


def repeat(self: Tensor, *sizes: Any) -> Tensor:
    """The tensor tiled ``sizes`` times along each dim (RepeatBackward0)."""
    repeats = _sizes(sizes)
    if len(repeats) < self.ndim:
        raise ScriptError("Number of dimensions of repeat dims can not be smaller than number of "
                          "dimensions of tensor")
    padded = (1,) * (len(repeats) - self.ndim) + self.shape
    shape = [r * s for r, s in zip(repeats, padded)]
    for s in shape:
        if s < 0:
            raise ScriptError(f"Trying to create tensor with negative dimension {s}: {shape}")
    check_numel(shape)
    return apply(O.REPEAT, (self,), {"repeats": tuple(repeats)})


def _mask_args(self: Tensor, mask: Any, value: Any, name: str) -> Any:
    m = tensor_arg(mask, name, "mask", 2)
    if m.dtype is not D.BOOL:
        raise ScriptError("masked_fill_ only supports boolean masks, but got mask with dtype "
                          f"{D.C_NAMES[m.dtype.name]}")
    if broadcast_shape(self.shape, m.shape) != list(self.shape):
        raise ScriptError(f"The size of tensor a ({self.shape[-1] if self.ndim else 1}) must "
                          f"match the size of tensor b ({m.shape[-1]}) at non-singleton dimension "
                          f"{max(self.ndim, m.ndim) - 1}")
    if value.__class__ is Tensor:
        if value.ndim:
            raise ScriptError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                              f"tensor with {value.ndim} dimension(s).")
    elif not is_number(value):
        raise ScriptError(f"{name}(): argument 'value' must be Number, not {type_name(value)}",
                          kind="TypeError")
    return m, value


def masked_fill(self: Tensor, mask: Any, value: Any) -> Tensor:
    """``value`` where ``mask`` holds (MaskedFillBackward0; MaskedFillBackward1 for a 0-d
    tensor ``value``, which gets the filled positions' gradient)."""
    m, v = _mask_args(tensor_arg(self, "masked_fill"), mask, value, "masked_fill")
    if v.__class__ is Tensor:
        return apply(O.MASKED_FILL_TENSOR, (self, m, v))
    return apply(O.MASKED_FILL, (self, m), {"value": v})


def masked_fill_(self: Tensor, mask: Any, value: Any) -> Tensor:
    """In-place ``masked_fill`` (bumps the version counter)."""
    m, v = _mask_args(self, mask, value, "masked_fill_")
    if v.__class__ is Tensor:
        return apply_inplace(O.MASKED_FILL_TENSOR, self, (m, v))
    return apply_inplace(O.MASKED_FILL, self, (m,), {"value": v})


def broadcast_to(input: Any, size: Any) -> Tensor:
    """``input.expand(size)`` (ExpandBackward0)."""
    x = tensor_arg(input, "broadcast_to")
    return expand(x, *_sizes((size,)))


def tile(input: Any, *dims: Any, **kwargs: Any) -> Tensor:
    """``repeat`` with ``dims`` padded by leading ones to the tensor's dimensions
    (RepeatBackward0)."""
    x = tensor_arg(input, "tile")
    reps = _sizes(_keyword_dims(dims, kwargs, "tile"))
    if len(reps) < x.ndim:
        reps = (1,) * (x.ndim - len(reps)) + tuple(reps)
    return repeat(x, *reps)


def repeat_interleave(input: Any, repeats: Any = None, dim: Any = None, *,
                      output_size: Any = None) -> Tensor:
    """Each element (slice along ``dim``) repeated ``repeats`` times: for a number, an
    unsqueeze, expand, copy and view, as PyTorch's; for a tensor of counts, index_select."""
    x = tensor_arg(input, "repeat_interleave")
    if repeats is None:  # torch.repeat_interleave(counts): the positions repeated
        return _repeat_positions(x)
    if dim is None:
        x = flatten(x)
        d = 0
    else:
        d = dim_arg(dim, x.ndim)
    if repeats.__class__ is Tensor:
        if repeats.ndim > 1:
            raise ScriptError("repeats must be 0-dim or 1-dim tensor")
        if repeats.numel() == 1:
            repeats = int(repeats.item())
        else:
            size = x.shape[d] if x.ndim else 1
            if repeats.shape[0] != size:
                raise ScriptError("repeats must have the same size as input along dim, but got "
                                  f"repeats.size(0) = {repeats.shape[0]} and input.size({d}) = "
                                  f"{size}")
            return index_select(x, d, _repeat_positions(repeats))
    if isinstance(repeats, bool) or not isinstance(repeats, int):
        raise ScriptError(f"repeat_interleave(): argument 'repeats' must be Tensor, not "
                          f"{type_name(repeats)}", kind="TypeError")
    if repeats < 0:
        raise ScriptError("repeats can not be negative")
    if x.ndim == 0:
        x = reshape(x, 1)
    shape = list(x.shape)
    wide = unsqueeze(x, d + 1)
    spread = expand(wide, *shape[:d + 1], repeats, *shape[d + 1:])
    out = apply(O.CLONE, (spread,))
    return view(out, *shape[:d], shape[d] * repeats, *shape[d + 1:])


def _repeat_positions(counts: Tensor) -> Tensor:
    """``torch.repeat_interleave(counts)``: i repeated counts[i] times (int64)."""
    if counts.ndim != 1:
        raise ScriptError("repeat_interleave only accept 1D vector as repeat")
    if counts.dtype not in (D.INT64, D.INT32):
        raise ScriptError("repeats has to be Long or Int tensor")
    xp, be = counts.backend.xp, counts.backend
    if bool(xp.any(counts.data < 0)):
        raise ScriptError("repeats can not be negative")
    n = counts.shape[0]
    total = int(xp.sum(counts.data)) if n else 0
    check_numel((total,))
    # position j of the result takes the i whose running count first passes j
    ends = xp.cumulative_sum(xp.astype(counts.data, xp.int64))
    out = xp.searchsorted(ends, xp.arange(total, dtype=xp.int64), side="right")
    return Tensor(be.writable(xp.astype(out, xp.int64)), be)
