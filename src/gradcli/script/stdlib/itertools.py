"""Python's ``itertools`` as a script imports it: CPython's own iterators over the script's
iterables, each item they take from one a step of the run (so ``islice(count(), 10**12,
None)`` meets the step limit), a script's function called through the interpreter."""

from __future__ import annotations

import itertools as _python_itertools
from collections.abc import Callable
from typing import Any

from ..pybuiltins import _callable
from ..pyprotocols import counted, items_of, needs_interpreter
from ..values import MAX_SEQUENCE, arith, too_long
from .support import python


def _iterables(interp: Any, iterables: tuple) -> list:
    return [counted(interp, it) for it in iterables]


def _of(name: str, shape: str) -> Callable[..., Any]:
    """``itertools.<name>`` whose iterable arguments are by ``shape``: "all" (``chain``,
    ``product``), "first" (``islice(it, n)``), "second" (``takewhile(pred, it)``)."""
    function = getattr(_python_itertools, name)

    @needs_interpreter
    def call(interp: Any, *args: Any, **kwargs: Any) -> Any:
        if shape == "all":
            args = tuple(_iterables(interp, args))
        elif shape == "first" and args:
            args = (counted(interp, args[0]), *args[1:])
        elif shape == "second" and len(args) > 1:
            predicate = args[0] if args[0] is None else _callable(interp, args[0])
            args = (predicate, counted(interp, args[1]), *args[2:])
        return python(function, *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"CPython's ``itertools.{name}`` over the script's iterables."
    return call


@needs_interpreter
def product(interp: Any, *iterables: Any, repeat: Any = 1) -> Any:
    """``product(*iterables, repeat=1)``: the tuples it makes are as long as a list may be."""
    if isinstance(repeat, int) and len(iterables) * repeat > MAX_SEQUENCE:
        raise too_long(len(iterables) * repeat)
    return python(_python_itertools.product, *_iterables(interp, iterables), repeat=repeat)


@needs_interpreter
def accumulate(interp: Any, iterable: Any, func: Any = None, *, initial: Any = None) -> Any:
    """``accumulate(iterable, func=operator.add, *, initial=None)``: ``+`` is the script's."""
    add = (lambda a, b: arith("+", a, b)) if func is None else _callable(interp, func)
    return python(_python_itertools.accumulate, counted(interp, iterable), add,
                  initial=initial)


@needs_interpreter
def groupby(interp: Any, iterable: Any, key: Any = None) -> Any:
    """``groupby(iterable, key=None)``."""
    return python(_python_itertools.groupby, counted(interp, iterable),
                  None if key is None else _callable(interp, key))


@needs_interpreter
def starmap(interp: Any, function: Any, iterable: Any) -> Any:
    """``starmap(function, iterable)``."""
    return python(_python_itertools.starmap, _callable(interp, function),
                  counted(interp, iterable))


@needs_interpreter
def tee(interp: Any, iterable: Any, n: Any = 2) -> tuple:
    """``tee(iterable, n=2)``."""
    if isinstance(n, int) and n > MAX_SEQUENCE:
        raise too_long(n)
    return python(_python_itertools.tee, counted(interp, iterable), n)


class Chain:
    """``itertools.chain``: callable, with ``chain.from_iterable``."""

    __slots__ = ()
    script_type = "type"
    script_attributes = frozenset({"from_iterable"})

    def __call__(self, interp: Any, *iterables: Any) -> Any:
        return _python_itertools.chain(*_iterables(interp, iterables))

    @needs_interpreter
    def from_iterable(self, interp: Any, iterable: Any) -> Any:
        """``chain.from_iterable(iterables)``: each iterable taken as it comes."""
        items_of(iterable)  # not iterable: the error now, as CPython's
        return _python_itertools.chain.from_iterable(
            counted(interp, it) for it in counted(interp, iterable))

    def script_repr(self, printer: Any) -> str:
        return "<class 'itertools.chain'>"

    needs_interpreter = True  # (after the methods: the decorator's name above)


MEMBERS: dict[str, Any] = {
    "count": _python_itertools.count, "repeat": _python_itertools.repeat,
    "cycle": _of("cycle", "all"), "chain": Chain(), "product": product,
    "permutations": _of("permutations", "first"), "combinations": _of("combinations", "first"),
    "combinations_with_replacement": _of("combinations_with_replacement", "first"),
    "islice": _of("islice", "first"), "pairwise": _of("pairwise", "first"),
    "zip_longest": _of("zip_longest", "all"), "compress": _of("compress", "all"),
    "takewhile": _of("takewhile", "second"), "dropwhile": _of("dropwhile", "second"),
    "filterfalse": _of("filterfalse", "second"), "accumulate": accumulate,
    "groupby": groupby, "starmap": starmap, "tee": tee,
}

__all__ = ["MEMBERS"]
