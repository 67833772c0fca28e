"""Calling what is not a script's own function: built-ins, Python's methods, the api's
functions, with Python's and PyTorch's errors as script errors; and small helpers of the
interpreter's statements (imports, ``--set`` overrides, unpacking).
"""

from __future__ import annotations

import re
import types
from typing import Any

from numpy import ndarray

from ..api.namespace import import_module
from ..api.types import TypeObject
from ..engine.backend import NUMPY_CLASSES
from ..engine.tensor import Tensor
from ..errors import ScriptError
from ..language import program as P
from ..limits import MAX_DIMS
from .hints import did_you_mean
from .pyprotocols import items_of
from .values import numpy_protocols

_MAPPED = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, OverflowError,
           StopIteration)


def call_builtin(fn: Any, args: list, kwargs: dict, interp: Any, where: Any) -> Any:
    """Call a built-in (with the interpreter first if it needs it); its errors as script errors."""
    # fn.needs_interpreter (pyprotocols.needs_interpreter), read from a function's __dict__:
    # getattr with a default raises and catches an AttributeError when the name is missing,
    # about 0.4 us for a bound method. Any other callable's class decides (never the object
    # itself: a script's object may have an attribute of that name).
    inner = fn.__func__ if fn.__class__ is _METHOD else fn
    needs_interp = inner.__dict__.get("needs_interpreter", False) \
        if inner.__class__ is _FUNCTION else getattr(inner.__class__, "needs_interpreter", False)
    if not needs_interp:
        # a built-in that needs the interpreter handed to the api as a value (x.register_hook(
        # print), jacobian(repr, x)): the api calls it as Python calls a function
        numbers = False
        for k, a in enumerate(args):
            cls = type(a)
            if cls is _FUNCTION and getattr(a, "needs_interpreter", False):
                args = [*args[:k], bound_builtin(a, interp), *args[k + 1:]]
            elif cls in NUMPY_CLASSES:
                numbers = True
        if numbers or kwargs and any(v.__class__ in NUMPY_CLASSES for v in kwargs.values()):
            args, kwargs = _numpy_numbers(fn, args, kwargs)
        if kwargs:
            kwargs = {k: bound_builtin(v, interp) if v.__class__ is _FUNCTION and
                      getattr(v, "needs_interpreter", False) else v for k, v in kwargs.items()}
            if not _NUMPY_NAMES.keys().isdisjoint(kwargs):
                kwargs = _pytorch_names(fn, kwargs)
    try:
        out = fn(interp, *args, **kwargs) if needs_interp else fn(*args, **kwargs)
        if interp.recorder is not None and out.__class__ is Tensor:
            interp.recorder.opaque(out, fn, args)
        return out
    except _MAPPED as exc:
        # Argument-binding errors and Python's own methods' errors (lst.index(9)): built-ins
        # raise ScriptError for bad values themselves.
        kind = type(exc).__name__
        if kind == "ValueError" and "maximum supported dimension" in str(exc):
            raise too_many_dims(exc) from None
        if kind == "KeyError":
            err = ScriptError(repr(exc.args[0]) if exc.args else "", kind=kind)
            err.pyargs = exc.args  # type: ignore[attr-defined]
            raise err from None
        message = str(exc)
        hint = None
        if kind == "TypeError":
            name = where.id if where.__class__ is P.Name else \
                where.attr if where.__class__ is P.Attribute else getattr(fn, "__name__", "")
            message = _binding_message(message, name, needs_interp)
            unknown = re.search(r"unexpected keyword argument '(\w+)'", message)
            if unknown:
                hint = did_you_mean(unknown.group(1), _parameters(fn))
        raise ScriptError(message, kind=kind, hint=hint) from None
    except RecursionError:
        raise ScriptError("maximum recursion depth exceeded", kind="RecursionError") from None


_FUNCTION = types.FunctionType
_METHOD = types.MethodType


def _numpy_numbers(fn: Any, args: list, kwargs: dict) -> tuple[list, dict]:
    """PyTorch takes NumPy's scalars where it takes Python's numbers (``torch.full((2,),
    np.float64(1.5))``, ``lr=np.float32(0.1)``): theirs for a function of the PyTorch surface
    (not ``torch.tensor``'s data, which keeps its dtype, nor NumPy's own functions; a class's
    maker says it for the class: ``torch.Tensor``)."""
    maker = fn.make if fn.__class__ is TypeObject else fn
    if not _torch_surface(fn) or getattr(maker, "takes_numpy", False):
        return args, kwargs

    def number(v: Any) -> Any:
        if v.__class__ not in NUMPY_CLASSES or v.__class__ is ndarray:
            return v
        if v.dtype.kind == "c":  # gradcli's tensors are real
            raise numpy_protocols().complex_scalar(v)
        return v.item()

    return [number(a) for a in args], {k: number(v) for k, v in kwargs.items()}


def _torch_surface(fn: Any) -> bool:
    """Whether ``fn`` is a function of gradcli's PyTorch surface (the api's or the engine's)."""
    module = getattr(fn, "__module__", None) or ""
    return module.startswith(("gradcli.api", "gradcli.engine")) and \
        not module.startswith("gradcli.api.numpy_")


# PyTorch's argument parser takes NumPy's names for four parameters (python_arg_parser.cpp's
# numpy_compatibility_arg_names): x.sum(axis=1, keepdims=True), torch.max(x, axis=0).
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input",
                "x1": "input", "x2": "other"}


def _pytorch_names(fn: Any, kwargs: dict) -> dict:
    """``kwargs`` with NumPy's names as PyTorch's, for a function of the PyTorch surface whose
    parameter has the PyTorch name (and no parameter of the NumPy name)."""
    if not _torch_surface(fn):
        return kwargs
    params = _parameters(fn)
    out = {}
    for k, v in kwargs.items():
        name = _NUMPY_NAMES.get(k)
        out[name if name in params and k not in params and name not in kwargs else k] = v
    return out


def bound_builtin(fn: Any, interp: Any) -> Any:
    """An interpreter built-in as a plain callable: ``fn(*args)`` calls ``fn(interp, *args)``."""
    def bound(*args: Any, **kwargs: Any) -> Any:
        return call_builtin(fn, list(args), kwargs, interp, None)

    bound.__name__ = getattr(fn, "__name__", "builtin")
    return bound


def too_many_dims(exc: Exception) -> ScriptError:
    """NumPy's array-rank limit as gradcli's error."""
    found = re.search(r"found (\d+)", str(exc))
    return ScriptError(f"a tensor can have at most {MAX_DIMS} dimensions in gradcli"
                       f"{', not ' + found.group(1) if found else ''} (NumPy's limit; PyTorch "
                       "allows more)")


_QUALNAME = re.compile(r"^[\w.<>]+\(\)")
_COUNTS = re.compile(r"takes (\d+) positional arguments? but (\d+) (?:was|were) given")


def _binding_message(message: str, name: str, needs_interp: bool) -> str:
    """Python's argument-binding message with the name the script called, not the function's
    internal qualified name (``_extreme.<locals>.fn()``), and the interpreter argument of
    interpreter built-ins not counted."""
    if name:
        message = _QUALNAME.sub(f"{name}()", message, count=1)
    if needs_interp:
        def fix(m: re.Match) -> str:
            takes, given = int(m.group(1)) - 1, int(m.group(2)) - 1
            return (f"takes {takes} positional argument{'' if takes == 1 else 's'} but {given} "
                    f"{'was' if given == 1 else 'were'} given")
        message = _COUNTS.sub(fix, message)
    return message


def _parameters(fn: Any) -> list[str]:
    """A built-in's keyword names, for "did you mean" (none when it has no signature)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and p.name not in ("interp", "self")]


def module_named(dotted: str) -> Any:
    """The module ``import dotted`` binds."""
    module = import_module(dotted)
    if module is None:  # the static check (script.imports) stops this before the run
        raise ScriptError(f"No module named '{dotted}'", kind="ModuleNotFoundError")
    return module


def iterable(value: Any) -> bool:
    """Whether a script can iterate ``value``."""
    try:
        items_of(value)
    except ScriptError:
        return False
    return True


def like_literal(value: Any, original: Any) -> Any:
    """An override value in floats when the literal it replaces was written with floats."""
    def has_float(e: Any) -> bool:
        if e.__class__ is P.Number:
            return e.value.__class__ is float
        if e.__class__ is P.Unary:
            return has_float(e.operand)
        return any(has_float(i) for i in getattr(e, "items", ()))

    def to_float(v: Any) -> Any:
        return [to_float(x) for x in v] if isinstance(v, list) else float(v)

    return to_float(value) if has_float(original) else value


__all__ = ["call_builtin", "iterable", "like_literal", "module_named", "too_many_dims"]
