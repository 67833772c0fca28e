"""Selecting and sorting as PyTorch dispatches them: gather, scatter, scatter_add, index_select,
index_add, take, masked_select, sort, argsort, topk, kthvalue, median, mode, cummax and cummin,
with PyTorch's argument errors.

The sorts work out their indices first, on the backend (a stable sort; among equal values, the
order PyTorch's CPU kernels leave, emulated in engine/exact/select.py: std::sort, topk's
partial_sort / nth_element, kthvalue's quick-select), and record the values as gathered at
them, so a node saves the indices as PyTorch's does.  The results with indices are ``torch.return_types`` named tuples.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import kernels as K
from . import ops as O
from .args import broadcast_shape, check_numel, dim_arg, is_number, tensor_arg, type_name
from .record import apply, apply_inplace
from .reductions import RETURN_TYPES
from .tensor import Tensor, vmap_from


# --- index checks -------------------------------------------------------------------------------
def _index_tensor(index: Any, name: str, message: str, pos: int = 3) -> Tensor:
    idx = tensor_arg(index, name, "index", pos)
    if idx.dtype not in (D.INT64, D.INT32):
        raise ScriptError(message)
    return idx


def _bounds(idx: Tensor, size: int, dim: int) -> None:
    """PyTorch's scatter/gather error for an index outside [0, size)."""
    xp = idx.backend.xp
    bad = (idx.data < 0) | (idx.data >= size)
    if bool(xp.any(bad)):
        first = int(xp.reshape(idx.data, (-1,))[int(xp.argmax(xp.reshape(bad, (-1,))))])
        raise ScriptError(f"index {first} is out of bounds for dimension {dim} with size {size}")


def _int64(t: Tensor) -> Any:
    return t.backend.astype(t.data, D.INT64) if t.dtype is not D.INT64 else t.data


def _gather_args(x: Tensor, dim: Any, index: Any, name: str, src: Any = None) -> tuple:
    d = dim_arg(dim, x.ndim)
    idx = _index_tensor(index, name, f"{name}(): Expected dtype int32/int64 for index"
                        if name == "gather" else f"{name}(): Expected dtype int64 for index")
    if idx.ndim != x.ndim and idx.numel():
        raise ScriptError("Index tensor must have the same number of dimensions as "
                          f"{'input' if name == 'gather' else 'self'} tensor")
    for i in range(idx.ndim):
        if i != d and idx.shape[i] > x.shape[i]:
            raise ScriptError(f"Size does not match at dimension {i} expected index "
                              f"{list(idx.shape)} to be no larger than self {list(x.shape)} "
                              f"apart from dimension {d}")
        if src is not None and idx.shape[i] > src.shape[i]:
            raise ScriptError(f"Size does not match at dimension {i} expected index "
                              f"{list(idx.shape)} to be no larger than src {list(src.shape)}")
    _bounds(idx, x.shape[d] if x.ndim else 1, d)
    return d, Tensor(_int64(idx), idx.backend)


def gather(input: Any, dim: Any, index: Any, *, sparse_grad: bool = False) -> Tensor:
    """Values of ``input`` at ``index`` along ``dim`` (GatherBackward0)."""
    x = tensor_arg(input, "gather")
    d, idx = _gather_args(x, dim, index, "gather")
    return apply(O.GATHER, (x, idx), {"dim": d})


def _src(x: Tensor, src: Any, name: str) -> Any:
    if src.__class__ is Tensor:
        if src.dtype is not x.dtype:
            raise ScriptError("scatter(): Expected self.dtype to be equal to src.dtype")
        if src.ndim != x.ndim:
            raise ScriptError("Index tensor must have the same number of dimensions as src "
                              "tensor")
        return src
    if not is_number(src):
        raise ScriptError(f"{name}(): argument 'src' (position 4) must be Tensor, not "
                          f"{type_name(src)}", kind="TypeError")
    return src


def _scatter(x: Tensor, dim: Any, index: Any, src: Any, value: Any, reduce: Any, name: str,
             inplace: bool) -> Tensor:
    if reduce is not None:
        raise ScriptError(f"{name}(reduce=...) is not supported by gradcli",
                          hint="use scatter_add for reduce='add'")
    if src is None:
        src = value
    if src is None:
        raise ScriptError(f"{name}() missing required argument 'src'", kind="TypeError")
    s = _src(x, src, name)
    d, idx = _gather_args(x, dim, index, "scatter", s if s.__class__ is Tensor else None)
    if s.__class__ is Tensor:
        op, args, params = O.SCATTER, (idx, s), {"dim": d}
    else:
        op, args, params = O.SCATTER_VALUE, (idx,), {"dim": d, "value": s}
    if inplace:
        return apply_inplace(op, x, args, params)
    return apply(op, (x, *args), params)


def scatter(input: Any, dim: Any, index: Any, src: Any = None, *, value: Any = None,
            reduce: Any = None) -> Tensor:
    """``input`` with ``src`` (a tensor or a number) written at ``index`` along ``dim``
    (ScatterBackward0, ScatterBackward1 for a number)."""
    return _scatter(tensor_arg(input, "scatter"), dim, index, src, value, reduce, "scatter",
                    False)


def scatter_(self: Tensor, dim: Any, index: Any, src: Any = None, *, value: Any = None,
             reduce: Any = None) -> Tensor:
    """In-place ``scatter``."""
    return _scatter(self, dim, index, src, value, reduce, "scatter_", True)


def _scatter_add(x: Tensor, dim: Any, index: Any, src: Any, inplace: bool) -> Tensor:
    s = tensor_arg(src, "scatter_add", "src", 4)
    _src(x, s, "scatter_add")
    d, idx = _gather_args(x, dim, index, "scatter", s)
    if inplace:
        return apply_inplace(O.SCATTER_ADD, x, (idx, s), {"dim": d})
    return apply(O.SCATTER_ADD, (x, idx, s), {"dim": d})


def scatter_add(input: Any, dim: Any, index: Any, src: Any) -> Tensor:
    """``input`` plus ``src`` added at ``index`` along ``dim`` (ScatterAddBackward0)."""
    return _scatter_add(tensor_arg(input, "scatter_add"), dim, index, src, False)


def scatter_add_(self: Tensor, dim: Any, index: Any, src: Any) -> Tensor:
    """In-place ``scatter_add``."""
    return _scatter_add(self, dim, index, src, True)


def _vector_index(index: Any, name: str, size: int) -> Tensor:
    idx = _index_tensor(index, name, f"{name}(): Expected dtype int32 or int64 for index")
    if idx.ndim > 1:
        raise ScriptError(f"{name}(): Index is supposed to be a vector", kind="IndexError")
    xp = idx.backend.xp
    data = xp.reshape(_int64(idx), (-1,))
    if bool(xp.any((data < 0) | (data >= size))):
        raise ScriptError("index out of range in self", kind="IndexError")
    return Tensor(data, idx.backend)


def index_select(input: Any, dim: Any, index: Any) -> Tensor:
    """The slices of ``input`` along ``dim`` at ``index`` (IndexSelectBackward0)."""
    x = tensor_arg(input, "index_select")
    d = dim_arg(dim, x.ndim)
    idx = _vector_index(index, "index_select", x.shape[d] if x.ndim else 1)
    check_numel(tuple(idx.shape[0] if i == d else n for i, n in enumerate(x.shape)))
    return apply(O.INDEX_SELECT, (x, idx), {"dim": d})


def _index_add(x: Tensor, dim: Any, index: Any, source: Any, alpha: Any, inplace: bool) -> Tensor:
    d = dim_arg(dim, x.ndim)
    s = tensor_arg(source, "index_add", "source", 4)
    idx = _vector_index(index, "index_add_", x.shape[d] if x.ndim else 1)
    if s.dtype is not x.dtype:
        raise ScriptError(f"index_add_(): self ({D.SCALAR_NAMES[x.dtype.name]}) and source "
                          f"({D.SCALAR_NAMES[s.dtype.name]}) must have the same scalar type")
    if s.ndim and d >= s.ndim:
        raise ScriptError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor "
                          f"with dim {s.ndim}")
    n = s.shape[d] if s.ndim else 1
    if idx.shape[0] != n:
        raise ScriptError(f"index_add_(): Number of indices ({idx.shape[0]}) should be equal to "
                          f"source.size(dim): ({n}), for dim: {d}")
    want = tuple(n if i == d else k for i, k in enumerate(x.shape))
    if tuple(s.shape) != want and (s.ndim or x.ndim):
        raise ScriptError("source tensor shape must match self tensor shape, excluding the "
                          f"specified dimension. Got self.shape = {list(x.shape)} source.shape = "
                          f"{list(s.shape)}")
    if not is_number(alpha):
        raise ScriptError(f"index_add(): argument 'alpha' must be Number, not {type_name(alpha)}",
                          kind="TypeError")
    params = {"dim": d, "alpha": alpha}
    if inplace:
        return apply_inplace(O.INDEX_ADD, x, (idx, s), params)
    return apply(O.INDEX_ADD, (x, idx, s), params)


def index_add(input: Any, dim: Any, index: Any, source: Any, *, alpha: Any = 1) -> Tensor:
    """``input`` with ``alpha * source``'s slices added at ``index`` along ``dim``
    (IndexAddBackward0)."""
    return _index_add(tensor_arg(input, "index_add"), dim, index, source, alpha, False)


def index_add_(self: Tensor, dim: Any, index: Any, source: Any, *, alpha: Any = 1) -> Tensor:
    """In-place ``index_add``."""
    return _index_add(self, dim, index, source, alpha, True)


def take(input: Any, index: Any) -> Tensor:
    """The elements of the flattened ``input`` at ``index``, in its shape (TakeBackward0)."""
    x = tensor_arg(input, "take")
    idx = tensor_arg(index, "take", "index", 2)
    if idx.dtype is not D.INT64:
        raise ScriptError("take(): Expected a long tensor for index, but got "
                          f"{D.SCALAR_NAMES[idx.dtype.name]}")
    n = x.numel()
    xp = idx.backend.xp
    bad = (idx.data < -n) | (idx.data >= n)
    if bool(xp.any(bad)):
        first = int(xp.reshape(idx.data, (-1,))[int(xp.argmax(xp.reshape(bad, (-1,))))])
        raise ScriptError(f"out of range: tried to access index {first} on a tensor of {n} "
                          "elements.", kind="IndexError")
    return apply(O.TAKE, (x, idx))


def masked_select(input: Any, mask: Any) -> Tensor:
    """The elements where ``mask`` holds, as a 1-D tensor (MaskedSelectBackward0)."""
    x = tensor_arg(input, "masked_select")
    m = tensor_arg(mask, "masked_select", "mask", 2)
    if m.dtype is not D.BOOL:
        raise ScriptError("masked_select: expected BoolTensor for mask")
    shape = tuple(broadcast_shape(m.shape, x.shape))
    xp = x.backend.xp
    n = 1
    for k in shape:
        n *= k
    flat = xp.reshape(xp.broadcast_to(m.data, shape), (-1,))
    (positions,) = xp.nonzero(flat)
    positions = xp.astype(positions, xp.int64)
    return apply(O.MASKED_SELECT, (x, m), {"positions": positions, "shape": shape})


# --- sorting ------------------------------------------------------------------------------------
def _moved(xp: Any, a: Any, dim: int) -> Any:
    """``a`` with ``dim`` last."""
    nd = len(a.shape)
    return a if dim == nd - 1 else xp.permute_dims(
        a, tuple(i for i in range(nd) if i != dim) + (dim,))


def _moved_back(xp: Any, a: Any, dim: int) -> Any:
    nd = len(a.shape)
    if dim == nd - 1:
        return a
    perm = list(range(nd - 1))
    perm.insert(dim, nd - 1)
    return xp.permute_dims(a, tuple(perm))


def _order(x: Tensor, dim: int, descending: bool) -> Any:
    """Stable sort order along ``dim`` (int64): ties keep their order, NaN is the largest."""
    xp = x.backend.xp
    a = x.data if x.dtype is not D.BOOL else x.backend.astype(x.data, D.INT8)
    if not x.ndim:
        return xp.zeros((), dtype=xp.int64)
    a = _moved(xp, a, dim)
    n = a.shape[-1]
    if descending:  # stable descending: sort the reversed, map back
        rev = xp.flip(a, axis=-1)
        order = (n - 1) - xp.flip(xp.argsort(rev, axis=-1, stable=True), axis=-1)
    else:
        order = xp.argsort(a, axis=-1, stable=True)
    return _moved_back(xp, xp.astype(order, xp.int64), dim)


def _sort_order(x: Tensor, dim: int, descending: bool, stable: bool) -> Any:
    """The order of PyTorch's sort: stable when asked, else its CPU std::sort's (which differs
    from a stable sort only among equal values)."""
    if stable or x.ndim == 0:
        return _order(x, dim, descending)
    xp = x.backend.xp
    rows = _rows(x, dim)
    asc = xp.reshape(_moved(xp, _order(x, dim, False), dim), tuple(rows.shape))
    out = K.sort_rows(xp, rows, asc, descending)
    return _moved_back(xp, xp.reshape(out, tuple(_moved(xp, x.data, dim).shape)), dim)


def _returned(kind: str, values: Tensor, indices: Any, backend: Any) -> Any:
    return RETURN_TYPES[kind]((values, vmap_from(Tensor(backend.writable(indices), backend),
                                                  values)))


def sort(input: Any, dim: Any = -1, descending: Any = False, *, stable: Any = None) -> Any:
    """Sorted values along ``dim`` and where they were (SortBackward0; SortBackward1 when
    ``stable`` is given)."""
    x = tensor_arg(input, "sort")
    if isinstance(dim, bool):  # x.sort(True): descending by position
        dim, descending = -1, dim
    d = dim_arg(dim, x.ndim)
    order = _sort_order(x, d, bool(descending), bool(stable))
    op = O.SORT if stable is None else O.SORT_STABLE
    values = apply(op, (x, Tensor(order, x.backend)), {"dim": d})
    return _returned("sort", values, order, x.backend)


def argsort(input: Any, dim: Any = -1, descending: Any = False, *, stable: Any = False) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (int64, never differentiable)."""
    x = tensor_arg(input, "argsort")
    d = dim_arg(dim, x.ndim)
    return vmap_from(Tensor(x.backend.writable(_sort_order(x, d, bool(descending), bool(stable))),
                            x.backend), x)


def msort(input: Any) -> Tensor:
    """``sort`` along dim 0, values only."""
    return sort(input, 0).values


def topk(input: Any, k: Any, dim: Any = -1, largest: Any = True, sorted: Any = True) -> Any:
    """The ``k`` largest (smallest) values along ``dim`` and their indices (TopkBackward0)."""
    x = tensor_arg(input, "topk")
    if isinstance(k, bool) or not isinstance(k, int):
        raise ScriptError(f"topk(): argument 'k' (position 2) must be int, not {type_name(k)}",
                          kind="TypeError")
    d = dim_arg(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not 0 <= k <= n:
        raise ScriptError("selected index k out of range")
    if x.dtype is D.BOOL:
        raise ScriptError("topk does not support bool dtypes on CPU")
    xp = x.backend.xp
    if x.ndim:
        rows = _rows(x, d)
        asc = xp.reshape(_moved(xp, _order(x, d, False), d), tuple(rows.shape))
        picked = K.topk_rows(xp, rows, asc, k, bool(largest), bool(sorted))
        moved = _moved(xp, x.data, d)
        order = _moved_back(xp, xp.reshape(picked, (*moved.shape[:-1], k)), d)
    else:
        order = xp.zeros((), dtype=xp.int64)
    values = apply(O.TOPK, (x, Tensor(order, x.backend)), {"dim": d})
    return _returned("topk", values, order, x.backend)


def _one_per_slice(x: Tensor, kind: str, op: Any, d: int, keepdim: bool, position: Any) -> Any:
    """kthvalue / median(dim) / mode: the element at ``position`` (a function of the slice
    order and the slice length) of each slice, as max(dim)."""
    xp, be = x.backend.xp, x.backend
    if not x.ndim:
        idx = xp.zeros((), dtype=xp.int64)
    else:
        idx = position(d)
        if keepdim:
            idx = xp.expand_dims(idx, axis=d)
    values = apply(op, (x, Tensor(idx, be)), {"dim": d, "keepdim": keepdim})
    return _returned(kind, values, idx, be)


def _nth(x: Tensor, d: int, k: int) -> Any:
    """The index of the k-th smallest (0-based) element of each slice along ``d``, in the
    stable order (median's: PyTorch's nth_element breaks ties by position)."""
    xp = x.backend.xp
    return xp.take(_order(x, d, False), xp.asarray([k]), axis=d)[
        tuple(0 if i == d else slice(None) for i in range(x.ndim))]


def _kth(x: Tensor, d: int, k: int) -> Any:
    """kthvalue's index: as PyTorch's quick-select leaves it where the value is tied."""
    xp = x.backend.xp
    rows = _rows(x, d)
    order = xp.reshape(_moved(xp, _order(x, d, False), d), tuple(rows.shape))
    return xp.reshape(K.kth_index(xp, rows, k, order), tuple(x.shape[:d] + x.shape[d + 1:]))


def _rows(x: Tensor, d: int) -> Any:
    """The slices along ``d`` as the rows of a matrix (bool as int8)."""
    xp = x.backend.xp
    a = x.data if x.dtype is not D.BOOL else x.backend.astype(x.data, D.INT8)
    a = _moved(xp, a, d)
    m = 1
    for n in a.shape[:-1]:
        m *= n
    return xp.reshape(a, (m, a.shape[-1]))


def _median_index(x: Tensor, d: int) -> Any:
    """median's index: the stable middle, or the first NaN of a slice that has one."""
    xp = x.backend.xp
    n = x.shape[d]
    mid = _nth(x, d, (n - 1) // 2)
    if not x.dtype.is_floating_point:
        return mid
    rows = _rows(x, d)
    nan = xp.isnan(rows)
    first = xp.argmax(xp.astype(nan, xp.int8), axis=1)
    shape = tuple(x.shape[:d] + x.shape[d + 1:])
    return xp.where(xp.reshape(xp.any(nan, axis=1), shape),
                    xp.reshape(xp.astype(first, xp.int64), shape), mid)


def kthvalue(input: Any, k: Any, dim: Any = -1, keepdim: Any = False) -> Any:
    """The ``k``-th smallest value along ``dim`` and its index (KthvalueBackward0)."""
    x = tensor_arg(input, "kthvalue")
    d = dim_arg(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if isinstance(k, bool) or not isinstance(k, int):
        raise ScriptError(f"kthvalue(): argument 'k' (position 2) must be int, not "
                          f"{type_name(k)}", kind="TypeError")
    if not 1 <= k <= n:
        raise ScriptError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _one_per_slice(x, "kthvalue", O.KTHVALUE, d, bool(keepdim),
                          lambda d: _kth(x, d, k - 1))


def median(input: Any, dim: Any = None, keepdim: Any = False) -> Any:
    """The median (the lower of the two middle values) of everything (MedianBackward0), or
    along ``dim`` with its index (MedianBackward1)."""
    x = tensor_arg(input, "median")
    if dim is None:
        return apply(O.MEDIAN, (x,))
    d = dim_arg(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if n == 0:
        raise ScriptError(f"median(): Expected reduction dim {d} to have non-zero size.",
                          kind="IndexError")
    return _one_per_slice(x, "median", O.MEDIAN_DIM, d, bool(keepdim),
                          lambda d: _median_index(x, d))


def _mode_index(x: Tensor, d: int) -> Any:
    """The index PyTorch's mode reports in each slice (the last of the first longest run of
    equal values in its std::sort order)."""
    xp = x.backend.xp
    shape = tuple(x.shape[:d] + x.shape[d + 1:])
    if not x.numel():
        return xp.zeros(shape, dtype=xp.int64)
    return xp.reshape(K.mode_rows(xp, _rows(x, d)), shape)


def mode(input: Any, dim: Any = -1, keepdim: Any = False) -> Any:
    """The most frequent value along ``dim`` and its index (ModeBackward0)."""
    x = tensor_arg(input, "mode")
    d = dim_arg(dim, x.ndim)
    if x.ndim and x.shape[d] == 0:
        raise ScriptError(f"mode(): Expected reduction dim {d} to have non-zero size.",
                          kind="IndexError")
    return _one_per_slice(x, "mode", O.MODE, d, bool(keepdim), lambda d: _mode_index(x, d))


def _cumulative(name: str, op: Any) -> Any:
    def fn(input: Any, dim: Any) -> Any:
        x = tensor_arg(input, name)
        d = dim_arg(dim, x.ndim)
        xp, be = x.backend.xp, x.backend
        if not x.ndim or not x.numel():
            idx = xp.zeros(x.shape, dtype=xp.int64)
        else:
            a = _moved(xp, x.data, d)
            n = a.shape[-1]
            pos = xp.broadcast_to(xp.arange(n, dtype=xp.int64), a.shape)
            # the running extreme's last position: a running max (min) of positions where
            # the element reaches (or passes) the extreme so far
            at = []
            cur, cur_at = a[..., 0], pos[..., 0]
            for i in range(n):
                v = a[..., i]
                if i:
                    better = (v >= cur) if name == "cummax" else (v <= cur)
                    better = (better | xp.isnan(v)) & ~xp.isnan(cur)  # NaN, once met, stays
                    cur = xp.where(better, v, cur)
                    cur_at = xp.where(better, pos[..., i], cur_at)
                at.append(cur_at)
            idx = _moved_back(xp, xp.stack(at, axis=-1), d)
        values = apply(op, (x, Tensor(idx, be)), {"dim": d})
        return _returned(name, values, idx, be)

    fn.__name__ = name
    fn.__doc__ = (f"The running {name[3:]}imum along ``dim`` and where it was reached "
                  f"({op.grad_fn}).")
    return fn


cummax = _cumulative("cummax", O.CUMMAX)
cummin = _cumulative("cummin", O.CUMMIN)
