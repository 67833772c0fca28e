"""Python's ``functools`` as a script imports it: ``reduce``, ``partial``, ``lru_cache`` and
``cache``, ``wraps``, ``cmp_to_key``. A script's function given to one is called through the
interpreter (its steps count; CPython's own reduce and caches do the rest)."""

from __future__ import annotations

import functools as _python_functools
from typing import Any

from ...errors import ScriptError
from ..pybuiltins import _callable, callable_
from ..pyprotocols import counted, needs_interpreter
from .collections import namedtuple
from .support import python

_CacheInfo = namedtuple("CacheInfo", ["hits", "misses", "maxsize", "currsize"]).make


@needs_interpreter
def reduce(interp: Any, function: Any, iterable: Any, *initial: Any) -> Any:
    """``reduce(function, iterable[, initial])``."""
    return python(_python_functools.reduce, _callable(interp, function),
                  counted(interp, iterable), *initial)


class Partial:
    """``functools.partial(func, *args, **keywords)``: callable by the interpreter and by the
    api alike (``jacobian(partial(f, w), x)``), through the run's interpreter."""

    __slots__ = ("args", "func", "interp", "keywords")
    script_type = "functools.partial"
    script_attributes = frozenset({"func", "args", "keywords"})

    def __init__(self, interp: Any, func: Any, args: tuple, keywords: dict) -> None:
        self.interp = interp
        self.func = func
        self.args = args
        self.keywords = keywords

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.interp.call_value(self.func, [*self.args, *args],
                                      {**self.keywords, **kwargs})

    def script_repr(self, printer: Any) -> str:
        parts = [printer.repr(self.func), *(printer.repr(a) for a in self.args),
                 *(f"{k}={printer.repr(v)}" for k, v in self.keywords.items())]
        return f"functools.partial({', '.join(parts)})"


@needs_interpreter
def partial(interp: Any, *args: Any, **keywords: Any) -> Partial:
    """``partial(func, /, *args, **keywords)``; a partial of a partial flattens, as CPython's."""
    if not args:
        raise ScriptError("type 'partial' takes at least one argument", kind="TypeError")
    func, *rest = args
    if not callable_(func):
        raise ScriptError("the first argument must be callable", kind="TypeError")
    if isinstance(func, Partial):
        return Partial(interp, func.func, (*func.args, *rest), {**func.keywords, **keywords})
    return Partial(interp, func, tuple(rest), keywords)


class Cached:
    """A function under ``lru_cache``/``cache``: CPython's cache of the calls' results."""

    __slots__ = ("__name__", "cached", "wrapped")
    script_type = "functools._lru_cache_wrapper"
    script_attributes = frozenset({"cache_info", "cache_clear", "__wrapped__"})

    def __init__(self, interp: Any, wrapped: Any, maxsize: Any, typed: Any) -> None:
        self.wrapped = wrapped
        self.__name__ = getattr(wrapped, "name", getattr(wrapped, "__name__", "function"))
        self.cached = _python_functools.lru_cache(maxsize, typed)(_callable(interp, wrapped))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.cached(*args, **kwargs)

    @property
    def __wrapped__(self) -> Any:
        return self.wrapped

    def cache_info(self) -> Any:
        """``CacheInfo(hits, misses, maxsize, currsize)``."""
        return _CacheInfo(*self.cached.cache_info())

    def cache_clear(self) -> None:
        """Forget every result."""
        self.cached.cache_clear()

    def script_repr(self, printer: Any) -> str:
        return f"<functools._lru_cache_wrapper object at {printer.address(self)}>"

    def script_bind(self, obj: Any) -> CachedMethod:
        """Read from an instance, a method (CPython's wrapper binds as a function does)."""
        return CachedMethod(self, obj)


class CachedMethod:
    """``obj.method`` whose function is under ``lru_cache``: the instance is the first
    argument of the cached call, and the cache's methods are read through it, as CPython's."""

    __slots__ = ("cached", "self")
    script_type = "method"
    script_attributes = frozenset({"cache_info", "cache_clear"})

    def __init__(self, cached: Cached, obj: Any) -> None:
        self.cached = cached
        self.self = obj

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.cached(self.self, *args, **kwargs)

    def cache_info(self) -> Any:
        return self.cached.cache_info()

    def cache_clear(self) -> None:
        self.cached.cache_clear()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CachedMethod) and other.cached is self.cached and \
            other.self is self.self

    def __hash__(self) -> int:
        return hash((id(self.cached), id(self.self)))

    def script_repr(self, printer: Any) -> str:
        wrapped = self.cached.wrapped
        qualname = getattr(wrapped, "qualname", None) or self.cached.__name__
        return f"<bound method {qualname} of {printer.repr(self.self)}>"


@needs_interpreter
def lru_cache(interp: Any, maxsize: Any = 128, typed: Any = False) -> Any:
    """``@lru_cache``, ``@lru_cache(maxsize=128, typed=False)``."""
    if callable_(maxsize) and not isinstance(maxsize, bool) and not isinstance(maxsize, int):
        return Cached(interp, maxsize, 128, typed)  # @lru_cache without parentheses
    if maxsize is not None and (isinstance(maxsize, bool) or not isinstance(maxsize, int)):
        raise ScriptError("Expected first argument to be an integer, a callable, or None",
                          kind="TypeError")
    return lambda fn: _decorate(interp, fn, maxsize, typed)


def _decorate(interp: Any, fn: Any, maxsize: Any, typed: Any) -> Cached:
    if not callable_(fn):
        raise ScriptError("the first argument must be callable", kind="TypeError")
    return Cached(interp, fn, maxsize, typed)


@needs_interpreter
def cache(interp: Any, user_function: Any) -> Cached:
    """``@cache``: ``lru_cache(maxsize=None)``."""
    return _decorate(interp, user_function, None, False)


def wraps(wrapped: Any, *args: Any, **kwargs: Any) -> Any:
    """``@wraps(wrapped)``: the wrapper takes the wrapped function's name."""
    def decorate(wrapper: Any) -> Any:
        name = getattr(wrapped, "name", None) or getattr(wrapped, "__name__", None)
        if isinstance(name, str) and hasattr(wrapper, "node"):  # a script's function
            wrapper.name = name
        return wrapper
    return decorate


@needs_interpreter
def cmp_to_key(interp: Any, mycmp: Any) -> Any:
    """``cmp_to_key(mycmp)``: a sort key from an old-style comparison."""
    return _python_functools.cmp_to_key(_callable(interp, mycmp))


MEMBERS: dict[str, Any] = {"reduce": reduce, "partial": partial, "lru_cache": lru_cache,
                           "cache": cache, "wraps": wraps, "cmp_to_key": cmp_to_key}

__all__ = ["MEMBERS"]
