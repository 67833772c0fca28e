"""Instances of a script's classes and the protocols their dunder methods define.

Each script class gets a Python class of its own (``make_class``), derived from
``ScriptObject`` and, for a class that derives from a PyTorch class, from that class's Python
class (``nn.Module``'s, ``autograd.Function``'s).  ``ScriptObject`` answers Python's protocols
by calling the script's methods: ``len(x)``, ``x[i]``, iteration, ``in``, truth, hashing,
comparisons and arithmetic (``NotImplemented`` when the class has no such method, so that
Python's own rules try the reflected operator and give Python's errors), calling, ``str`` and
``repr``.  So the interpreter's operators and built-ins, written for Python's values, work on
a script's objects unchanged.  Where the class does not define a method its PyTorch base has
(``Sequential.__getitem__``), the base's is used; a PyTorch base's Python code that calls an
overridable method (``Module.__call__`` calling ``forward``) reaches the script's through the
dispatchers ``make_class`` adds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import ScriptError
from .classes import ScriptClass, StaticMethod, bind, fail
from .exceptions import EXCEPTIONS
from .functions import Function


def _special(obj: Any, name: str) -> Any:
    """The script's method ``name`` of ``obj``'s class, bound, or None (looked up on the
    class, as Python looks up special methods)."""
    cls = type(obj).script_class
    owner, value = cls.lookup(name)
    return None if owner is None or value is None else bind(value, obj, cls)


def _call(obj: Any, method: Any, *args: Any) -> Any:
    return type(obj).script_class.interp.call_value(method, list(args), {})


def _base(obj: Any, name: str) -> Any:
    """The PyTorch base's own ``name`` for ``obj`` (``Sequential.__len__``), or None."""
    api = type(obj).script_class.api
    if api is None or not hasattr(api.classes[0], name):
        return None
    return getattr(api.classes[0], name).__get__(obj)


class ScriptObject:
    """The Python side of a script's instance (see the module docstring)."""

    __slots__ = ()
    script_class: ScriptClass
    script_sequence = True  # len(), x[i] and iteration ask the protocol methods below
    script_operators = True  # Python's operators call the script's dunders (values.arith)

    # -- printing -------------------------------------------------------------------------------
    def script_repr(self, printer: Any) -> str:
        """``repr(obj)``: the class's ``__repr__``, a PyTorch base's, or Python's default."""
        method = _special(self, "__repr__")
        if method is not None:
            return _text(_call(self, method), "__repr__")
        base = _base(self, "script_repr")
        if base is not None:
            return base(printer)
        return f"<{type(self).script_class.qualname} object at {printer.address(self)}>"

    def script_str(self, printer: Any) -> str:
        """``str(obj)``: the class's ``__str__``, else its ``repr``."""
        method = _special(self, "__str__")
        if method is not None:
            return _text(_call(self, method), "__str__")
        return printer.repr(self)

    # -- calling --------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        method = _special(self, "__call__")
        if method is not None:
            return type(self).script_class.interp.call_value(method, list(args), kwargs)
        base = _base(self, "__call__")
        if base is not None:
            return base(*args, **kwargs)
        raise fail(f"'{type(self).script_class.name}' object is not callable")

    def script_callable(self) -> bool:
        """``callable(obj)``."""
        return _special(self, "__call__") is not None or _base(self, "__call__") is not None

    # -- containers -----------------------------------------------------------------------------
    def __len__(self) -> int:
        method = _special(self, "__len__") or _base(self, "__len__")
        if method is None:
            raise fail(f"object of type '{type(self).script_class.name}' has no len()")
        n = _call(self, method)
        if not isinstance(n, int):
            raise fail(f"'{type(n).__name__}' object cannot be interpreted as an integer")
        if n < 0:
            raise fail("__len__() should return >= 0", "ValueError")
        return n

    def __getitem__(self, key: Any) -> Any:
        method = _special(self, "__getitem__") or _base(self, "__getitem__")
        if method is None:
            raise fail(f"'{type(self).script_class.name}' object is not subscriptable")
        return _call(self, method, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        method = _special(self, "__setitem__") or _base(self, "__setitem__")
        if method is None:
            raise fail(f"'{type(self).script_class.name}' object does not support item "
                       "assignment")
        _call(self, method, key, value)

    def __delitem__(self, key: Any) -> None:
        method = _special(self, "__delitem__") or _base(self, "__delitem__")
        if method is None:
            raise fail(f"'{type(self).script_class.name}' object doesn't support item deletion")
        _call(self, method, key)

    def __iter__(self) -> Iterator[Any]:
        method = _special(self, "__iter__")
        if method is not None:
            return _iterator(_call(self, method))
        base = _base(self, "__iter__")
        if base is not None:
            return base()
        if _special(self, "__getitem__") is not None:
            return _by_index(self)
        raise fail(f"'{type(self).script_class.name}' object is not iterable")

    def __contains__(self, item: Any) -> bool:
        method = _special(self, "__contains__")
        if method is not None:
            return bool(_call(self, method, item))
        if _special(self, "__iter__") is None and _special(self, "__getitem__") is None and \
                _base(self, "__iter__") is None:
            raise fail(f"argument of type '{type(self).script_class.name}' is not iterable")
        return any(x is item or x == item for x in self)

    def __bool__(self) -> bool:
        method = _special(self, "__bool__")
        if method is not None:
            value = _call(self, method)
            if value.__class__ is not bool:
                raise fail(f"__bool__ should return bool, returned {type(value).__name__}")
            return value
        if _special(self, "__len__") is not None or _base(self, "__len__") is not None:
            return len(self) != 0
        return True

    def __hash__(self) -> int:
        # a class that defines __eq__ without __hash__ makes its instances unhashable
        for c in type(self).script_class.mro:
            if c.__class__ is not ScriptClass:
                return object.__hash__(self)
            if "__hash__" in c.namespace:
                method = c.namespace["__hash__"]
                if method is None:
                    break
                value = _call(self, bind(method, self, c))
                if not isinstance(value, int):
                    raise fail("__hash__ method should return an integer")
                return hash(value)
            if "__eq__" in c.namespace:
                break
        raise fail(f"unhashable type: '{type(self).script_class.name}'")

    # -- comparisons ----------------------------------------------------------------------------
    def __eq__(self, other: object) -> Any:
        method = _special(self, "__eq__")
        return NotImplemented if method is None else _call(self, method, other)

    def __ne__(self, other: object) -> Any:
        method = _special(self, "__ne__")
        if method is not None:
            return _call(self, method, other)
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal


def _text(value: Any, what: str) -> str:
    if value.__class__ is not str:
        raise fail(f"{what} returned non-string (type {type(value).__name__})")
    return value


def _iterator(it: Any) -> Iterator[Any]:
    """What ``__iter__`` returned, as a Python iterator (a script object with ``__next__``
    is stepped through it until it raises StopIteration)."""
    if hasattr(it, "__next__") and type(it).__module__ == "builtins":
        return it
    if isinstance(it, ScriptObject) and _special(it, "__next__") is not None:
        return _stepped(it)
    if hasattr(it, "__next__") and hasattr(it, "gi_code"):  # the interpreter's generators
        return it
    raise fail(f"iter() returned non-iterator of type '{_type_name(it)}'")


def _stepped(it: Any) -> Iterator[Any]:
    method = _special(it, "__next__")
    while True:
        try:
            value = _call(it, method)
        except ScriptError as err:
            if err.kind == "StopIteration":
                return
            raise
        yield value


def next_of(it: Any) -> Any:
    """``next(obj)`` for a script object with ``__next__``."""
    method = _special(it, "__next__")
    if method is None:
        raise fail(f"'{type(it).script_class.name}' object is not an iterator")
    return _call(it, method)


def _by_index(obj: Any) -> Iterator[Any]:
    """Python's old iteration protocol: ``obj[0]``, ``obj[1]``, ... until IndexError."""
    method = _special(obj, "__getitem__")
    i = 0
    while True:
        try:
            value = _call(obj, method, i)
        except ScriptError as err:
            if err.kind in ("IndexError", "StopIteration"):
                return
            raise
        yield value
        i += 1


def _type_name(v: Any) -> str:
    from .printing import type_name

    return type_name(v)


# Binary operators: each looks up the script's method, NotImplemented when there is none.
_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
           "xor", "lshift", "rshift")
_COMPARE = ("lt", "le", "gt", "ge")
_UNARY = ("neg", "pos", "invert", "abs")
_OBJECT = frozenset(dir(object))  # object's own comparisons answer NotImplemented anyway


def _operator(name: str) -> Any:
    dunder = f"__{name}__"

    def op(self: Any, *args: Any) -> Any:
        method = _special(self, dunder)
        if method is None and args and dunder not in _OBJECT:  # a PyTorch base's (Dataset +)
            method = _base(self, dunder)
        if method is None:
            return NotImplemented if args else _no_unary(self, name)
        return _call(self, method, *args)

    op.__name__ = dunder
    return op


def _no_unary(obj: Any, name: str) -> Any:
    symbol = {"neg": "-", "pos": "+", "invert": "~"}.get(name)
    what = f"unary {symbol}" if symbol else "abs()"
    raise fail(f"bad operand type for {what}: '{type(obj).script_class.name}'")


for _name in _BINARY:
    setattr(ScriptObject, f"__{_name}__", _operator(_name))
    setattr(ScriptObject, f"__r{_name}__", _operator(f"r{_name}"))
for _name in _COMPARE + _UNARY:
    setattr(ScriptObject, f"__{_name}__", _operator(_name))


def inplace_method(obj: Any, op: str) -> Any:
    """The script's ``__iadd__`` (etc.) for ``obj op= value``, bound, or None."""
    name = _INPLACE.get(op)
    return None if name is None else _special(obj, name)


_INPLACE = {"+": "__iadd__", "-": "__isub__", "*": "__imul__", "/": "__itruediv__",
            "//": "__ifloordiv__", "%": "__imod__", "**": "__ipow__", "@": "__imatmul__",
            "&": "__iand__", "|": "__ior__", "^": "__ixor__", "<<": "__ilshift__",
            ">>": "__irshift__"}


# ---- the Python class of a script class ---------------------------------------------------------
class Instance(ScriptObject):
    """An instance of a script class that derives from no PyTorch class."""

    __slots__ = ("__dict__", "__weakref__")


def make_class(interp: Any, name: str, qualname: str, bases: tuple,
               namespace: dict[str, Any]) -> ScriptClass:
    """The class object of a ``class`` statement, and the Python class of its instances."""
    cls = ScriptClass(interp, name, qualname, bases, namespace)
    if cls.api is None and cls.is_subclass(EXCEPTIONS["BaseException"]):
        if any(v.__class__ is Function for v in namespace.values()):
            raise ScriptError("gradcli does not support methods in exception classes",
                              kind="NotImplementedError",
                              hint="an exception class's body may hold a docstring, pass and "
                              "class attributes")
        return cls
    body: dict[str, Any] = {"script_class": cls, "script_type": name, "__slots__": (),
                            "__qualname__": qualname, "__module__": "__main__"}
    if cls.api is None:
        cls.pyclass = type(name, (Instance,), body)
        return cls
    py = cls.api.classes[0]
    for c in cls.mro:  # the base's Python code calls the script's overrides (forward, ...)
        if c.__class__ is ScriptClass:
            for key, value in c.namespace.items():
                if key not in body and not key.startswith("__") and hasattr(py, key) and \
                        (value.__class__ is Function or value.__class__ is StaticMethod):
                    body[key] = _dispatcher(key)
    cls.pyclass = type(name, (ScriptObject, py), body)
    return cls


def _dispatcher(name: str) -> Any:
    def dispatch(self: Any, *args: Any, **kwargs: Any) -> Any:
        cls = type(self).script_class
        _, value = cls.lookup(name)
        return cls.interp.call_value(bind(value, self, cls), list(args), kwargs)

    dispatch.__name__ = name
    return dispatch


__all__ = ["Instance", "ScriptObject", "inplace_method", "make_class", "next_of"]
