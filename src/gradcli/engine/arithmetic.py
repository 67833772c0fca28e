"""Tensor arithmetic as PyTorch dispatches it, with PyTorch's error messages: ``x * 2`` is
``mul(x, wrapped 2)`` (the Scalar overload when a formula records it), ``1 - x`` is ``rsub``,
``2 / x`` is ``reciprocal`` then ``mul``, pow's three overloads, clamp; and the in-place forms
(``add_`` ..., each bumping the version counter)."""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from . import ops as O
from .args import broadcast_check, is_number, tensor_arg, type_name
from .context import current
from .record import apply, apply_inplace
from .shape import _elementwise, _record
from .tensor import Tensor


def _binary(op: Any, a: Any, b: Any, name: str, params: dict | None = None) -> Tensor:
    if a.__class__ is not Tensor:
        tensor_arg(a, name)
    if b.__class__ is not Tensor and not is_number(b):
        raise ScriptError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                          f"{type_name(b)}", kind="TypeError")
    broadcast_check(a, b)
    return _record(op, (a, b)) if params is None else _record(op, (a, b), params)


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


def _with_alpha(op: Any, alpha_op: Any, name: str, method: bool) -> Any:
    """``torch.add``/``torch.sub`` (``method``: ``Tensor.add``/``Tensor.sub``): ``input + alpha *
    other``, and the deprecated ``(Number alpha, other)`` order of older code (deprecated)."""
    def fn(input: Any, other: Any, *more: Any, alpha: Any = _UNSET) -> Tensor:
        if more:
            other, alpha = _deprecated(name, other, more, alpha, method)
        elif alpha is _UNSET:
            alpha = 1
        if alpha.__class__ is int and alpha == 1:
            return _arith(op, input, other, name)
        _alpha_check(input, other, alpha, name)
        return _binary(alpha_op, input, other, name, {"alpha": alpha})

    fn.__name__ = name
    fn.__doc__ = f"``input {'+' if op is O.ADD else '-'} alpha * other``."
    return fn


_UNSET = object()  # no alpha given (the deprecated order takes none)


def _deprecated(name: str, alpha: Any, more: tuple, given: Any, method: bool) -> tuple:
    """(other, alpha) of a call in the deprecated order ``(Number alpha, other)`` (other a
    tensor or a number), warned as python_arg_parser warns; PyTorch's TypeError for another
    third positional argument, or an alpha given as well."""
    if len(more) == 1 and is_number(alpha) and (more[0].__class__ is Tensor or
                                                 is_number(more[0])):
        if given is not _UNSET:
            if method:
                raise ScriptError(f"{name}() received an invalid combination of arguments - got "
                                  "unrecognized keyword arguments: alpha", kind="TypeError")
        else:
            _deprecated_overload(name, method)
            return more[0], alpha
    if method and len(more) > 1:  # python_arg_parser: no signature takes three
        got = ", ".join(f"!{'Tensor' if v.__class__ is Tensor else type_name(v)}!"
                        for v in (alpha, *more))
        raise ScriptError(f"{name}() received an invalid combination of arguments - got ({got}), "
                          "but expected (Tensor other, *, Number alpha = 1)", kind="TypeError")
    taken = 1 if method else 2
    raise ScriptError(f"{name}() takes {taken} positional argument{'s' if taken > 1 else ''} "
                      f"but {taken + len(more)} were given", kind="TypeError")


add = _with_alpha(O.ADD, O.ADD_ALPHA, "add", False)
sub = _with_alpha(O.SUB, O.SUB_ALPHA, "sub", False)
add_method = _with_alpha(O.ADD, O.ADD_ALPHA, "add", True)
sub_method = _with_alpha(O.SUB, O.SUB_ALPHA, "sub", True)


def _alpha_check(input: Any, other: Any, alpha: Any, name: str) -> None:
    """ATen's alpha_check on the result's kind (floating when either operand is)."""
    if not is_number(alpha):
        raise ScriptError(f"{name}(): argument 'alpha' must be Number, not {type_name(alpha)}",
                          kind="TypeError")
    dtypes = [x.dtype for x in (input, other) if x.__class__ is Tensor]
    floating = other.__class__ is float or any(d.is_floating_point for d in dtypes)
    boolean = not floating and other.__class__ is not int and \
        all(d.name == "bool" for d in dtypes)
    if alpha.__class__ is bool and not boolean:
        raise ScriptError("Boolean alpha only supported for Boolean results.")
    if not floating and alpha.__class__ is float:
        raise ScriptError("For integral input tensors, argument alpha must not be a floating "
                          "point number.")


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


# --- in-place -----------------------------------------------------------------------------------
def _inplace(op: Any, name: str) -> Any:
    def fn(self: Tensor, other: Any) -> Tensor:
        _inplace_other(self, other, name)
        return apply_inplace(op, self, (other,))

    fn.__name__ = name
    fn.__doc__ = f"In-place {name} (bumps the version counter)."
    return fn


def _inplace_alpha(op: Any, alpha_op: Any, name: str) -> Any:
    def fn(self: Tensor, other: Any, *more: Any, alpha: Any = _UNSET) -> Tensor:
        if more:  # the deprecated add_(Number alpha, Tensor other) of old tutorials
            other, alpha = _deprecated(name, other, more, alpha, True)
        elif alpha is _UNSET:
            alpha = 1
        _inplace_other(self, other, name)
        if alpha.__class__ is int and alpha == 1:
            return apply_inplace(op, self, (other,))
        _alpha_check(self, other, alpha, name)
        return apply_inplace(alpha_op, self, (other,), {"alpha": alpha})

    fn.__name__ = name
    fn.__doc__ = f"In-place {name}, ``alpha`` times other (bumps the version counter)."
    return fn


def _deprecated_overload(name: str, method: bool = True) -> None:
    """python_arg_parser's warning for a deprecated signature: once a process, whichever
    deprecated signature is called first (one flag for all of them); a method's signature
    without self, a function's with input and out."""
    ctx = current()
    if _DEPRECATED not in ctx.warned_once:
        ctx.warned_once.add(_DEPRECATED)
        if method:
            old, new = "Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"
        else:
            old = "Tensor input, Number alpha, Tensor other, *, Tensor out = None"
            new = "Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None"
        ctx.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one "
                 f"of the following signatures instead:\n\t{name}({new})")


_DEPRECATED = "python_arg_parser: a deprecated signature"  # (warned_once's key for all)


def _inplace_other(self: Tensor, other: Any, name: str) -> None:
    if other.__class__ is not Tensor and not is_number(other):
        raise ScriptError(f"{name}(): argument 'other' must be Tensor or Number, not "
                          f"{type_name(other)}", kind="TypeError")
    broadcast_check(self, other)


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


add_ = _inplace_alpha(O.ADD, O.ADD_ALPHA, "add_")
sub_ = _inplace_alpha(O.SUB, O.SUB_ALPHA, "sub_")
mul_ = _inplace(O.MUL, "mul_")
div_ = _inplace(O.DIV, "div_")


def floor_divide_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self // other``."""
    if is_number(other):
        return apply_inplace(O.FLOOR_DIVIDE_SCALAR, self, (), {"other": other})
    broadcast_check(self, other)
    return apply_inplace(O.FLOOR_DIVIDE, self, (other,))
