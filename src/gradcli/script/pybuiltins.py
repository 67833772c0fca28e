"""Python's built-in functions and classes as a script calls them, with CPython's messages.

Each loops in Python over what it consumes, one step of the run's step limit per item, so
``sum(range(10**12))`` meets ``--max-steps`` instead of running for hours; what it builds is
bounded as lists are (docs/commands.md). Built-ins that need the running interpreter (to print, to
count steps, to call a script's function) are marked ``needs_interpreter`` and get it first.
The number built-ins (``int``, ``abs``, ``round`` ...) are ``pynumbers``'s, the iteration they
share with the interpreter ``pyprotocols``'s; ``PY_BUILTINS`` and ``TYPES`` name them all.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from numpy import ndarray

from ..api.namespace import PARAMETER, SIZE, TENSOR, UNINITIALIZED_PARAMETER
from ..api.types import TypeObject
from ..engine import Node, Tensor
from ..engine.backend import NUMPY_CLASSES
from ..engine.context import current
from ..engine.tensor import Size
from ..errors import ScriptError
from .classes import BUILTINS as CLASS_BUILTINS
from .classes import refuse
from .exceptions import EXCEPTIONS, ExcValue
from .instances import ScriptObject, next_of
from .printing import node_name, type_name
from .pynumbers import (
    _radix,
    abs_,
    bool_,
    chr_,
    divmod_,
    float_,
    int_,
    ord_,
    pow_,
    round_,
)
from .pyprotocols import (
    DICT_VIEWS,
    _named,
    as_index,
    counted,
    fail,
    is_iterator,
    items_of,
    materialise,
    needs_interpreter,
    truth,
)
from .values import COMPARE, arith


# ---- printing and conversion ------------------------------------------------------------------
@needs_interpreter
@_named("print")
def print_(interp: Any, *args: Any, sep: Any = " ", end: Any = "\n", file: Any = None,
           flush: bool = False) -> None:
    """Write the values, as Python's print does."""
    for name, v in (("sep", sep), ("end", end)):
        if v is not None and not isinstance(v, str):
            raise fail(f"{name} must be None or a string, not {type_name(v)}")
    if file is not None:
        raise fail("print(file=...) is not supported: gradcli prints to standard output only")
    sep = " " if sep is None else sep
    end = "\n" if end is None else end
    text = sep.join(interp.printer.str(a) for a in args)
    level = current().vmap
    if level is None or not level.repeating():  # a vmapped function prints once (api/vmap.py)
        interp.emit(text, end)


@needs_interpreter
@_named("repr")
def repr_(interp: Any, obj: Any) -> str:
    """``repr(obj)``."""
    return interp.printer.repr(obj)


@needs_interpreter
@_named("str")
def str_(interp: Any, obj: Any = "") -> str:
    """``str(obj)``."""
    return interp.printer.str(obj)


@needs_interpreter
@_named("ascii")
def ascii_(interp: Any, obj: Any) -> str:
    """``ascii(obj)``."""
    return ascii(interp.printer.repr(obj))[1:-1]


@needs_interpreter
@_named("format")
def format_(interp: Any, value: Any, spec: str = "") -> str:
    """``format(value, spec)``."""
    if not isinstance(spec, str):
        raise fail(f"format() argument 2 must be str, not {type_name(spec)}")
    return interp.printer.format(value, spec)


# ---- iterables ----------------------------------------------------------------------------------
@_named("len")
def len_(x: Any) -> int:
    """``len(x)``."""
    if isinstance(x, (Tensor, list, tuple, str, dict, set, range, ndarray)) or \
            type(x).__name__ in DICT_VIEWS or \
            getattr(type(x), "script_sequence", False):
        try:
            return len(x)
        except OverflowError as exc:  # len(range(10**20))
            raise fail(str(exc), "OverflowError") from None
        except TypeError as exc:  # NumPy: len() of unsized object
            raise fail(str(exc)) from None
    raise fail(f"object of type '{type_name(x)}' has no len()")


@_named("range")
def range_(*args: Any) -> range:
    """``range(stop)``, ``range(start, stop[, step])``."""
    if not 1 <= len(args) <= 3:
        raise fail(f"range expected {'at least 1 argument' if not args else 'at most 3 arguments'}"
                   f", got {len(args)}")
    values = [as_index(a) for a in args]
    if len(values) == 3 and values[2] == 0:
        raise fail("range() arg 3 must not be zero", "ValueError")
    return range(*values)


@needs_interpreter
@_named("zip")
def zip_(interp: Any, *iterables: Any, strict: bool = False) -> Any:
    """``zip(*iterables)`` (lazy)."""
    return zip(*(counted(interp, it) for it in iterables), strict=bool(strict))


@needs_interpreter
@_named("enumerate")
def enumerate_(interp: Any, iterable: Any, start: Any = 0) -> Any:
    """``enumerate(iterable, start)`` (lazy)."""
    return enumerate(counted(interp, iterable), as_index(start))


@needs_interpreter
@_named("map")
def map_(interp: Any, function: Any, *iterables: Any) -> Any:
    """``map(function, *iterables)`` (lazy)."""
    if not iterables:
        raise fail("map() must have at least two arguments.")
    return map(_callable(interp, function), *(counted(interp, it) for it in iterables))


@needs_interpreter
@_named("filter")
def filter_(interp: Any, function: Any, iterable: Any) -> Any:
    """``filter(function, iterable)`` (lazy; None keeps the true items)."""
    keep = truth if function is None else _callable(interp, function)
    return filter(lambda x: truth(keep(x)), counted(interp, iterable))


@_named("reversed")
def reversed_(seq: Any) -> Any:
    """``reversed(seq)``."""
    if isinstance(seq, Tensor):
        raise fail("gradcli does not support reversed() of a tensor (torch.flip) yet",
                   "NotImplementedError")
    if isinstance(seq, (list, tuple, str, range, dict, deque)):  # a deque: collections'
        return reversed(seq)
    raise fail(f"'{type_name(seq)}' object is not reversible")


@needs_interpreter
@_named("iter")
def iter_(interp: Any, obj: Any) -> Any:
    """``iter(obj)``."""
    items_of(obj)  # not iterable: the error now, as Python's iter() raises it
    return counted(interp, obj)


@_named("next")
def next_(iterator: Any, *default: Any) -> Any:
    """``next(iterator[, default])``."""
    if isinstance(iterator, ScriptObject):
        try:
            return next_of(iterator)
        except ScriptError as err:
            if err.kind == "StopIteration" and default:
                return default[0]
            raise
    if not is_iterator(iterator):
        raise fail(f"'{type_name(iterator)}' object is not an iterator")
    try:
        return next(iterator)
    except StopIteration:
        if default:
            return default[0]
        raise fail("", "StopIteration") from None


@needs_interpreter
@_named("list")
def list_(interp: Any, iterable: Any = ()) -> list:
    """``list(iterable)``."""
    return materialise(interp, iterable)


@needs_interpreter
@_named("tuple")
def tuple_(interp: Any, iterable: Any = ()) -> tuple:
    """``tuple(iterable)``."""
    return iterable if type(iterable) is tuple else tuple(materialise(interp, iterable))


@needs_interpreter
@_named("set")
def set_(interp: Any, iterable: Any = ()) -> set:
    """``set(iterable)``."""
    try:
        return set(materialise(interp, iterable))
    except TypeError as exc:
        raise fail(str(exc)) from None


@needs_interpreter
@_named("dict")
def dict_(interp: Any, iterable: Any = (), **kwargs: Any) -> dict:
    """``dict(mapping_or_pairs, **kwargs)``."""
    out: dict = {}
    if isinstance(iterable, dict):
        out.update(iterable)
    else:
        for i, pair in enumerate(materialise(interp, iterable)):
            try:
                items = materialise(interp, pair)
            except ScriptError:
                raise fail(f"cannot convert dictionary update sequence element #{i} to a "
                           "sequence") from None
            if len(items) != 2:
                raise fail(f"dictionary update sequence element #{i} has length {len(items)}; "
                           "2 is required", "ValueError")
            try:
                out[items[0]] = items[1]
            except TypeError as exc:
                raise fail(str(exc)) from None
    out.update(kwargs)
    return out


@needs_interpreter
@_named("sum")
def sum_(interp: Any, iterable: Any, /, start: Any = 0) -> Any:
    """``sum(iterable, start)``: ``start + item + item ...`` with the script's operators."""
    if isinstance(start, str):
        raise fail("sum() can't sum strings [use ''.join(seq) instead]")
    total = start
    for x in counted(interp, iterable):
        total = arith("+", total, x)
    return total


def _extreme(name: str, op: str) -> Callable[..., Any]:
    @needs_interpreter
    @_named(name)
    def pick(interp: Any, *args: Any, key: Any = None, **kw: Any) -> Any:
        has_default = "default" in kw
        default = kw.pop("default", None)
        if kw:
            raise fail(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
        if not args:
            raise fail(f"{name} expected at least 1 argument, got 0")
        if len(args) > 1 and has_default:
            raise fail(f"Cannot specify a default for {name}() with multiple positional "
                       "arguments")
        items = counted(interp, args[0]) if len(args) == 1 else iter(args)
        if key is not None:
            key = _callable(interp, key)
        best = best_key = None
        found = False
        for x in items:
            k = x if key is None else key(x)
            if not found or truth(COMPARE[op](k, best_key)):
                best, best_key, found = x, k, True
        if not found:
            if has_default:
                return default
            raise fail(f"{name}() arg is an empty sequence", "ValueError")
        return best
    pick.__doc__ = f"``{name}(iterable)`` or ``{name}(a, b, ...)``, with ``key=`` and ``default=``."
    return pick


@needs_interpreter
@_named("any")
def any_(interp: Any, iterable: Any) -> bool:
    """``any(iterable)``."""
    return any(truth(x) for x in counted(interp, iterable))


@needs_interpreter
@_named("all")
def all_(interp: Any, iterable: Any) -> bool:
    """``all(iterable)``."""
    return all(truth(x) for x in counted(interp, iterable))


@needs_interpreter
@_named("sorted")
def sorted_(interp: Any, iterable: Any, /, *, key: Any = None, reverse: Any = False) -> list:
    """``sorted(iterable, key=None, reverse=False)``."""
    items = materialise(interp, iterable)
    if key is not None:
        key = _callable(interp, key)
    try:
        items.sort(key=key, reverse=truth(reverse))
    except TypeError as exc:
        raise fail(str(exc)) from None
    return items


def _callable(interp: Any, fn: Any) -> Callable[..., Any]:
    """A script's callable as a Python function (for map, filter, sorted's key, ...)."""
    if not callable_(fn):
        raise fail(f"'{type_name(fn)}' object is not callable")
    return lambda *args: interp.call_value(fn, list(args), {})


# ---- types --------------------------------------------------------------------------------------
def _type_of(v: Any) -> TypeObject:
    if isinstance(v, ExcValue):
        return v.type
    for t in (TYPES["bool"], TYPES["int"], TYPES["float"], TYPES["str"], TYPES["list"],
              TYPES["tuple"], TYPES["dict"], TYPES["set"], TYPES["NoneType"], TYPES["range"],
              TYPES["OrderedDict"]):
        if type(v) in t.classes:
            return t
    if isinstance(v, Tensor):
        if v.__class__ is not Tensor:
            return UNINITIALIZED_PARAMETER
        return PARAMETER if PARAMETER.instance(v) else TENSOR
    if isinstance(v, Size):
        return SIZE
    if type(v) in NUMPY_CLASSES:
        from ..api.numpy_values import type_object

        return type_object(v)
    cls = getattr(type(v), "script_class", None)  # the api's classes (nn.Linear, ...)
    if isinstance(cls, TypeObject):
        return cls
    if isinstance(v, TypeObject):
        return TYPE
    name = node_name(v) if isinstance(v, Node) else type_name(v)
    t = _OTHER_TYPES.get(name)
    if t is None:  # a class the script cannot name: the same object each time it is asked
        t = _OTHER_TYPES[name] = TypeObject(name)
    return t


_OTHER_TYPES: dict[str, TypeObject] = {}


@_named("type")
def type_(*args: Any) -> TypeObject:
    """``type(obj)``: the class, printed as Python prints it."""
    if len(args) == 3:
        raise fail("gradcli does not make classes with type(name, bases, dict): write a "
                   "class statement", "NotImplementedError")
    if len(args) != 1:
        raise fail("type() takes 1 or 3 arguments")
    return _type_of(args[0])


@_named("isinstance")
def isinstance_(obj: Any, classinfo: Any) -> bool:
    """``isinstance(obj, cls)`` or ``isinstance(obj, (cls, ...))``."""
    kinds: list = []
    stack = [classinfo]
    while stack:  # (int, (float, str)) is a tuple of types too
        k = stack.pop()
        if isinstance(k, tuple):
            stack.extend(k)
        else:
            kinds.append(k)
    if not all(isinstance(k, TypeObject) or _api_class(k) for k in kinds):
        raise fail("isinstance() arg 2 must be a type, a tuple of types, or a union")
    for k in kinds:
        if not isinstance(k, TypeObject):  # an api class a script names (torch.optim.SGD)
            if isinstance(obj, k):
                return True
        elif isinstance(obj, ExcValue):
            if obj.type.is_subclass(k):
                return True
        elif k.instance(obj):
            return True
    return False


def _api_class(k: Any) -> bool:
    """Whether ``k`` is a Python class of the api a script can name (the optimizers:
    ``torch.optim.Optimizer``, ``torch.optim.SGD``), which isinstance takes as Python does."""
    return isinstance(k, type) and k.__module__.startswith("gradcli.api.")


@_named("callable")
def callable_(obj: Any) -> bool:
    """``callable(obj)``."""
    if isinstance(obj, ScriptObject):
        return obj.script_callable()
    if isinstance(obj, TypeObject):
        return obj.make is not None or obj.is_subclass(EXCEPTIONS["BaseException"])
    return callable(obj) and not isinstance(obj, Tensor)


@needs_interpreter
@_named("hasattr")
def hasattr_(interp: Any, obj: Any, name: Any) -> bool:
    """``hasattr(obj, name)`` over the attributes a script may read."""
    if not isinstance(name, str):
        raise fail("attribute name must be string, not " + repr(type_name(name)))
    refuse(name)
    try:
        interp.attribute(obj, name, None)
    except ScriptError as err:
        if err.kind == "AttributeError":
            return False
        raise
    return True


@needs_interpreter
@_named("getattr")
def getattr_(interp: Any, obj: Any, name: Any, *default: Any) -> Any:
    """``getattr(obj, name[, default])`` over the attributes a script may read."""
    if not isinstance(name, str):
        raise fail("attribute name must be string, not " + repr(type_name(name)))
    refuse(name)
    try:
        return interp.attribute(obj, name, None)
    except ScriptError as err:
        if err.kind == "AttributeError" and default:
            return default[0]
        raise


@_named("hash")
def hash_(obj: Any) -> int:
    """``hash(obj)``: Python's (a script object's ``__hash__``)."""
    try:
        return hash(obj)
    except TypeError as exc:  # unhashable: a list, a dict, a set
        raise fail(str(exc)) from None


@needs_interpreter
@_named("setattr")
def setattr_(interp: Any, obj: Any, name: Any, value: Any) -> None:
    """``setattr(obj, name, value)``: ``obj.name = value``."""
    if not isinstance(name, str):
        raise fail("attribute name must be string, not " + repr(type_name(name)))
    refuse(name)
    interp.set_attribute(obj, name, value)


@needs_interpreter
@_named("delattr")
def delattr_(interp: Any, obj: Any, name: Any) -> None:
    """``delattr(obj, name)``: ``del obj.name``."""
    if not isinstance(name, str):
        raise fail("attribute name must be string, not " + repr(type_name(name)))
    refuse(name)
    interp.del_attribute(obj, name)


def _exception_maker(t: TypeObject) -> Callable[..., ExcValue]:
    def make(*args: Any, **kwargs: Any) -> ExcValue:
        if kwargs:
            raise fail(f"{t.name}() takes no keyword arguments")
        return ExcValue(t, args)
    return make


for _t in EXCEPTIONS.values():
    _t.make = _exception_maker(_t)

TYPE = TypeObject("type", (), type_, test=lambda v: isinstance(v, TypeObject))
TYPES: dict[str, TypeObject] = {
    "int": TypeObject("int", (int,), int_),
    "float": TypeObject("float", (float,), float_),
    "bool": TypeObject("bool", (bool,), bool_),
    "str": TypeObject("str", (str,), str_),
    "list": TypeObject("list", (list,), list_),
    "tuple": TypeObject("tuple", (tuple,), tuple_),
    "dict": TypeObject("dict", (dict,), dict_),
    "set": TypeObject("set", (set,), set_),
    "range": TypeObject("range", (range,), range_),
    "NoneType": TypeObject("NoneType", (type(None),)),
    # what state_dict() returns (collections.OrderedDict)
    "OrderedDict": TypeObject("collections.OrderedDict", (OrderedDict,),
                              lambda *args, **kwargs: OrderedDict(*args, **kwargs)),
}


# Python's built-ins a script can use, by name (the classes are TypeObjects: callable through
# their ``make``); both modes have them.
PY_BUILTINS: dict[str, Any] = {
    **{name: t for name, t in TYPES.items() if name not in ("NoneType", "OrderedDict")},
    **{name: t for name, t in EXCEPTIONS.items()},
    "print": print_, "repr": repr_, "ascii": ascii_, "format": format_,
    "abs": abs_, "round": round_, "divmod": divmod_, "pow": pow_, "chr": chr_, "ord": ord_,
    "bin": _radix("bin", bin), "hex": _radix("hex", hex), "oct": _radix("oct", oct),
    "len": len_, "zip": zip_, "enumerate": enumerate_, "map": map_, "filter": filter_,
    "reversed": reversed_, "iter": iter_, "next": next_, "sum": sum_,
    "min": _extreme("min", "<"), "max": _extreme("max", ">"), "any": any_, "all": all_,
    "sorted": sorted_, "type": TYPE, "isinstance": isinstance_, "callable": callable_,
    "hasattr": hasattr_, "getattr": getattr_, "setattr": setattr_, "delattr": delattr_,
    "hash": hash_,
    **CLASS_BUILTINS,
}

__all__ = ["PY_BUILTINS", "SIZE", "TENSOR", "TYPES"]
