"""PyTorch's functions and Tensor methods over the op table: argument checks and dispatch.

This is where ``x * 2`` becomes ``mul(x, wrapped 2)``, ``1 - x`` becomes ``rsub``, ``2 / x``
becomes ``reciprocal`` then ``mul``, ``a @ b`` picks ``dot``/``mv``/``mm`` and ``reshape`` picks a
view or a copy, each exactly as PyTorch dispatches, with PyTorch's error messages.  Ops that the
table gives a ``surface`` get their function here, generated from the entry; ``FUNCTIONS``,
``NN_FUNCTIONS``, ``METHODS`` and ``OPERATORS`` are what the package exposes, and
``TENSOR_FORMULAS`` is the formulas' namespace under ``create_graph=True``.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import ops as O
from .args import check_device, check_numel, dim_arg, is_number, tensor_arg, type_name
from .context import current
from .dtypes import DType, to_dtype
from .indexing import getitem, setitem
from .record import apply, apply_inplace
from .shape import (
    _T,
    _elementwise,
    _iter,
    _expand,
    _record,
    _view,
    flatten,
    reshape,
    squeeze,
    t,
    transpose,
    unbind,
    unsqueeze,
    view,
)
from .tensor import Tensor


# --- arithmetic ---------------------------------------------------------------------------------
def _broadcast_check(a: Any, b: Any) -> None:
    if a.__class__ is not Tensor or b.__class__ is not Tensor:
        return
    sa, sb = a.data.shape, b.data.shape
    if sa != sb:
        check_numel(_broadcast_shape(sa, sb))


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
        tensor_arg(a, name)
    if b.__class__ is not Tensor and not is_number(b):
        raise ScriptError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                          f"{type_name(b)}", kind="TypeError")
    _broadcast_check(a, b)
    return _record(op, (a, b))


_SCALAR_OVERLOAD = {O.ADD: O.ADD_SCALAR, O.SUB: O.SUB_SCALAR, O.MUL: O.MUL_SCALAR,
                    O.DIV: O.DIV_SCALAR}


def _arith(op: Any, a: Any, b: Any, name: str) -> Tensor:
    if a.__class__ is Tensor and b.__class__ is Tensor:  # the common case, in as few calls
        if a.data.shape != b.data.shape:
            _broadcast_check(a, b)
        out = apply(op, (a, b))
        if a._strides is not None or b._strides is not None:
            _elementwise(out, (a, b))
        return out
    if current().formula_mode and a.__class__ is Tensor and is_number(b):
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


def remainder(input: Any, other: Any) -> Tensor:
    """``input % other`` with the sign of ``other``, as Python and PyTorch."""
    if input.__class__ is Tensor and is_number(other):
        return _record(O.REMAINDER_SCALAR, (input,), {"other": other})
    return _binary(O.REMAINDER, input, other, "remainder")


def floor_divide(input: Any, other: Any) -> Tensor:
    """``input // other`` (PyTorch records it, but cannot differentiate it)."""
    if input.__class__ is Tensor and is_number(other):
        return _record(O.FLOOR_DIVIDE_SCALAR, (input,), {"other": other})
    return _binary(O.FLOOR_DIVIDE, input, other, "floor_divide")


def _rmod(self: Tensor, other: Any) -> Any:
    if not is_number(other):
        return NotImplemented
    return _binary(O.REMAINDER, _full_like(self, other), self, "remainder")


def _rfloordiv(self: Tensor, other: Any) -> Any:
    if not is_number(other):
        return NotImplemented
    return _binary(O.FLOOR_DIVIDE, _full_like(self, other), self, "floor_divide")


def _full_like(t: Tensor, value: Any) -> Tensor:
    return Tensor(t.backend.xp.full(t.data.shape, value, dtype=t.data.dtype), t.backend)


def maximum(input: Any, other: Any) -> Tensor:
    """Elementwise maximum of two tensors (ties share the gradient)."""
    tensor_arg(other, "maximum", "other", 2)
    return _binary(O.MAXIMUM, input, other, "maximum")


def minimum(input: Any, other: Any) -> Tensor:
    """Elementwise minimum of two tensors (ties share the gradient)."""
    tensor_arg(other, "minimum", "other", 2)
    return _binary(O.MINIMUM, input, other, "minimum")


def pow(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` (PowBackward0 for a number exponent, PowBackward1 for a tensor)."""
    if input.__class__ is not Tensor:
        if not is_number(input):
            tensor_arg(exponent, "pow", "exponent", 2)
        return _record(O.POW_SCALAR_BASE, (tensor_arg(exponent, "pow", "exponent", 2),),
                       {"base": input})
    if exponent.__class__ is Tensor:
        _broadcast_check(input, exponent)
        return _record(O.POW_TENSOR, (input, exponent))
    if not is_number(exponent):
        raise ScriptError(f"pow(): argument 'exponent' must be Tensor or Number, not "
                          f"{type_name(exponent)}", kind="TypeError")
    return _record(O.POW, (input,), {"exponent": exponent})


def neg(input: Any) -> Tensor:
    """``-input``."""
    return _record(O.NEG, (tensor_arg(input, "neg"),))


def _rsub(self: Tensor, other: Any) -> Tensor:
    if other.__class__ is Tensor:
        return sub(other, self)
    if not is_number(other):
        return NotImplemented
    return _record(O.RSUB, (self,), {"other": other})


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    # PyTorch: other / self == self.reciprocal() * other
    if not is_number(other):
        return NotImplemented
    return mul(_record(O.RECIPROCAL, (self,)), other)


def _rpow(self: Tensor, other: Any) -> Tensor:
    if not is_number(other):
        return NotImplemented
    return pow(other, self)


def clamp(input: Any, min: float | None = None, max: float | None = None) -> Tensor:
    """Clip values to [min, max]; the gradient passes where min <= x <= max."""
    tensor_arg(input, "clamp")
    if min is None and max is None:
        raise ScriptError("torch.clamp: At least one of 'min' or 'max' must not be None")
    for v in (min, max):
        if v is not None and not is_number(v):
            raise ScriptError("clamp(): min and max must be numbers", kind="TypeError")
    return _record(O.CLAMP, (input,), {"min": min, "max": max})


def _surfaced(op: O.Op) -> Callable[..., Tensor]:
    """The function of an op the table gives a surface: ``input`` then the op's scalar params."""
    name, params = op.name, op.params
    names = tuple(p for p, _ in params)

    def fn(input: Any, *args: Any, **kwargs: Any) -> Tensor:
        if input.__class__ is not Tensor:
            tensor_arg(input, name)
        if args or kwargs or params:
            out = apply(op, (input,), _bind(name, names, params, args, kwargs))
        else:
            out = apply(op, (input,))
        return out if input._strides is None else _elementwise(out, (input,))

    fn.__name__ = fn.__qualname__ = name
    shown = "".join(f", {p}={d!r}" for p, d in params)
    fn.__doc__ = f"``{name}(input{shown})``, recorded as {op.grad_fn}."
    return fn


def _bind(name: str, names: tuple[str, ...], params: tuple, args: tuple, kwargs: dict) -> dict:
    """Bind positional and keyword scalar arguments as Python would, with Python's messages."""
    if len(args) > len(names):
        raise ScriptError(f"{name}() takes from 1 to {len(names) + 1} positional arguments but "
                          f"{len(args) + 1} were given" if names else
                          f"{name}() takes 1 positional argument but {len(args) + 1} were given",
                          kind="TypeError")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise ScriptError(f"{name}() got an unexpected keyword argument '{key}'",
                              kind="TypeError")
        if key in bound:
            raise ScriptError(f"{name}() got multiple values for argument '{key}'",
                              kind="TypeError")
        bound[key] = value
    for p, default in params:
        if p not in bound:
            if default is O.REQUIRED:
                raise ScriptError(f"{name}() missing required argument '{p}'", kind="TypeError")
            bound[p] = default
        elif not is_number(bound[p]):
            raise ScriptError(f"{name}(): argument '{p}' must be Number, not "
                              f"{type_name(bound[p])}", kind="TypeError")
    return bound


SURFACED = {op.name: _surfaced(op) for op in O.OPS.values() if op.surface}


# --- reductions ---------------------------------------------------------------------------------
def _dims(dim: Any, ndim: int) -> tuple[int, ...] | None:
    if dim is None:
        return None
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    out = tuple(sorted({dim_arg(d, ndim) for d in dims}))
    return out


def sum(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Sum of all elements (SumBackward0) or over ``dim`` (SumBackward1)."""
    tensor_arg(input, "sum")
    return _reduce(O.SUM, O.SUM_DIM, input, dim, keepdim)


def mean(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Mean of all elements (MeanBackward0) or over ``dim`` (MeanBackward1)."""
    tensor_arg(input, "mean")
    return _reduce(O.MEAN, O.MEAN_DIM, input, dim, keepdim)


def _reduce(whole: Any, by_dim: Any, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    if dim is None and not keepdim:
        return apply(whole, (input,))
    dims = _dims(dim, input.ndim) if dim is not None else tuple(range(input.ndim))
    if input.ndim == 0:  # dim 0 or -1 of a 0-d tensor names no axis to reduce (PyTorch allows it)
        dims = ()
    return apply(by_dim, (input,), {"dim": dims, "keepdim": bool(keepdim)})


def _extreme(op: Any, pairwise: Any, name: str, word: str) -> Any:
    def fn(input: Any, *rest: Any) -> Tensor:
        if rest and rest[0].__class__ is Tensor:
            return pairwise(input, rest[0])
        if rest:
            raise ScriptError(f"{name}(x, dim) is not supported; use {name}(x) or "
                              f"{pairwise.__name__}(a, b)", kind="TypeError")
        tensor_arg(input, name)
        _nonempty(input, name)
        return apply(op, (input,))

    fn.__name__ = name
    fn.__doc__ = (f"{word} element ({op.grad_fn}); ``{name}(a, b)`` of two tensors is "
                  f"``{pairwise.__name__}``.")
    return fn


max = _extreme(O.MAX, maximum, "max", "Largest")
min = _extreme(O.MIN, minimum, "min", "Smallest")


def _nonempty(t: Tensor, name: str) -> None:
    if t.numel() == 0:
        raise ScriptError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                          "== 0. Specify the reduction dim with the 'dim' argument.")


# --- linear algebra -----------------------------------------------------------------------------
def matmul(input: Any, other: Any) -> Tensor:
    """``input @ other``, dispatched as PyTorch: dot, mv, mm, or unsqueeze-mm-squeeze."""
    if input.__class__ is Tensor and other.__class__ is Tensor:  # 2-D @ 2-D, in few calls
        sa, sb = input.data.shape, other.data.shape
        if (len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0]
                and sa[0] * sb[1] <= current().max_elements):
            return apply(O.MM, (input, other))
    a, b = tensor_arg(input, "matmul"), tensor_arg(other, "matmul", "other", 2)
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
        out._vc[0] = 1
        return out
    if da == 2 and db == 2:
        return mm(a, b)
    raise ScriptError(f"matmul of {da}-D and {db}-D tensors is not supported by gradcli "
                      "(1-D and 2-D only)")


def dot(input: Any, tensor: Any) -> Tensor:
    """Inner product of two 1-D tensors (DotBackward0)."""
    a, b = tensor_arg(input, "dot"), tensor_arg(tensor, "dot", "tensor", 2)
    if a.ndim != 1 or b.ndim != 1:
        raise ScriptError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return matmul(a, b)


def mv(input: Any, vec: Any) -> Tensor:
    """Matrix-vector product (MvBackward0)."""
    a, b = tensor_arg(input, "mv"), tensor_arg(vec, "mv", "vec", 2)
    if a.ndim != 2 or b.ndim != 1:
        raise ScriptError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    return matmul(a, b)


def mm(input: Any, mat2: Any) -> Tensor:
    """Matrix product of two 2-D tensors (MmBackward0)."""
    a, b = tensor_arg(input, "mm"), tensor_arg(mat2, "mm", "mat2", 2)
    if a.ndim != 2:
        raise ScriptError("self must be a matrix")
    if b.ndim != 2:
        raise ScriptError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise ScriptError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                          f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    check_numel((a.shape[0], b.shape[1]))
    return apply(O.MM, (a, b))


# --- neural -------------------------------------------------------------------------------------
def softmax(input: Any, dim: int) -> Tensor:
    """Softmax over ``dim`` (SoftmaxBackward0)."""
    x = tensor_arg(input, "softmax")
    d = dim_arg(dim, x.ndim)
    return apply(O.SOFTMAX, (x,), {"dim": d if x.ndim else None})


def log_softmax(input: Any, dim: int) -> Tensor:
    """Log-softmax over ``dim`` (LogSoftmaxBackward0)."""
    x = tensor_arg(input, "log_softmax")
    d = dim_arg(dim, x.ndim)
    return apply(O.LOG_SOFTMAX, (x,), {"dim": d if x.ndim else None})


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Tensor:
    """Mean squared error (MseLossBackward0)."""
    a, b = tensor_arg(input, "mse_loss"), tensor_arg(target, "mse_loss", "target", 2)
    if reduction not in ("mean", "sum", "none"):
        raise ScriptError(f"{reduction} is not a valid value for reduction", kind="ValueError")
    _broadcast_check(a, b)
    if a.shape != b.shape:
        current().warn(f"Using a target size (torch.Size({list(b.shape)})) that is different to "
                       f"the input size (torch.Size({list(a.shape)})). This will likely lead to "
                       "incorrect results due to broadcasting. Please ensure they have the same "
                       "size.")
        # PyTorch broadcasts both sides first (torch.broadcast_tensors: ExpandBackward0)
        shape = tuple(_broadcast_shape(a.shape, b.shape))
        a, b = (t if t.shape == shape else _expand(t, shape) for t in (a, b))
    return apply(O.MSE_LOSS, (a, b), {"reduction": reduction})


# --- in-place -----------------------------------------------------------------------------------
def _inplace(op: Any, name: str) -> Any:
    def fn(self: Tensor, other: Any) -> Tensor:
        if other.__class__ is not Tensor and not is_number(other):
            raise ScriptError(f"{name}(): argument 'other' must be Tensor or Number, not "
                              f"{type_name(other)}", kind="TypeError")
        _broadcast_check(self, other)
        return apply_inplace(op, self, (other,))

    fn.__name__ = name
    fn.__doc__ = f"In-place {name} (bumps the version counter)."
    return fn


def pow_(self: Tensor, exponent: Any) -> Tensor:
    """In-place ``self ** exponent`` (PowBackward0 for a number, PowBackward1 for a tensor)."""
    if exponent.__class__ is Tensor:
        _broadcast_check(self, exponent)
        return apply_inplace(O.POW_TENSOR, self, (exponent,))
    if not is_number(exponent):
        raise ScriptError(f"pow_(): argument 'exponent' must be Tensor or Number, not "
                          f"{type_name(exponent)}", kind="TypeError")
    return apply_inplace(O.POW, self, (), {"exponent": exponent})


def remainder_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self % other``."""
    if is_number(other):
        return apply_inplace(O.REMAINDER_SCALAR, self, (), {"other": other})
    _broadcast_check(self, other)
    return apply_inplace(O.REMAINDER, self, (other,))


add_ = _inplace(O.ADD, "add_")
sub_ = _inplace(O.SUB, "sub_")
mul_ = _inplace(O.MUL, "mul_")
div_ = _inplace(O.DIV, "div_")


def floor_divide_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self // other``."""
    if is_number(other):
        return apply_inplace(O.FLOOR_DIVIDE_SCALAR, self, (), {"other": other})
    _broadcast_check(self, other)
    return apply_inplace(O.FLOOR_DIVIDE, self, (other,))


def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place (ZeroBackward0 when recorded)."""
    return apply_inplace(O.ZERO, self, ())


def fill_(self: Tensor, value: Any) -> Tensor:
    """Fill with ``value`` in place (FillBackward2; FillBackward3 for a one-element tensor)."""
    if value.__class__ is Tensor:
        if value.ndim:
            raise ScriptError("fill_ only supports 0-dimension value tensor but got tensor with "
                              f"{value.ndim} dimensions.")
        return apply_inplace(O.FILL_TENSOR, self, (), {"values": value.item()})
    if not is_number(value):
        raise ScriptError(f"fill_(): argument 'value' must be Number, not {type_name(value)}",
                          kind="TypeError")
    return apply_inplace(O.FILL, self, (), {"values": value})


# --- dtype conversions --------------------------------------------------------------------------
def _convert(x: Tensor, dt: DType, copy: bool = False) -> Tensor:
    """``x`` in dtype ``dt``: a recorded copy (ToCopyBackward0), or ``x`` itself if it is one."""
    if x.dtype is dt and not copy:
        return x
    return apply(O.TO_COPY, (x,), {"dtype": dt})


def to(self: Tensor, *args: Any, dtype: Any = None, device: Any = None,
       non_blocking: bool = False, copy: bool = False) -> Tensor:
    """``x.to(torch.float64)``, ``x.to("cpu")``, ``x.to(other)``, as PyTorch's ``Tensor.to``."""
    for a in args:
        if isinstance(a, DType):
            dtype = a
        elif a.__class__ is Tensor:
            dtype = a.dtype
        else:
            device = a
    check_device(device)
    return _convert(self, to_dtype(dtype) if dtype is not None else self.dtype, bool(copy))


def _converter(dt: DType, name: str) -> Callable[[Tensor], Tensor]:
    def fn(self: Tensor) -> Tensor:
        return _convert(self, dt)

    fn.__name__ = name
    fn.__doc__ = f"``x.{name}()``: ``x.to({dt})``."
    return fn


def type_(self: Tensor, dtype: Any = None) -> Any:
    """``x.type()`` names the legacy type (``torch.FloatTensor``); ``x.type(dt)`` converts."""
    if dtype is None:
        return f"torch.{self.dtype.legacy}"
    return _convert(self, to_dtype(dtype))


def cpu(self: Tensor) -> Tensor:
    """The tensor itself: gradcli's tensors live on the CPU (or the run's backend)."""
    return self


def cuda(self: Tensor, device: Any = None) -> Tensor:
    """PyTorch's error on a CPU build."""
    check_device("cuda")
    return self


CONVERSIONS = {fn.__name__: fn for fn in (
    _converter(D.FLOAT64, "double"), _converter(D.FLOAT32, "float"),
    _converter(D.FLOAT16, "half"), _converter(D.INT64, "long"), _converter(D.INT32, "int"),
    _converter(D.INT16, "short"), _converter(D.INT8, "char"), _converter(D.UINT8, "byte"),
    _converter(D.BOOL, "bool"), to, cpu, cuda)}
CONVERSIONS["type"] = type_


# --- comparisons (bool results, never differentiable) -------------------------------------------
def _compare(fn: Any) -> Any:
    def cmp(self: Tensor, other: Any) -> Any:
        if other.__class__ is Tensor:
            _broadcast_check(self, other)
            other = other.data
        elif not is_number(other):
            return NotImplemented
        return Tensor(fn(self.data, other), self.backend)

    return cmp


# --- Tensor methods and operators ---------------------------------------------------------------
def _reflect(fn: Any) -> Any:
    def r(self: Tensor, other: Any) -> Any:
        if not is_number(other):
            return NotImplemented
        return fn(self, other)

    return r


OPERATORS: dict[str, Any] = {
    "__add__": add, "__radd__": _reflect(add), "__sub__": sub, "__rsub__": _rsub,
    "__mul__": mul, "__rmul__": _reflect(mul), "__truediv__": div, "__rtruediv__": _rtruediv,
    "__pow__": pow, "__rpow__": _rpow, "__matmul__": matmul, "__neg__": neg,
    "__mod__": remainder, "__rmod__": _rmod, "__floordiv__": floor_divide,
    "__rfloordiv__": _rfloordiv, "__ipow__": pow_, "__imod__": remainder_,
    "__ifloordiv__": floor_divide_,
    "__pos__": lambda self: self, "__iadd__": add_, "__isub__": sub_, "__imul__": mul_,
    "__itruediv__": div_, "__getitem__": getitem, "__setitem__": setitem, "__iter__": _iter,
    "__lt__": _compare(operator.lt), "__le__": _compare(operator.le),
    "__gt__": _compare(operator.gt), "__ge__": _compare(operator.ge),
    "__eq__": _compare(operator.eq), "__ne__": _compare(operator.ne),
    "__hash__": object.__hash__, "T": property(_T),
}

# torch.<name> functions (bare built-ins in a grad script), torch.nn.functional, Tensor methods.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    fn.__name__: fn for fn in (
        add, sub, mul, div, pow, remainder, floor_divide, matmul, mm, dot, mv, maximum, minimum,
        neg,
        clamp, sum, mean, max, min,
        reshape, view, flatten, t, transpose, unsqueeze, squeeze, unbind, softmax, log_softmax)
}
FUNCTIONS.update({n: f for n, f in SURFACED.items() if "torch" in O.OPS[n].surface})
NN_FUNCTIONS: dict[str, Callable[..., Any]] = {"softmax": softmax, "log_softmax": log_softmax,
                                                "mse_loss": mse_loss}
NN_FUNCTIONS.update({n: f for n, f in SURFACED.items() if "F" in O.OPS[n].surface})
METHODS: dict[str, Callable[..., Any]] = {
    n: f for n, f in FUNCTIONS.items() if n in SURFACED and "Tensor" in O.OPS[n].surface
    or n not in SURFACED}
METHODS.update({fn.__name__: fn for fn in (add_, sub_, mul_, div_, pow_, remainder_,
                                           floor_divide_, zero_, fill_)})
METHODS.update(CONVERSIONS)


# --- the formulas' namespace under create_graph=True --------------------------------------------
class TensorFormulas:
    """The formulas' ``xp`` when ``create_graph=True``: the same names, as recorded ops, so
    every formula is itself differentiable (second derivatives)."""

    def __getattr__(self, name: str) -> Callable:
        fn = SURFACED.get(name)
        if fn is None:
            raise ScriptError(f"create_graph=True is not supported through '{name}' in gradcli")
        return fn

    matmul = staticmethod(matmul)

    @staticmethod
    def where(condition: Any, x: Any, y: Any) -> Any:
        """Differentiable ``where`` with a constant condition."""
        cond = condition.data if condition.__class__ is Tensor else condition
        if x.__class__ is not Tensor and y.__class__ is not Tensor:
            return current().backend.xp.where(cond, x, y)
        ref = x if x.__class__ is Tensor else y
        x = x if x.__class__ is Tensor else _zeros_like(ref) + x
        y = y if y.__class__ is Tensor else _zeros_like(ref) + y
        return apply(O.WHERE, (x, y), {"condition": cond})

    @staticmethod
    def sum(x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Differentiable ``xp.sum``."""
        return _reduce(O.SUM, O.SUM_DIM, x, axis, keepdims)

    @staticmethod
    def reshape(x: Tensor, shape: tuple) -> Tensor:
        """Differentiable ``xp.reshape``."""
        return reshape(x, *shape)

    @staticmethod
    def broadcast_to(x: Tensor, shape: tuple) -> Tensor:
        """Differentiable ``xp.broadcast_to`` (ExpandBackward0)."""
        if tuple(x.shape) == tuple(shape):
            return x
        return apply(O.EXPAND, (x,), {"shape": tuple(shape)})

    @staticmethod
    def permute_dims(x: Tensor, axes: tuple) -> Tensor:
        """Differentiable ``xp.permute_dims``."""
        return _view(O.PERMUTE, x, {"dims": tuple(axes)}, None)

    @staticmethod
    def astype(x: Tensor, native: Any) -> Tensor:
        """Differentiable ``xp.astype`` (ToCopyBackward0)."""
        return _convert(x, x.backend.from_native(native))

    @staticmethod
    def zeros_like(x: Any) -> Tensor:
        """Constant zeros."""
        return _zeros_like(x)

    @staticmethod
    def count_nonzero(mask: Any) -> Any:
        """Count of true mask entries (a constant)."""
        return current().backend.xp.count_nonzero(mask)

    @staticmethod
    def index_backward(grad: Tensor, shape: tuple, indices: Any) -> Tensor:
        """Differentiable scatter-add of an indexed gradient (IndexPutBackward0)."""
        return apply(O.INDEX_BACKWARD, (grad, indices), {"shape": tuple(shape)})

    @staticmethod
    def take_at(grad: Tensor, indices: Any) -> Tensor:
        """Differentiable gather by flat positions (IndexBackward0)."""
        return apply(O.INDEX, (grad, indices))

    @staticmethod
    def index_fill(grad: Tensor, indices: Any) -> Tensor:
        """``grad`` with zeros where an index_put wrote (IndexPutBackward0)."""
        return apply(O.INDEX_PUT, (grad, indices, 0.0))

    @staticmethod
    def select_backward(grad: Tensor, shape: tuple, dim: int, index: int) -> Tensor:
        """Differentiable scatter of a selected gradient."""
        return apply(O.SELECT_BACKWARD, (grad,), {"shape": shape, "dim": dim, "index": index})

    @staticmethod
    def slice_backward(grad: Tensor, shape: tuple, dim: int, start: int, stop: int,
                       step: int) -> Tensor:
        """Differentiable scatter of a sliced gradient."""
        return apply(O.SLICE_BACKWARD, (grad,),
                     {"shape": shape, "dim": dim, "start": start, "stop": stop, "step": step})


def _zeros_like(x: Tensor) -> Tensor:
    return Tensor(x.backend.xp.zeros_like(x.data), x.backend)


TENSOR_FORMULAS = TensorFormulas()
