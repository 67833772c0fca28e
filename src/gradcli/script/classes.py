"""A script's classes as Python runs them (the Language Reference's data model, §3.3).

One class object (``ScriptClass``: name, bases, namespace, C3 MRO), instances of one Python
class made per script class (``instances.ScriptObject``: its attributes in its ``__dict__``),
and one attribute-lookup routine for each (``instance_attribute``, ``class_attribute``) that
every ``obj.name`` of a script goes through: data descriptors (``property``), the instance's
own attributes, the class's functions bound as methods (``staticmethod``, ``classmethod``),
then what a PyTorch base offers (``nn.Module``'s parameters, buffers and submodules), then the
class's ``__getattr__``.  A PyTorch base (``nn.Module``, ``torch.autograd.Function``) is an
ordinary class of the api layer whose Python class the instance's class derives from; the
interpreter has no special case for it.

The sandbox is the lexer's list of refused names (``language.syntax_errors.REFUSED_NAMES``),
checked again here for names a script spells as strings (``getattr(x, "__class__")``).
"""

from __future__ import annotations

from typing import Any

from ..api.types import TypeObject
from ..errors import ScriptError
from ..language.syntax_errors import REFUSED_NAMES, refused_hint, refused_message
from .exceptions import EXCEPTIONS
from .functions import Function, GradModeFunction
from .printing import type_name


def refuse(name: str) -> None:
    """Refuse a name the sandbox keeps from scripts (asked for by a string)."""
    if name in REFUSED_NAMES:
        raise ScriptError(refused_message(name), kind="AttributeError",
                          hint=refused_hint(name))


def fail(message: str, kind: str = "TypeError") -> ScriptError:
    """A script-level error of Python's kind."""
    return ScriptError(message, kind=kind)


# ---- the root class and the descriptors -----------------------------------------------------------
class PlainObject:
    """What ``object()`` makes: no attributes of its own, usable as a unique marker."""

    __slots__ = ("__weakref__",)
    script_type = "object"


def _make_object(*args: Any, **kwargs: Any) -> PlainObject:
    if args or kwargs:
        raise fail("object() takes no arguments")
    return PlainObject()


OBJECT = TypeObject("object", (object,), _make_object, test=lambda v: True)
PlainObject.script_class = OBJECT  # type: ignore[attr-defined]
BASE_EXCEPTION = EXCEPTIONS["BaseException"]


class StaticMethod:
    """``@staticmethod``: the function, called without the instance."""

    __slots__ = ("function",)
    script_type = "staticmethod"

    def __init__(self, function: Any) -> None:
        self.function = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)


class ClassMethod:
    """``@classmethod``: the function, called with the class first."""

    __slots__ = ("function",)
    script_type = "classmethod"

    def __init__(self, function: Any) -> None:
        self.function = function


class Property:
    """``@property`` (and ``.setter``, ``.deleter``): a data descriptor of the class."""

    __slots__ = ("fdel", "fget", "fset")
    script_type = "property"
    script_attributes = frozenset({"fget", "fset", "fdel", "getter", "setter", "deleter"})

    def __init__(self, fget: Any = None, fset: Any = None, fdel: Any = None) -> None:
        self.fget, self.fset, self.fdel = fget, fset, fdel

    def getter(self, fget: Any) -> Property:
        """A copy with another getter."""
        return Property(fget, self.fset, self.fdel)

    def setter(self, fset: Any) -> Property:
        """A copy with a setter."""
        return Property(self.fget, fset, self.fdel)

    def deleter(self, fdel: Any) -> Property:
        """A copy with a deleter."""
        return Property(self.fget, self.fset, fdel)


class BoundMethod:
    """A function bound to an instance (or to a class, for a classmethod)."""

    __slots__ = ("function", "self")
    script_type = "method"

    def __init__(self, function: Any, self_: Any) -> None:
        self.function = function
        self.self = self_

    @property
    def name(self) -> str:
        """The function's ``__name__``."""
        return getattr(self.function, "name", "function")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        owner = self.self if isinstance(self.self, ScriptClass) else type(self.self).script_class
        return owner.interp.call_value(self.function, [self.self, *args], kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BoundMethod) and other.function is self.function and \
            other.self is self.self

    def __hash__(self) -> int:
        return hash((id(self.function), id(self.self)))

    def script_repr(self, printer: Any) -> str:
        """``<bound method Net.forward of Net(...)>``."""
        qualname = getattr(self.function, "qualname", None) or self.name
        return f"<bound method {qualname} of {printer.repr(self.self)}>"


class NativeMethod:
    """A method gradcli writes for a class (a dataclass's ``__init__``): a Python function
    that binds to an instance as the class's own functions do."""

    __slots__ = ("fn", "name", "qualname")
    script_type = "function"

    def __init__(self, fn: Any, name: str, cls: ScriptClass) -> None:
        self.fn, self.name = fn, name
        self.qualname = f"{cls.qualname.partition('.')[2]}.{name}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def script_repr(self, printer: Any) -> str:
        """``<function Point.__init__ at 0x…>``."""
        return f"<function {self.qualname} at {printer.address(self)}>"


def _binds(value: Any) -> bool:
    """Whether a class attribute becomes a method when read from an instance (a function)."""
    kind = value.__class__
    return kind is Function or kind is GradModeFunction or kind is NativeMethod


def bind(value: Any, obj: Any, cls: ScriptClass) -> Any:
    """A class attribute as read from ``obj`` (an instance, or None when read from ``cls``)."""
    kind = value.__class__
    if kind is StaticMethod:
        return value.function
    if kind is ClassMethod:
        return BoundMethod(value.function, cls)
    if obj is not None and _binds(value):
        return BoundMethod(value, obj)
    if obj is not None and hasattr(kind, "script_bind"):  # functools' lru_cache: its own
        return value.script_bind(obj)
    return value


# ---- the class object ---------------------------------------------------------------------------
class ScriptClass(TypeObject):
    """A class made by a ``class`` statement."""

    __slots__ = ("api", "bases", "dataclass_fields", "frozen", "interp", "mro", "namespace",
                 "pyclass")
    script_type = "type"

    def __init__(self, interp: Any, name: str, qualname: str, bases: tuple,
                 namespace: dict[str, Any]) -> None:
        super().__init__(f"__main__.{qualname}")
        self.interp = interp
        self.bases = bases or (OBJECT,)
        self.namespace = namespace
        self.mro = _c3(self, self.bases)
        self.api = _api_base(self.mro)  # the PyTorch class it derives from, or None
        self.make = self.construct
        self.pyclass: type | None = None  # set by instances.make_class
        self.dataclass_fields: tuple | None = None  # @dataclass's (pydataclasses)
        self.frozen = any(getattr(c, "frozen", False) for c in self.mro[1:])

    @property
    def name(self) -> str:
        """The class's ``__name__``."""
        return self.qualname.rpartition(".")[2]

    def instance(self, obj: Any) -> bool:
        """``isinstance(obj, self)``."""
        cls = getattr(type(obj), "script_class", None)
        return isinstance(cls, ScriptClass) and any(c is self for c in cls.mro)

    def is_subclass(self, other: TypeObject) -> bool:
        """``issubclass(self, other)``: ``other`` anywhere in the MRO."""
        return any(c is other for c in self.mro)

    def lookup(self, name: str, start: int = 0) -> tuple[Any, Any]:
        """The first script class of the MRO (from position ``start``) whose namespace has
        ``name``: (the class, the value), or (None, None)."""
        for c in self.mro[start:]:
            if c.__class__ is ScriptClass and name in c.namespace:
                return c, c.namespace[name]
        return None, None

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        """``Cls(*args)``: a new instance, then its ``__init__``."""
        if self.api is None and self.is_subclass(BASE_EXCEPTION):
            from .exceptions import ExcValue  # an exception value: its class and arguments

            if kwargs:
                raise fail(f"{self.name}() takes no keyword arguments")
            return ExcValue(self, args)
        obj = self.pyclass.__new__(self.pyclass)
        _, init = self.lookup("__init__")
        if init is not None:
            result = self.interp.call_value(bind(init, obj, self), list(args), kwargs)
            if result is not None:
                raise fail(f"__init__() should return None, not '{type_name(result)}'")
        elif self.api is not None:
            self.api_call("__init__", obj, args, kwargs)
        elif args or kwargs:
            raise fail(f"{self.name}() takes no arguments")
        return obj

    def api_call(self, name: str, obj: Any, args: Any, kwargs: dict) -> Any:
        """Call the PyTorch base's ``name`` on ``obj`` (its own errors as the script's)."""
        from .calls import call_builtin

        method = getattr(self.api.classes[0], name)
        return call_builtin(method, [obj, *args], kwargs, self.interp, None)

    def script_repr(self, printer: Any) -> str:
        """``<class '__main__.Net'>``."""
        return repr(self)


def _linear(t: Any) -> list:
    """The MRO of a base: a script class's own, or a PyTorch or exception class's chain."""
    if t.__class__ is ScriptClass:
        return list(t.mro)
    out = []
    while t is not None:
        out.append(t)
        t = t.parent
    if out[-1] is not OBJECT:
        out.append(OBJECT)
    return out


def _c3(cls: ScriptClass, bases: tuple) -> tuple:
    """C3 linearisation of ``cls`` over ``bases`` (Python's method resolution order)."""
    seqs = [_linear(b) for b in bases] + [list(bases)]
    out = [cls]
    while True:
        seqs = [s for s in seqs if s]
        if not seqs:
            return tuple(out)
        for s in seqs:
            head = s[0]
            if not any(head is x for t in seqs for x in t[1:]):
                break
        else:
            names = ", ".join(b.name for b in bases)
            raise fail("Cannot create a consistent method resolution\norder (MRO) for bases "
                       f"{names}")
        out.append(head)
        for s in seqs:
            if s[0] is head:
                del s[0]


def _api_base(mro: tuple) -> TypeObject | None:
    """The PyTorch class (``nn.Module``, ``nn.Linear``, ``autograd.Function``) the MRO
    derives from: the most derived one, which every other one's Python class is a base of."""
    found = [c for c in mro if c.__class__ is not ScriptClass and c.classes and
             getattr(c.classes[0], "script_subclassable", False)]
    if not found:
        return None
    best = found[0]
    for c in found[1:]:
        if not issubclass(best.classes[0], c.classes[0]):
            raise fail("multiple bases have instance lay-out conflict")
    return best


def check_bases(bases: tuple) -> None:
    """Refuse what a script class cannot derive from, with Python's words where it has any."""
    classes = [b for b in bases if isinstance(b, TypeObject)]
    if classes and len(classes) < len(bases):  # type and int: no metaclass derives from both
        raise fail("metaclass conflict: the metaclass of a derived class must be a (non-strict) "
                   "subclass of the metaclasses of all its bases")
    for base in bases:
        _check_base(base)


def _check_base(base: Any) -> None:
    if base.__class__ is ScriptClass or base is OBJECT:
        return
    if not isinstance(base, TypeObject):
        raise fail("bases must be types")
    if base.is_subclass(BASE_EXCEPTION):
        return
    if base.classes and getattr(base.classes[0], "script_subclassable", False):
        return
    raise ScriptError(f"gradcli does not support subclassing '{base.qualname}'",
                      kind="NotImplementedError",
                      hint="a class may derive from object, its own classes, an exception, "
                      "nn.Module (and its layers) or torch.autograd.Function")


# ---- attributes ---------------------------------------------------------------------------------------
NOT_FOUND = object()


def class_attribute(cls: ScriptClass, name: str) -> Any:
    """``Cls.name``: the MRO's namespaces, then what a PyTorch base offers on the class."""
    refuse(name)
    owner, value = cls.lookup(name)
    if owner is not None:
        return bind(value, None, cls)
    if cls.api is not None:
        found = api_class_attribute(cls.api, name, cls.pyclass)
        if found is not NOT_FOUND:
            return found
    raise fail(f"type object '{cls.name}' has no attribute '{name}'", "AttributeError")


def api_class_attribute(api: TypeObject, name: str, pyclass: Any = None) -> Any:
    """``nn.Module.__init__``, ``Function.apply``: what a PyTorch class offers on itself (read
    from ``pyclass``, the script class's Python class, when a script class inherits it)."""
    py = api.classes[0]
    if name == "__init__" or name in getattr(py, "script_attributes", ()) or \
            name in getattr(py, "script_class_attributes", ()):
        return getattr(pyclass or py, name)
    return NOT_FOUND


def instance_attribute(obj: Any, name: str) -> Any:
    """``obj.name`` for an instance of a script class (the module docstring's order)."""
    cls = type(obj).script_class
    owner, value = cls.lookup(name)
    if value.__class__ is Property:
        if value.fget is None:
            raise fail(f"property '{name}' of '{cls.name}' object has no getter",
                       "AttributeError")
        return cls.interp.call_value(value.fget, [obj], {})
    attrs = obj.__dict__
    if name in attrs:
        return attrs[name]
    if owner is not None:
        return bind(value, obj, cls)
    refuse(name)
    error = None
    if cls.api is not None:
        py = cls.api.classes[0]
        if name in py.script_attributes:
            return getattr(obj, name)
        try:
            return obj.script_member(name)  # nn.Module's parameters, buffers, submodules
        except ScriptError as err:
            if err.kind != "AttributeError":
                raise
            error = err
    _, getter = cls.lookup("__getattr__")
    if getter is not None:
        return cls.interp.call_value(bind(getter, obj, cls), [name], {})
    if error is not None:
        raise error
    raise fail(f"'{cls.name}' object has no attribute '{name}'", "AttributeError")


def set_instance_attribute(obj: Any, name: str, value: Any) -> None:
    """``obj.name = value``: a property's setter, a PyTorch base's rules, or the instance's
    own attributes."""
    refuse(name)
    cls = type(obj).script_class
    _, found = cls.lookup(name)
    if found.__class__ is Property:
        if found.fset is None:
            raise fail(f"property '{name}' of '{cls.name}' object has no setter",
                       "AttributeError")
        cls.interp.call_value(found.fset, [obj, value], {})
        return
    if cls.frozen:
        raise ScriptError(f"cannot assign to field '{name}'", kind="FrozenInstanceError")
    if cls.api is not None:
        obj.script_setattr(name, value)  # nn.Module registers parameters, modules, buffers
        return
    obj.__dict__[name] = value


def delete_instance_attribute(obj: Any, name: str) -> None:
    """``del obj.name``."""
    refuse(name)
    cls = type(obj).script_class
    _, found = cls.lookup(name)
    if found.__class__ is Property:
        if found.fdel is None:
            raise fail(f"property '{name}' of '{cls.name}' object has no deleter",
                       "AttributeError")
        cls.interp.call_value(found.fdel, [obj], {})
        return
    if cls.frozen:
        raise ScriptError(f"cannot delete field '{name}'", kind="FrozenInstanceError")
    if cls.api is not None:
        obj.script_delattr(name)
        return
    if name not in obj.__dict__:
        raise fail(f"'{cls.name}' object has no attribute '{name}'", "AttributeError")
    del obj.__dict__[name]


def set_class_attribute(cls: ScriptClass, name: str, value: Any) -> None:
    """``Cls.name = value``."""
    refuse(name)
    cls.namespace[name] = value


def delete_class_attribute(cls: ScriptClass, name: str) -> None:
    """``del Cls.name``."""
    refuse(name)
    if name not in cls.namespace:
        raise fail(f"type object '{cls.name}' has no attribute '{name}'", "AttributeError")
    del cls.namespace[name]


# ---- super() ------------------------------------------------------------------------------------------
class Super:
    """``super()`` / ``super(Cls, obj)``: attribute lookup from after ``Cls`` in ``obj``'s MRO."""

    __slots__ = ("cls", "obj")
    script_type = "super"

    def __init__(self, cls: Any, obj: Any) -> None:
        self.cls = cls
        self.obj = obj

    def attribute(self, name: str) -> Any:
        """``super().name``."""
        refuse(name)
        obj = self.obj
        is_class = obj.__class__ is ScriptClass
        owner = obj if is_class else type(obj).script_class
        mro = owner.mro
        start = next(i for i, c in enumerate(mro) if c is self.cls) + 1
        for c in mro[start:]:
            if c.__class__ is ScriptClass:
                if name in c.namespace:
                    return bind(c.namespace[name], None if is_class else obj, owner)
            elif c is OBJECT:
                found = _object_method(name, obj)
                if found is not None:
                    return found
            elif c.classes and getattr(c.classes[0], "script_subclassable", False):
                found = api_class_attribute(c, name)
                if found is not NOT_FOUND:
                    return found if is_class else _BoundApi(found, obj)
        raise fail(f"'super' object has no attribute '{name}'", "AttributeError")

    def script_repr(self, printer: Any) -> str:
        """``<super: <class 'Net'>, <Net object>>``."""
        what = printer.repr(self.obj) if self.obj.__class__ is ScriptClass else \
            f"<{type_name(self.obj)} object>"
        return f"<super: <class '{self.cls.name}'>, {what}>"


class _BoundApi:
    """A PyTorch base's method bound to a script instance (``super().__init__``)."""

    __slots__ = ("function", "obj")

    def __init__(self, function: Any, obj: Any) -> None:
        self.function = function
        self.obj = obj

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return type(self.obj).script_class.api_call(self.function.__name__, self.obj, args,
                                                    kwargs)


def _object_method(name: str, obj: Any) -> Any:
    """``object``'s own methods, reached through ``super()``: ``__init__``, ``__repr__``,
    ``__str__``."""
    if name == "__init__":
        def init(*args: Any, **kwargs: Any) -> None:
            if args or kwargs:
                raise fail("object.__init__() takes exactly one argument (the instance to "
                           "initialize)")
        return init
    if name in ("__repr__", "__str__"):
        def text() -> str:
            interp = type(obj).script_class.interp
            return f"<{type(obj).script_class.qualname} object at " \
                f"{interp.printer.address(obj)}>"
        return text
    return None


def _super(*args: Any) -> Super:
    """``super(cls, obj)`` called as a function (``super()`` alone is the interpreter's)."""
    if not args:
        raise fail("super(): no arguments", "RuntimeError")
    if len(args) != 2:
        raise ScriptError("gradcli supports super() and super(cls, obj) only",
                          kind="NotImplementedError")
    return super_of(*args)


def super_of(cls: Any, obj: Any) -> Super:
    """``super(cls, obj)`` with Python's checks."""
    if not isinstance(cls, TypeObject):
        raise fail(f"super() argument 1 must be a type, not {type_name(cls)}")
    owner = obj if obj.__class__ is ScriptClass else getattr(type(obj), "script_class", None)
    if not isinstance(owner, ScriptClass) or not owner.is_subclass(cls):
        raise fail("super(type, obj): obj must be an instance or subtype of type")
    return Super(cls, obj)


def _issubclass(cls: Any, classinfo: Any) -> bool:
    """``issubclass(cls, classinfo)``."""
    if not isinstance(cls, TypeObject):
        raise fail("issubclass() arg 1 must be a class")
    kinds, stack = [], [classinfo]
    while stack:
        k = stack.pop()
        if isinstance(k, tuple):
            stack.extend(k)
        elif isinstance(k, TypeObject):
            kinds.append(k)
        else:
            raise fail("issubclass() arg 2 must be a class, a tuple of classes, or a union")
    return any(k is OBJECT or _derives(cls, k) for k in kinds)


def _derives(cls: TypeObject, other: TypeObject) -> bool:
    if cls.is_subclass(other):
        return True
    # PyTorch's classes: by their Python classes (nn.Linear derives from nn.Module)
    return bool(cls.classes and other.classes and cls.classes[0] is not object and
                other.classes[0] is not object and cls.test is None and other.test is None and
                issubclass(cls.classes[0], other.classes[0]))


def _descriptor(kind: type) -> Any:
    def make(function: Any) -> Any:
        return kind(function)
    return make


def _property(fget: Any = None, fset: Any = None, fdel: Any = None, doc: Any = None) -> Property:
    return Property(fget, fset, fdel)


SUPER = TypeObject("super", (Super,), _super)
BUILTINS: dict[str, Any] = {
    "object": OBJECT, "super": SUPER, "issubclass": _issubclass,
    "staticmethod": TypeObject("staticmethod", (StaticMethod,), _descriptor(StaticMethod)),
    "classmethod": TypeObject("classmethod", (ClassMethod,), _descriptor(ClassMethod)),
    "property": TypeObject("property", (Property,), _property),
}
_issubclass.__name__ = "issubclass"

__all__ = [
    "BUILTINS",
    "NOT_FOUND",
    "OBJECT",
    "SUPER",
    "BoundMethod",
    "ClassMethod",
    "NativeMethod",
    "PlainObject",
    "Property",
    "ScriptClass",
    "StaticMethod",
    "Super",
    "bind",
    "check_bases",
    "class_attribute",
    "delete_class_attribute",
    "delete_instance_attribute",
    "instance_attribute",
    "refuse",
    "set_class_attribute",
    "set_instance_attribute",
    "super_of",
]
