"""Indexing and index assignment, dispatched as PyTorch's ``Tensor.__getitem__``/``__setitem__``.

PyTorch applies the basic part of a key first — ints (SelectBackward0), slices
(SliceBackward0), ``None`` (UnsqueezeBackward0), ``...`` — and then the advanced part — lists,
integer tensors and bool masks — as one IndexBackward0 over what is left, with NumPy's rules for
where the indexed dimensions go.  Assignment writes through the basic part's view (``copy_``,
recorded on the base as CopySlices) or, with an advanced part, with ``index_put_``
(IndexPutBackward0).  The advanced part is turned into flat element positions on the host, so
the backend only ever takes and puts by position.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy

from ..errors import ScriptError
from . import ops as O
from .args import type_name
from .backend import flat_positions, host_index
from .dtypes import BOOL_KIND, INT64, INT_KIND
from .record import apply, apply_inplace
from .shape import _select, _slice, _view, unsqueeze
from .tensor import Tensor

_INDEX_DTYPES_MSG = "tensors used as indices must be long, int, byte or bool tensors"


def getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]``."""
    if key.__class__ is Tensor and key.dtype is INT64 and key.ndim and x.ndim:
        positions = _rows_at(x, key)  # an embedding's C[X]: the rows without _basic's walk
        if positions is not None:
            return apply(O.INDEX, (x, positions))
    out, advanced = _basic(x, key)
    if advanced is None:  # x[...], x[()], x[:, :]: PyTorch's alias of x (AliasBackward0)
        return out if out is not x else _view(O.ALIAS, x, {}, x._strides)
    return apply(O.INDEX, (out, _positions(out, advanced)))


def setitem(x: Tensor, key: Any, value: Any) -> None:
    """``x[key] = value``: copy_ into the basic view, or index_put_ for an advanced key."""
    if value.__class__ is not Tensor and value.__class__ not in (int, float, bool):
        raise ScriptError(f"can't assign a {type_name(value)} to a {_type_label(x)}",
                          kind="TypeError")
    target, advanced = _basic(x, key)
    if advanced is None:
        _check_expand(value, target.shape)
        apply_inplace(O.COPY, target, (value,))
        return
    positions = _positions(target, advanced)
    if value.__class__ is Tensor:
        _check_broadcast(value.shape, tuple(positions.shape))
    apply_inplace(O.INDEX_PUT, target, (positions, value))


# --- the basic part -----------------------------------------------------------------------------
def _basic(x: Tensor, key: Any) -> tuple[Tensor, list | None]:
    """Apply ints, slices, None and ``...``; return the view and the advanced entries left as
    [(first dim of the view it indexes, host int or bool array)], or None if there are none."""
    single = not isinstance(key, tuple)
    keys = [_as_index(k) for k in ((key,) if single else key)]
    consumed = sum(_dims_of(k) for k in keys)
    if consumed > x.ndim:
        raise ScriptError(f"too many indices for tensor of dimension {x.ndim}", kind="IndexError")
    if sum(k is Ellipsis for k in keys) > 1:
        raise ScriptError("an index can only have a single ellipsis ('...')", kind="IndexError")
    out, dim = x, 0
    advanced: list = []
    for k in keys:
        if k is Ellipsis:
            dim += x.ndim - consumed
        elif k is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif k.__class__ is int:
            size = out.shape[dim]
            if not -size <= k < size:
                raise ScriptError(f"index {k} is out of bounds for dimension {dim} with size "
                                  f"{size}", kind="IndexError")
            out = _select(out, dim, k % size)
        elif k.__class__ is slice:
            start, stop, step = _slice_bounds(k, out.shape[dim])
            # NOTE: inside a tuple index PyTorch skips a full slice `:`; a lone `x[:]` records.
            if single or (start, stop, step) != (0, out.shape[dim], 1):
                out = _slice(out, dim, start, stop, step)
            dim += 1
        elif k.__class__ is bool:  # x[True] adds a dimension of 1 (or 0) elements
            out = unsqueeze(out, dim)
            advanced.append((dim, host_index([k])))
            dim += 1
        else:  # an int or bool array
            advanced.append((dim, k))
            dim += k.ndim if k.dtype == bool else 1
    return out, (advanced or None)


def _as_index(k: Any) -> Any:
    """One entry of a key as an int, slice, None, ``...``, bool, or a host index array."""
    if k is None or k is Ellipsis or k.__class__ in (int, slice, bool):
        return k
    if k.__class__ is Tensor:
        kind = k.dtype.kind
        if kind not in (INT_KIND, BOOL_KIND):
            raise ScriptError(_INDEX_DTYPES_MSG, kind="IndexError")
        if k.ndim == 0:  # a 0-d integer tensor selects, as an int does
            return bool(k.item()) if kind == BOOL_KIND else int(k.item())
        return host_index(k.data)
    if isinstance(k, (list, tuple, range)):  # PyTorch reads any sequence, range(n) too
        arr = host_index(list(k) if k.__class__ is range else k)
        if arr.dtype.kind not in "biu":
            raise ScriptError(_INDEX_DTYPES_MSG, kind="IndexError")
        return arr
    raise ScriptError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                      "Variables are valid indices (got "
                      f"{type_name(k)})", kind="IndexError")


def _dims_of(k: Any) -> int:
    """How many of the tensor's dimensions an index entry consumes."""
    if k is None or k is Ellipsis or k.__class__ is bool:
        return 0
    if k.__class__ in (int, slice):
        return 1
    return k.ndim if k.dtype == bool else 1


def _slice_bounds(k: slice, size: int) -> tuple[int, int, int]:
    a, b, c = k.start, k.stop, k.step
    if (a is not None and a.__class__ is not int) or (b is not None and b.__class__ is not int) \
            or (c is not None and c.__class__ is not int):
        k = slice(_slice_index(a), _slice_index(b), _slice_index(c))
    if k.step is not None and k.step <= 0:
        raise ScriptError("step must be greater than zero", kind="ValueError")
    start, stop, step = k.indices(size)
    return start, max(stop, start), step


def _slice_index(part: Any) -> int | None:
    """A slice bound as Python reads it (``operator.index``): an int, a bool, a NumPy integer,
    a one-element integer tensor (``data[i:i + block]`` with ``i`` from a tensor of indices)."""
    if part is None or part.__class__ is int:
        return part
    if part.__class__ is Tensor:
        return part.__index__()
    if part.__class__ is bool or isinstance(part, numpy.integer):
        return int(part)
    raise ScriptError("slice indices must be integers or None or have an __index__ method",
                      kind="TypeError")


# --- the advanced part --------------------------------------------------------------------------
def _positions(view: Tensor, advanced: list) -> Any:
    """Each selected element's flat position in ``view``, in the shape of the result (NumPy's
    rules place the indexed dimensions), as a backend int64 array."""
    shape = view.shape
    index: list[Any] = [slice(None)] * view.ndim
    for dim, arr in advanced:
        if arr.dtype == bool:
            want = shape[dim:dim + arr.ndim]
            if arr.shape != want:
                bad = next(i for i, (a, b) in enumerate(zip(arr.shape, want)) if a != b)
                raise ScriptError(f"The shape of the mask {list(arr.shape)} at index {bad} does "
                                  f"not match the shape of the indexed tensor {list(want)} at "
                                  f"index {dim + bad}", kind="IndexError")
            for j in range(arr.ndim):
                index[dim + j] = None
            index[dim] = arr
        else:
            size = shape[dim]
            bad = (arr >= size) | (arr < -size)
            if bad.any():
                raise ScriptError(f"index {int(arr[bad][0])} is out of bounds for dimension "
                                  f"{dim} with size {size}", kind="IndexError")
            index[dim] = arr
    positions = flat_positions(shape, tuple(k for k in index if k is not None))
    return view.backend.xp.asarray(positions)


def _rows_at(x: Tensor, key: Tensor) -> Any:
    """The flat positions of ``x[key]`` for an int64 tensor ``key`` (the rows of the first
    dimension it names, in its shape followed by ``x``'s other dimensions), as ``_positions``
    gives them; None for an empty key or an index out of range (the general path, which
    reports it)."""
    arr = key.data
    if arr.__class__ is not numpy.ndarray:
        arr = host_index(arr)
    if not arr.size:
        return None
    shape = x.shape
    if x.numel() <= _GRID_MAX:
        try:  # NumPy's own take: negative rows wrap, a row out of range raises
            positions = _grid(shape).take(arr, axis=0)  # new, never the key's memory
        except IndexError:
            return None
        return x.backend.xp.asarray(positions)
    size = shape[0]
    lo, hi = int(numpy.minimum.reduce(arr, axis=None)), int(numpy.maximum.reduce(arr, axis=None))
    if lo < -size or hi >= size:
        return None
    if lo < 0:
        arr = numpy.where(arr < 0, arr + size, arr)
    if len(shape) == 1:
        positions = arr.copy()  # never the key's own memory, which an in-place op may change
    else:
        inner = 1
        for d in shape[1:]:
            inner *= d
        positions = ((arr * inner)[..., None] + numpy.arange(inner, dtype=numpy.int64)
                     ).reshape(arr.shape + shape[1:])
    return x.backend.xp.asarray(positions)


_GRID_MAX = 1 << 16  # up to this many elements, positions are taken from a cached grid


@functools.lru_cache(maxsize=32)
def _grid(shape: tuple) -> Any:
    """The flat positions of an array of ``shape``, in its shape (read-only: shared)."""
    n = 1
    for d in shape:
        n *= d
    grid = numpy.arange(n, dtype=numpy.int64).reshape(shape)
    grid.flags.writeable = False
    return grid


def _check_expand(value: Any, shape: tuple) -> None:
    """PyTorch's ``expand`` errors when ``value`` cannot fill a view of ``shape``."""
    if value.__class__ is not Tensor:
        return
    vs = value.shape
    if len(vs) > len(shape):
        raise ScriptError(f"expand({_type_label(value)}{{{list(vs)}}}, size={list(shape)}): the "
                          f"number of sizes provided ({len(shape)}) must be greater or equal to "
                          f"the number of dimensions in the tensor ({len(vs)})")
    for i in range(1, len(vs) + 1):
        if vs[-i] != 1 and vs[-i] != shape[-i]:
            raise ScriptError(f"The expanded size of the tensor ({shape[-i]}) must match the "
                              f"existing size ({vs[-i]}) at non-singleton dimension "
                              f"{len(shape) - i}.  Target sizes: {list(shape)}.  Tensor sizes: "
                              f"{list(vs)}")


def _check_broadcast(vs: tuple, shape: tuple) -> None:
    ok = len(vs) <= len(shape) and all(
        vs[-i] in (1, shape[-i]) for i in range(1, len(vs) + 1))
    if not ok:
        raise ScriptError(f"shape mismatch: value tensor of shape {list(vs)} cannot be broadcast "
                          f"to indexing result of shape {list(shape)}")


def _type_label(t: Tensor) -> str:
    return f"torch.{t.dtype.legacy}"
