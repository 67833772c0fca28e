"""PyTorch's functions and Tensor methods over the op table: argument checks and dispatch.

Ops that the table gives a ``surface`` get their function here, generated from the entry; the
others come from the module of their theme, each dispatching exactly as PyTorch, with PyTorch's
error messages (``arithmetic``: ``x * 2`` is ``mul(x, wrapped 2)``, ``1 - x`` is ``rsub``;
``linalg``: ``a @ b`` picks ``dot``/``mv``/``mm``; ``shape``: ``reshape`` picks a view or a
copy ...).  ``FUNCTIONS``, ``NN_FUNCTIONS``, ``LINALG``, ``METHODS`` and ``OPERATORS`` are what
the package exposes; the formulas' namespace under ``create_graph=True`` is ``formulas.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import ops as O
from .args import broadcast_shape, is_number, tensor_arg, type_name
from .arithmetic import (
    _NUMBERS,
    _arith,
    _rfloordiv,
    _rmod,
    _rpow,
    _rsub,
    _rtruediv,
    add,
    add_,
    add_method,
    clamp,
    div,
    div_,
    floor_divide,
    floor_divide_,
    maximum,
    minimum,
    mul,
    mul_,
    neg,
    pow,
    pow_,
    remainder,
    remainder_,
    sub,
    sub_,
    sub_method,
)
from .attributes import detach_
from .conversions import CONVERSIONS, _convert
from .convolution import CONVOLUTIONS
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
from .nn_layers import LAYERS, TORCH_LAYERS
from .pointwise import FUNCTIONS as POINTWISE
from .pointwise import INPLACE as POINTWISE_INPLACE
from .record import apply, apply_inplace
from .reductions import (
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
    linalg_norm,
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


# --- functions generated from the op table ------------------------------------------------------
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


# PyTorch has the in-place method of each Tensor function of the table (``x.sin_()``), but these
_NO_INPLACE = frozenset({"clone", "hardshrink"})


def _surfaced_inplace(op: O.Op) -> Callable[..., Tensor]:
    """``x.<name>_(...)``: the op's function in place, recorded as the op (``x.sin_()`` is
    SinBackward0 saving a clone of the original ``self``, as PyTorch's in-place kernels do), or
    as its in-place variant where the table has one (``acosh_``)."""
    name, params = op.name + "_", op.params
    names = tuple(p for p, _ in params)
    op = O.OPS.get(name, op)

    def fn(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if args or kwargs or params:
            return apply_inplace(op, self, (), _bind(name, names, params, args, kwargs))
        return apply_inplace(op, self, ())

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{op.name}`` in place ({op.grad_fn})."
    return fn


SURFACED_INPLACE = {op.name + "_": _surfaced_inplace(op) for op in O.OPS.values()
                    if "Tensor" in op.surface and op.name not in _NO_INPLACE}


def neg_(self: Tensor) -> Tensor:
    """``-x`` in place (NegBackward0)."""
    return apply_inplace(O.NEG, self, ())


def square_(self: Tensor) -> Tensor:
    """``x ** 2`` in place (PowBackward0, as PyTorch records it)."""
    return pow_(self, 2)


def clamp_(self: Tensor, min: float | None = None, max: float | None = None) -> Tensor:
    """``clamp`` in place (ClampBackward1)."""
    clamp(self, min, max)  # its checks and errors (the result is dropped)
    return apply_inplace(O.CLAMP, self, (), {"min": min, "max": max})


def round_(self: Tensor, *, decimals: int = 0) -> Tensor:
    """``round`` in place: half to even (RoundBackward0), or to ``decimals`` places
    (RoundBackward1)."""
    if decimals == 0:
        return apply_inplace(O.ROUND, self, ())
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise ScriptError(f"round_(): argument 'decimals' must be int, not "
                          f"{type_name(decimals)}", kind="TypeError")
    return apply_inplace(O.ROUND_DECIMALS, self, (), {"decimals": decimals})


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


# --- Tensor methods and operators ---------------------------------------------------------------
def _reflect(fn: Any) -> Any:
    def r(self: Tensor, other: Any) -> Any:
        if not is_number(other):
            return NotImplemented
        return fn(self, other)

    return r


# NOTE: PyTorch wraps its binary operators (``TypeError_to_NotImplemented_``): an operand the
# function refuses with a TypeError gives NotImplemented, so that Python tries the other
# operand, then says "unsupported operand type(s) for *: 'Tensor' and 'NoneType'" (``lr *
# w.grad`` before a backward).
def _operator(fn: Callable[[Tensor, Any], Any]) -> Callable[[Tensor, Any], Any]:
    """``fn`` as a binary operator: NotImplemented where it raises a TypeError."""
    def method(self: Tensor, other: Any) -> Any:
        try:
            return fn(self, other)
        except ScriptError as exc:
            if exc.kind == "TypeError":
                return NotImplemented
            raise

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _arith_operator(op: O.Op, name: str) -> Callable[[Tensor, Any], Any]:
    """``+ - * /``, the most common calls, as ``add`` ... without a call more: their function
    refuses exactly what is neither a tensor nor a number, so that is tested first."""
    def method(self: Tensor, other: Any) -> Any:
        if other.__class__ is Tensor or other.__class__ in _NUMBERS:
            return _arith(op, self, other, name)
        return NotImplemented

    method.__name__ = method.__qualname__ = name
    return method


# ``tensor op other`` for + - * / where ``other`` is a tensor or a number: what the operators
# compute, with no Python frame of their own (the interpreter calls these at once)
ARITHMETIC = {symbol: partial(_arith, op, name=name) for symbol, op, name in (
    ("+", O.ADD, "add"), ("-", O.SUB, "sub"), ("*", O.MUL, "mul"), ("/", O.DIV, "div"))}

OPERATORS: dict[str, Any] = {
    "__add__": _arith_operator(O.ADD, "add"), "__sub__": _arith_operator(O.SUB, "sub"),
    "__mul__": _arith_operator(O.MUL, "mul"), "__truediv__": _arith_operator(O.DIV, "div")}
OPERATORS.update({name: _operator(fn) for name, fn in {
    "__pow__": pow, "__matmul__": matmul, "__mod__": remainder, "__floordiv__": floor_divide,
    "__iadd__": add_, "__isub__": sub_, "__imul__": mul_, "__itruediv__": div_,
    "__ipow__": pow_, "__imod__": remainder_, "__ifloordiv__": floor_divide_}.items()})
# (the reflected ones give NotImplemented themselves for what is not a number)
OPERATORS.update({
    "__radd__": _reflect(add), "__rsub__": _rsub, "__rmul__": _reflect(mul),
    "__rtruediv__": _rtruediv, "__rpow__": _rpow, "__rmod__": _rmod,
    "__rfloordiv__": _rfloordiv,
    "__neg__": neg, "__pos__": lambda self: self, "__getitem__": getitem,
    "__setitem__": setitem, "__iter__": _iter, "__hash__": object.__hash__, "T": property(_T),
    **LOGIC_OPERATORS,
})

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
# PyTorch's other names: fix is trunc, negative neg; the arc- names of the inverse functions
_ARC = ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")
FUNCTIONS.update({"fix": FUNCTIONS["trunc"], "negative": neg})
FUNCTIONS.update({n: FUNCTIONS["a" + n[3:]] for n in _ARC})
NN_FUNCTIONS: dict[str, Callable[..., Any]] = {**NN_ONLY, "linear": linear}
NN_FUNCTIONS.update(LAYERS)
NN_FUNCTIONS.update(CONVOLUTIONS)
NN_FUNCTIONS.update({n: f for n, f in SURFACED.items() if "F" in O.OPS[n].surface})
NN_FUNCTIONS.update(NN_INPLACE)
NN_FUNCTIONS.update(NN_UNDERSCORE)
NN_FUNCTIONS.update({n: TORCH_NN[n] for n in ("selu_", "celu_", "threshold_")})
# torch.linalg
LINALG: dict[str, Callable[..., Any]] = {"vector_norm": vector_norm, "norm": linalg_norm,
                                         "det": det, "inv": inv, "solve": solve}
# not methods: cat and stack take a list; Tensor has numel itself; x.where's order differs;
# einsum takes an equation
METHODS: dict[str, Callable[..., Any]] = {
    n: f for n, f in FUNCTIONS.items() if (n not in SURFACED or "Tensor" in O.OPS[n].surface)
    and n not in ("cat", "stack", "numel", "where", "einsum", "cdist")}
METHODS.update({"add": add_method, "sub": sub_method})  # (the deprecated order's own warning)
METHODS.update({fn.__name__: fn for fn in (
    add_, sub_, mul_, div_, pow_, remainder_, floor_divide_, zero_, fill_, copy_, masked_fill_,
    expand, expand_as, repeat, contiguous, is_contiguous, stride, _where_method, scatter_,
    scatter_add_, index_add_, view_as, reshape_as, tril_, triu_)})
METHODS.update(POINTWISE_INPLACE)
METHODS.update({n: f for n, f in SURFACED_INPLACE.items() if n not in METHODS})
METHODS.update({fn.__name__: fn for fn in (neg_, square_, clamp_, round_)})
# the other names in place: clip_ is clamp_, fix_ trunc_, negative_ neg_, arcsin_ asin_ ...
METHODS.update({"clip_": clamp_, "fix_": METHODS["trunc_"], "negative_": neg_})
METHODS.update({n + "_": METHODS["a" + n[3:] + "_"] for n in _ARC})
METHODS.update(CONVERSIONS)
# torch.nn.functional's functions that torch also has (torch.threshold, torch.layer_norm ...)
FUNCTIONS.update(TORCH_NN)
FUNCTIONS.update(TORCH_LAYERS)
FUNCTIONS.update({n: CONVOLUTIONS[n] for n in (
    "conv1d", "conv2d", "max_pool1d", "max_pool2d", "avg_pool1d")})
FUNCTIONS["logit_"] = METHODS["logit_"] = logit_


# --- torch.<name>_: the in-place methods PyTorch has as functions too (torch.sin_(x)) -----------
def _inplace_function(name: str, method: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``torch.<name>(input, ...)``: the method on ``input``, with PyTorch's argument errors."""
    def fn(*args: Any, **kwargs: Any) -> Tensor:
        if args:
            input, args = args[0], args[1:]
        elif "input" in kwargs:
            input = kwargs.pop("input")
        else:
            raise ScriptError(f'{name}() missing 1 required positional arguments: "input"',
                              kind="TypeError")
        return method(tensor_arg(input, name), *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.{name}(input, ...)``: ``input.{name}(...)``."
    return fn


# all of the table's in-place functions but these, which PyTorch has as methods only
_METHOD_ONLY = frozenset({"sign_", "sgn_", "tril_", "triu_"})
_TORCH_INPLACE = [n for n in SURFACED_INPLACE if n not in _METHOD_ONLY]
_TORCH_INPLACE += ["neg_", "negative_", "square_", "clamp_", "clip_", "fix_", "zero_", "fill_",
                   "clamp_min_", "clamp_max_", "nan_to_num_", "xlogy_"]
_TORCH_INPLACE += [n + "_" for n in _ARC]
FUNCTIONS.update({n: _inplace_function(n, METHODS[n]) for n in _TORCH_INPLACE})
FUNCTIONS["detach_"] = _inplace_function("detach_", detach_)
METHODS["flip"] = flip_method  # dims one by one, as well as a list
