"""A script's values: Python's operators on numbers, strings, containers and tensors.

Plain values follow Python, tensors PyTorch (through their operators); both with the limits of
docs/commands.md on what a script may build (huge ints, long lists) and script-level errors. How values
print is ``printing.py``.
"""

from __future__ import annotations

import operator
import sys
from typing import Any

import numpy

from ..engine import Tensor
from ..engine.backend import NUMPY_CLASSES, NUMPY_DTYPES, numpy_type_name
from ..engine.functions import ARITHMETIC
from ..engine.tensor import Size  # noqa: F401  (what print shows for x.shape)
from ..errors import ScriptError
from ..language import program as P
from ..limits import MAX_SEQUENCE

MAX_INT_BITS = 14_000  # about 4,200 digits: Python converts at most 4,300 to text
MAX_LIST_DEPTH = 100


def _contains(container: Any, item: Any) -> bool:
    """``item in container``; for a tensor, PyTorch's ``(item == t).any().item()``."""
    if container.__class__ in NUMPY_CLASSES:
        return numpy_protocols().contains(container, item)
    if isinstance(container, Tensor):
        if not isinstance(item, (Tensor, int, float)):
            raise ScriptError("Tensor.__contains__ only supports Tensor or scalar, but you "
                              f"passed in a {type(item)}.")
        return bool((container == item).data.any())
    if container.__class__ is range and item.__class__ not in (int, bool):
        # range's own test scans every element for anything but an int: as Python decides
        if isinstance(item, float):
            return item.is_integer() and int(item) in container
        return False
    try:
        return item in container
    except (TypeError, ValueError) as exc:  # ValueError: NumPy's truth of an array
        raise ScriptError(str(exc), kind=type(exc).__name__) from None


def numpy_protocols() -> Any:
    """NumPy's values under Python's protocols, ``api/numpy_arrays.py`` (loaded when a run
    first meets one)."""
    module = sys.modules.get("gradcli.api.numpy_arrays")
    if module is None:
        from ..api import numpy_arrays as module
    return module


def _comparison(op: str, compare: Any) -> Any:
    """A comparison operator; with a NumPy operand, elementwise within the element limit."""
    def fn(a: Any, b: Any) -> Any:
        if type(a) in NUMPY_OPERANDS or type(b) in NUMPY_OPERANDS:
            return numpy_protocols().compare(op, a, b)
        return compare(a, b)
    return fn


NUMPY_OPERANDS = NUMPY_CLASSES | NUMPY_DTYPES  # x.dtype == np.float32 too
# Python's comparisons when no operand is NumPy's (the interpreter tests for one first)
PYTHON_COMPARE = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "is": lambda a, b: a is b, "is not": lambda a, b: a is not b,
    "in": lambda a, b: _contains(b, a), "not in": lambda a, b: not _contains(b, a),
}
# any operands (the built-ins' comparisons: min, max ...)
COMPARE = {**PYTHON_COMPARE, **{op: _comparison(op, PYTHON_COMPARE[op])
                                for op in ("<", "<=", ">", ">=", "==", "!=")}}


def arith(op: str, a: Any, b: Any, symbol: str | None = None) -> Any:
    """A binary operator with Python/PyTorch semantics and script-level errors (``symbol``:
    how errors name the operator, ``+=`` for an augmented assignment)."""
    ca, cb = type(a), type(b)
    if ca in _ENGINE_OR_NUMPY or cb in _ENGINE_OR_NUMPY:
        if ca is Tensor or cb is Tensor:  # the engine checks its own operands
            other = b if ca is Tensor else a
            if type(other) in NUMPY_CLASSES:
                if type(other) is not _NDARRAY:  # a NumPy scalar: PyTorch takes its number
                    if other.dtype.kind == "c":
                        raise numpy_protocols().complex_scalar(other)
                    return arith(op, *((a, other.item()) if other is b else (other.item(), b)),
                                 symbol)
                return numpy_protocols().with_tensor(op, a, b, symbol is not None and symbol != op)
            return _arith_unchecked(op, a, b, symbol or op)
        if ca in _SEQUENCES and cb is not _NDARRAY and b.dtype.kind in "iu":
            return arith(op, a, operator.index(b), symbol)  # Python's [0] * n
        if getattr(ca, "script_operators", False) or getattr(cb, "script_operators", False):
            return _with_script_object(op, a, b, symbol or op)  # one is a script's object
        return numpy_protocols().binary(op, a, b, symbol is not None and symbol != op)
    check_operands(op, a, b)
    result = _arith_unchecked(op, a, b, symbol or op)
    if result.__class__ is int and result.bit_length() > MAX_INT_BITS:
        raise _int_too_large()
    if result.__class__ is list:
        check_list(result)
    return result


def _with_script_object(op: str, a: Any, b: Any, symbol: str) -> Any:
    """A script's object meeting a NumPy value: the object's own operator first, as Python
    calls it (a NumPy scalar on the left hands the object its number, as NumPy does); NumPy
    never makes an array of the script's objects."""
    name = _DUNDERS[op]
    if _script_object(a):
        result = getattr(a, f"__{name}__")(b)
    elif type(a) is not _NDARRAY:
        result = getattr(b, f"__r{name}__")(a.item())
    else:  # an array and an object: NumPy's gate refuses the object
        return numpy_protocols().binary(op, a, b, symbol != op)
    if result is NotImplemented:  # NumPy's side tried too, with its elements as Python's
        names = [tname(v) if _script_object(v) else
                 type(v.dtype.type(0).item()).__name__ for v in (a, b)]
        raise ScriptError(f"unsupported operand type(s) for {symbol}: '{names[0]}' and "
                          f"'{names[1]}'", kind="TypeError")
    return result


def _script_object(v: Any) -> bool:
    """An instance of a script's class (script/instances.py: its operators call its dunders)."""
    return getattr(type(v), "script_operators", False)


_DUNDERS = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
            "**": "pow", "@": "matmul", "&": "and", "|": "or", "^": "xor", "<<": "lshift",
            ">>": "rshift"}


def check_operands(op: str, a: Any, b: Any) -> None:
    """Refuse, before computing it, an int, string or list too large to use (docs/commands.md)."""
    if op == "*" and a.__class__ is int and b.__class__ is int:
        if a.bit_length() + b.bit_length() - 1 > MAX_INT_BITS:
            raise _int_too_large()
    elif op == "**" and a.__class__ is int and b.__class__ is int and b > 0:
        if (abs(a).bit_length() - 1) * b > MAX_INT_BITS:
            raise _int_too_large()
    elif op == "<<" and a.__class__ is int and b.__class__ is int and b > 0:
        if a.bit_length() + b > MAX_INT_BITS:
            raise _int_too_large()
    elif op == "*" and isinstance(a, _SEQUENCES + (int,)) and isinstance(b, _SEQUENCES + (int,)):
        seq, n = (a, b) if isinstance(b, int) else (b, a)
        if isinstance(seq, _SEQUENCES) and isinstance(n, int) and len(seq) * n > MAX_SEQUENCE:
            raise too_long(len(seq) * n)
    elif (op == "+" and isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES)
          and len(a) + len(b) > MAX_SEQUENCE):
        raise too_long(len(a) + len(b))


_SEQUENCES = (str, list, tuple)
NUMBERS = frozenset((int, float, bool))
# What Python calls for ``tensor op x`` and ``x op tensor`` (x a tensor or a number: a number's
# operators give NotImplemented for a tensor), by operator: the tensor's method and its reflected
# one (None where a tensor has none), + - * / the engine's at once (+ and * reflected too:
# PyTorch computes ``x + t`` as ``t + x``)
TENSOR_OPERATORS = {op: (ARITHMETIC.get(op) or getattr(Tensor, f"__{name}__", None),
                         ARITHMETIC[op] if op in ("+", "*") else
                         getattr(Tensor, f"__r{name}__", None)) for op, name in _DUNDERS.items()}
_NDARRAY = numpy.ndarray
_ENGINE_OR_NUMPY = NUMPY_CLASSES | {Tensor}  # operands that need more than Python's operators


def _int_too_large() -> ScriptError:
    return ScriptError(f"integer too large (over {MAX_INT_BITS:,} bits, about 4,200 digits)",
                       kind="OverflowError", hint="use floats (2.0 ** 100000 is inf)")


def too_long(n: int) -> ScriptError:
    """The error for a string or list over the size limit."""
    return ScriptError(f"a string or list of {n:,} elements is over the limit of "
                       f"{MAX_SEQUENCE:,}", kind="MemoryError")


def check_list(value: list) -> list:
    """Bound the nesting depth and the flattened size of a list built at run time (docs/commands.md).

    Lists inside ``value`` were checked when they were built, so the walk recurses at most
    ``MAX_LIST_DEPTH`` deep; it visits each distinct list once, however often it is shared.
    """
    seen: dict[int, tuple[int, int]] = {}

    def measure(v: list) -> tuple[int, int]:
        known = seen.get(id(v))
        if known is not None:
            return known
        depth, size = 1, len(v)
        for item in v:
            if item.__class__ is list:
                d, n = measure(item)
                depth, size = max(depth, d + 1), size + n
        seen[id(v)] = (depth, size)
        return depth, size

    depth, size = measure(value)
    if depth > MAX_LIST_DEPTH:
        raise ScriptError(f"lists nested deeper than {MAX_LIST_DEPTH}", kind="RecursionError")
    if size > MAX_SEQUENCE:
        raise too_long(size)
    return value


_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
              "//": operator.floordiv, "%": operator.mod, "@": operator.matmul,
              "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
              ">>": operator.rshift}
# the operators whose result from two Python numbers (int or float, not bool) is Python's own,
# checked after (an int past MAX_INT_BITS, an ArithmeticError: arith() says so): a loop's
# counter, a learning rate's schedule
NUMBER_OPERATORS = {k: _OPERATORS[k] for k in ("+", "-", "*", "/", "//", "%")}


def _arith_unchecked(op: str, a: Any, b: Any, symbol: str) -> Any:
    try:
        if op == "**":
            if isinstance(a, int) and isinstance(b, int) and abs(b) > 10_000 and abs(a) > 1:
                raise ScriptError("integer power too large", kind="OverflowError")
            return a ** b
        return _OPERATORS[op](a, b)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError) as exc:
        raise operator_error(exc, op, a, b, symbol) from None


def operator_error(exc: Exception, op: str, a: Any, b: Any, symbol: str) -> ScriptError:
    """Python's error of ``a op b`` as the script's: a negative shift count's ValueError, a
    division by zero, an overflow, an operand type refused (named as a script names it)."""
    if not isinstance(exc, TypeError):
        kind = "ValueError" if isinstance(exc, ValueError) else \
            "ZeroDivisionError" if isinstance(exc, ZeroDivisionError) else "OverflowError"
        return ScriptError(str(exc), kind=kind)
    message = str(exc)
    if message.startswith("unsupported operand"):
        how = "** or pow()" if symbol == "**" else symbol  # as CPython names them
        message = f"unsupported operand type(s) for {how}: '{tname(a)}' and '{tname(b)}'"
    else:  # Python's own words, with the types as a script names them
        for v in (a, b):  # ("can only concatenate list (not "Tensor") to list")
            real, shown = type(v).__name__, tname(v)
            if real != shown:
                message = message.replace(f'"{real}"', f'"{shown}"').replace(
                    f"'{real}'", f"'{shown}'")
    return ScriptError(message, kind="TypeError")


def literal(e: Any) -> Any:
    """The numbers of a bare literal (docs/language.md); a leading minus negates every element."""
    if e.__class__ is P.Number:
        return e.value
    if e.__class__ is P.Unary:
        v = literal(e.operand)
        return _negate(v) if e.op == "-" else v
    return [literal(i) for i in e.items]


def _negate(v: Any) -> Any:
    return [_negate(x) for x in v] if isinstance(v, list) else -v


def tname(v: Any) -> str:
    """A value's type as Python's messages name it (``Tensor``, ``int``, ``function``)."""
    if isinstance(v, Tensor):
        return "Tensor"
    cls = type(v)
    if cls in NUMPY_CLASSES:
        return numpy_type_name(cls)
    script_type = getattr(cls, "script_type", None) or getattr(cls, "type_name", None)
    if isinstance(script_type, str):  # functions, modules, ...
        return script_type
    # (a Python function is one of gradcli's built-ins: a script's have a script_type)
    return "builtin_function_or_method" if callable(v) and cls.__module__ != "builtins" or \
        cls.__name__ in ("builtin_function_or_method", "method", "function") else cls.__name__
