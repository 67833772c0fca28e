"""What the standard modules share: Python's own implementations called on a script's values
with CPython's messages, the run's steps they spend, and the run's state they keep."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import ScriptError
from ..values import MAX_SEQUENCE, too_long

_PYTHON_ERRORS = (TypeError, ValueError, IndexError, OverflowError, ZeroDivisionError)


def python(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, one of Python's own functions: its errors are the script's, in
    CPython's words (``Random.randint() missing 1 required positional argument: 'b'``)."""
    try:
        return fn(*args, **kwargs)
    except _PYTHON_ERRORS as exc:
        raise ScriptError(str(exc), kind=type(exc).__name__) from None
    except KeyError as exc:
        err = ScriptError(repr(exc.args[0]) if exc.args else "", kind="KeyError")
        err.pyargs = exc.args  # type: ignore[attr-defined]
        raise err from None


def spend(interp: Any, n: int) -> None:
    """Count ``n`` steps of the run for work done in one call (a shuffle of ``n`` items)."""
    if n > MAX_SEQUENCE:
        raise too_long(n)
    for _ in range(n):
        interp.tick()


def run_state(interp: Any, key: str, make: Callable[[], Any]) -> Any:
    """The run's own state of a module (``random``'s generator), made on first use: two runs
    never share it."""
    state = interp.module_state
    value = state.get(key)
    if value is None:
        value = state[key] = make()
    return value


__all__ = ["python", "run_state", "spend"]
