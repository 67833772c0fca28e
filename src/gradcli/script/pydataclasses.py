"""``dataclasses`` as a program imports it: ``@dataclass`` (with ``init``, ``repr``, ``eq``,
``order``, ``frozen``), ``field``, ``fields``, ``asdict``, ``astuple``, ``replace``.

``@dataclass`` reads the class body's annotations (``language`` keeps them as statements,
the interpreter in the class's ``__annotations__``) in order, base dataclasses' fields first,
and adds the methods CPython 3.11's generates, with its messages: ``__init__`` (defaults,
``default_factory``, then ``__post_init__``), ``__repr__``, ``__eq__`` (which makes instances
unhashable unless frozen), the ordering methods, and frozen instances'
``FrozenInstanceError``.  They are ``NativeMethod``s, bound as the class's own functions are.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from ..language import program as P
from .classes import NativeMethod, ScriptClass, fail
from .exceptions import exception_type
from .functions import bind_arguments
from .instances import ScriptObject

ANNOTATIONS = "__annotations__"


class _Missing:
    """``dataclasses.MISSING``."""

    __slots__ = ()
    script_type = "_MISSING_TYPE"

    def script_repr(self, printer: Any) -> str:
        """``<dataclasses._MISSING_TYPE object at 0x…>``."""
        return f"<dataclasses._MISSING_TYPE object at {printer.address(self)}>"


MISSING = _Missing()


class Field:
    """``dataclasses.field(...)``: a field's default and options."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr", "type")
    script_type = "Field"
    script_attributes = frozenset({"name", "type", "default", "default_factory", "init", "repr",
                                   "compare"})

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True,
                 repr: bool = True, compare: bool = True) -> None:
        self.name: str | None = None
        self.type: Any = None
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare

    def script_repr(self, printer: Any) -> str:
        """CPython's ``Field(name='x',type=<class 'int'>,...)``."""
        parts = [("name", self.name), ("type", self.type), ("default", self.default),
                 ("default_factory", self.default_factory), ("init", self.init),
                 ("repr", self.repr), ("hash", None), ("compare", self.compare)]
        inner = ",".join(f"{k}={printer.repr(v)}" for k, v in parts)
        kw_only = "False" if self.name is not None else printer.repr(MISSING)
        return (f"Field({inner},metadata=mappingproxy({{}}),kw_only={kw_only},"
                f"_field_type={'_FIELD' if self.name is not None else None})")


def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True,
          repr: bool = True, hash: Any = None, compare: bool = True, metadata: Any = None,
          kw_only: Any = MISSING) -> Field:
    """``field(default=..., default_factory=...)``."""
    if default is not MISSING and default_factory is not MISSING:
        raise fail("cannot specify both default and default_factory", "ValueError")
    return Field(default, default_factory, init, repr, compare)


def dataclass(cls: Any = None, /, *, init: bool = True, repr: bool = True, eq: bool = True,
              order: bool = False, unsafe_hash: bool = False, frozen: bool = False,
              match_args: bool = True, kw_only: bool = False, slots: bool = False,
              weakref_slot: bool = False) -> Any:
    """``@dataclass`` or ``@dataclass(...)``: the class with its generated methods."""
    def wrap(c: Any) -> Any:
        if not isinstance(c, ScriptClass):
            raise fail("dataclass() should be called on a class", "TypeError")
        if kw_only or slots:
            raise ScriptError("gradcli's dataclass does not support kw_only or slots",
                              kind="NotImplementedError")
        if order and not eq:
            raise fail("eq must be true if order is true", "ValueError")
        _process(c, init, repr, eq, order, frozen)
        return c
    return wrap if cls is None else wrap(cls)


def _fields_of(cls: ScriptClass) -> list[Field]:
    """The class's own fields, from its annotations, defaults taken from the class body."""
    ns = cls.namespace
    out = []
    for name, annotation in ns.get(ANNOTATIONS, {}).items():
        value = ns.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name, f.type = name, annotation
        if isinstance(f.default, (list, dict, set)):
            raise fail(f"mutable default <class '{type(f.default).__name__}'> for field {name} "
                       "is not allowed: use default_factory", "ValueError")
        if f.default is MISSING:
            ns.pop(name, None)
        else:
            ns[name] = f.default
        out.append(f)
    return out


def _process(cls: ScriptClass, init: bool, repr_: bool, eq: bool, order: bool,
             frozen: bool) -> None:
    found: dict[str, Field] = {}
    for base in reversed(cls.mro[1:]):
        for f in getattr(base, "dataclass_fields", ()):
            found[f.name] = f
    for f in _fields_of(cls):
        found[f.name] = f
    fields_ = list(found.values())
    cls.dataclass_fields = tuple(fields_)
    cls.frozen = frozen
    ns = cls.namespace
    if init:
        _set(ns, cls, "__init__", _init(cls, [f for f in fields_ if f.init]))
    if repr_:
        _set(ns, cls, "__repr__", _repr(cls, [f for f in fields_ if f.repr]))
    compared = [f for f in fields_ if f.compare]
    if eq:
        _set(ns, cls, "__eq__", _compare(cls, compared, "==", "__eq__"))
        if "__hash__" not in ns:
            ns["__hash__"] = NativeMethod(lambda self: hash(_values(self, compared)),
                                          "__hash__", cls) if frozen else None
    if order:
        for op, name in (("<", "__lt__"), ("<=", "__le__"), (">", "__gt__"), (">=", "__ge__")):
            _set(ns, cls, name, _compare(cls, compared, op, name))


def _set(ns: dict, cls: ScriptClass, name: str, fn: Callable[..., Any]) -> None:
    if name not in ns:  # a method the class writes itself wins, as CPython's
        ns[name] = NativeMethod(fn, name, cls)


def _values(obj: Any, fields_: list[Field]) -> tuple:
    return tuple(obj.__dict__[f.name] for f in fields_)


def _init(cls: ScriptClass, fields_: list[Field]) -> Callable[..., None]:
    names = [f.name for f in fields_]
    for prev, f in itertools.pairwise(fields_):
        if f.default is MISSING and f.default_factory is MISSING and \
                (prev.default is not MISSING or prev.default_factory is not MISSING):
            raise fail(f"non-default argument '{f.name}' follows default argument")
    signature = _Signature(f"{cls.qualname.partition('.')[2]}.__init__",
                           tuple(f.default if f.default_factory is MISSING else f
                                 for f in fields_ if f.default is not MISSING or
                                 f.default_factory is not MISSING), names)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = bind_arguments(signature, [self, *args], kwargs)
        for f in fields_:
            value = bound[f.name]
            if value is f:  # default_factory
                value = cls.interp.call_value(f.default_factory, [], {})
            self.__dict__[f.name] = value
        _, post = cls.lookup("__post_init__")
        if post is not None:
            cls.interp.call_value(post, [self], {})
    return __init__


class _Signature:
    """What ``functions.bind_arguments`` reads of a function, for a generated ``__init__``."""

    __slots__ = ("defaults", "kw_defaults", "params", "qualname")

    def __init__(self, qualname: str, defaults: tuple, names: list[str]) -> None:
        self.qualname, self.defaults, self.kw_defaults = qualname, defaults, {}
        self.params = P.Params(("self", *names), (), None, (), (), None, None)


def _repr(cls: ScriptClass, fields_: list[Field]) -> Callable[..., str]:
    def __repr__(self: Any) -> str:
        printer = cls.interp.printer
        inner = ", ".join(f"{f.name}={printer.repr(self.__dict__[f.name])}" for f in fields_)
        return f"{type(self).script_class.qualname.partition('.')[2]}({inner})"
    return __repr__


def _compare(cls: ScriptClass, fields_: list[Field], op: str, name: str) -> Callable[..., Any]:
    from .values import COMPARE

    def compare(self: Any, other: Any) -> Any:
        if type(other) is not type(self):
            return NotImplemented
        return COMPARE[op](_values(self, fields_), _values(other, fields_))
    compare.__name__ = name
    return compare


def _is_instance(obj: Any) -> bool:
    return isinstance(obj, ScriptObject) and \
        getattr(type(obj).script_class, "dataclass_fields", None) is not None


def fields(obj: Any) -> tuple:
    """The fields of a dataclass or of one of its instances."""
    cls = obj if isinstance(obj, ScriptClass) else getattr(type(obj), "script_class", None)
    found = getattr(cls, "dataclass_fields", None)
    if found is None:
        raise fail("must be called with a dataclass type or instance")
    return found


def asdict(obj: Any) -> dict:
    """The fields as a dict, dataclasses inside converted too."""
    if not _is_instance(obj):
        raise fail("asdict() should be called on dataclass instances")
    return _convert(obj, dict)


def astuple(obj: Any) -> tuple:
    """The fields as a tuple, dataclasses inside converted too."""
    if not _is_instance(obj):
        raise fail("astuple() should be called on dataclass instances")
    return _convert(obj, tuple)


def _convert(v: Any, kind: type) -> Any:
    if _is_instance(v):
        items = [(f.name, _convert(v.__dict__[f.name], kind))
                 for f in type(v).script_class.dataclass_fields]
        return dict(items) if kind is dict else tuple(x for _, x in items)
    if isinstance(v, (list, tuple)):
        return type(v)(_convert(x, kind) for x in v)
    if isinstance(v, dict):
        return {_convert(k, kind): _convert(x, kind) for k, x in v.items()}
    return v


def replace(obj: Any, /, **changes: Any) -> Any:
    """A new instance with some fields changed."""
    if not _is_instance(obj):
        raise fail("replace() should be called on dataclass instances")
    cls = type(obj).script_class
    for f in cls.dataclass_fields:
        if f.init and f.name not in changes:
            changes[f.name] = obj.__dict__[f.name]
    return cls.construct(**changes)


MEMBERS: dict[str, Any] = {"dataclass": dataclass, "field": field, "fields": fields,
                           "asdict": asdict, "astuple": astuple, "replace": replace,
                           "MISSING": MISSING,
                           "FrozenInstanceError": exception_type("FrozenInstanceError")}

__all__ = ["MEMBERS", "MISSING", "Field", "dataclass", "field"]
