"""NumPy's arrays and scalars as a script's values (docs/language.md: ``import numpy as np``).

A script holds real NumPy objects (``numpy.ndarray``, ``numpy.float64`` ...), so their math,
printing and seeded draws are the installed NumPy's own, whatever its version prints
(``np.float64(1.5)`` under NumPy 2, ``1.5`` under 1.26). What a script does with them passes
through one gate, ``run``: the arguments made safe (``argument``: numbers, lists, arrays; a
tensor as PyTorch's ``__array__`` gives it; no object, string or file), the result checked
(numbers and booleans only, within ``--max-elements``), NumPy's errors as the script's, its
floating-point warnings as Python shows them. Functions that can make an array larger than
their inputs declare how (``numpy_module``); Python's operators, indexing and iteration on
arrays are here, and the interpreter reaches them from its own protocols. Imported when a run
first meets NumPy: a program that never does pays nothing.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.backend import NUMPY_CLASSES, numpy_type_name
from ..engine.context import current
from ..engine.tensor import Size, Tensor
from ..errors import GradcliError, ScriptError
from .types import TypeObject

NUMERIC_KINDS = "biufc"  # bool, signed and unsigned integers, floats, complex: what arrays hold
NUMPY_2 = int(np.__version__.split(".")[0]) >= 2
# NumPy's defaults (``np.set_printoptions`` changes the run's copy): a run never prints with
# the options of the process around it (a notebook's ``np.set_printoptions``)
DEFAULT_PRINT = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 75,
                 "suppress": False, "nanstr": "nan", "infstr": "inf", "sign": "-",
                 "floatmode": "maxprec", "legacy": False, "formatter": None}
FILE_MESSAGE = "{} reads or writes files: gradcli's scripts have no file access"
FILE_HINT = "make the data in the script (np.array, np.random ...)"
# What torch.Tensor.__array_wrap__ makes NumPy 2 say for a tensor in a ufunc (t + array)
ARRAY_WRAP_MSG = ("__array_wrap__ must accept context and return_scalar arguments (positionally) "
                  "in the future. (Deprecated NumPy 2.0)")
# What NumPy 2 says when np.array(t) calls torch.Tensor.__array__, which takes no copy keyword
ARRAY_COPY_MSG = ("__array__ implementation doesn't accept a copy keyword, so passing copy=False "
                  "failed. __array__ must implement 'dtype' and 'copy' keyword arguments. To "
                  "learn more, see the migration guide https://numpy.org/devdocs/numpy_2_0_"
                  "migration_guide.html#adapting-to-changes-in-the-copy-keyword")
NO_COPY_MSG = ("Unable to avoid copy while creating an array as requested.\nIf using "
               "`np.array(obj, copy=False)` replace it with `np.asarray(obj)` to allow a copy "
               "when needed (no behavior change in NumPy 1.x).\nFor more details, see "
               "https://numpy.org/devdocs/numpy_2_0_migration_guide.html#adapting-to-changes-"
               "in-the-copy-keyword.")
_COPYING = frozenset({"numpy.array", "numpy.copy"})  # they ask __array__ for a copy
_PYTHON_WARNINGS = threading.Lock()  # warnings.catch_warnings is process-wide


class NumpyState:
    """One run's NumPy: ``np.random``'s legacy generator and ``np.set_printoptions``'s
    options (NumPy keeps both per process), the count of unseeded ``default_rng()`` calls."""

    __slots__ = ("_legacy", "print_options", "seed", "unseeded")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._legacy: np.random.RandomState | None = None
        self.print_options = DEFAULT_PRINT
        self.unseeded = 0

    @property
    def legacy(self) -> np.random.RandomState:
        """``np.random.seed``/``randn``'s generator: unseeded, it starts from ``--seed`` (a run
        repeats; NumPy's own starts from the operating system's entropy)."""
        if self._legacy is None:
            self._legacy = np.random.RandomState(self.seed % 2 ** 32)
        return self._legacy


def state() -> NumpyState:
    """The current run's NumPy state, made on first use."""
    ctx = current()
    if ctx.numpy is None:
        ctx.numpy = NumpyState(ctx.backend.seed)
    return ctx.numpy


# ---- the gate: arguments, results, errors -----------------------------------------------------
_SIMPLE = frozenset({int, float, bool, type(None), str, slice, type(Ellipsis)})


def argument(v: Any, top: bool = True) -> Any:
    """A script's value as NumPy may take it: numbers, NumPy values, (nested) lists and tuples
    of them, dtypes, ranges within the element limit; a tensor as PyTorch's ``__array__``
    gives it (its own memory; an error if it requires grad); a string only as an option
    (``order='F'``), never inside a list."""
    cls = v.__class__
    if cls in NUMPY_CLASSES or (cls in _SIMPLE and (top or cls is not str)):
        return v
    if cls is list or cls is tuple or cls is Size:
        items = [argument(x, False) for x in v]
        if cls is list:
            return v if all(a is b for a, b in zip(items, v)) else items
        return tuple(items)
    if cls is Tensor:
        return v.numpy()
    if isinstance(v, np.dtype):
        return v
    if cls is TypeObject:
        return _python_class(v)
    if cls is range:  # NumPy makes an array of it at once
        check_elements(repr(v), max(0, -((v.start - v.stop) // v.step)))
        return v
    raise ScriptError(f"gradcli's NumPy takes numbers, lists and arrays, not "
                      f"{_what(v)}", kind="TypeError")


def _what(v: Any) -> str:
    if v.__class__ is str:
        return "strings inside lists"
    name = getattr(type(v), "script_type", None) or (
        "builtin_function_or_method" if callable(v) else type(v).__name__)
    return f"'{name}'"


def numeric_dtype(value: Any) -> None:
    """Refuse a ``dtype=`` that is not numbers or booleans (strings, objects, dates)."""
    if value is None:
        return
    try:
        dt = np.dtype(value)
    except TypeError:
        return  # NumPy says what is wrong with it
    if dt.kind not in NUMERIC_KINDS:
        raise _not_numeric(dt)


def _not_numeric(dt: np.dtype) -> ScriptError:
    return ScriptError(f"gradcli's NumPy arrays hold numbers and booleans: {dt!r} is not "
                       "supported", kind="TypeError")


def check_elements(name: str, n: int, per_element: int = 1) -> None:
    """Refuse, before NumPy allocates it, an array over the run's element limit (docs/commands.md);
    ``per_element``: elements' worth of memory each one takes (a string of 10 characters
    takes 5 float64s')."""
    limit = current().max_elements
    if n * per_element > limit:
        what = f"{n:,} elements" if per_element == 1 else \
            f"{n:,} elements of {per_element * 8} bytes"
        raise ScriptError(f"{name} would make an array of {what}, over the limit of {limit:,} "
                          "elements", hint="raise it with --max-elements if you mean it")


def checked(result: Any, name: str) -> Any:
    """A NumPy result as a script may hold it: numbers and booleans within the element limit;
    a tuple for NumPy's named tuples (``np.linalg.svd``)."""
    cls = result.__class__
    if cls is np.ndarray or cls in NUMPY_CLASSES:
        if result.dtype.kind not in NUMERIC_KINDS:
            raise _not_numeric(result.dtype)
        if cls is np.ndarray and result.size > current().max_elements:
            check_elements(name, result.size)
        return result
    if cls in _SIMPLE or isinstance(result, np.dtype):
        return result
    if isinstance(result, (tuple, list)):
        items = [checked(x, name) for x in result]
        return items if cls is list else tuple(items)
    raise ScriptError(f"gradcli does not support {name}'s result ({numpy_type_name(cls)}) yet",
                      kind="NotImplementedError")


def numpy_error(exc: Exception) -> ScriptError:
    """NumPy's exception as the script's: named as Python prints it
    (``numpy.linalg.LinAlgError``), caught by ``except`` of its built-in base."""
    cls = type(exc)
    if cls.__module__ == "builtins":
        err = ScriptError(str(exc), kind=cls.__name__)
        if cls is KeyError:
            err.message = repr(exc.args[0]) if exc.args else ""
        return err
    err = ScriptError(str(exc), kind=f"{cls.__module__}.{cls.__qualname__}")
    err.pybase = next(c.__name__ for c in cls.__mro__  # type: ignore[attr-defined]
                      if c.__module__ == "builtins")
    return err


def run(fn: Callable[..., Any], args: tuple, kwargs: dict, name: str,
        warns: bool = False, result: bool = True) -> Any:
    """Call NumPy: its errors as script errors, its warnings as the run's (RuntimeWarning
    "divide by zero encountered in log"; with ``warns``, the ones it raises in Python, "Mean
    of empty slice."), its result ``checked`` (unless ``result`` is False: a generator)."""
    ctx = current()
    log = ctx.fp_log
    log.active = True
    caught: list = []
    try:
        if warns:  # NumPy's Python-level warnings, in order with its floating-point ones
            with _PYTHON_WARNINGS, warnings.catch_warnings(record=True) as caught, \
                    np.errstate(divide="warn", over="warn", invalid="warn", under="ignore"):
                warnings.simplefilter("always")
                out = fn(*args, **kwargs)
        else:
            out = fn(*args, **kwargs)
    except GradcliError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever NumPy raises is the script's error
        raise numpy_error(exc) from None
    finally:
        log.active = False
        for message in log.messages:
            ctx.warn(message, "RuntimeWarning")
        log.messages.clear()
    for w in caught:
        ctx.warn(str(w.message), w.category.__name__)
    return checked(out, name) if result else out


class NumpyFunction:
    """A NumPy function or method as a script calls it, through the gate.

    ``rule(args, kwargs)``: how many elements its result may have, checked before the call
    (None: never more than its inputs); ``tensors``: what a tensor argument means ("convert":
    NumPy's ``asarray`` of it, "wrap": a ufunc, whose result PyTorch's ``__array_wrap__`` makes
    a tensor, None: not supported); ``dtype_at``: the position of its ``dtype`` parameter;
    ``warns``: it may warn from Python code (``np.mean`` of nothing).
    """

    __slots__ = ("__name__", "dtype_at", "fn", "kind", "label", "owner", "rule", "tensors",
                 "warns")
    script_type = "builtin_function_or_method"

    def __init__(self, name: str, fn: Callable[..., Any], rule: Callable | None = None,
                 tensors: str | None = None, dtype_at: int | None = None, warns: bool = False,
                 owner: Any = None, label: str | None = None) -> None:
        self.__name__ = name
        # how messages name it: numpy.zeros, numpy.linalg.inv, numpy.ndarray.reshape
        self.label = label or (f"numpy.{name}" if owner is None else
                               f"{numpy_type_name(type(owner))}.{name}")
        self.fn = fn
        self.rule = rule
        self.tensors = tensors
        self.dtype_at = dtype_at
        self.warns = warns
        self.owner = owner  # the array or generator of a bound method
        self.kind = "ufunc" if isinstance(fn, np.ufunc) else "function"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        wrap = False
        if any(a.__class__ is Tensor for a in (*args, *kwargs.values())):
            if self.tensors is None:  # NumPy would call the tensor's own method (t.mean(...))
                raise ScriptError(f"gradcli does not support a tensor as {self.label}'s "
                                  "argument yet", kind="NotImplementedError",
                                  hint="pass t.numpy() (t.detach().numpy() if it requires "
                                       "grad), or use torch's own function")
            wrap = self.tensors == "wrap"
            if NUMPY_2 and self.label in _COPYING and args and args[0].__class__ is Tensor:
                _copy_of_tensor(kwargs.get("copy", True))
        args = tuple(argument(a) for a in args)
        if kwargs:
            kwargs = {k: argument(v) for k, v in kwargs.items()}
            numeric_dtype(kwargs.get("dtype"))
        if self.dtype_at is not None and len(args) > self.dtype_at:
            numeric_dtype(args[self.dtype_at])
        if self.rule is not None:
            n = self.rule(args, kwargs)
            if n:
                check_elements(self.label, n, _string_width(args, kwargs))
        # a complex value made real warns from NumPy's C code (ComplexWarning): caught as well
        warns = self.warns or any(_complex(v) for v in (self.owner, *args))
        result = run(self.fn, args, kwargs, self.label, warns)
        return wrap_tensor(result) if wrap else result

    def script_repr(self, printer: Any) -> str:
        """``<ufunc 'sin'>``, ``<function mean at 0x…>``, ``<built-in method reshape of …>``."""
        if self.owner is not None:
            return (f"<built-in method {self.__name__} of {numpy_type_name(type(self.owner))} "
                    f"object at {printer.address(self.owner)}>")
        if self.kind == "ufunc":
            return f"<ufunc '{self.__name__}'>"
        return f"<function {self.__name__} at {printer.address(self)}>"


# ---- classes a script names: np.float32, np.ndarray ... -----------------------------------------
def _make_type(cls: type) -> TypeObject:
    name = cls.__name__
    make = None if cls is np.ndarray or cls.__name__ in ("floating", "integer", "number",
                                                          "generic") else \
        NumpyFunction(name, cls, tensors="convert")
    return TypeObject(f"numpy.{name}", (cls,), make)


# the classes ``numpy`` offers by name (np.float32 ...), and those a script meets otherwise
# (``type(x)`` of a uint16 element), made once: ``type(x) is np.float64`` holds
TYPES: dict[type, TypeObject] = {
    cls: _make_type(cls) for cls in (getattr(np, name) for name in (
        "ndarray", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
        "bool_", "complex64", "complex128", "generic", "number", "integer", "floating"))}
_OTHER_TYPES: dict[type, TypeObject] = {}


def type_object(v: Any) -> TypeObject:
    """``type(v)`` for a NumPy value: ``<class 'numpy.float64'>``."""
    cls = type(v)
    t = TYPES.get(cls) or _OTHER_TYPES.get(cls)
    if t is None:
        t = _OTHER_TYPES.setdefault(cls, _make_type(cls))
    return t


def _python_class(t: TypeObject) -> Any:
    """The class a TypeObject stands for, when NumPy may take it (``dtype=float``)."""
    if t.classes and (t.classes[0] in (int, float, bool) or t.classes[0] in TYPES):
        return t.classes[0]
    raise ScriptError(f"gradcli's NumPy arrays hold numbers and booleans, not {t.qualname}",
                      kind="TypeError")


def _copy_of_tensor(copy: Any) -> None:
    """``np.array(t)``, ``np.copy(t)`` under NumPy 2: PyTorch's ``__array__`` refuses the copy
    keyword, so NumPy warns and asks again without it (and cannot promise ``copy=False``)."""
    if copy is None:
        return
    current().warn(ARRAY_COPY_MSG, "DeprecationWarning")
    if copy is False:
        raise ScriptError(NO_COPY_MSG, kind="ValueError")


def _complex(v: Any) -> bool:
    return isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind == "c"


def complex_scalar(v: Any) -> ScriptError | None:
    """The error for a complex NumPy scalar where PyTorch takes a number (gradcli's tensors
    are real), else None."""
    if isinstance(v, np.complexfloating):
        return ScriptError(f"gradcli does not support {v.dtype.name} tensors yet",
                           kind="NotImplementedError")
    return None


def _string_width(args: tuple, kwargs: dict) -> int:
    """Elements' worth of memory of one element of a string array the arguments could make."""
    width = max((len(a) for a in (*args, *kwargs.values()) if a.__class__ is str), default=0)
    return max(1, (4 * width + 7) // 8)


def wrap_tensor(result: Any) -> Tensor:
    """A ufunc's result on a tensor, as ``torch.Tensor.__array_wrap__`` makes it: a new tensor
    on the result's memory (uint8 for booleans, PyTorch's workaround), with NumPy 2's warning
    about that method's old signature."""
    from .creation import from_numpy

    if NUMPY_2:
        current().warn(ARRAY_WRAP_MSG, "DeprecationWarning")
    array = np.asarray(result)
    return from_numpy(array.astype(np.uint8) if array.dtype == bool else array)


__all__ = ["ARRAY_COPY_MSG", "DEFAULT_PRINT", "NO_COPY_MSG", "NUMPY_2", "TYPES", "NumpyFunction",
           "NumpyState", "argument", "check_elements", "checked", "complex_scalar",
           "numeric_dtype", "numpy_error", "run", "state", "type_object", "wrap_tensor"]
