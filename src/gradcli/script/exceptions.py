"""Python's exceptions as a script sees them: ``try/except RuntimeError as e``, ``raise``.

Every error a run raises is a ``GradcliError`` whose ``kind`` names the exception the same
Python program would raise ("RuntimeError", "TypeError", ...). Here those names are classes
of Python's hierarchy (``except LookupError`` catches an ``IndexError``), and a caught error
is an ``ExcValue`` that prints as Python prints the exception.
"""

from __future__ import annotations

from typing import Any

from ..api.types import TypeObject
from ..errors import GradcliError, ScriptError, ScriptExit

# Python's built-in exception hierarchy (the part a script can meet), child: parent.
_HIERARCHY = {
    "BaseException": None,
    "SystemExit": "BaseException",
    "Exception": "BaseException",
    "ArithmeticError": "Exception",
    "ZeroDivisionError": "ArithmeticError",
    "OverflowError": "ArithmeticError",
    "FloatingPointError": "ArithmeticError",
    "AssertionError": "Exception",
    "AttributeError": "Exception",
    "ImportError": "Exception",
    "ModuleNotFoundError": "ImportError",
    "LookupError": "Exception",
    "IndexError": "LookupError",
    "KeyError": "LookupError",
    "MemoryError": "Exception",
    "NameError": "Exception",
    "UnboundLocalError": "NameError",
    "RuntimeError": "Exception",
    "NotImplementedError": "RuntimeError",
    "RecursionError": "RuntimeError",
    "StopIteration": "Exception",
    "TypeError": "Exception",
    "ValueError": "Exception",
    "UnicodeError": "ValueError",
    "Warning": "Exception",
    "UserWarning": "Warning",
    "DeprecationWarning": "Warning",
    "RuntimeWarning": "Warning",
}


def _build() -> dict[str, TypeObject]:
    types: dict[str, TypeObject] = {}
    for name, parent in _HIERARCHY.items():  # parents come before their children
        types[name] = TypeObject(name, (), None, types[parent] if parent else None)
    return types


EXCEPTIONS: dict[str, TypeObject] = _build()


# PyTorch's own exception classes (not Python's built-in names), by their base
_LIBRARY = {"GradcheckError": "RuntimeError", "FrozenInstanceError": "AttributeError"}


def exception_type(kind: str, base: str | None = None) -> TypeObject:
    """The class of an error kind; a kind Python does not have derives from its base (a
    library's exception: ``numpy.linalg.LinAlgError`` from ValueError), else Exception."""
    t = EXCEPTIONS.get(kind)
    if t is None:
        t = EXCEPTIONS[_LIBRARY.get(kind) or base or "Exception"]
        t = _KINDS.setdefault(kind, TypeObject(kind, (), None, t))
    return t


_KINDS: dict[str, TypeObject] = {}  # the same class each time a kind is met


class ExcValue:
    """A raised or caught exception: its class and arguments (``e.args``)."""

    __slots__ = ("args", "type")

    def __init__(self, type_: TypeObject, args: tuple) -> None:
        self.type = type_
        self.args = args

    def message(self, to_str: Any) -> str:
        """``str(e)``: the one argument as a string, nothing, or the tuple of arguments."""
        if not self.args:
            return ""
        if len(self.args) == 1:
            a = self.args[0]
            return repr(a) if self.type.is_subclass(EXCEPTIONS["KeyError"]) and \
                isinstance(a, str) else to_str(a)
        return to_str(self.args)

    def text(self, to_repr: Any) -> str:
        """``repr(e)``: ``RuntimeError('message')``."""
        inner = ", ".join(to_repr(a) for a in self.args)
        return f"{self.type.name}({inner})"


def raise_value(exc: ExcValue, to_str: Any) -> GradcliError:
    """The error that ``raise exc`` raises: it keeps the value, so ``except`` gets it back. A
    SystemExit ends the run with its code (ScriptExit), unless a script catches it."""
    if exc.type is EXCEPTIONS["SystemExit"]:
        code = exc.args[0] if len(exc.args) == 1 else exc.args or None
        err: GradcliError = ScriptExit(code, to_str(code))
    else:
        err = ScriptError(exc.message(to_str), kind=exc.type.name)
    err.pyexc = exc  # type: ignore[attr-defined]
    return err


def value_of(err: GradcliError) -> ExcValue:
    """The exception value a caught error is (made once, so ``e is e`` across a re-raise)."""
    exc = getattr(err, "pyexc", None)
    if exc is None:
        args = getattr(err, "pyargs", None)
        exc = ExcValue(exception_type(err.kind, getattr(err, "pybase", None)),
                       args if args is not None else (err.message,))
        err.pyexc = exc  # type: ignore[attr-defined]
    return exc


def catches(handler: Any, err: GradcliError) -> bool:
    """Whether ``except handler`` catches ``err`` (handler: a class or a tuple of classes)."""
    kinds = handler if isinstance(handler, tuple) else (handler,)
    for k in kinds:
        if not isinstance(k, TypeObject) or not k.is_subclass(EXCEPTIONS["BaseException"]):
            raise ScriptError("catching classes that do not inherit from BaseException is not "
                              "allowed", kind="TypeError")
    exc = value_of(err)
    return any(exc.type.is_subclass(k) for k in kinds)


__all__ = ["EXCEPTIONS", "ExcValue", "catches", "exception_type", "raise_value", "value_of"]
