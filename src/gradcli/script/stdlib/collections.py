"""Python's ``collections`` as a script imports it: ``OrderedDict``, ``defaultdict``,
``Counter``, ``deque`` and ``namedtuple``, CPython's own containers holding the script's values.

Each is a subclass of CPython's that prints as CPython prints it (its items through the run's
printer, so tensors inside print as PyTorch's), names the methods a script may call, and keeps
the script's callables for the interpreter to call (a defaultdict's factory). What a container
takes from a script's iterable is at most a list's size (docs/commands.md); built by the script's call,
a step per item.
"""

from __future__ import annotations

import collections as _python_collections
import itertools as _python_itertools
from typing import Any

from ...api.types import TypeObject
from ...errors import ScriptError
from ..pybuiltins import callable_
from ..pyprotocols import materialise, needs_interpreter
from ..values import MAX_SEQUENCE, too_long
from .support import python

_MAPPING = ("keys", "values", "items", "get", "pop", "popitem", "setdefault", "update", "copy",
            "clear")


def _bounded(iterable: Any) -> Any:
    """An iterable a container's own method consumes (``counter.update(xs)``): a mapping as it
    is, else its items as a list, at most a list's size."""
    if isinstance(iterable, dict):
        return iterable
    items = list(_python_itertools.islice(python(iter, iterable), MAX_SEQUENCE + 1))
    if len(items) > MAX_SEQUENCE:
        raise too_long(len(items))
    return items


def _items(interp: Any, args: tuple) -> tuple:
    """A constructor's positional arguments with a script's iterable taken, a step per item."""
    if args and not isinstance(args[0], dict):
        return (materialise(interp, args[0]), *args[1:])
    return args


def _class(qualname: str, cls: type, make: Any) -> TypeObject:
    """The class as a script names it (``type(x)``, ``isinstance``) and calls it."""
    t = TypeObject(qualname, (cls,), make)
    cls.script_class = t  # type: ignore[attr-defined]
    return t


# ---- OrderedDict --------------------------------------------------------------------------------
class OrderedDict(_python_collections.OrderedDict):
    """``collections.OrderedDict``."""

    script_type = "collections.OrderedDict"
    script_attributes = frozenset({*_MAPPING, "move_to_end", "fromkeys"})

    def update(self, *args: Any, **kwargs: Any) -> None:
        """``update(other=(), **kwargs)``."""
        super().update(*(_bounded(a) for a in args), **kwargs)

    def script_repr(self, printer: Any) -> str:
        if not self:
            return "OrderedDict()"
        pairs = ", ".join(f"({printer.repr(k)}, {printer.repr(v)})" for k, v in self.items())
        return f"OrderedDict([{pairs}])"


@needs_interpreter
def _ordered_dict(interp: Any, *args: Any, **kwargs: Any) -> OrderedDict:
    return python(OrderedDict, *_items(interp, args), **kwargs)


# ---- defaultdict --------------------------------------------------------------------------------
class DefaultDict(dict):
    """``collections.defaultdict``: a missing key gets ``default_factory()``, called by the
    interpreter."""

    __slots__ = ("default_factory", "interp")
    script_type = "collections.defaultdict"
    script_attributes = frozenset({*_MAPPING, "default_factory"})

    def __missing__(self, key: Any) -> Any:
        if self.default_factory is None:
            raise KeyError(key)
        value = self[key] = self.interp.call_value(self.default_factory, [], {})
        return value

    def copy(self) -> DefaultDict:
        """A shallow copy with the same factory."""
        return _default_dict(self.interp, self.default_factory, self)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """``update(other=(), **kwargs)``."""
        super().update(*(_bounded(a) for a in args), **kwargs)

    def script_repr(self, printer: Any) -> str:
        return f"defaultdict({printer.repr(self.default_factory)}, {printer.repr(dict(self))})"


@needs_interpreter
def _default_dict(interp: Any, default_factory: Any = None, *args: Any,
                  **kwargs: Any) -> DefaultDict:
    if default_factory is not None and not callable_(default_factory):
        raise ScriptError("first argument must be callable or None", kind="TypeError")
    d = DefaultDict()
    d.default_factory, d.interp = default_factory, interp
    python(dict.update, d, *_items(interp, args), **kwargs)
    return d


# ---- Counter ------------------------------------------------------------------------------------
class Counter(_python_collections.Counter):
    """``collections.Counter``; its arithmetic gives Counters of its own kind."""

    script_type = "collections.Counter"
    script_attributes = frozenset({*_MAPPING, "most_common", "elements", "subtract", "total"})

    def update(self, iterable: Any = None, /, **kwargs: Any) -> None:
        """``update(iterable_or_mapping, **kwargs)``: counts added."""
        super().update(None if iterable is None else _bounded(iterable), **kwargs)

    def subtract(self, iterable: Any = None, /, **kwargs: Any) -> None:
        """``subtract(iterable_or_mapping, **kwargs)``: counts taken away."""
        super().subtract(None if iterable is None else _bounded(iterable), **kwargs)

    def script_repr(self, printer: Any) -> str:
        if not self:
            return "Counter()"
        try:
            pairs = self.most_common()
        except TypeError:  # counts that do not order: as they are
            pairs = list(self.items())
        return "Counter({" + ", ".join(f"{printer.repr(k)}: {printer.repr(v)}"
                                       for k, v in pairs) + "})"


def _counter_operator(name: str) -> Any:
    base = getattr(_python_collections.Counter, name)

    def operator(self: Counter, *other: Any) -> Any:
        out = base(self, *other)
        return out if out is NotImplemented else Counter(out)

    operator.__name__ = name
    return operator


for _name in ("__add__", "__sub__", "__or__", "__and__", "__pos__", "__neg__"):
    setattr(Counter, _name, _counter_operator(_name))


@needs_interpreter
def _counter(interp: Any, *args: Any, **kwargs: Any) -> Counter:
    return python(Counter, *_items(interp, args), **kwargs)


# ---- deque --------------------------------------------------------------------------------------
class Deque(_python_collections.deque):
    """``collections.deque``."""

    script_type = "collections.deque"
    script_sequence = True  # len, iteration, d[i]
    script_attributes = frozenset({"append", "appendleft", "pop", "popleft", "extend",
                                   "extendleft", "clear", "copy", "count", "index", "insert",
                                   "remove", "reverse", "rotate", "maxlen"})

    def extend(self, iterable: Any) -> None:
        """``extend(iterable)``."""
        super().extend(_bounded(iterable))

    def extendleft(self, iterable: Any) -> None:
        """``extendleft(iterable)``."""
        super().extendleft(_bounded(iterable))

    def script_repr(self, printer: Any) -> str:
        items = ", ".join(printer.repr(x) for x in self)
        return f"deque([{items}])" if self.maxlen is None else \
            f"deque([{items}], maxlen={self.maxlen})"


@needs_interpreter
def _deque(interp: Any, *args: Any, **kwargs: Any) -> Deque:
    return python(Deque, *_items(interp, args), **kwargs)


# ---- namedtuple ---------------------------------------------------------------------------------
def _tuple_repr(self: tuple, printer: Any) -> str:
    fields = ", ".join(f"{f}={printer.repr(v)}" for f, v in zip(self._fields, self))
    return f"{type(self).__name__}({fields})"


def namedtuple(typename: Any, field_names: Any, **kwargs: Any) -> TypeObject:
    """``namedtuple(typename, field_names, *, rename=False, defaults=None, module=None)``: a
    tuple class of the script's whose items are also named attributes."""
    base = python(_python_collections.namedtuple, typename, field_names, **kwargs)
    cls = type(base.__name__, (base,), {
        "__slots__": (), "script_repr": _tuple_repr,
        "script_attributes": frozenset({*base._fields, "_fields", "_field_defaults", "_asdict",
                                        "_replace", "count", "index"})})
    return _class(f"__main__.{base.__name__}", cls, lambda *a, **k: python(cls, *a, **k))


MEMBERS: dict[str, Any] = {
    "OrderedDict": _class("collections.OrderedDict", OrderedDict, _ordered_dict),
    "defaultdict": _class("collections.defaultdict", DefaultDict, _default_dict),
    "Counter": _class("collections.Counter", Counter, _counter),
    "deque": _class("collections.deque", Deque, _deque),
    "namedtuple": namedtuple,
}

__all__ = ["MEMBERS", "namedtuple"]
