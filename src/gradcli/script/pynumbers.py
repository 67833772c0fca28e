"""Python's built-in number types and functions as a script calls them, with CPython's messages:
``int``, ``float``, ``bool``, ``abs``, ``round``, ``divmod``, ``pow``, ``chr``, ``ord``, ``bin``,
``hex``, ``oct`` (a tensor where PyTorch takes one)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import Tensor
from ..engine.backend import NUMPY_CLASSES
from .printing import type_name
from .pyprotocols import _named, as_index, fail, truth
from .values import arith


def _numpy_number(kind: type, x: Any) -> Any:
    """``float(x)``/``int(x)`` of a NumPy value through NumPy's gate: its errors, and its
    warning for a complex one (ComplexWarning), as the script's."""
    from ..api.numpy_values import run

    return run(kind, (x,), {}, kind.__name__, warns=True, result=False)


@_named("float")
def float_(x: Any = 0.0) -> float:
    """``float(x)``: numbers, numeric strings, one-element tensors, NumPy's numbers."""
    if isinstance(x, (int, float, str, Tensor)) or x.__class__ in NUMPY_CLASSES:
        if isinstance(x, str) and len(x) > 10_000:
            raise fail(f"could not convert string to float: {x[:20]!r}...", "ValueError")
        if x.__class__ in NUMPY_CLASSES:
            return _numpy_number(float, x)
        try:
            return float(x)
        except (ValueError, OverflowError, TypeError) as exc:  # TypeError: NumPy's
            raise fail(str(exc), type(exc).__name__) from None
    raise fail(f"float() argument must be a string or a real number, not '{type_name(x)}'")


@_named("int")
def int_(x: Any = 0, base: Any = None) -> int:
    """``int(x)`` and ``int(text, base)``."""
    if base is not None:
        if not isinstance(x, str):
            raise fail("int() can't convert non-string with explicit base")
        try:
            return int(x, as_index(base))
        except ValueError as exc:
            raise fail(str(exc), "ValueError") from None
    if isinstance(x, (int, float, str, Tensor)) or x.__class__ in NUMPY_CLASSES:
        if x.__class__ in NUMPY_CLASSES:
            return _numpy_number(int, x)
        try:
            return int(x)
        except (ValueError, OverflowError, TypeError) as exc:  # TypeError: NumPy's
            raise fail(str(exc), type(exc).__name__) from None
    raise fail("int() argument must be a string, a bytes-like object or a real number, not "
               f"'{type_name(x)}'")


@_named("bool")
def bool_(x: Any = False) -> bool:
    """``bool(x)``."""
    return truth(x)


@_named("abs")
def abs_(x: Any) -> Any:
    """``abs(x)``; a tensor's is ``torch.abs`` (AbsBackward0), as ``Tensor.__abs__``."""
    if isinstance(x, Tensor):
        return x.abs()
    if isinstance(x, (int, float)) or x.__class__ in NUMPY_CLASSES:
        return abs(x)
    raise fail(f"bad operand type for abs(): '{type_name(x)}'")


@_named("round")
def round_(number: Any, ndigits: Any = None) -> Any:
    """``round(number, ndigits)``."""
    if isinstance(number, Tensor):
        raise fail("type Tensor doesn't define __round__ method")
    if not isinstance(number, (int, float)) and number.__class__ not in NUMPY_CLASSES:
        raise fail(f"type {type_name(number)} doesn't define __round__ method")
    try:
        return round(number) if ndigits is None else round(number, as_index(ndigits))
    except (OverflowError, ValueError, TypeError) as exc:  # TypeError: NumPy's
        raise fail(str(exc), type(exc).__name__) from None


@_named("divmod")
def divmod_(a: Any, b: Any) -> tuple:
    """``divmod(a, b)``."""
    return (arith("//", a, b), arith("%", a, b))


@_named("pow")
def pow_(base: Any, exp: Any, mod: Any = None) -> Any:
    """``pow(base, exp[, mod])``."""
    if mod is None:
        return arith("**", base, exp)
    try:
        return pow(as_index(base), as_index(exp), as_index(mod))
    except (ValueError, ZeroDivisionError) as exc:
        raise fail(str(exc), type(exc).__name__) from None


@_named("chr")
def chr_(i: Any) -> str:
    """``chr(i)``."""
    try:
        return chr(as_index(i))
    except (ValueError, OverflowError) as exc:
        raise fail(str(exc), type(exc).__name__) from None


@_named("ord")
def ord_(c: Any) -> int:
    """``ord(c)``."""
    if not isinstance(c, str):
        raise fail(f"ord() expected string of length 1, but {type_name(c)} found")
    try:
        return ord(c)
    except TypeError as exc:
        raise fail(str(exc)) from None


def _radix(name: str, fn: Callable[[int], str]) -> Callable[[Any], str]:
    @_named(name)
    def convert(x: Any) -> str:
        return fn(as_index(x))
    convert.__doc__ = f"``{name}(x)``."
    return convert
