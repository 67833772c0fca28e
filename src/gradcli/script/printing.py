"""How a script's values print: ``str()``, ``repr()``, ``format()``, ``%`` and ``str.format``,
as CPython 3.11 and PyTorch 2.13 print the same values.

Objects that Python prints with their address (``<MulBackward0 object at 0x7f…>``,
``<function f at 0x7f…>``) get an address-like number of their own, stable within a run;
the ``Printer`` that hands them out is one per run. Nothing here calls ``str()`` or
``format()`` of Python on a value it has not checked: a script's values reach Python's
formatting only as numbers, strings or stand-ins whose ``__str__`` is ours.
"""

from __future__ import annotations

import _string  # CPython's own parser of format strings (what string.Formatter uses)
import re
import warnings
from collections import OrderedDict
from types import MethodType, ModuleType
from typing import Any

import numpy

from ..api.types import TypeObject
from ..engine import Node, Tensor
from ..engine.backend import NUMPY_CLASSES, numpy_type_name
from ..engine.context import GradMode
from ..engine.tensor import Size
from ..errors import ScriptError
from .exceptions import ExcValue
from .values import MAX_SEQUENCE, too_long

# the views of a dict's and an OrderedDict's keys, values and items, by their class names
DICT_VIEWS = frozenset({"dict_keys", "dict_values", "dict_items", "odict_keys", "odict_values",
                        "odict_items"})

_PLAIN = (int, float, bool, str, type(None))
MAX_REPR_DEPTH = 900  # containers inside containers; CPython's own limit is near 1,000
_BASE_ADDRESS = 0x7F3C2A5D1E40
_ADDRESS_STEP = 0x70  # CPython's small objects sit 0x30..0x90 bytes apart; any step will do

# format spec: [[fill]align][sign][z][#][0][width][grouping][.precision][type]
_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?(?P<width>\d*)[,_]?(?:\.(?P<prec>\d+))?[a-zA-Z%]?",
                   re.DOTALL)
_PERCENT = re.compile(r"%(?:\((?P<key>[^)]*)\))?[-#0 +]*(?P<width>\*|\d+)?"
                      r"(?:\.(?P<prec>\*|\d+))?[hlL]?(?P<conv>.?)", re.DOTALL)


def node_name(node: Any) -> str:
    """A grad_fn's class name: ``MulBackward0``."""
    name = getattr(node, "fn_name", None)  # the autograd branch's property
    return name if isinstance(name, str) else node.name


def type_name(v: Any) -> str:
    """What Python's messages call the type of ``v`` (``Tensor``, ``list``, ``torch.Size``)."""
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, Size):
        return "torch.Size"
    if isinstance(v, Node):
        return node_name(v)
    if isinstance(v, ExcValue):
        return v.type.name
    if isinstance(v, TypeObject):
        return "type"
    if type(v) in NUMPY_CLASSES or isinstance(v, numpy.dtype):
        return numpy_type_name(type(v))  # numpy.ndarray, numpy.float64
    script_type = getattr(type(v), "script_type", None)  # functions, modules, optimizers
    if isinstance(script_type, str):
        return script_type
    if type(v).__module__ == "gradcli.engine.dtypes":
        return "torch.dtype"
    if type(v).__module__ in ("itertools", "_collections"):  # itertools.chain, as CPython
        return f"{type(v).__module__}.{type(v).__name__}"  # names it (a deque's iterators)
    if callable(v) and not isinstance(v, _PLAIN):
        return "builtin_function_or_method"
    return type(v).__name__


def check_spec(spec: str) -> None:
    """Refuse a format spec whose width or precision would build an oversized string."""
    m = _SPEC.fullmatch(spec)
    if m is None:
        return  # Python will reject it with its own message
    for part in (m.group("width"), m.group("prec")):
        if part and len(part) > 7 or part and int(part) > MAX_SEQUENCE:
            raise too_long(int(part[:12]))


class _Shown:
    """A stand-in for a value inside Python's ``%`` formatting: prints through the Printer."""

    __slots__ = ("r", "s")

    def __init__(self, s: str, r: str) -> None:
        self.s = s
        self.r = r

    def __str__(self) -> str:
        return self.s

    def __repr__(self) -> str:
        return self.r


_STANDINS: dict[str, type] = {}


class _Mapping(dict):
    """A mapping's stand-in inside ``%``: its items' stand-ins, printed as the mapping."""

    shown: tuple[str, str]

    def __str__(self) -> str:
        return self.shown[0]

    def __repr__(self) -> str:
        return self.shown[1]


def _standin_class(name: str) -> type:
    """A stand-in class named as the value's type, so Python's messages name the right type."""
    cls = _STANDINS.get(name)
    if cls is None:
        cls = type(name, (_Shown,), {"__slots__": ()})
        _STANDINS[name] = cls
    return cls


class Printer:
    """``str``, ``repr`` and ``format`` of a run's values (one per run, for the addresses)."""

    def __init__(self) -> None:
        self._addresses: dict[int, tuple[Any, int]] = {}

    def address(self, obj: Any) -> str:
        """An address-like ``0x7f…`` for ``obj``, the same each time within the run."""
        known = self._addresses.get(id(obj))
        if known is None or known[0] is not obj:
            known = (obj, _BASE_ADDRESS + _ADDRESS_STEP * len(self._addresses))
            self._addresses[id(obj)] = known  # holding obj keeps its id from being reused
        return f"0x{known[1]:x}"

    # -- str and repr ---------------------------------------------------------------------------
    def str(self, v: Any) -> str:
        """``str(v)``."""
        if v.__class__ is str:
            return v
        if v.__class__ is float:
            return repr(v)
        if v.__class__ in NUMPY_CLASSES or isinstance(v, numpy.dtype):
            return _numpy_text(v, "str")
        if isinstance(v, ExcValue):
            return v.message(self.str)
        show = getattr(v.__class__, "script_str", None)  # torch.device prints as 'cpu'
        if show is not None:
            return show(v, self)
        return self.repr(v)

    def repr(self, v: Any) -> str:
        """``repr(v)``: containers show their items' reprs, as Python does."""
        return self._repr(v, set())

    def _itertools_repr(self, v: Any, active: set[int]) -> str:
        """``count(5)``, ``count(2.5, 0.5)``, ``repeat(x, 2)``: CPython's shape, each value
        printed as the script's (what ``__reduce__`` gives of the iterator's state)."""
        with warnings.catch_warnings():  # pickling itertools objects is deprecated in 3.12
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                _, args = v.__reduce__()[:2]
            except TypeError:  # a Python without it: its own repr (numbers, most often)
                return repr(v)
        if len(args) == 2 and isinstance(args[1], int) and args[1] == 1 and type(v).__name__ == "count":
            args = args[:1]  # a step of 1 (an int) is not shown
        return f"{type(v).__name__}({', '.join(self._repr(a, active) for a in args)})"

    def _repr(self, v: Any, active: set[int]) -> str:
        cls = v.__class__
        if cls in _PLAIN:
            return repr(v)
        if cls is Tensor or isinstance(v, Tensor):
            return repr(v)
        if cls is OrderedDict:  # a state_dict (CPython 3.11's repr)
            if not v:
                return "OrderedDict()"
            return f"OrderedDict({self._repr(list(v.items()), active)})"
        if cls is list or cls is tuple or cls is dict or cls is set:
            if id(v) in active:  # a list that contains itself
                return "[...]" if cls is list else "{...}" if cls is dict else "(...)"
            if len(active) >= MAX_REPR_DEPTH:  # as CPython's repr meets its recursion limit
                raise ScriptError("maximum recursion depth exceeded while getting the repr of "
                                  "an object", kind="RecursionError")
            active.add(id(v))
            try:
                if cls is dict:
                    inner = ", ".join(f"{self._repr(k, active)}: {self._repr(x, active)}"
                                      for k, x in v.items())
                    return "{" + inner + "}"
                items = ", ".join(self._repr(x, active) for x in v)
                if cls is list:
                    return "[" + items + "]"
                if cls is set:
                    return "{" + items + "}" if v else "set()"
                return "(" + items + ("," if len(v) == 1 else "") + ")"
            finally:
                active.discard(id(v))
        if cls is Size:
            return f"torch.Size([{', '.join(repr(int(d)) for d in v)}])"
        if cls in NUMPY_CLASSES or isinstance(v, numpy.dtype):
            return _numpy_text(v, "repr")
        if isinstance(v, Node):
            return f"<{v.repr_name()} object at {self.address(v)}>"
        if isinstance(v, ExcValue):
            return v.text(lambda a: self._repr(a, active))
        if v is Ellipsis:
            return "Ellipsis"
        if cls is range:
            step = "" if v.step == 1 else f", {v.step}"
            return f"range({v.start}, {v.stop}{step})"
        if cls.__module__ == "itertools" and cls.__name__ in ("count", "repeat"):
            return self._itertools_repr(v, active)
        if cls.__name__ in DICT_VIEWS:
            return f"{cls.__name__}({self._repr(list(v), active)})"
        show = getattr(cls, "script_repr", None)  # functions, modules, optimizers: their own
        if show is not None:
            return show(v, self)
        if isinstance(v, TypeObject):
            return repr(v)
        if isinstance(v, GradMode):
            kind = "no_grad" if not v.mode else "enable_grad"
            return f"<torch.autograd.grad_mode.{kind} object at {self.address(v)}>"
        if cls.__module__.startswith("gradcli.") and cls.__repr__ is not object.__repr__:
            # the engine's and the api's own objects (dtypes, torch.return_types, hook
            # handles, generators, optimizers) print as PyTorch's, with this run's addresses
            return repr(v).replace(f"{id(v):#x}", self.address(v))
        if cls.__name__ in ("zip", "map", "filter", "enumerate", "generator", "reversed",
                            "list_reverseiterator", "list_iterator", "tuple_iterator",
                            "range_iterator", "str_iterator"):
            # a script's generator expression, or the api's (model.parameters())
            what = f"generator object {v.__qualname__.rpartition('.<locals>.')[2]}" \
                if cls.__name__ == "generator" else f"{cls.__name__} object"
            return f"<{what} at {self.address(v)}>"
        if cls.__module__ == "_collections":  # a deque's iterators
            return f"<{type_name(v)} object at {self.address(v)}>"
        if callable(v):
            name = getattr(v, "__name__", "function")
            owner = getattr(v, "__self__", None)
            if isinstance(v, MethodType) and hasattr(owner, "script_class"):  # model.forward
                return f"<bound method {v.__func__.__qualname__} of {self._repr(owner, active)}>"
            if owner is not None and not isinstance(owner, ModuleType):
                return f"<built-in method {name} of {type_name(owner)} object at " \
                       f"{self.address(owner)}>"
            return f"<built-in function {name}>"
        return f"<{type_name(v)} object at {self.address(v)}>"

    # -- format(), f-strings ----------------------------------------------------------------------
    def format(self, v: Any, spec: str) -> str:
        """``format(v, spec)``; a 0-d tensor formats as its item, as ``Tensor.__format__``."""
        check_spec(spec)
        if isinstance(v, Tensor):
            if v.ndim == 0:
                v = v.item()
            elif spec:
                raise ScriptError("unsupported format string passed to Tensor.__format__",
                                  kind="TypeError")
            else:
                return repr(v)
        elif v.__class__ in NUMPY_CLASSES:
            return _numpy_text(v, ":" + spec)
        if v.__class__ in _PLAIN:
            try:
                return format(v, spec)
            except (ValueError, OverflowError) as exc:  # f"{10**7:c}": OverflowError
                raise ScriptError(str(exc), kind=type(exc).__name__) from None
            except TypeError as exc:
                raise ScriptError(str(exc), kind="TypeError") from None
        if spec:
            raise ScriptError(f"unsupported format string passed to {type_name(v)}.__format__",
                              kind="TypeError")
        return self.str(v)

    def convert(self, v: Any, conversion: str | None) -> Any:
        """An f-string's ``!s``, ``!r`` or ``!a`` conversion (None: the value itself)."""
        if conversion is None:
            return v
        if conversion == "s":
            return self.str(v)
        text = self.repr(v)
        return ascii(text)[1:-1] if conversion == "a" else text

    # -- str.format -------------------------------------------------------------------------------
    def str_format(self, fmt: str, args: tuple, kwargs: dict, attribute: Any, item: Any) -> str:
        """``fmt.format(*args, **kwargs)``; fields read attributes and items through the
        script's own rules (``attribute(obj, name)``, ``item(obj, key)``)."""
        return self._vformat(fmt, args, kwargs, attribute, item, 2, [0, False])

    def _vformat(self, fmt: str, args: tuple, kwargs: dict, attribute: Any, item: Any,
                 depth: int, numbering: list) -> str:
        # numbering: [next automatic index, whether a field was numbered by hand], shared with
        # the fields nested in a spec, as in Python's string.Formatter
        if depth < 0:
            raise ScriptError("Max string recursion exceeded", kind="ValueError")
        out: list[str] = []
        total = 0
        try:
            pieces = list(_string.formatter_parser(fmt))
        except ValueError as exc:
            raise ScriptError(str(exc), kind="ValueError") from None
        for literal, field, spec, conversion in pieces:
            out.append(literal)
            if field is None:
                continue
            first, rest = _string.formatter_field_name_split(field)
            if first == "":
                if numbering[1]:
                    raise ScriptError("cannot switch from manual field specification to "
                                      "automatic field numbering", kind="ValueError")
                first = numbering[0]
                numbering[0] += 1
            elif isinstance(first, int):
                if numbering[0]:
                    raise ScriptError("cannot switch from automatic field numbering to "
                                      "manual field specification", kind="ValueError")
                numbering[1] = True
            if isinstance(first, int):
                if first >= len(args):
                    raise ScriptError(f"Replacement index {first} out of range for positional "
                                      "args tuple", kind="IndexError")
                value = args[first]
            elif first in kwargs:
                value = kwargs[first]
            else:
                err = ScriptError(repr(first), kind="KeyError")
                err.pyargs = (first,)  # type: ignore[attr-defined]
                raise err
            for is_attr, key in rest:
                value = attribute(value, key) if is_attr else item(value, key)
            if conversion:
                if conversion not in "sra":
                    raise ScriptError(f"Unknown conversion specifier {conversion}",
                                      kind="ValueError")
                value = self.convert(value, conversion)
            if spec and "{" in spec:
                spec = self._vformat(spec, args, kwargs, attribute, item, depth - 1, numbering)
            text = self.format(value, spec or "")
            total += len(text)
            if total > MAX_SEQUENCE:
                raise too_long(total)
            out.append(text)
        return "".join(out)

    # -- the % operator -----------------------------------------------------------------------------
    def percent(self, fmt: str, args: Any) -> str:
        """``fmt % args`` with Python's rules and messages; values print through this Printer."""
        self._check_percent(fmt, args)
        if isinstance(args, tuple):
            safe: Any = tuple(self._standin(a) for a in args)
        elif isinstance(args, dict):  # its items for %(key)s, itself for %s (a Counter's)
            safe = _Mapping({k: self._standin(v) for k, v in args.items()})
            safe.shown = (self.str(args), self.repr(args))
        else:
            safe = self._standin(args)
        try:
            return fmt % safe
        except (TypeError, ValueError, KeyError, OverflowError) as exc:
            kind = type(exc).__name__
            err = ScriptError(str(exc) if kind != "KeyError" else repr(exc.args[0]), kind=kind)
            if kind == "KeyError":
                err.pyargs = exc.args  # type: ignore[attr-defined]
            raise err from None

    def _standin(self, v: Any) -> Any:
        # Numbers and strings go to Python as they are, tensors and NumPy's scalars too (their
        # __int__, __float__ and __repr__ are PyTorch's and NumPy's); everything else prints
        # through this Printer.
        if v.__class__ in _PLAIN or isinstance(v, Tensor) or (
                v.__class__ in NUMPY_CLASSES and v.__class__ is not numpy.ndarray):
            return v
        return _standin_class(type_name(v))(self.str(v), self.repr(v))

    @staticmethod
    def _check_percent(fmt: str, args: Any) -> None:
        """Refuse widths and precisions that would build an oversized string."""
        seq = args if isinstance(args, tuple) else (args,)
        pos = 0
        total = 0
        for m in _PERCENT.finditer(fmt):
            if m.group("conv") == "%" and not m.group("width"):
                continue
            for part in (m.group("width"), m.group("prec")):
                if part == "*":
                    v = seq[pos] if pos < len(seq) else 0
                    pos += 1
                    n = abs(v) if isinstance(v, int) else 0
                elif part:
                    n = int(part) if len(part) < 12 else MAX_SEQUENCE + 1
                else:
                    n = 0
                total += n
            pos += 1
            if total > MAX_SEQUENCE:
                raise too_long(total)


def _numpy_text(v: Any, how: str) -> str:
    """A NumPy value's text under the run's print options (api/numpy_arrays.py)."""
    from ..api.numpy_arrays import text

    return text(v, how)


__all__ = ["Printer", "check_spec", "node_name", "type_name"]
