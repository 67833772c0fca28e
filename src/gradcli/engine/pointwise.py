"""Elementwise functions of several tensors or numbers, as PyTorch dispatches them: the
two-argument arctangent, hypot, logaddexp, fmod, lerp, addcmul, addcdiv, xlogy, copysign (each overload its own node,
as ATen's), and diff (neighbours subtracted along a dim)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import ops as O
from .args import (
    broadcast_check,
    broadcast_shape,
    check_numel,
    dim_arg,
    is_number,
    tensor_arg,
    type_name,
)
from .indexing import getitem
from .joins import cat
from .logic import _invalid, logical_xor
from .record import apply_inplace
from .shape import _record
from .tensor import Tensor

_TENSOR_OR_NUMBER = ("Tensor input, Tensor other, *, Tensor out = None",
                     "Tensor input, Number other, *, Tensor out = None")


def _tensors(op: O.Op) -> Callable[..., Tensor]:
    """A function of two tensors (numbers refused, as PyTorch's signature does)."""
    name = op.name
    def function(input: Any, other: Any) -> Tensor:
        a = tensor_arg(input, name)
        b = tensor_arg(other, name, "other", 2)
        broadcast_check(a, b)
        return _record(op, (a, b))

    function.__name__ = name
    function.__doc__ = f"``torch.{name}(input, other)`` elementwise ({op.grad_fn})."
    return function


# (the arctangent's name is the table's alone: tests/test_ops_table.py)
arctan2, hypot, logaddexp = (_tensors(op) for op in (O.ATAN2, O.HYPOT, O.LOGADDEXP))


def _tensor_or_number(name: str, op: O.Op, scalar_op: O.Op) -> Callable[..., Tensor]:
    """A function whose ``other`` is a tensor (``op``) or a number (``scalar_op``)."""
    def function(input: Any, other: Any) -> Tensor:
        if input.__class__ is Tensor and other.__class__ is Tensor:
            broadcast_check(input, other)
            return _record(op, (input, other))
        if input.__class__ is Tensor and is_number(other):
            return _record(scalar_op, (input,), {"other": other})
        raise _invalid(name, (input, other), _TENSOR_OR_NUMBER)

    function.__name__ = name
    function.__doc__ = (f"``torch.{name}(input, other)`` elementwise ({op.grad_fn}; "
                        f"{scalar_op.grad_fn} for a number).")
    return function


fmod = _tensor_or_number("fmod", O.FMOD, O.FMOD_SCALAR)
copysign = _tensor_or_number("copysign", O.COPYSIGN, O.COPYSIGN_SCALAR)


def xlogy(input: Any, other: Any) -> Tensor:
    """``input * log(other)``, 0 where input is 0 (XlogyBackward0; 1 and 2 with a number)."""
    if input.__class__ is not Tensor and is_number(input) and other.__class__ is Tensor:
        return _record(O.XLOGY_SELF_NUMBER, (other,), {"self": input})
    return _tensor_or_number("xlogy", O.XLOGY, O.XLOGY_OTHER_NUMBER)(input, other)


def _same_dtype(x: Tensor, other: Tensor, what: str) -> None:
    if other.dtype is not x.dtype:
        raise ScriptError(f"expected dtype {D.C_NAMES[x.dtype.name]} for `{what}` but got dtype "
                          f"{D.C_NAMES[other.dtype.name]}")


def _lerp_args(input: Any, end: Any, weight: Any) -> tuple[tuple, dict, O.Op]:
    if input.__class__ is not Tensor or end.__class__ is not Tensor or not (
            weight.__class__ is Tensor or is_number(weight)):
        given = (input, end) if weight is _NO_WEIGHT else (input, end, weight)
        raise _invalid("lerp", given, (
            "Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
            "Tensor input, Tensor end, Number weight, *, Tensor out = None"))
    _same_dtype(input, end, "end")
    broadcast_check(input, end)
    if weight.__class__ is Tensor:
        if weight.ndim:
            _same_dtype(input, weight, "weight")
        check_numel(broadcast_shape(broadcast_shape(input.shape, end.shape), weight.shape))
        return (input, end, weight), {}, O.LERP
    return (input, end), {"weight": weight}, O.LERP_SCALAR


_NO_WEIGHT = object()


def lerp(input: Any, end: Any, weight: Any = _NO_WEIGHT) -> Tensor:
    """``input + weight * (end - input)`` (LerpBackward0; LerpBackward1 for a tensor weight)."""
    args, params, op = _lerp_args(input, end, weight)
    return _record(op, args, params)


def lerp_(self: Tensor, end: Any, weight: Any = _NO_WEIGHT) -> Tensor:
    """In-place ``lerp``."""
    args, params, op = _lerp_args(self, end, weight)
    return apply_inplace(op, self, args[1:], params)


def _three(name: str, input: Any, tensor1: Any, tensor2: Any, value: Any) -> tuple:
    x = tensor_arg(input, name)
    t1 = tensor_arg(tensor1, name, "tensor1", 2)
    t2 = tensor_arg(tensor2, name, "tensor2", 3)
    if not is_number(value):
        raise ScriptError(f"{name}(): argument 'value' must be Number, not "
                          f"{type(value).__name__}", kind="TypeError")
    if name == "addcdiv" and not t1.dtype.is_floating_point \
            and not t2.dtype.is_floating_point:
        raise ScriptError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    check_numel(broadcast_shape(broadcast_shape(x.shape, t1.shape), t2.shape))
    return (x, t1, t2), {"value": value}


def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (AddcmulBackward0)."""
    return _record(O.ADDCMUL, *_three("addcmul", input, tensor1, tensor2, value))


def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (AddcdivBackward0)."""
    return _record(O.ADDCDIV, *_three("addcdiv", input, tensor1, tensor2, value))


def addcmul_(self: Tensor, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """In-place ``addcmul``."""
    args, params = _three("addcmul_", self, tensor1, tensor2, value)
    return apply_inplace(O.ADDCMUL, self, args[1:], params)


def addcdiv_(self: Tensor, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """In-place ``addcdiv``."""
    args, params = _three("addcdiv", self, tensor1, tensor2, value)
    return apply_inplace(O.ADDCDIV, self, args[1:], params)


def diff(input: Any, n: int = 1, dim: int = -1, prepend: Any = None,
         append: Any = None) -> Tensor:
    """The n-th forward difference along ``dim``: ``x[1:] - x[:-1]`` n times, recorded as
    PyTorch's SubBackward0 over two SliceBackward0 (logical_xor for bool)."""
    x = tensor_arg(input, "diff")
    for arg, value in (("n", n), ("dim", dim)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScriptError(f"diff(): argument '{arg}' must be int, not "
                              f"{type(value).__name__}", kind="TypeError")
    if not x.ndim:
        raise ScriptError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise ScriptError(f"order must be non-negative but got {n}")
    d = dim_arg(dim, x.ndim)
    for arg, t in (("prepend", prepend), ("append", append)):
        if t is not None:
            if t.__class__ is not Tensor:
                raise ScriptError(f"diff(): argument '{arg}' must be Tensor, not "
                                  f"{type_name(t)}", kind="TypeError")
            if t.ndim != x.ndim:
                raise ScriptError("diff expects prepend or append to be the same dimension as "
                                  "input")
    if prepend is not None or append is not None:
        x = cat([t for t in (prepend, x, append) if t is not None], d)
    lead = (slice(None),) * d
    for _ in range(min(n, x.shape[d])):
        length = x.shape[d] - 1
        hi = getitem(x, (*lead, slice(1, 1 + length)))
        lo = getitem(x, (*lead, slice(0, length)))
        x = logical_xor(hi, lo) if x.dtype is D.BOOL else _record(O.SUB, (hi, lo))
    return x


# --- in place -----------------------------------------------------------------------------------
def _inplace_binary(op: O.Op, scalar_op: O.Op | None) -> Callable[..., Tensor]:
    """``x.<op>_(other)``: the same node as the function, recorded in place."""
    name = op.name + "_"

    def fn(self: Tensor, other: Any) -> Tensor:
        if other.__class__ is Tensor:
            broadcast_check(self, other)
            return apply_inplace(op, self, (other,))
        if scalar_op is not None and is_number(other):
            return apply_inplace(scalar_op, self, (), {"other": other})
        if scalar_op is None:
            raise ScriptError(f"{name}(): argument 'other' (position 1) must be Tensor, not "
                              f"{type_name(other)}", kind="TypeError")
        raise _invalid(name, (self, other), _TENSOR_OR_NUMBER)

    fn.__name__ = name
    fn.__doc__ = f"In-place ``{op.name}`` ({op.grad_fn})."
    return fn


def _inplace_bound(op: O.Op, bound: str) -> Callable[..., Tensor]:
    """``x.clamp_min_(v)`` / ``x.clamp_max_(v)`` with a number."""
    def fn(self: Tensor, value: Any) -> Tensor:
        if not is_number(value):
            raise ScriptError(f"{op.name}_(): argument '{bound}' must be Number, not "
                              f"{type_name(value)}", kind="TypeError")
        return apply_inplace(op, self, (), {bound: value})

    fn.__name__ = op.name + "_"
    fn.__doc__ = f"In-place ``{op.name}`` ({op.grad_fn})."
    return fn


def nan_to_num_(self: Tensor, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Tensor:
    """In-place ``nan_to_num`` (NanToNumBackward0)."""
    for arg, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if v is not None and not is_number(v):
            raise ScriptError(f"nan_to_num_(): argument '{arg}' must be float, not "
                              f"{type_name(v)}", kind="TypeError")
    return apply_inplace(O.NAN_TO_NUM, self, (), {"nan": nan, "posinf": posinf,
                                                    "neginf": neginf})


def cumsum_(self: Tensor, dim: Any) -> Tensor:
    """In-place ``cumsum`` (CumsumBackward0)."""
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise ScriptError(f"cumsum_(): argument 'dim' (position 1) must be int, not "
                          f"{type_name(dim)}", kind="TypeError")
    return apply_inplace(O.CUMSUM, self, (), {"dim": dim_arg(dim, self.ndim), "reverse": False})


FUNCTIONS: dict[str, Callable[..., Any]] = {fn.__name__: fn for fn in (
    arctan2, hypot, logaddexp, fmod, copysign, xlogy, lerp, addcmul, addcdiv, diff)}
FUNCTIONS["arctan2"] = arctan2
INPLACE: dict[str, Callable[..., Any]] = {fn.__name__: fn for fn in (
    lerp_, addcmul_, addcdiv_, nan_to_num_, cumsum_,
    _inplace_binary(O.FMOD, O.FMOD_SCALAR), _inplace_binary(O.COPYSIGN, O.COPYSIGN_SCALAR),
    _inplace_binary(O.XLOGY, O.XLOGY_OTHER_NUMBER), _inplace_binary(O.ATAN2, None),
    _inplace_binary(O.HYPOT, None), _inplace_bound(O.CLAMP_MIN, "min"),
    _inplace_bound(O.CLAMP_MAX, "max"))}
