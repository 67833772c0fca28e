"""Shape functions (views): strides as PyTorch computes them, and how each view replays
itself from its base for in-place updates through it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ScriptError
from . import ops as O
from . import strides as layout
from .aliasing import track_view
from .args import check_numel, dim_arg, tensor_arg, type_name
from .context import current
from .graph import _EMPTY
from .record import apply
from .tensor import Tensor


# --- layout bookkeeping -------------------------------------------------------------------------
def _elementwise(out: Tensor, args: tuple) -> Tensor:
    """Give an elementwise result the memory layout PyTorch's TensorIterator would."""
    operands = [(a.shape, layout.strides_of(a)) for a in args if a.__class__ is Tensor]
    out._strides = layout.elementwise_strides(out.shape, operands)
    return out


def _view(op: Any, x: Tensor, params: dict, strides: Sequence[int] | None) -> Tensor:
    """Apply a view op: the result shares data and version counter with ``x``'s base.

    It also keeps how to replay itself from the base (``_view_fn``), which an in-place update
    of the view needs to rewrite the base's history (CopySlices).
    """
    x.data = x.backend.writable(x.data)  # a view must share the base's memory
    out = apply(op, (x,), params)
    out.data = out.backend.writable(out.data)
    out._vc = x._vc
    out._base = base = x._base if x._base is not None else x
    track_view(base, out)
    xp, parent = x.backend.xp, x._view_fn

    def replay(a: Any) -> Any:
        return op.forward(xp, a if parent is None else parent(a), **params)

    out._view_fn = replay
    out._strides = None if strides is None else layout.normalise(out.shape, strides)
    out._creation = x._creation if current().grad_enabled else NO_GRAD_VIEW
    return out


NO_GRAD_VIEW = ("no_grad",)


def _multi_output(views: tuple[Tensor, ...], fn: str) -> tuple[Tensor, ...]:
    """Mark views that one function returned together (unbind, split): PyTorch forbids updating
    them in place while they require grad."""
    for i, v in enumerate(views):
        if v.requires_grad and v._creation is None:
            v._creation = ("multi", fn, i)
    return views


def _record(op: Any, args: tuple, params: dict = _EMPTY) -> Tensor:
    out = apply(op, args, params)
    for a in args:
        if a.__class__ is Tensor and a._strides is not None:
            return _elementwise(out, args)
    return out


# --- shape --------------------------------------------------------------------------------------
def _shape_arg(shape: tuple, numel: int) -> tuple[int, ...]:
    """The sizes of ``view(*shape)``/``reshape``, a -1 inferred; PyTorch's errors."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    known, infer = 1, -1
    i = -1
    for d in shape:  # one pass for plain ints; anything else takes the checks below
        i += 1
        if d.__class__ is not int or d < -1 or d == -1 and infer >= 0:
            return _checked_shape(shape, numel)
        if d == -1:
            infer = i
        else:
            known *= d
    if infer < 0:
        if known == numel:
            return shape
    elif known and not numel % known:
        return (*shape[:infer], numel // known, *shape[infer + 1:])
    return _checked_shape(shape, numel)


def _checked_shape(shape: tuple, numel: int) -> tuple[int, ...]:
    for d in shape:
        if not isinstance(d, int) or isinstance(d, bool):
            raise ScriptError(f"shape must be ints, not {type_name(d)}", kind="TypeError")
    if shape.count(-1) > 1:
        raise ScriptError("only one dimension can be inferred")
    known = 1
    for d in shape:
        if d != -1:
            if d < 0:
                raise ScriptError(f"invalid shape dimension {d}")
            known *= d
    if -1 in shape:
        if known == 0 or numel % known:
            raise ScriptError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if d == -1 else d for d in shape)
    elif known != numel:
        raise ScriptError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def view(input: Any, *shape: Any) -> Tensor:
    """A view with a new shape; fails where PyTorch's view fails (non-viewable strides)."""
    x = tensor_arg(input, "view")
    new = _shape_arg(shape, x.numel())
    if x._strides is None:  # contiguous: every shape of its size is a contiguous view
        return _view(O.VIEW, x, {"shape": new}, None)
    strides = layout.view_strides(x.shape, x._strides, new)
    if strides is None:
        raise ScriptError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
            hint="use reshape(), which copies when a view is impossible")
    return _view(O.VIEW, x, {"shape": new}, strides)


def reshape(input: Any, *shape: Any) -> Tensor:
    """A view when PyTorch can make one (ViewBackward0), else a copy (UnsafeViewBackward0)."""
    x = tensor_arg(input, "reshape")
    new = _shape_arg(shape, x.numel())
    strides = layout.view_strides(x.shape, layout.strides_of(x), new)
    if strides is not None:
        # NOTE: PyTorch views a contiguous tensor (ViewBackward0) and aliases another one it
        # can still view (ReshapeAliasBackward0)
        op = O.VIEW if x._strides is None else O.RESHAPE_ALIAS
        return _view(op, x, {"shape": new}, strides)
    return apply(O.UNSAFE_VIEW, (apply(O.CLONE, (x,)),), {"shape": new})


def contiguous(input: Any) -> Tensor:
    """The tensor itself when contiguous, else a contiguous copy (CloneBackward0)."""
    x = tensor_arg(input, "contiguous")
    return x if x._strides is None else apply(O.CLONE, (x,))


def is_contiguous(self: Tensor) -> bool:
    """Whether the elements lie in row-major order (PyTorch's strides say so)."""
    return self._strides is None


def stride(self: Tensor, dim: int | None = None) -> Any:
    """PyTorch's strides in elements (all, or of ``dim``)."""
    s = layout.strides_of(self)
    return tuple(s) if dim is None else s[dim_arg(dim, self.ndim)]


def flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Flatten dims ``start_dim..end_dim`` into one (a reshape; a 1-D tensor is returned as is)."""
    x = tensor_arg(input, "flatten")
    if x.ndim == 0:
        return reshape(x, 1)
    s, e = dim_arg(start_dim, x.ndim), dim_arg(end_dim, x.ndim)
    if s == e:
        return x
    n = 1
    for d in x.shape[s:e + 1]:
        n *= d
    return reshape(x, *x.shape[:s], n, *x.shape[e + 1:])


def t(input: Any) -> Tensor:
    """Transpose of a tensor of at most 2 dimensions (TBackward0)."""
    x = tensor_arg(input, "t")
    if x.ndim > 2:
        raise ScriptError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return _view(O.T, x, {}, layout.strides_of(x)[::-1])


def transpose(input: Any, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions (TransposeBackward0)."""
    return _transposed(tensor_arg(input, "transpose"), dim0, dim1, O.TRANSPOSE)


def transpose_result(x: Tensor, dim0: int, dim1: int) -> Tensor:
    """ATen's ``result.transpose_(dim0, dim1)`` of a result just made (TransposeBackward1)."""
    return _transposed(x, dim0, dim1, O.TRANSPOSE_INPLACE)


def _transposed(x: Tensor, dim0: int, dim1: int, op: Any) -> Tensor:
    d0, d1 = dim_arg(dim0, x.ndim), dim_arg(dim1, x.ndim)
    s = list(layout.strides_of(x))
    if x.ndim:  # a 0-d tensor has no dimension to swap (dim 0 and -1 are allowed)
        s[d0], s[d1] = s[d1], s[d0]
    return _view(op, x, {"dim0": d0, "dim1": d1}, s)


T_ND_MSG = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
    "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
    "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
    "tensor."
)
T_0D_MSG = "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."


def _T(x: Tensor) -> Tensor:
    """``x.T``: all dimensions reversed (PermuteBackward0); PyTorch warns (once) unless 2-D."""
    if x.ndim != 2:
        current().warn_once(T_0D_MSG if x.ndim == 0 else T_ND_MSG)
    dims = tuple(range(x.ndim - 1, -1, -1))
    s = layout.strides_of(x)
    return _view(O.PERMUTE, x, {"dims": dims}, [s[d] for d in dims])


def unsqueeze(input: Any, dim: int) -> Tensor:
    """Insert a size-1 dimension (UnsqueezeBackward0)."""
    x = tensor_arg(input, "unsqueeze")
    d = dim_arg(dim, x.ndim + 1)
    s = list(layout.strides_of(x))
    s.insert(d, 1 if d >= x.ndim else x.shape[d] * s[d])
    return _view(O.UNSQUEEZE, x, {"dim": d}, s)


def squeeze(input: Any, dim: int | None = None) -> Tensor:
    """Drop size-1 dimensions (SqueezeBackward0), or just ``dim`` (SqueezeBackward1)."""
    x = tensor_arg(input, "squeeze")
    s = layout.strides_of(x)
    if dim is None:
        keep = [i for i, n in enumerate(x.shape) if n != 1]
        op, params = O.SQUEEZE, {}
    else:
        d = dim_arg(dim, x.ndim)
        keep = [i for i in range(x.ndim) if i != d or x.shape[i] != 1]
        op, params = O.SQUEEZE_DIM, {"dim": d}
    params["shape"] = tuple(x.shape[i] for i in keep)
    return _view(op, x, params, [s[i] for i in keep])


def unbind(input: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along ``dim``, as a tuple of views (UnbindBackward0)."""
    x = tensor_arg(input, "unbind")
    if x.ndim == 0:
        raise ScriptError("Dimension specified as 0 but tensor has no dimensions",
                          kind="IndexError")
    d = dim_arg(dim, x.ndim)
    s = list(layout.strides_of(x))
    del s[d]
    return _multi_output(tuple(_view(O.UNBIND, x, {"dim": d, "index": i}, s)
                               for i in range(x.shape[d])), "Unbind")


def split(input: Any, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of ``split_size`` along ``dim`` (SplitBackward0), or of the listed sizes
    (SplitWithSizesBackward0); views, as PyTorch's."""
    x = tensor_arg(input, "split")
    d = dim_arg(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    sizes = split_size_or_sections
    if isinstance(sizes, (list, tuple)):
        sizes = [int(v) for v in sizes]
        if sum(sizes) != n or any(v < 0 for v in sizes):
            raise ScriptError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                              f"tensor's size at dimension {d}), but got split_sizes={sizes}")
        op, name = O.SPLIT_WITH_SIZES, "SplitWithSizes"
    else:
        if isinstance(sizes, bool) or not isinstance(sizes, int):
            raise ScriptError(f"split(): argument 'split_size' must be int, not "
                              f"{type_name(sizes)}", kind="TypeError")
        if sizes < 0:
            raise ScriptError(f"split expects split_size be non-negative, but got "
                              f"split_size={sizes}")
        if sizes == 0 and n:
            raise ScriptError("split_size can only be 0 if dimension size is 0, but got "
                              f"dimension size of {n}")
        sizes = [min(sizes, n - i) for i in range(0, n, sizes)] if n else [0]
        op, name = O.SPLIT, "Split"
    return _pieces(x, op, name, d, sizes)


def chunk(input: Any, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """At most ``chunks`` pieces of equal size (the last smaller) along ``dim``."""
    x = tensor_arg(input, "chunk")
    if isinstance(chunks, bool) or not isinstance(chunks, int):
        raise ScriptError(f"chunk(): argument 'chunks' must be int, not {type_name(chunks)}",
                          kind="TypeError")
    if chunks <= 0:
        raise ScriptError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = dim_arg(dim, x.ndim)
    n = x.shape[d]
    if n == 0:  # PyTorch gives `chunks` empty pieces
        return _pieces(x, O.SPLIT, "Split", d, [0] * chunks)
    return split(x, -(-n // chunks), d)


def _pieces(x: Tensor, op: Any, name: str, d: int, sizes: list[int]) -> tuple[Tensor, ...]:
    s = layout.strides_of(x)
    out, start = [], 0
    for size in sizes:
        out.append(_view(op, x, {"dim": d, "start": start, "stop": start + size}, s))
        start += size
    return _multi_output(tuple(out), name)


def _iter(x: Tensor) -> Any:
    """``iter(x)``: over ``x.unbind(0)``, as PyTorch's ``Tensor.__iter__``."""
    if x.ndim == 0:
        raise ScriptError("iteration over a 0-d tensor", kind="TypeError")
    return iter(unbind(x, 0))


def _select(x: Tensor, dim: int, index: int) -> Tensor:
    s = list(layout.strides_of(x))
    del s[dim]
    return _view(O.SELECT, x, {"dim": dim, "index": index}, s)


def _slice(x: Tensor, dim: int, start: int, stop: int, step: int) -> Tensor:
    s = list(layout.strides_of(x))
    s[dim] *= step
    return _view(O.SLICE, x, {"dim": dim, "start": start, "stop": stop, "step": step}, s)


def _expand(t: Tensor, shape: tuple) -> Tensor:
    lead = len(shape) - t.ndim
    s = layout.strides_of(t)
    strides = [0] * lead + [0 if t.shape[i] == 1 and shape[i + lead] != 1 else s[i]
                            for i in range(t.ndim)]
    return _view(O.EXPAND, t, {"shape": shape}, strides)


# --- reordering ---------------------------------------------------------------------------------
def _int_list(value: Any, name: str, arg: str, pos: int) -> tuple[int, ...]:
    """A tuple of ints given as a list or tuple (PyTorch's ``int[]`` arguments)."""
    if isinstance(value, (list, tuple)) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(value)
    raise ScriptError(f"{name}(): argument '{arg}' (position {pos}) must be tuple of ints, not "
                      f"{type_name(value)}", kind="TypeError")


def _ints(values: tuple, name: str, arg: str) -> tuple[int, ...]:
    """``x.permute(1, 0)`` or ``x.permute((1, 0))``: ints given one by one or as one list."""
    if len(values) == 1 and isinstance(values[0], (list, tuple)):
        values = tuple(values[0])
    return _int_list(values, name, arg, 2)


def _keyword_dims(dims: tuple, kwargs: dict, name: str) -> tuple:
    """``dims`` given by position or as ``dims=`` (PyTorch's name), not both."""
    for key, value in kwargs.items():
        if key != "dims":
            raise ScriptError(f"{name}() got an unexpected keyword argument '{key}'",
                              kind="TypeError")
        if dims:
            raise ScriptError(f"{name}() got multiple values for argument 'dims'",
                              kind="TypeError")
        return (value,)
    return dims


def _unique_dims(dims: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    wrapped = tuple(dim_arg(d, ndim) for d in dims)
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise ScriptError(f"dim {d} appears multiple times in the list of dims")
    return wrapped


def flip(input: Any, dims: Any) -> Tensor:
    """The elements in reverse order along ``dims`` (FlipBackward0, a copy)."""
    x = tensor_arg(input, "flip")
    ds = _unique_dims(_int_list(dims, "flip", "dims", 2), x.ndim)
    return apply(O.FLIP, (x,), {"dims": ds if x.ndim else ()})


def flip_method(self: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """``x.flip(0, 1)`` or ``x.flip([0, 1])`` / ``x.flip(dims=...)``."""
    return flip(self, _ints(_keyword_dims(dims, kwargs, "flip"), "flip", "dims"))


def fliplr(input: Any) -> Tensor:
    """``flip`` of dim 1 (the columns of a matrix)."""
    x = tensor_arg(input, "fliplr")
    if x.ndim < 2:
        raise ScriptError("Input must be >= 2-d.")
    return apply(O.FLIP, (x,), {"dims": (1,)})


def flipud(input: Any) -> Tensor:
    """``flip`` of dim 0 (the rows)."""
    x = tensor_arg(input, "flipud")
    if x.ndim < 1:
        raise ScriptError("Input must be >= 1-d.")
    return apply(O.FLIP, (x,), {"dims": (0,)})


def roll(input: Any, shifts: Any, dims: Any = None) -> Tensor:
    """The elements shifted cyclically along ``dims`` (of the flattened tensor without ``dims``)
    (RollBackward0)."""
    x = tensor_arg(input, "roll")
    sh = (shifts,) if isinstance(shifts, int) and not isinstance(shifts, bool) else \
        _int_list(shifts, "roll", "shifts", 2)
    if dims is None:
        ds: tuple[int, ...] = ()
        if len(sh) != 1:
            raise ScriptError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
    else:
        ds = (dims,) if isinstance(dims, int) and not isinstance(dims, bool) else \
            _int_list(dims, "roll", "dims", 3)
        if len(sh) != len(ds):
            raise ScriptError(f"shifts and dimensions must align. shifts: {len(sh)}, "
                              f"dims:{len(ds)}")
        if x.ndim == 0:
            raise ScriptError("Dimension specified as 0 but tensor has no dimensions",
                              kind="IndexError")
        ds = tuple(dim_arg(d, x.ndim) for d in ds)
    return apply(O.ROLL, (x,), {"shifts": sh, "dims": ds})


def narrow(input: Any, dim: Any, start: Any, length: Any) -> Tensor:
    """``length`` elements from ``start`` along ``dim``: a view (SliceBackward0)."""
    x = tensor_arg(input, "narrow")
    _narrow_types(x, dim, start, length)
    if x.ndim == 0:
        raise ScriptError("narrow() cannot be applied to a 0-dim tensor.")
    d = dim_arg(dim, x.ndim)
    if start.__class__ is Tensor:
        if start.ndim or start.dtype.is_floating_point:
            raise ScriptError("start must be an 0-dim integral Tensor.")
        start = int(start.item())
    size = x.shape[d]
    if not -size <= start <= size:
        raise ScriptError(f"start out of range (expected to be in range of [{-size}, {size}], "
                          f"but got {start})", kind="IndexError")
    if length < 0:
        raise ScriptError("narrow(): length must be non-negative.")
    start %= size if size else 1
    if start + length > size:
        raise ScriptError(f"start ({start}) + length ({length}) exceeds dimension size "
                          f"({size}).")
    return _slice(x, d, start, start + length, 1)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _narrow_types(x: Tensor, dim: Any, start: Any, length: Any) -> None:
    """PyTorch's overload error when an argument of narrow has the wrong type."""
    args = (x, dim, start, length)
    names = [type_name(a) for a in args]
    lines = []
    for kind in ("Tensor", "int"):
        ok = (True, _is_int(dim), start.__class__ is Tensor if kind == "Tensor" else
              _is_int(start), _is_int(length))
        if all(ok):
            return
        marked = ", ".join(n if good else f"!{n}!" for n, good in zip(names, ok))
        lines.append(f" * (Tensor input, int dim, {kind} start, int length)\n      didn't match "
                     f"because some of the arguments have invalid types: ({marked})\n")
    raise ScriptError(f"narrow() received an invalid combination of arguments - got "
                      f"({', '.join(names)}), but expected one of:\n" + "".join(lines),
                      kind="TypeError")


def _offset(value: Any, name: str, arg: str = "offset") -> int:
    if not _is_int(value):
        raise ScriptError(f"{name}(): argument '{arg}' (position 2) must be int, not "
                          f"{type_name(value)}", kind="TypeError")
    return value


def permute(input: Any, *dims: Any, **kwargs: Any) -> Tensor:
    """The dimensions in the order ``dims``: a view (PermuteBackward0)."""
    x = tensor_arg(input, "permute")
    ds = _ints(_keyword_dims(dims, kwargs, "permute"), "permute", "dims")
    if len(ds) != x.ndim:
        raise ScriptError("permute(sparse_coo): number of dimensions in the tensor input does "
                          "not match the length of the desired ordering of dimensions i.e. "
                          f"input.dim() = {x.ndim} is not equal to len(dims) = {len(ds)}")
    wrapped = tuple(dim_arg(d, x.ndim) for d in ds)
    if len(set(wrapped)) != len(wrapped):
        raise ScriptError("permute(): duplicate dims are not allowed.")
    return _permuted(x, wrapped)


def _permuted(x: Tensor, dims: tuple[int, ...]) -> Tensor:
    s = layout.strides_of(x)
    return _view(O.PERMUTE, x, {"dims": dims}, [s[d] for d in dims])


def movedim(input: Any, source: Any, destination: Any) -> Tensor:
    """Dimensions ``source`` moved to ``destination``, the others in order (PermuteBackward0)."""
    x = tensor_arg(input, "movedim")
    src = (source,) if isinstance(source, int) else _int_list(source, "movedim", "source", 2)
    dst = (destination,) if isinstance(destination, int) else \
        _int_list(destination, "movedim", "destination", 3)
    if len(src) != len(dst):
        raise ScriptError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                          f"dims) should contain the same number of dims as destination "
                          f"({list(dst)} dims)")
    src = tuple(dim_arg(d, x.ndim) for d in src)
    dst = tuple(dim_arg(d, x.ndim) for d in dst)
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise ScriptError(f"movedim: repeated dim in `{name}` ({list(ds)})")
    if x.ndim == 0:
        return _view(O.ALIAS, x, {}, ())
    order = [-1] * x.ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(x.ndim) if i not in src)
    perm = tuple(o if o >= 0 else next(rest) for o in order)
    return _permuted(x, perm)


def moveaxis(input: Any, source: Any, destination: Any) -> Tensor:
    """``movedim`` under NumPy's name."""
    return movedim(input, source, destination)


def unflatten(input: Any, dim: Any, sizes: Any) -> Tensor:
    """Dimension ``dim`` split into ``sizes`` (one may be -1): a view (ViewBackward0)."""
    x = tensor_arg(input, "unflatten")
    if x.ndim == 0:
        raise ScriptError("unflatten got an unexpected error:\nDimension specified as 0 but "
                          "tensor has no dimensions")
    d = dim_arg(dim, x.ndim)
    ss = _int_list(sizes, "unflatten", "sizes", 3)
    if not ss:
        raise ScriptError("unflatten: sizes must be non-empty")
    known = 1
    for s in ss:
        if s != -1:
            known *= s
    n = x.shape[d]
    if (-1 not in ss and known != n) or (-1 in ss and (known == 0 or n % known)):
        raise ScriptError(f"unflatten: Provided sizes {list(ss)} don't multiply up to the size "
                          f"of dim {d} ({n}) in the input tensor")
    ss = tuple(n // known if s == -1 else s for s in ss)
    return view(x, *x.shape[:d], *ss, *x.shape[d + 1:])


def view_as(self: Tensor, other: Any) -> Tensor:
    """``self.view(other.size())``."""
    return view(self, *tensor_arg(other, "view_as", "other", 2).shape)


def reshape_as(self: Tensor, other: Any) -> Tensor:
    """``self.reshape(other.size())``."""
    return reshape(self, *tensor_arg(other, "reshape_as", "other", 2).shape)


# --- diagonals ----------------------------------------------------------------------------------
def _diagonal_positions(x: Tensor, offset: int, d1: int, d2: int) -> tuple[Any, tuple, list]:
    """The flat positions of a diagonal's elements in ``x`` (the diagonal last, PyTorch's
    shape), that shape, and the view's strides."""
    xp = x.backend.xp
    shape = x.shape
    n = max(0, min(shape[d1] + min(offset, 0), shape[d2] - max(offset, 0)))
    rest = [i for i in range(x.ndim) if i not in (d1, d2)]
    out_shape = tuple(shape[i] for i in rest) + (n,)
    strides = [1] * x.ndim
    for i in range(x.ndim - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    k = xp.arange(n, dtype=xp.int64)
    start = (-offset if offset < 0 else 0) * strides[d1] + max(offset, 0) * strides[d2]
    pos = xp.reshape(k * (strides[d1] + strides[d2]) + start, (1,) * len(rest) + (n,))
    for j, i in enumerate(rest):
        step = xp.arange(shape[i], dtype=xp.int64) * strides[i]
        pos = pos + xp.reshape(step, tuple(shape[i] if m == j else 1
                                           for m in range(len(rest) + 1)))
    pos = xp.broadcast_to(pos, out_shape)
    s = layout.strides_of(x)
    return pos, out_shape, [s[i] for i in rest] + [s[d1] + s[d2]]


def diagonal(input: Any, offset: Any = 0, dim1: Any = 0, dim2: Any = 1) -> Tensor:
    """The ``offset``-th diagonal of the matrices over ``dim1``, ``dim2``: a view
    (DiagonalBackward0)."""
    x = tensor_arg(input, "diagonal")
    offset = _offset(offset, "diagonal")
    d1, d2 = dim_arg(dim1, x.ndim), dim_arg(dim2, x.ndim)
    if d1 == d2:
        raise ScriptError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    pos, _, strides = _diagonal_positions(x, offset, d1, d2)
    return _view(O.DIAGONAL, x, {"positions": pos, "offset": offset, "dim1": d1, "dim2": d2},
                 strides)


def diag_embed(input: Any, offset: Any = 0, dim1: Any = -2, dim2: Any = -1) -> Tensor:
    """Matrices with the last dim of ``input`` on their ``offset``-th diagonal
    (DiagEmbedBackward0)."""
    x = tensor_arg(input, "diag_embed")
    offset = _offset(offset, "diag_embed")
    nd = x.ndim + 1
    d1, d2 = dim_arg(dim1, nd), dim_arg(dim2, nd)
    if d1 == d2:
        raise ScriptError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (x.shape[-1] if x.ndim else 1) + abs(offset)
    shape = list(x.shape[:-1])
    for p in sorted((d1, d2)):
        shape.insert(p, n)
    check_numel(shape)
    probe = Tensor(x.backend.xp.zeros(tuple(shape), dtype=x.data.dtype), x.backend)
    pos, _, _ = _diagonal_positions(probe, offset, d1, d2)
    return apply(O.DIAG_EMBED, (x,), {"positions": pos, "shape": tuple(shape), "offset": offset,
                                      "dim1": d1, "dim2": d2})


def diag(input: Any, diagonal: Any = 0) -> Tensor:
    """A 1-D tensor on the ``diagonal``-th diagonal of a matrix (DiagEmbedBackward0), or a
    matrix's diagonal, copied (DiagonalBackward0_copy)."""
    x = tensor_arg(input, "diag")
    diagonal = _offset(diagonal, "diag", "diagonal")
    if x.ndim == 1:
        return diag_embed(x, diagonal, 0, 1)
    if x.ndim != 2:
        raise ScriptError(f"diag(): Supports 1D or 2D tensors. Got {x.ndim}D")
    pos, _, _ = _diagonal_positions(x, diagonal, 0, 1)
    return apply(O.DIAG, (x,), {"positions": pos, "offset": diagonal, "dim1": 0, "dim2": 1})
