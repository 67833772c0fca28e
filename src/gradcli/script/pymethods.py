"""The methods a script may call on Python's own values: ``lst.append(x)``, ``d.items()``,
``", ".join(names)``, ``"{:.3f}".format(v)`` — a fixed list per type, nothing else.

Most are Python's own bound methods (their messages are CPython's); the ones that take a
function, build a string or list of a size the script chooses, or print values go through
gradcli, so that limits hold and values print as the script's values.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from .pyprotocols import fail, materialise
from .values import MAX_SEQUENCE, too_long

_STR = {
    "capitalize", "casefold", "count", "endswith", "find", "index", "isalnum", "isalpha",
    "isdecimal", "isdigit", "isidentifier", "islower", "isnumeric", "isspace", "istitle",
    "isupper", "lower", "lstrip", "partition", "removeprefix", "removesuffix", "rfind",
    "rindex", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip",
    "swapcase", "title", "upper",
}
_LIST = {"append", "clear", "copy", "count", "index", "insert", "pop", "remove", "reverse"}
_TUPLE = {"count", "index"}
_DICT = {"clear", "copy", "get", "items", "keys", "pop", "popitem", "setdefault", "values"}
_SET = {"add", "clear", "copy", "discard", "isdisjoint", "issubset", "issuperset", "pop",
        "remove"}
_NUMBER = {"is_integer", "bit_length", "as_integer_ratio", "conjugate", "real", "imag",
           "numerator", "denominator"}
_PLAIN_METHODS: dict[type, set[str]] = {str: _STR, list: _LIST, tuple: _TUPLE, dict: _DICT,
                                        OrderedDict: _DICT | {"move_to_end"},
                                        set: _SET, int: _NUMBER - {"is_integer"},
                                        float: _NUMBER - {"bit_length"}, bool: set()}


def _sized(n: int) -> None:
    if n > MAX_SEQUENCE:
        raise too_long(n)


def _str_join(interp: Any, s: str) -> Callable[..., str]:
    def join(iterable: Any) -> str:
        try:
            items = materialise(interp, iterable)
        except ScriptError as err:
            if err.kind != "TypeError":
                raise
            raise fail("can only join an iterable") from None
        for i, x in enumerate(items):
            if not isinstance(x, str):
                raise fail(f"sequence item {i}: expected str instance, "
                           f"{interp.type_name(x)} found")
        _sized(sum(len(x) for x in items) + len(s) * max(len(items) - 1, 0))
        return s.join(items)
    return join


def _str_replace(s: str) -> Callable[..., str]:
    def replace(old: Any, new: Any, count: Any = -1) -> str:
        if isinstance(old, str) and isinstance(new, str) and len(new) > len(old):
            n = s.count(old) if old else len(s) + 1
            _sized(len(s) + n * (len(new) - len(old)))
        return s.replace(old, new, count)
    return replace


def _str_pad(s: str, name: str) -> Callable[..., str]:
    method = getattr(s, name)

    def pad(width: Any, *fill: Any) -> str:
        if isinstance(width, int):
            _sized(width)
        return method(width, *fill)
    return pad


def _str_format(interp: Any, s: str) -> Callable[..., str]:
    def format(*args: Any, **kwargs: Any) -> str:
        return interp.printer.str_format(s, args, kwargs, interp.attribute_of,
                                         interp.item_of)
    return format


def _list_extend(interp: Any, lst: list) -> Callable[..., None]:
    def extend(iterable: Any) -> None:
        items = materialise(interp, iterable)
        _sized(len(lst) + len(items))
        lst.extend(items)
    return extend


def _list_sort(interp: Any, lst: list) -> Callable[..., None]:
    def sort(*, key: Any = None, reverse: Any = False) -> None:
        fn = None if key is None else (lambda x: interp.call_value(key, [x], {}))
        try:
            lst.sort(key=fn, reverse=bool(reverse))
        except TypeError as exc:
            raise fail(str(exc)) from None
    return sort


def _dict_update(interp: Any, d: dict) -> Callable[..., None]:
    def update(other: Any = (), **kwargs: Any) -> None:
        from .pybuiltins import dict_  # the same rules as dict(...)

        d.update(dict_(interp, other, **kwargs))
    return update


def _set_update(interp: Any, s: set, name: str) -> Callable[..., Any]:
    method = getattr(s, name)

    def update(*others: Any) -> Any:
        return method(*(materialise(interp, o) for o in others))
    return update


def method(interp: Any, obj: Any, name: str) -> Any:
    """The method ``name`` of a Python value, or None if a script may not call it."""
    cls = obj.__class__
    if cls is str:
        if name == "join":
            return _str_join(interp, obj)
        if name == "replace":
            return _str_replace(obj)
        if name in ("center", "ljust", "rjust", "zfill"):
            return _str_pad(obj, name)
        if name == "format":
            return _str_format(interp, obj)
    elif cls is list:
        if name == "extend":
            return _list_extend(interp, obj)
        if name == "sort":
            return _list_sort(interp, obj)
    elif (cls is dict or cls is OrderedDict) and name == "update":
        return _dict_update(interp, obj)
    elif cls is set and name in ("update", "union", "intersection", "difference",
                                 "symmetric_difference"):
        return _set_update(interp, obj, name)
    allowed = _PLAIN_METHODS.get(cls)
    if allowed is not None and name in allowed:
        return getattr(obj, name)
    return None


__all__ = ["method"]
