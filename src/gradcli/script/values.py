"""A script's values: Python's operators on numbers, strings, containers and tensors.

Plain values follow Python, tensors PyTorch (through their operators); both with the limits of
SPEC §6 on what a script may build (huge ints, long lists) and script-level errors. How values
print is ``printing.py``.
"""

from __future__ import annotations

import operator
from typing import Any

from ..engine import Tensor
from ..engine.tensor import Size  # noqa: F401  (what print shows for x.shape)
from ..errors import ScriptError
from ..language import program as P

MAX_INT_BITS = 14_000  # about 4,200 digits: Python converts at most 4,300 to text
MAX_SEQUENCE = 1_000_000  # characters of a string, elements of a (flattened) list
MAX_LIST_DEPTH = 100


def _contains(container: Any, item: Any) -> bool:
    """``item in container``; for a tensor, PyTorch's ``(item == t).any().item()``."""
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
    except TypeError as exc:
        raise ScriptError(str(exc), kind="TypeError") from None


COMPARE = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "is": lambda a, b: a is b, "is not": lambda a, b: a is not b,
    "in": lambda a, b: _contains(b, a), "not in": lambda a, b: not _contains(b, a),
}


def arith(op: str, a: Any, b: Any, symbol: str | None = None) -> Any:
    """A binary operator with Python/PyTorch semantics and script-level errors (``symbol``:
    how errors name the operator, ``+=`` for an augmented assignment)."""
    if a.__class__ is Tensor or b.__class__ is Tensor:  # the engine checks its own operands
        return _arith_unchecked(op, a, b, symbol or op)
    check_operands(op, a, b)
    result = _arith_unchecked(op, a, b, symbol or op)
    if result.__class__ is int and result.bit_length() > MAX_INT_BITS:
        raise _int_too_large()
    if result.__class__ is list:
        check_list(result)
    return result


def check_operands(op: str, a: Any, b: Any) -> None:
    """Refuse, before computing it, an int, string or list too large to use (SPEC §6)."""
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


def _int_too_large() -> ScriptError:
    return ScriptError(f"integer too large (over {MAX_INT_BITS:,} bits, about 4,200 digits)",
                       kind="OverflowError", hint="use floats (2.0 ** 100000 is inf)")


def too_long(n: int) -> ScriptError:
    """The error for a string or list over the size limit."""
    return ScriptError(f"a string or list of {n:,} elements is over the limit of "
                       f"{MAX_SEQUENCE:,}", kind="MemoryError")


def check_list(value: list) -> list:
    """Bound the nesting depth and the flattened size of a list built at run time (SPEC §6).

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


def _arith_unchecked(op: str, a: Any, b: Any, symbol: str) -> Any:
    try:
        if op == "**":
            if isinstance(a, int) and isinstance(b, int) and abs(b) > 10_000 and abs(a) > 1:
                raise ScriptError("integer power too large", kind="OverflowError")
            return a ** b
        return _OPERATORS[op](a, b)
    except ValueError as exc:  # a negative shift count
        raise ScriptError(str(exc), kind="ValueError") from None
    except ZeroDivisionError as exc:
        raise ScriptError(str(exc), kind="ZeroDivisionError") from None
    except OverflowError as exc:
        raise ScriptError(str(exc), kind="OverflowError") from None
    except TypeError as exc:
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
        raise ScriptError(message, kind="TypeError") from None


def literal(e: Any) -> Any:
    """The numbers of a bare literal (SPEC §2.4); a leading minus negates every element."""
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
    script_type = getattr(cls, "script_type", None) or getattr(cls, "type_name", None)
    if isinstance(script_type, str):  # functions, modules, ...
        return script_type
    # (a Python function is one of gradcli's built-ins: a script's have a script_type)
    return "builtin_function_or_method" if callable(v) and cls.__module__ != "builtins" or \
        cls.__name__ in ("builtin_function_or_method", "method", "function") else cls.__name__
