"""Shape functions (views): strides as PyTorch computes them, and how each view replays
itself from its base for in-place updates through it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ScriptError
from . import ops as O
from . import strides as layout
from .aliasing import track_view
from .args import dim_arg, tensor_arg, type_name
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
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
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
    strides = layout.view_strides(x.shape, layout.strides_of(x), new)
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
    x = tensor_arg(input, "transpose")
    d0, d1 = dim_arg(dim0, x.ndim), dim_arg(dim1, x.ndim)
    s = list(layout.strides_of(x))
    if x.ndim:  # a 0-d tensor has no dimension to swap (dim 0 and -1 are allowed)
        s[d0], s[d1] = s[d1], s[d0]
    return _view(O.TRANSPOSE, x, {"dim0": d0, "dim1": d1}, s)


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
