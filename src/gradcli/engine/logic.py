"""Comparisons, logic and tests of values as PyTorch dispatches them: ``eq`` ... ``ge`` and their
operators, ``logical_*``, ``any``/``all``, ``count_nonzero``, ``isnan``/``isinf``/``isfinite``
and the bitwise functions and operators.  Their results are bool or integer tensors: never
recorded, never differentiable (PyTorch records no node for them either)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from .args import broadcast_check, is_number, tensor_arg, type_name
from .reductions import dims_arg, keepdim_arg
from .tensor import Tensor, vmap_from


def _invalid(name: str, args: tuple, overloads: tuple[str, ...]) -> ScriptError:
    """PyTorch's "invalid combination of arguments" for a call no overload takes."""
    got = ", ".join(type_name(a) for a in args)
    lines = "".join(f" * ({o})\n" for o in overloads)
    return ScriptError(f"{name}() received an invalid combination of arguments - got ({got}), "
                       f"but expected one of:\n{lines}", kind="TypeError")


def _bool_tensor(x: Tensor, data: Any) -> Tensor:
    be = x.backend
    return vmap_from(Tensor(be.astype(be.xp.asarray(data), D.BOOL), be), x)


# --- comparisons --------------------------------------------------------------------------------
_TENSOR_OR_NUMBER = ("Tensor input, Tensor other, *, Tensor out = None",
                     "Tensor input, Number other, *, Tensor out = None")


def _comparison(name: str, fn: Callable[[Any, Any], Any]) -> tuple[Callable, Callable]:
    """``torch.<name>(input, other)`` (also ``x.<name>(other)``) and its operator."""

    def compare(self: Tensor, other: Any) -> Any:
        given = other
        if other.__class__ is Tensor:
            broadcast_check(self, other)
            other = other.data
        elif not is_number(other):
            return NotImplemented
        return vmap_from(Tensor(fn(self.data, other), self.backend), self, given)

    def function(input: Any, other: Any) -> Tensor:
        if input.__class__ is not Tensor:
            raise _invalid(name, (input, other), _TENSOR_OR_NUMBER)
        out = compare(input, other)
        if out is NotImplemented:
            raise _invalid(name, (input, other), _TENSOR_OR_NUMBER)
        return out

    function.__name__ = name
    function.__doc__ = f"``input {name} other`` elementwise, a bool tensor."
    return function, compare


eq, _eq = _comparison("eq", operator.eq)
ne, _ne = _comparison("ne", operator.ne)
lt, _lt = _comparison("lt", operator.lt)
le, _le = _comparison("le", operator.le)
gt, _gt = _comparison("gt", operator.gt)
ge, _ge = _comparison("ge", operator.ge)


# --- logic --------------------------------------------------------------------------------------
def _truth(x: Tensor) -> Any:
    """Each element's truth value (nonzero; NaN is true)."""
    return x.data if x.dtype is D.BOOL else x.data != 0


def _logical(name: str, fn: Callable[[Any, Any], Any]) -> Callable:
    def function(input: Any, other: Any) -> Tensor:
        a = tensor_arg(input, name)
        b = tensor_arg(other, name, "other", 2)
        broadcast_check(a, b)
        return _bool_tensor(a, fn(_truth(a), _truth(b)))

    function.__name__ = name
    function.__doc__ = f"Elementwise {name[8:]} of the tensors' truth values (a bool tensor)."
    return function


logical_and = _logical("logical_and", operator.and_)
logical_or = _logical("logical_or", operator.or_)
logical_xor = _logical("logical_xor", operator.ne)


def logical_not(input: Any) -> Tensor:
    """Elementwise not of the truth values (a bool tensor)."""
    x = tensor_arg(input, "logical_not")
    return _bool_tensor(x, ~_truth(x))


def _quantifier(name: str) -> Callable:
    def function(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
        x = tensor_arg(input, name)
        xp = x.backend.xp
        keepdim_arg(name, keepdim)
        dims = dims_arg(name, dim, x.ndim)
        data = xp.asarray(_truth(x))
        if dim is not None and not x.ndim:  # dim 0 or -1 of a 0-d tensor: itself
            return _bool_tensor(x, data)
        return _bool_tensor(x, getattr(xp, name)(data, axis=dims, keepdims=keepdim))

    function.__name__ = name
    function.__doc__ = (f"Whether {name} elements are true (nonzero), of everything or over "
                        "``dim`` (a bool tensor).")
    return function


any = _quantifier("any")
all = _quantifier("all")


def count_nonzero(input: Any, dim: Any = None) -> Tensor:
    """The number of nonzero elements, of everything or over ``dim`` (int64)."""
    x = tensor_arg(input, "count_nonzero")
    be = x.backend
    xp = be.xp
    dims = dims_arg("count_nonzero", dim, x.ndim)
    count = xp.sum(xp.astype(xp.asarray(_truth(x)), xp.int64), axis=dims)
    return vmap_from(Tensor(be.astype(xp.asarray(count), D.INT64), be), x)


def _value_test(name: str, test: str, integral: bool) -> Callable:
    def function(input: Any) -> Tensor:
        x = tensor_arg(input, name)
        xp = x.backend.xp
        if not x.dtype.is_floating_point:  # integers are finite numbers
            return _bool_tensor(x, xp.full(x.shape, integral, dtype=xp.bool))
        return _bool_tensor(x, getattr(xp, test)(x.data))

    function.__name__ = name
    function.__doc__ = f"Elementwise ``{test}`` (a bool tensor)."
    return function


isnan = _value_test("isnan", "isnan", False)
isinf = _value_test("isinf", "isinf", False)
isfinite = _value_test("isfinite", "isfinite", True)


# --- bitwise ------------------------------------------------------------------------------------
def _check_bitwise(x: Tensor, name: str) -> None:
    if x.dtype.is_floating_point:
        raise D.kernel_error(f"{name}_cpu", x.dtype)


def _bitwise(name: str, fn: Callable[[Any, Any], Any]) -> tuple[Callable, Callable, Callable]:
    """``torch.bitwise_<op>`` and the operator and reflected operator (``&``, ``|``, ``^``)."""

    def compute(a: Tensor, b: Any) -> Tensor:
        given = b
        if b.__class__ is Tensor:
            broadcast_check(a, b)
            _check_bitwise(a, name)
            _check_bitwise(b, name)
            b = b.data
        else:
            _check_bitwise(a, name)
            if isinstance(b, float):
                raise D.kernel_error(f"{name}_cpu", "Float")
        be = a.backend
        xp = be.xp
        if b.__class__ is int and a.dtype is not D.BOOL:  # in the tensor's dtype, wrapping
            b = xp.astype(xp.asarray(b, dtype=xp.int64), xp.asarray(a.data).dtype)
        out = xp.asarray(fn(be.writable(a.data), b))
        return vmap_from(Tensor(be.astype(out, be.from_native(out.dtype)), be), a, given)

    def function(input: Any, other: Any) -> Tensor:
        if input.__class__ is not Tensor or (other.__class__ is not Tensor
                                             and not is_number(other)):
            raise _invalid(name, (input, other), _TENSOR_OR_NUMBER)
        return compute(input, other)

    def op(self: Tensor, other: Any) -> Any:
        return compute(self, other) if other.__class__ is Tensor or is_number(other) \
            else NotImplemented

    def rop(self: Tensor, other: Any) -> Any:
        return compute(self, other) if is_number(other) else NotImplemented

    function.__name__ = name
    function.__doc__ = f"Elementwise ``{name}`` of bool or integer tensors."
    return function, op, rop


bitwise_and, _and, _rand = _bitwise("bitwise_and", operator.and_)
bitwise_or, _or, _ror = _bitwise("bitwise_or", operator.or_)
bitwise_xor, _xor, _rxor = _bitwise("bitwise_xor", operator.xor)


def bitwise_not(input: Any) -> Tensor:
    """Elementwise ``~`` of a bool or integer tensor."""
    x = tensor_arg(input, "bitwise_not")
    _check_bitwise(x, "bitwise_not")
    be = x.backend
    return vmap_from(Tensor(be.astype(be.xp.asarray(~be.writable(x.data)), x.dtype), be), x)


def _invert(self: Tensor) -> Tensor:
    if self.dtype.is_floating_point:
        raise ScriptError("~ (operator.invert) is only implemented on integer and Boolean-type "
                          "tensors", kind="TypeError")
    return bitwise_not(self)


FUNCTIONS: dict[str, Callable[..., Any]] = {fn.__name__: fn for fn in (
    eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor, logical_not, any, all,
    count_nonzero, isnan, isinf, isfinite, bitwise_and, bitwise_or, bitwise_xor, bitwise_not)}
# torch.greater and the other long names are aliases
FUNCTIONS.update({"greater": gt, "greater_equal": ge, "less": lt, "less_equal": le,
                  "not_equal": ne})
OPERATORS: dict[str, Any] = {
    "__lt__": _lt, "__le__": _le, "__gt__": _gt, "__ge__": _ge, "__eq__": _eq, "__ne__": _ne,
    "__and__": _and, "__rand__": _rand, "__or__": _or, "__ror__": _ror, "__xor__": _xor,
    "__rxor__": _rxor, "__invert__": _invert,
}
