"""PyTorch's functions and Tensor methods over the op table: argument checks and dispatch.

This is where ``x * 2`` becomes ``mul(x, wrapped 2)``, ``1 - x`` becomes ``rsub``, ``2 / x``
becomes ``reciprocal`` then ``mul``, ``a @ b`` picks ``dot``/``mv``/``mm`` and ``reshape`` picks a
view or a copy, each exactly as PyTorch dispatches, with PyTorch's error messages.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings
from typing import Any, Sequence

from . import engine as _engine
from . import layout
from . import ops as O
from .engine import Tensor, apply, apply_inplace, is_grad_enabled
from .errors import ScriptError

_Number = (int, float)
MAX_ELEMENTS = 50_000_000
_backend: Any = None


def set_backend(backend: Any) -> None:
    """Make ``backend`` the one constructors use (chosen once per run)."""
    global _backend
    _backend = backend


def current_backend() -> Any:
    """The backend of this run, NumPy float64 unless set."""
    global _backend
    if _backend is None:
        from .backend import get_backend

        _backend = get_backend("numpy")
    return _backend


def set_max_elements(n: int) -> None:
    """Largest number of elements a single tensor may have (SPEC §6)."""
    global MAX_ELEMENTS
    MAX_ELEMENTS = n


def _check_numel(shape: Sequence[int]) -> None:
    n = 1
    for d in shape:
        n *= d
    if n > MAX_ELEMENTS:
        raise ScriptError(
            f"a tensor of shape {list(shape)} would have {n:,} elements, over the limit of "
            f"{MAX_ELEMENTS:,}", hint="raise it with --max-elements if you mean it")


def _type_name(x: Any) -> str:
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _tensor(x: Any, fn: str, arg: str = "input", pos: int = 1) -> Tensor:
    if x.__class__ is not Tensor:
        raise ScriptError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not "
                          f"{_type_name(x)}", kind="TypeError")
    return x


def _number(x: Any) -> bool:
    return x.__class__ in (int, float, bool)


def _dim(d: Any, ndim: int) -> int:
    if not isinstance(d, int) or isinstance(d, bool):
        raise ScriptError(f"dim must be an int, not {_type_name(d)}", kind="TypeError")
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= d <= hi:
        raise ScriptError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                          f"but got {d})", kind="IndexError")
    return d % ndim if ndim else 0


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
    out = apply(op, (x,), params)
    out.data = out.backend.writable(out.data)
    out._version = x._version
    out._base = x._base if x._base is not None else x
    xp, parent = x.backend.xp, x._view_fn

    def replay(a: Any) -> Any:
        return op.forward(xp, a if parent is None else parent(a), **params)

    out._view_fn = replay
    out._strides = None if strides is None else layout.normalise(out.shape, strides)
    return out


def _record(op: Any, args: tuple, params: dict | None = None) -> Tensor:
    out = apply(op, args, params or {})
    if any(a.__class__ is Tensor and a._strides is not None for a in args):
        _elementwise(out, args)
    return out


# --- arithmetic ---------------------------------------------------------------------------------
def _broadcast_check(a: Any, b: Any) -> None:
    if a.__class__ is not Tensor or b.__class__ is not Tensor:
        return
    sa, sb = a.data.shape, b.data.shape
    if sa != sb:
        _check_numel(_broadcast_shape(sa, sb))


def _broadcast_shape(sa: Sequence[int], sb: Sequence[int]) -> list[int]:
    """NumPy/PyTorch broadcasting of two shapes, with PyTorch's error."""
    out: list[int] = []
    for i in range(1, builtins.max(len(sa), len(sb)) + 1):
        da = sa[-i] if i <= len(sa) else 1
        db = sb[-i] if i <= len(sb) else 1
        if da != db and da != 1 and db != 1:
            raise ScriptError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {builtins.max(len(sa), len(sb)) - i}")
        out.append(db if da == 1 else da)  # 1 broadcasts to anything, 0 included
    return out[::-1]


def _binary(op: Any, a: Any, b: Any, name: str) -> Tensor:
    if a.__class__ is not Tensor:
        _tensor(a, name)
    if b.__class__ is not Tensor and not _number(b):
        raise ScriptError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                          f"{_type_name(b)}", kind="TypeError")
    _broadcast_check(a, b)
    return _record(op, (a, b))


_SCALAR_OVERLOAD = {O.ADD: O.ADD_SCALAR, O.SUB: O.SUB_SCALAR, O.MUL: O.MUL_SCALAR,
                    O.DIV: O.DIV_SCALAR}


def _arith(op: Any, a: Any, b: Any, name: str) -> Tensor:
    if _engine.formula_mode and a.__class__ is Tensor and _number(b):
        return _record(_SCALAR_OVERLOAD[op], (a,), {"other": b})
    return _binary(op, a, b, name)


def add(input: Any, other: Any) -> Tensor:
    """``input + other``."""
    return _arith(O.ADD, input, other, "add")


def sub(input: Any, other: Any) -> Tensor:
    """``input - other``."""
    return _arith(O.SUB, input, other, "sub")


def mul(input: Any, other: Any) -> Tensor:
    """``input * other``."""
    return _arith(O.MUL, input, other, "mul")


def div(input: Any, other: Any) -> Tensor:
    """``input / other``."""
    return _arith(O.DIV, input, other, "div")


def maximum(input: Any, other: Any) -> Tensor:
    """Elementwise maximum of two tensors (ties share the gradient)."""
    _tensor(other, "maximum", "other", 2)
    return _binary(O.MAXIMUM, input, other, "maximum")


def minimum(input: Any, other: Any) -> Tensor:
    """Elementwise minimum of two tensors (ties share the gradient)."""
    _tensor(other, "minimum", "other", 2)
    return _binary(O.MINIMUM, input, other, "minimum")


def pow(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` (PowBackward0 for a number exponent, PowBackward1 for a tensor)."""
    if input.__class__ is not Tensor:
        if not _number(input):
            _tensor(exponent, "pow", "exponent", 2)
        return _record(O.POW_SCALAR_BASE, (_tensor(exponent, "pow", "exponent", 2),),
                       {"base": input})
    if exponent.__class__ is Tensor:
        _broadcast_check(input, exponent)
        return _record(O.POW_TENSOR, (input, exponent))
    if not _number(exponent):
        raise ScriptError(f"pow(): argument 'exponent' must be Tensor or Number, not "
                          f"{_type_name(exponent)}", kind="TypeError")
    return _record(O.POW, (input,), {"exponent": exponent})


def neg(input: Any) -> Tensor:
    """``-input``."""
    return _record(O.NEG, (_tensor(input, "neg"),))


def _rsub(self: Tensor, other: Any) -> Tensor:
    if other.__class__ is Tensor:
        return sub(other, self)
    if not _number(other):
        return NotImplemented
    return _record(O.RSUB, (self,), {"other": other})


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    # PyTorch: other / self == self.reciprocal() * other
    if not _number(other):
        return NotImplemented
    return mul(_record(O.RECIPROCAL, (self,)), other)


def _rpow(self: Tensor, other: Any) -> Tensor:
    if not _number(other):
        return NotImplemented
    return pow(other, self)


def clamp(input: Any, min: float | None = None, max: float | None = None) -> Tensor:
    """Clip values to [min, max]; the gradient passes where min <= x <= max."""
    _tensor(input, "clamp")
    if min is None and max is None:
        raise ScriptError("torch.clamp: At least one of 'min' or 'max' must not be None")
    for v in (min, max):
        if v is not None and not _number(v):
            raise ScriptError("clamp(): min and max must be numbers", kind="TypeError")
    return _record(O.CLAMP, (input,), {"min": min, "max": max})


def _unary(op: Any, name: str) -> Any:
    def fn(input: Any) -> Tensor:
        return _record(op, (_tensor(input, name),))

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name} ({op.grad_fn})."
    return fn


exp = _unary(O.EXP, "exp")
log = _unary(O.LOG, "log")
sqrt = _unary(O.SQRT, "sqrt")
abs = _unary(O.ABS, "abs")
sin = _unary(O.SIN, "sin")
cos = _unary(O.COS, "cos")
tanh = _unary(O.TANH, "tanh")
sigmoid = _unary(O.SIGMOID, "sigmoid")
relu = _unary(O.RELU, "relu")
reciprocal = _unary(O.RECIPROCAL, "reciprocal")
clone = _unary(O.CLONE, "clone")
sign = _unary(O.SIGN, "sign")


# --- reductions ---------------------------------------------------------------------------------
def _dims(dim: Any, ndim: int) -> tuple[int, ...] | None:
    if dim is None:
        return None
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    out = tuple(sorted({_dim(d, ndim) for d in dims}))
    return out


def sum(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Sum of all elements (SumBackward0) or over ``dim`` (SumBackward1)."""
    _tensor(input, "sum")
    return _reduce(O.SUM, O.SUM_DIM, input, dim, keepdim)


def mean(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Mean of all elements (MeanBackward0) or over ``dim`` (MeanBackward1)."""
    _tensor(input, "mean")
    return _reduce(O.MEAN, O.MEAN_DIM, input, dim, keepdim)


def _reduce(full: Any, by_dim: Any, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    if dim is None and not keepdim:
        return apply(full, (input,))
    dims = _dims(dim, input.ndim) if dim is not None else tuple(range(input.ndim))
    if input.ndim == 0:  # dim 0 or -1 of a 0-d tensor names no axis to reduce (PyTorch allows it)
        dims = ()
    return apply(by_dim, (input,), {"dim": dims, "keepdim": bool(keepdim)})


def max(input: Any, *rest: Any) -> Tensor:
    """Largest element (MaxBackward1); ``max(a, b)`` of two tensors is ``maximum``."""
    if rest and rest[0].__class__ is Tensor:
        return maximum(input, rest[0])
    if rest:
        raise ScriptError("max(x, dim) is not supported; use max(x) or maximum(a, b)",
                          kind="TypeError")
    _tensor(input, "max")
    _nonempty(input, "max")
    return apply(O.MAX, (input,))


def min(input: Any, *rest: Any) -> Tensor:
    """Smallest element (MinBackward1); ``min(a, b)`` of two tensors is ``minimum``."""
    if rest and rest[0].__class__ is Tensor:
        return minimum(input, rest[0])
    if rest:
        raise ScriptError("min(x, dim) is not supported; use min(x) or minimum(a, b)",
                          kind="TypeError")
    _tensor(input, "min")
    _nonempty(input, "min")
    return apply(O.MIN, (input,))


def _nonempty(t: Tensor, name: str) -> None:
    if t.numel() == 0:
        raise ScriptError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                          "== 0. Specify the reduction dim with the 'dim' argument.")


# --- linear algebra -----------------------------------------------------------------------------
def matmul(input: Any, other: Any) -> Tensor:
    """``input @ other``, dispatched as PyTorch: dot, mv, mm, or unsqueeze-mm-squeeze."""
    a, b = _tensor(input, "matmul"), _tensor(other, "matmul", "other", 2)
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise ScriptError(f"both arguments to matmul need to be at least 1D, but they are {da}D "
                          f"and {db}D")
    if da == 1 and db == 1:
        if a.shape[0] != b.shape[0]:
            raise ScriptError(
                f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                f"[{b.shape[0]}] to have the same number of elements, but got {a.shape[0]} and "
                f"{b.shape[0]} elements respectively")
        return apply(O.DOT, (a, b))
    if da == 2 and db == 1:
        if a.shape[1] != b.shape[0]:
            raise ScriptError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                              f"{a.shape[1]}), vec ({b.shape[0]})")
        return apply(O.MV, (a, b))
    if da == 1 and db == 2:
        m = mm(unsqueeze(a, 0), b)
        # NOTE: PyTorch squeezes the product in place (squeeze_), so the result is at version 1.
        out = apply(O.SQUEEZE_SYM, (m,), {"shape": (m.shape[1],), "dim": 0})
        out._version[0] = 1
        return out
    if da == 2 and db == 2:
        return mm(a, b)
    raise ScriptError(f"matmul of {da}-D and {db}-D tensors is not supported by gradcli "
                      "(1-D and 2-D only)")


def mm(input: Any, mat2: Any) -> Tensor:
    """Matrix product of two 2-D tensors (MmBackward0)."""
    a, b = _tensor(input, "mm"), _tensor(mat2, "mm", "mat2", 2)
    if a.ndim != 2:
        raise ScriptError("self must be a matrix")
    if b.ndim != 2:
        raise ScriptError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise ScriptError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                          f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    _check_numel((a.shape[0], b.shape[1]))
    return apply(O.MM, (a, b))


# --- shape --------------------------------------------------------------------------------------
def _shape_arg(shape: tuple, numel: int) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    for d in shape:
        if not isinstance(d, int) or isinstance(d, bool):
            raise ScriptError(f"shape must be ints, not {_type_name(d)}", kind="TypeError")
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
    x = _tensor(input, "view")
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
    x = _tensor(input, "reshape")
    new = _shape_arg(shape, x.numel())
    strides = layout.view_strides(x.shape, layout.strides_of(x), new)
    if strides is not None:
        return _view(O.VIEW, x, {"shape": new}, strides)
    return apply(O.UNSAFE_VIEW, (apply(O.CLONE, (x,)),), {"shape": new})


def flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Flatten dims ``start_dim..end_dim`` into one (a reshape; a 1-D tensor is returned as is)."""
    x = _tensor(input, "flatten")
    if x.ndim == 0:
        return reshape(x, 1)
    s, e = _dim(start_dim, x.ndim), _dim(end_dim, x.ndim)
    if s == e:
        return x
    n = 1
    for d in x.shape[s:e + 1]:
        n *= d
    return reshape(x, *x.shape[:s], n, *x.shape[e + 1:])


def t(input: Any) -> Tensor:
    """Transpose of a tensor of at most 2 dimensions (TBackward0)."""
    x = _tensor(input, "t")
    if x.ndim > 2:
        raise ScriptError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return _view(O.T, x, {}, layout.strides_of(x)[::-1])


def transpose(input: Any, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions (TransposeBackward0)."""
    x = _tensor(input, "transpose")
    d0, d1 = _dim(dim0, x.ndim), _dim(dim1, x.ndim)
    s = list(layout.strides_of(x))
    if x.ndim:  # a 0-d tensor has no dimension to swap (dim 0 and -1 are allowed)
        s[d0], s[d1] = s[d1], s[d0]
    return _view(O.TRANSPOSE, x, {"dim0": d0, "dim1": d1}, s)


def _T(x: Tensor) -> Tensor:
    """``x.T``: all dimensions reversed (PermuteBackward0)."""
    dims = tuple(range(x.ndim - 1, -1, -1))
    s = layout.strides_of(x)
    return _view(O.PERMUTE, x, {"dims": dims}, [s[d] for d in dims])


def unsqueeze(input: Any, dim: int) -> Tensor:
    """Insert a size-1 dimension (UnsqueezeBackward0)."""
    x = _tensor(input, "unsqueeze")
    d = _dim(dim, x.ndim + 1)
    s = list(layout.strides_of(x))
    s.insert(d, 1 if d >= x.ndim else x.shape[d] * s[d])
    return _view(O.UNSQUEEZE, x, {"dim": d}, s)


def squeeze(input: Any, dim: int | None = None) -> Tensor:
    """Drop size-1 dimensions (SqueezeBackward0), or just ``dim`` (SqueezeBackward1)."""
    x = _tensor(input, "squeeze")
    s = layout.strides_of(x)
    if dim is None:
        keep = [i for i, n in enumerate(x.shape) if n != 1]
        op, params = O.SQUEEZE, {}
    else:
        d = _dim(dim, x.ndim)
        keep = [i for i in range(x.ndim) if i != d or x.shape[i] != 1]
        op, params = O.SQUEEZE_DIM, {"dim": d}
    params["shape"] = tuple(x.shape[i] for i in keep)
    return _view(op, x, params, [s[i] for i in keep])


def getitem(x: Tensor, key: Any) -> Tensor:
    """Basic indexing with ints and slices (SelectBackward0 / SliceBackward0 per dimension)."""
    single = not isinstance(key, tuple)
    keys = (key,) if single else key
    if keys and keys[-1] is Ellipsis:  # a trailing `...` selects the remaining dims (formulas)
        keys = keys[:-1]
    if len(keys) > x.ndim:
        raise ScriptError(f"too many indices for tensor of dimension {x.ndim}",
                          kind="IndexError")
    out, dim = x, 0
    for k in keys:
        size = out.shape[dim]
        if isinstance(k, bool) or not isinstance(k, (int, slice)):
            raise ScriptError("only integers and slices (`:`) are valid indices, not "
                              f"{_type_name(k)}", kind="IndexError")
        if isinstance(k, int):
            if not -size <= k < size:
                raise ScriptError(f"index {k} is out of bounds for dimension {dim} with size "
                                  f"{size}", kind="IndexError")
            out = _select(out, dim, k % size)
            continue
        if k.step == 0:
            raise ScriptError("step must be greater than zero", kind="ValueError")
        start, stop, step = k.indices(size)
        if step <= 0:
            raise ScriptError("step must be greater than zero", kind="ValueError")
        # NOTE: inside a tuple index PyTorch skips a full slice `:`; a lone `x[:]` still records.
        if not single and (start, stop, step) == (0, size, 1):
            dim += 1
            continue
        stop = builtins.max(stop, start)
        out = _slice(out, dim, start, stop, step)
        dim += 1
    return out


def _select(x: Tensor, dim: int, index: int) -> Tensor:
    s = list(layout.strides_of(x))
    del s[dim]
    return _view(O.SELECT, x, {"dim": dim, "index": index}, s)


def _slice(x: Tensor, dim: int, start: int, stop: int, step: int) -> Tensor:
    s = list(layout.strides_of(x))
    s[dim] *= step
    return _view(O.SLICE, x, {"dim": dim, "start": start, "stop": stop, "step": step}, s)


# --- neural -------------------------------------------------------------------------------------
def softmax(input: Any, dim: int) -> Tensor:
    """Softmax over ``dim`` (SoftmaxBackward0)."""
    x = _tensor(input, "softmax")
    d = _dim(dim, x.ndim)
    return apply(O.SOFTMAX, (x,), {"dim": d if x.ndim else None})


def log_softmax(input: Any, dim: int) -> Tensor:
    """Log-softmax over ``dim`` (LogSoftmaxBackward0)."""
    x = _tensor(input, "log_softmax")
    d = _dim(dim, x.ndim)
    return apply(O.LOG_SOFTMAX, (x,), {"dim": d if x.ndim else None})


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Tensor:
    """Mean squared error (MseLossBackward0)."""
    a, b = _tensor(input, "mse_loss"), _tensor(target, "mse_loss", "target", 2)
    if reduction not in ("mean", "sum", "none"):
        raise ScriptError(f"{reduction} is not a valid value for reduction", kind="ValueError")
    _broadcast_check(a, b)
    if a.shape != b.shape:
        warnings.warn(f"Using a target size (torch.Size({list(b.shape)})) that is different to the "
                      f"input size (torch.Size({list(a.shape)})). This will likely lead to "
                      "incorrect results due to broadcasting. Please ensure they have the same "
                      "size.", UserWarning, stacklevel=2)
        # PyTorch broadcasts both sides first (torch.broadcast_tensors: ExpandBackward0)
        shape = tuple(_broadcast_shape(a.shape, b.shape))
        a, b = (t if t.shape == shape else _expand(t, shape) for t in (a, b))
    return apply(O.MSE_LOSS, (a, b), {"reduction": reduction})


def _expand(t: Tensor, shape: tuple) -> Tensor:
    lead = len(shape) - t.ndim
    s = layout.strides_of(t)
    strides = [0] * lead + [0 if t.shape[i] == 1 and shape[i + lead] != 1 else s[i]
                            for i in range(t.ndim)]
    return _view(O.EXPAND, t, {"shape": shape}, strides)


# --- in-place -----------------------------------------------------------------------------------
def _inplace(op: Any, name: str) -> Any:
    def fn(self: Tensor, other: Any) -> Tensor:
        if other.__class__ is not Tensor and not _number(other):
            raise ScriptError(f"{name}(): argument 'other' must be Tensor or Number, not "
                              f"{_type_name(other)}", kind="TypeError")
        _broadcast_check(self, other)
        return apply_inplace(op, self, (other,))

    fn.__name__ = name
    fn.__doc__ = f"In-place {name} (bumps the version counter)."
    return fn


add_ = _inplace(O.ADD, "add_")
sub_ = _inplace(O.SUB, "sub_")
mul_ = _inplace(O.MUL, "mul_")
div_ = _inplace(O.DIV, "div_")


def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place (ZeroBackward0 when recorded)."""
    return apply_inplace(O.ZERO, self, ())


# --- comparisons (bool results, never differentiable) -------------------------------------------
def _compare(fn: Any) -> Any:
    def cmp(self: Tensor, other: Any) -> Any:
        if other.__class__ is Tensor:
            _broadcast_check(self, other)
            other = other.data
        elif not _number(other):
            return NotImplemented
        return Tensor(fn(self.data, other), self.backend)

    return cmp


# --- constructors -------------------------------------------------------------------------------
def _leaf(data: Any, requires_grad: bool) -> Tensor:
    be = current_backend()
    _check_numel(tuple(data.shape))
    return Tensor(be.writable(data), be, bool(requires_grad))


def tensor(data: Any, requires_grad: bool = False) -> Tensor:
    """A leaf from numbers or nested lists (a copy when given a tensor, as torch.tensor)."""
    be = current_backend()
    if data.__class__ is Tensor:
        data = data.data
    else:
        _check_literal(data)
    return _leaf(be.asarray(data), requires_grad)


def _check_literal(data: Any, dim: int = 0) -> tuple[int, ...]:
    """The shape of a nested list of numbers; PyTorch's errors for ragged or non-numeric data."""
    if isinstance(data, (list, tuple)):
        shapes = [_check_literal(item, dim + 1) for item in data]
        for s in shapes[1:]:
            if s != shapes[0]:
                got = s[0] if s else 0
                raise ScriptError(f"expected sequence of length {shapes[0][0] if shapes[0] else 0}"
                                  f" at dim {dim + 1} (got {got})", kind="ValueError")
        return (len(data),) + (shapes[0] if shapes else ())
    if not _number(data):
        raise ScriptError(f"Could not infer dtype of {_type_name(data)}", kind="TypeError")
    if data.__class__ is int and data.bit_length() > 1023:
        try:
            builtins.float(data)
        except OverflowError:
            raise ScriptError("int too large to convert to float", kind="OverflowError") from None
    return ()


def param(data: Any) -> Tensor:
    """A leaf that requires grad (gradcli's shorthand for tensor(data, requires_grad=True))."""
    return tensor(data, requires_grad=True)


def _size(shape: tuple) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    for d in shape:
        if not isinstance(d, int) or isinstance(d, bool):
            raise ScriptError(f"size must be ints, not {_type_name(d)}", kind="TypeError")
        if d < 0:
            raise ScriptError(f"Trying to create tensor with negative dimension {d}: "
                              f"{list(shape)}")
    _check_numel(shape)
    return tuple(shape)


def zeros(*size: Any, requires_grad: bool = False) -> Tensor:
    """A leaf of zeros."""
    be = current_backend()
    return _leaf(be.xp.zeros(_size(size), dtype=be.dtype), requires_grad)


def ones(*size: Any, requires_grad: bool = False) -> Tensor:
    """A leaf of ones."""
    be = current_backend()
    return _leaf(be.xp.ones(_size(size), dtype=be.dtype), requires_grad)


def full(size: Any, fill_value: float, requires_grad: bool = False) -> Tensor:
    """A leaf filled with ``fill_value``."""
    be = current_backend()
    if not _number(fill_value) and fill_value.__class__ is not Tensor:
        raise ScriptError("full(): argument 'fill_value' must be Number, not "
                          f"{_type_name(fill_value)}", kind="TypeError")
    try:
        value = builtins.float(fill_value)
    except OverflowError:
        raise ScriptError("int too large to convert to float", kind="OverflowError") from None
    return _leaf(be.xp.full(_size((size,)), value, dtype=be.dtype), requires_grad)


def eye(n: int, m: int | None = None, requires_grad: bool = False) -> Tensor:
    """The identity matrix."""
    be = current_backend()
    _size((n, n if m is None else m))
    return _leaf(be.xp.eye(n, m, dtype=be.dtype), requires_grad)


def arange(start: float, end: float | None = None, step: float = 1,
           requires_grad: bool = False) -> Tensor:
    """Evenly spaced values in [start, end)."""
    be = current_backend()
    if end is None:
        start, end = 0, start
    if step == 0:
        raise ScriptError("step must be nonzero")
    try:
        n = builtins.max(0, math.ceil((end - start) / step))
    except (OverflowError, ValueError):  # an inf or nan bound or step
        raise ScriptError(f"unsupported range: {start} -> {end}") from None
    _check_numel((n,))
    return _leaf(be.xp.arange(start, end, step, dtype=be.dtype), requires_grad)


def linspace(start: float, end: float, steps: int, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from start to end inclusive."""
    be = current_backend()
    _size((steps,))
    return _leaf(be.xp.linspace(start, end, steps, dtype=be.dtype), requires_grad)


def rand(*size: Any, requires_grad: bool = False) -> Tensor:
    """Uniform [0, 1) samples from the run's seeded generator."""
    return _leaf(current_backend().random(_size(size), normal=False), requires_grad)


def randn(*size: Any, requires_grad: bool = False) -> Tensor:
    """Standard normal samples from the run's seeded generator."""
    return _leaf(current_backend().random(_size(size), normal=True), requires_grad)


def zeros_like(input: Any, requires_grad: bool = False) -> Tensor:
    """Zeros of ``input``'s shape."""
    x = _tensor(input, "zeros_like")
    return _leaf(x.backend.xp.zeros_like(x.data), requires_grad)


def ones_like(input: Any, requires_grad: bool = False) -> Tensor:
    """Ones of ``input``'s shape."""
    x = _tensor(input, "ones_like")
    return _leaf(x.backend.xp.ones_like(x.data), requires_grad)


# --- Tensor methods and operators ---------------------------------------------------------------
def _reflect(fn: Any) -> Any:
    def r(self: Tensor, other: Any) -> Any:
        if not _number(other):
            return NotImplemented
        return fn(self, other)

    return r


def _install() -> None:
    T = Tensor
    T.__add__ = add
    T.__radd__ = _reflect(add)
    T.__sub__ = sub
    T.__rsub__ = _rsub
    T.__mul__ = mul
    T.__rmul__ = _reflect(mul)
    T.__truediv__ = div
    T.__rtruediv__ = _rtruediv
    T.__pow__ = pow
    T.__rpow__ = _rpow
    T.__matmul__ = matmul
    T.__neg__ = neg
    T.__pos__ = lambda self: self
    T.__iadd__ = add_
    T.__isub__ = sub_
    T.__imul__ = mul_
    T.__itruediv__ = div_
    T.__getitem__ = getitem
    T.__lt__ = _compare(operator.lt)
    T.__le__ = _compare(operator.le)
    T.__gt__ = _compare(operator.gt)
    T.__ge__ = _compare(operator.ge)
    T.__eq__ = _compare(operator.eq)
    T.__ne__ = _compare(operator.ne)
    T.__hash__ = object.__hash__
    T.T = property(_T)
    for fn in METHODS:
        setattr(T, fn.__name__, fn)


METHODS = (add, sub, mul, div, pow, matmul, mm, maximum, minimum, neg, clamp, exp, log, sqrt,
           abs, sin, cos, tanh, sigmoid, relu, reciprocal, clone, sum, mean, max, min, reshape,
           view, flatten, t, transpose, unsqueeze, squeeze, softmax, log_softmax, add_, sub_,
           mul_, div_, zero_)
_install()


# --- the formulas' namespace under create_graph=True --------------------------------------------
def formula_where(condition: Any, x: Any, y: Any) -> Any:
    """Differentiable ``where`` with a constant condition."""
    cond = condition.data if condition.__class__ is Tensor else condition
    if x.__class__ is not Tensor and y.__class__ is not Tensor:
        return current_backend().xp.where(cond, x, y)
    ref = x if x.__class__ is Tensor else y
    x = x if x.__class__ is Tensor else zeros_like(ref) + x
    y = y if y.__class__ is Tensor else zeros_like(ref) + y
    return apply(O.WHERE, (x, y), {"condition": cond})


def formula_sum(x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Differentiable ``xp.sum``."""
    return _reduce(O.SUM, O.SUM_DIM, x, axis, keepdims)


def formula_reshape(x: Tensor, shape: tuple) -> Tensor:
    """Differentiable ``xp.reshape``."""
    return reshape(x, *shape)


def formula_broadcast_to(x: Tensor, shape: tuple) -> Tensor:
    """Differentiable ``xp.broadcast_to`` (ExpandBackward0)."""
    if tuple(x.shape) == tuple(shape):
        return x
    return apply(O.EXPAND, (x,), {"shape": tuple(shape)})


def formula_permute_dims(x: Tensor, axes: tuple) -> Tensor:
    """Differentiable ``xp.permute_dims``."""
    return _view(O.PERMUTE, x, {"dims": tuple(axes)}, None)


def formula_zeros_like(x: Any) -> Tensor:
    """Constant zeros."""
    return zeros_like(x)


def formula_count_nonzero(mask: Any) -> Any:
    """Count of true mask entries (a constant)."""
    return current_backend().xp.count_nonzero(mask)


def formula_select_backward(grad: Tensor, shape: tuple, dim: int, index: int) -> Tensor:
    """Differentiable scatter of a selected gradient."""
    return apply(O.SELECT_BACKWARD, (grad,), {"shape": shape, "dim": dim, "index": index})


def formula_slice_backward(grad: Tensor, shape: tuple, dim: int, start: int, stop: int,
                           step: int) -> Tensor:
    """Differentiable scatter of a sliced gradient."""
    return apply(O.SLICE_BACKWARD, (grad,),
                 {"shape": shape, "dim": dim, "start": start, "stop": stop, "step": step})


formula_sign, formula_sin, formula_cos, formula_exp = sign, sin, cos, exp
formula_log, formula_sqrt, formula_matmul = log, sqrt, matmul
