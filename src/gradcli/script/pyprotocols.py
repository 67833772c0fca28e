"""Python's protocols as a script's values follow them, for the interpreter and the built-ins:
iteration (``items_of``; ``counted`` and ``materialise`` take a step of the run per item and
bound what they build as lists are, docs/commands.md), ``operator.index`` and truth; and how a built-in
is declared (``needs_interpreter``, its name, ``fail`` for Python's errors).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

from numpy import ndarray

from ..engine import Tensor
from ..engine.backend import NUMPY_CLASSES
from ..errors import ScriptError
from .printing import DICT_VIEWS, type_name
from .values import MAX_SEQUENCE, too_long


def needs_interpreter(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a built-in that is called with the interpreter as its first argument."""
    fn.needs_interpreter = True  # type: ignore[attr-defined]
    return fn


def _named(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def name_it(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__name__ = fn.__qualname__ = name
        return fn
    return name_it


def fail(message: str, kind: str = "TypeError") -> ScriptError:
    """A script-level error of Python's kind."""
    return ScriptError(message, kind=kind)


# ---- iteration ----------------------------------------------------------------------------------
_ITERABLE = (list, tuple, str, dict, set, frozenset, range)



def items_of(v: Any) -> Iterator[Any]:
    """``iter(v)`` for a script's value; a tensor gives its sub-tensors along dimension 0."""
    if isinstance(v, _ITERABLE):
        return iter(v)
    if isinstance(v, Tensor):
        return iter(v)  # Tensor.__iter__: unbind(0), UnbindBackward0, as PyTorch
    if is_iterator(v):  # zip, map, generators, itertools' iterators
        return v
    if v.__class__ is ndarray:  # its rows (NumPy's error for a 0-d array)
        from ..api.numpy_arrays import iterate

        return iterate(v)
    if type(v).__name__ in DICT_VIEWS or \
            getattr(type(v), "script_sequence", False):  # nn.Sequential
        return iter(v)
    raise fail(f"'{type_name(v)}' object is not iterable")


def is_iterator(v: Any) -> bool:
    """Whether ``v`` is one of Python's iterators a script may hold (a generator, zip, map,
    an itertools iterator, a deque's)."""
    return hasattr(v, "__next__") and type(v).__module__ in ("builtins", "itertools",
                                                              "_collections")


def counted(interp: Any, v: Any) -> Iterator[Any]:
    """The items of ``v``, each one a step of the run."""
    for x in items_of(v):
        interp.tick()
        yield x


def materialise(interp: Any, v: Any) -> list:
    """The items of ``v`` as a list, within the size limit."""
    if isinstance(v, (list, tuple, str, dict, set, range)) and len(v) > MAX_SEQUENCE:
        raise too_long(len(v))
    out = []
    for x in counted(interp, v):
        out.append(x)
        if len(out) > MAX_SEQUENCE:
            raise too_long(len(out))
    return out


def as_index(v: Any, what: str = "an integer") -> int:
    """``operator.index(v)``: ints and bools, and one-element integer tensors (PyTorch)."""
    if v.__class__ is int or v.__class__ is bool:
        return v
    if v.__class__ in NUMPY_CLASSES and v.dtype.kind in "iu":  # np.int64, a 0-d int array
        return operator.index(v)
    if isinstance(v, Tensor):
        index = getattr(v, "__index__", None)
        if index is None:
            raise fail("only integer tensors of a single element can be converted to an index")
        return index()
    raise fail(f"'{type_name(v)}' object cannot be interpreted as {what}")


def truth(v: Any) -> bool:
    """``bool(v)`` (a tensor by its single value, as PyTorch; an array by NumPy's rule)."""
    try:
        return bool(v)
    except ValueError as exc:  # NumPy: "The truth value of an array with more than one ..."
        raise fail(str(exc), "ValueError") from None
