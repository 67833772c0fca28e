"""PyTorch's functions and Tensor methods over the op table: argument checks and dispatch.

This is where ``x * 2`` becomes ``mul(x, wrapped 2)``, ``1 - x`` becomes ``rsub``, ``2 / x``
becomes ``reciprocal`` then ``mul``, ``a @ b`` picks ``dot``/``mv``/``mm`` and ``reshape`` picks a
view or a copy, each exactly as PyTorch dispatches, with PyTorch's error messages.  Ops that the
table gives a ``surface`` get their function here, generated from the entry; ``FUNCTIONS``,
``NN_FUNCTIONS``, ``METHODS`` and ``OPERATORS`` are what the package exposes, and
``TENSOR_FORMULAS`` is the formulas' namespace under ``create_graph=True``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import ops as O
from .args import (
    broadcast_check,
    broadcast_shape,
    check_device,
    is_number,
    tensor_arg,
    type_name,
)
from .context import current
from .dtypes import DType, to_dtype
from .einsum import einsum
from .indexing import getitem, setitem
from .joins import (
    broadcast_to,
    cat,
    expand,
    expand_as,
    masked_fill,
    masked_fill_,
    nonzero,
    repeat,
    repeat_interleave,
    stack,
    tile,
    where,
)
from .linalg import (
    bmm,
    cdist,
    det,
    dot,
    ger,
    inv,
    inverse,
    kron,
    linear,
    matmul,
    mm,
    mv,
    outer,
    solve,
)
from .logic import FUNCTIONS as LOGIC
from .logic import OPERATORS as LOGIC_OPERATORS
from .nn_functional import NN_ONLY, TORCH_NN, log_softmax, softmax
from .nn_layers import LAYERS, TORCH_LAYERS, constant_pad_nd
from .pointwise import FUNCTIONS as POINTWISE
from .pointwise import INPLACE as POINTWISE_INPLACE
from .record import apply, apply_inplace
from .reductions import (
    _reduce,
    allclose,
    amax,
    amin,
    aminmax,
    argmax,
    argmin,
    cumprod,
    cumsum,
    dist,
    equal,
    extreme,
    isclose,
    logsumexp,
    mean,
    nanmean,
    nansum,
    norm,
    numel,
    prod,
    std,
    sum,
    trace,
    var,
    vector_norm,
)
from .selection import (
    argsort,
    cummax,
    cummin,
    gather,
    index_add,
    index_add_,
    index_select,
    kthvalue,
    masked_select,
    median,
    mode,
    msort,
    scatter,
    scatter_,
    scatter_add,
    scatter_add_,
    sort,
    take,
    topk,
)
from .shape import (
    _T,
    _elementwise,
    _iter,
    _record,
    _view,
    chunk,
    contiguous,
    diag,
    diag_embed,
    diagonal,
    flatten,
    flip,
    flip_method,
    fliplr,
    flipud,
    is_contiguous,
    moveaxis,
    movedim,
    narrow,
    permute,
    reshape,
    reshape_as,
    roll,
    split,
    squeeze,
    stride,
    t,
    transpose,
    unbind,
    unflatten,
    unsqueeze,
    view,
    view_as,
)
from .tensor import Tensor


# --- arithmetic ---------------------------------------------------------------------------------
def _binary(op: Any, a: Any, b: Any, name: str) -> Tensor:
    if a.__class__ is not Tensor:
        tensor_arg(a, name)
    if b.__class__ is not Tensor and not is_number(b):
        raise ScriptError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                          f"{type_name(b)}", kind="TypeError")
    broadcast_check(a, b)
    return _record(op, (a, b))


_SCALAR_OVERLOAD = {O.ADD: O.ADD_SCALAR, O.SUB: O.SUB_SCALAR, O.MUL: O.MUL_SCALAR,
                    O.DIV: O.DIV_SCALAR}


def _arith(op: Any, a: Any, b: Any, name: str) -> Tensor:
    if a.__class__ is Tensor:  # the common cases, in as few calls
        if b.__class__ is Tensor:
            if a.data.shape != b.data.shape:
                broadcast_check(a, b)
            out = apply(op, (a, b))
            if a._strides is not None or b._strides is not None:
                _elementwise(out, (a, b))
            return out
        if b.__class__ in _NUMBERS:
            if current().formula_mode:
                return _record(_SCALAR_OVERLOAD[op], (a,), {"other": b})
            out = apply(op, (a, b))
            return out if a._strides is None else _elementwise(out, (a, b))
    return _binary(op, a, b, name)


_NUMBERS = frozenset((int, float, bool))  # args.is_number's


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
        broadcast_check(input, exponent)
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
        elif isinstance(default, str):  # a mode (gelu's approximate): a string like its default
            if not isinstance(bound[p], str):
                raise ScriptError(f"{name}(): argument '{p}' must be str, not "
                                  f"{type_name(bound[p])}", kind="TypeError")
        elif bound[p] is None and default is None:  # an optional number left out
            pass
        elif not is_number(bound[p]):
            raise ScriptError(f"{name}(): argument '{p}' must be Number, not "
                              f"{type_name(bound[p])}", kind="TypeError")
    return bound


SURFACED = {op.name: _surfaced(op) for op in O.OPS.values() if op.surface}


def _nn_inplace(op: O.Op) -> Callable[..., Tensor]:
    """``torch.nn.functional``'s version of an activation: its last argument ``inplace=True``
    applies it in place (``F.relu(x, inplace=True)`` is ``x.relu_()``, ReluBackward0)."""
    name, params = op.name, op.params
    names = tuple(p for p, _ in params)
    out_of_place = SURFACED[name]
    op = O.OPS.get(name + "_", op)  # the in-place variant's node, where PyTorch has one

    def fn(input: Any, *args: Any, inplace: bool = False, **kwargs: Any) -> Tensor:
        if len(args) > len(names):  # inplace given by position, after the params
            *args, inplace = args  # type: ignore[assignment]
        if not inplace:
            return out_of_place(input, *args, **kwargs)
        return apply_inplace(op, tensor_arg(input, name), (),
                             _bind(name, names, params, tuple(args), kwargs))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{out_of_place.__doc__[:-1]}; ``inplace=True`` updates ``input``."
    return fn


# the activations whose torch.nn.functional function takes ``inplace``
NN_INPLACE = {n: _nn_inplace(O.OPS[n]) for n in ("relu", "leaky_relu", "elu", "silu", "hardtanh",
                                                 "hardswish", "hardsigmoid", "mish", "selu",
                                                 "celu")}


def _nn_underscore(name: str) -> Callable[..., Tensor]:
    """``F.<name>_``: the activation in place (``F.elu_(x, 2.)`` is ``F.elu(x, 2., True)``)."""
    activation = NN_INPLACE[name]

    def fn(input: Any, *args: Any, **kwargs: Any) -> Tensor:
        return activation(input, *args, inplace=True, **kwargs)

    fn.__name__ = fn.__qualname__ = name + "_"
    fn.__doc__ = f"In-place ``{name}``."
    return fn


# torch.nn.functional's in-place activations (selu_, celu_ and threshold_ are torch's too)
NN_UNDERSCORE = {f"{n}_": _nn_underscore(n) for n in ("relu", "elu", "hardtanh", "leaky_relu")}


def logit_(input: Any, eps: float | None = None) -> Tensor:
    """``x.logit_()``: logit in place (LogitBackward0)."""
    x = tensor_arg(input, "logit_")
    if eps is not None and not is_number(eps):
        raise ScriptError(f"logit_(): argument 'eps' must be float, not {type_name(eps)}",
                          kind="TypeError")
    return apply_inplace(O.LOGIT, x, (), {"eps": eps})


# --- reductions (engine.reductions) ------------------------------------------------------------
max = extreme(O.MAX, O.MAX_DIM, maximum, "max", "Largest")
min = extreme(O.MIN, O.MIN_DIM, minimum, "min", "Smallest")


# --- small functions PyTorch writes in terms of others ------------------------------------------
def clip(input: Any, min: float | None = None, max: float | None = None) -> Tensor:
    """``torch.clip``: an alias of clamp (ClampBackward1)."""
    return clamp(input, min, max)


def float_power(input: Any, exponent: Any) -> Tensor:
    """``pow`` in float64: the operands converted (ToCopyBackward0), then PowBackward0/1."""
    tensors = [a for a in (input, exponent) if a.__class__ is Tensor]
    if not tensors or any(a.__class__ is not Tensor and not is_number(a)
                          for a in (input, exponent)):
        got = ", ".join(type_name(a) for a in (input, exponent))
        raise ScriptError(f"float_power() received an invalid combination of arguments - got "
                          f"({got}), but expected one of:\n"
                          " * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
                          " * (Number self, Tensor exponent, *, Tensor out = None)\n"
                          " * (Tensor input, Number exponent, *, Tensor out = None)\n",
                          kind="TypeError")
    if input.__class__ is Tensor:
        input = _convert(input, D.FLOAT64)
    if exponent.__class__ is Tensor:
        exponent = _convert(exponent, D.FLOAT64)
    return pow(input, exponent)


def square(input: Any) -> Tensor:
    """``input ** 2`` (PowBackward0, as PyTorch records it)."""
    return pow(tensor_arg(input, "square"), 2)


def round(input: Any, *, decimals: int = 0) -> Tensor:
    """Round half to even (RoundBackward0), or to ``decimals`` places (RoundBackward1)."""
    x = tensor_arg(input, "round")
    if decimals == 0:
        return SURFACED["round"](x)
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise ScriptError(f"round(): argument 'decimals' must be int, not {type_name(decimals)}",
                          kind="TypeError")
    return _record(O.ROUND_DECIMALS, (x,), {"decimals": decimals})


# --- in-place -----------------------------------------------------------------------------------
def _inplace(op: Any, name: str) -> Any:
    def fn(self: Tensor, other: Any) -> Tensor:
        if other.__class__ is not Tensor and not is_number(other):
            raise ScriptError(f"{name}(): argument 'other' must be Tensor or Number, not "
                              f"{type_name(other)}", kind="TypeError")
        broadcast_check(self, other)
        return apply_inplace(op, self, (other,))

    fn.__name__ = name
    fn.__doc__ = f"In-place {name} (bumps the version counter)."
    return fn


def pow_(self: Tensor, exponent: Any) -> Tensor:
    """In-place ``self ** exponent`` (PowBackward0 for a number, PowBackward1 for a tensor)."""
    if exponent.__class__ is Tensor:
        broadcast_check(self, exponent)
        return apply_inplace(O.POW_TENSOR, self, (exponent,))
    if not is_number(exponent):
        raise ScriptError(f"pow_(): argument 'exponent' must be Tensor or Number, not "
                          f"{type_name(exponent)}", kind="TypeError")
    return apply_inplace(O.POW, self, (), {"exponent": exponent})


def remainder_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self % other``."""
    if is_number(other):
        return apply_inplace(O.REMAINDER_SCALAR, self, (), {"other": other})
    broadcast_check(self, other)
    return apply_inplace(O.REMAINDER, self, (other,))


add_ = _inplace(O.ADD, "add_")
sub_ = _inplace(O.SUB, "sub_")
mul_ = _inplace(O.MUL, "mul_")
div_ = _inplace(O.DIV, "div_")


def floor_divide_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self // other``."""
    if is_number(other):
        return apply_inplace(O.FLOOR_DIVIDE_SCALAR, self, (), {"other": other})
    broadcast_check(self, other)
    return apply_inplace(O.FLOOR_DIVIDE, self, (other,))


def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place ``tril`` (TrilBackward0)."""
    return apply_inplace(O.TRIL, self, (), _bind("tril_", ("diagonal",), O.TRIL.params,
                                                 (diagonal,), {}))


def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place ``triu`` (TriuBackward0)."""
    return apply_inplace(O.TRIU, self, (), _bind("triu_", ("diagonal",), O.TRIU.params,
                                                 (diagonal,), {}))


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


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """Overwrite with ``src`` broadcast to this shape, in place (CopyBackwards when recorded)."""
    if src.__class__ is Tensor:
        shape = broadcast_shape(self.data.shape, src.data.shape)
        if tuple(shape) != tuple(self.data.shape):
            raise ScriptError(f"output with shape {list(self.data.shape)} doesn't match the "
                              f"broadcast shape {list(shape)}")
    elif not is_number(src):
        raise ScriptError(f"copy_(): argument 'src' (position 1) must be Tensor, not "
                          f"{type_name(src)}", kind="TypeError")
    return apply_inplace(O.COPY, self, (src,))


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


def type_as(self: Tensor, other: Any) -> Tensor:
    """``self.type(other.dtype)``: ``self`` itself when the dtypes agree (ToCopyBackward0)."""
    return _convert(self, tensor_arg(other, "type_as", "other", 2).dtype)


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
CONVERSIONS["type_as"] = type_as


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
    "__hash__": object.__hash__, "T": property(_T), **LOGIC_OPERATORS,
}

def _where_method(self: Tensor, condition: Any, other: Any) -> Any:
    """``x.where(condition, y)`` is ``torch.where(condition, x, y)``."""
    return where(condition, self, other)


_where_method.__name__ = "where"

# torch.<name> functions (bare built-ins in a grad script), torch.nn.functional, Tensor methods.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    fn.__name__: fn for fn in (
        add, sub, mul, div, pow, remainder, floor_divide, matmul, mm, bmm, dot, mv, maximum,
        minimum, neg, clamp, clip, square, round, sum, mean, prod, max, min, argmax, argmin, std,
        var, norm, numel, reshape, view, flatten, t, transpose, unsqueeze, squeeze, unbind,
        split, chunk, cat, stack, where, nonzero, masked_fill, softmax, log_softmax, isclose,
        allclose, equal,
        # selection, reordering, shape
        gather, index_select, take, masked_select, scatter, scatter_add, index_add, sort,
        argsort, msort, topk, kthvalue, median, mode, cummax, cummin, flip, fliplr, flipud, roll,
        narrow, movedim, moveaxis, permute, unflatten, broadcast_to, tile, repeat_interleave,
        diag, diagonal, diag_embed, outer, ger, kron, einsum, cdist, det, inverse)
}
FUNCTIONS.update({n: f for n, f in SURFACED.items() if "torch" in O.OPS[n].surface
                  and n not in FUNCTIONS})
FUNCTIONS.update(LOGIC)
FUNCTIONS.update(POINTWISE)
FUNCTIONS.update({fn.__name__: fn for fn in (
    cumsum, cumprod, logsumexp, amax, amin, aminmax, nansum, nanmean, trace, dist,
    float_power)})
# PyTorch's other names: fix is trunc; the arc- names of the inverse functions
FUNCTIONS["fix"] = FUNCTIONS["trunc"]
FUNCTIONS.update({n: FUNCTIONS["a" + n[3:]] for n in (
    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")})
NN_FUNCTIONS: dict[str, Callable[..., Any]] = {**NN_ONLY, "linear": linear}
NN_FUNCTIONS.update(LAYERS)
NN_FUNCTIONS.update({n: f for n, f in SURFACED.items() if "F" in O.OPS[n].surface})
NN_FUNCTIONS.update(NN_INPLACE)
NN_FUNCTIONS.update(NN_UNDERSCORE)
NN_FUNCTIONS.update({n: TORCH_NN[n] for n in ("selu_", "celu_", "threshold_")})
# torch.linalg
LINALG: dict[str, Callable[..., Any]] = {"vector_norm": vector_norm, "det": det, "inv": inv,
                                         "solve": solve}
# not methods: cat and stack take a list; Tensor has numel itself; x.where's order differs;
# einsum takes an equation
METHODS: dict[str, Callable[..., Any]] = {
    n: f for n, f in FUNCTIONS.items() if (n not in SURFACED or "Tensor" in O.OPS[n].surface)
    and n not in ("cat", "stack", "numel", "where", "einsum", "cdist")}
METHODS.update({fn.__name__: fn for fn in (
    add_, sub_, mul_, div_, pow_, remainder_, floor_divide_, zero_, fill_, copy_, masked_fill_,
    expand, expand_as, repeat, contiguous, is_contiguous, stride, _where_method, scatter_,
    scatter_add_, index_add_, view_as, reshape_as, tril_, triu_)})
METHODS.update(POINTWISE_INPLACE)
METHODS.update(CONVERSIONS)
# torch.nn.functional's functions that torch also has (torch.threshold, torch.layer_norm ...)
FUNCTIONS.update(TORCH_NN)
FUNCTIONS.update(TORCH_LAYERS)
FUNCTIONS.update({"relu_": NN_UNDERSCORE["relu_"], "logit_": logit_})
METHODS["logit_"] = logit_
METHODS["flip"] = flip_method  # dims one by one, as well as a list


# --- the formulas' namespace under create_graph=True --------------------------------------------
class TensorFormulas:
    """The formulas' ``xp`` when ``create_graph=True``: the same names, as recorded ops, so
    every formula is itself differentiable (second derivatives)."""

    def __getattr__(self, name: str) -> Callable:
        fn = SURFACED.get(name)
        if fn is None:
            op = O.OPS.get(name)
            if op is None or op.forward is None or op.surface:
                raise ScriptError(f"create_graph=True is not supported through '{name}' in "
                                  "gradcli")
            return lambda *tensors, **params: apply(op, tensors, params)  # an internal op
        return fn

    matmul = staticmethod(matmul)
    clip = staticmethod(clip)
    constant_pad_nd = staticmethod(constant_pad_nd)

    @staticmethod
    def cumsum(x: Tensor, dim: int, reverse: bool = False) -> Tensor:
        """Differentiable cumulative sum, from the end when ``reverse`` (PyTorch flips, sums
        and flips back: the same values, one node here)."""
        return apply(O.CUMSUM, (x,), {"dim": dim, "reverse": reverse})

    @staticmethod
    def cumprod(x: Tensor, dim: int) -> Tensor:
        """Differentiable cumulative product."""
        return apply(O.CUMPROD, (x,), {"dim": dim})

    @property
    def raw(self) -> Any:
        """The backend's namespace, for constants (masks, positions)."""
        return current().backend.xp

    @staticmethod
    def const(array: Any) -> Tensor:
        """An array as a constant operand."""
        return Tensor(array, current().backend)

    # PyTorch's backward kernels, composed of recorded ops in the kernels' association (the
    # fused multiply-add of tanh_backward and the softmax kernels' order of additions round
    # differently here in the last bit; see engine/kernels.py)
    @staticmethod
    def power(x: Tensor, exponent: float) -> Tensor:
        """Differentiable ``x ** exponent``."""
        return pow(x, exponent)

    @staticmethod
    def sigmoid_backward(grad: Tensor, y: Tensor) -> Tensor:
        """(grad * (1 - y)) * y."""
        return (grad * (1 - y)) * y

    @staticmethod
    def tanh_backward(grad: Tensor, y: Tensor) -> Tensor:
        """grad * (1 - y * y)."""
        return grad * (1 - y * y)

    @staticmethod
    def softmax_backward(grad: Tensor, y: Tensor, dim: int) -> Tensor:
        """(grad - sum(grad * y)) * y."""
        return (grad - _reduce(O.SUM, O.SUM_DIM, grad * y, dim, True)) * y

    @staticmethod
    def log_softmax_backward(grad: Tensor, y: Tensor, dim: int) -> Tensor:
        """grad - exp(y) * sum(grad)."""
        return grad - SURFACED["exp"](y) * _reduce(O.SUM, O.SUM_DIM, grad, dim, True)

    @staticmethod
    def logsigmoid_backward(grad: Tensor, x: Tensor) -> Tensor:
        """(max_deriv - sign * (b / (1 + b))) * grad with b = exp(-|x|)."""
        b = SURFACED["exp"](-SURFACED["abs"](x))
        negative = x.data < 0
        zeros = _zeros_like(x)
        max_deriv = TensorFormulas.where(negative, zeros + 1.0, zeros)
        sign = TensorFormulas.where(negative, zeros + 1.0, zeros - 1.0)
        return (max_deriv - sign * (b / (b + 1))) * grad

    @staticmethod
    def softplus_backward(grad: Tensor, x: Tensor, beta: float, threshold: float) -> Tensor:
        """grad * z / (z + 1) with z = exp(x * beta), grad above the threshold."""
        z = SURFACED["exp"](x * beta)
        return TensorFormulas.where(x.data * beta > threshold, grad, grad * z / (z + 1))

    @staticmethod
    def elu_backward(grad: Tensor, b: Tensor, alpha: float, scale: float, input_scale: float,
                     is_result: bool) -> Tensor:
        """grad * scale above 0; below, from the result or the input."""
        below = grad * input_scale * (b + alpha * scale) if is_result else \
            grad * (input_scale * alpha * scale) * SURFACED["exp"](b * input_scale)
        return TensorFormulas.where(b.data > 0, grad * scale, below)

    @staticmethod
    def silu_backward(grad: Tensor, x: Tensor) -> Tensor:
        """grad * s * (1 + x * (1 - s)) with s = sigmoid(x)."""
        s = SURFACED["sigmoid"](x)
        return grad * s * (1 + x * (1 - s))

    @staticmethod
    def where(condition: Any, x: Any, y: Any) -> Any:
        """Differentiable ``where`` with a constant condition."""
        cond = condition.data if condition.__class__ is Tensor else condition
        if x.__class__ is not Tensor and y.__class__ is not Tensor:
            return current().backend.xp.where(cond, x, y)
        return apply(O.WHERE, (Tensor(cond, current().backend), x, y))

    @staticmethod
    def prod(x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Differentiable ``xp.prod`` over everything or one axis."""
        if axis is None:
            out = apply(O.PROD, (x,))
            return reshape(out, *(1,) * x.ndim) if keepdims else out
        (d,) = axis if isinstance(axis, tuple) else (axis,)
        return apply(O.PROD_DIM, (x,), {"dim": d, "keepdim": keepdims})

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
    def expand_as(x: Tensor, shape: tuple) -> Tensor:
        """Differentiable expand, recorded even to the same shape (ExpandBackward0)."""
        return apply(O.EXPAND, (x,), {"shape": tuple(shape)})

    @staticmethod
    def zeros_of(shape: tuple, like: Tensor) -> Tensor:
        """Constant zeros of ``shape`` in ``like``'s dtype."""
        return Tensor(like.backend.xp.zeros(tuple(shape), dtype=like.data.dtype), like.backend)

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
