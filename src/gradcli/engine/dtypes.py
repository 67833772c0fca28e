"""PyTorch's dtypes and its type promotion (``c10/core/ScalarType.h``, ``ResultTypeState``).

A ``DType`` is what a script sees as ``torch.float32``; the backend maps it to its array
namespace's dtype.  ``result_type`` is PyTorch's rule for the dtype of an op's result:
tensors with dimensions outrank 0-d tensors, which outrank Python numbers, except that a
higher category (bool < integer < floating) always wins, so ``int_tensor * 0.5`` is float and
``float32_vector * float64_scalar_tensor`` stays float32.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import ScriptError

BOOL_KIND, INT_KIND, FLOAT_KIND = 0, 1, 2


class DType:
    """A tensor element type, printed as PyTorch prints it (``torch.float32``)."""

    __slots__ = ("is_floating_point", "is_signed", "itemsize", "kind", "legacy", "name")

    def __init__(self, name: str, kind: int, itemsize: int, legacy: str) -> None:
        self.name = name  # the array libraries' name: "float32", "int64", "bool"
        self.kind = kind
        self.itemsize = itemsize
        self.is_floating_point = kind == FLOAT_KIND
        self.is_signed = name != "uint8" and name != "bool"
        self.legacy = legacy  # the legacy tensor type in messages: "FloatTensor"

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    __str__ = __repr__


BOOL = DType("bool", BOOL_KIND, 1, "BoolTensor")
UINT8 = DType("uint8", INT_KIND, 1, "ByteTensor")
INT8 = DType("int8", INT_KIND, 1, "CharTensor")
INT16 = DType("int16", INT_KIND, 2, "ShortTensor")
INT32 = DType("int32", INT_KIND, 4, "IntTensor")
INT64 = DType("int64", INT_KIND, 8, "LongTensor")
FLOAT16 = DType("float16", FLOAT_KIND, 2, "HalfTensor")
FLOAT32 = DType("float32", FLOAT_KIND, 4, "FloatTensor")
FLOAT64 = DType("float64", FLOAT_KIND, 8, "DoubleTensor")

DTYPES: dict[str, DType] = {d.name: d for d in (BOOL, UINT8, INT8, INT16, INT32, INT64, FLOAT16,
                                                FLOAT32, FLOAT64)}
# torch's other names for the same objects (torch.float is torch.float32, torch.long is int64)
ALIASES: dict[str, DType] = {"float": FLOAT32, "double": FLOAT64, "half": FLOAT16,
                             "long": INT64, "int": INT32, "short": INT16}
# PyTorch's short names in messages ("expected ... float != double", "Got: Long")
SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                "int32": "Int", "int64": "Long", "float16": "Half", "float32": "Float",
                "float64": "Double"}
C_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short",
           "int32": "int", "int64": "long int", "float16": "c10::Half", "float32": "float",
           "float64": "double"}

_ORDER = (BOOL, UINT8, INT8, INT16, INT32, INT64, FLOAT16, FLOAT32, FLOAT64)
_RANK = {d: i for i, d in enumerate(_ORDER)}


def promote_types(a: DType | None, b: DType | None) -> DType | None:
    """``torch.promote_types`` for the dtypes gradcli has (None is 'no operand yet')."""
    if a is None:
        return b
    if b is None or a is b:
        return a
    if {a, b} == {UINT8, INT8}:
        return INT16  # neither holds the other's range
    return a if _RANK[a] > _RANK[b] else b


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    """c10's ``combine_categories``: a lower-priority operand only counts for its category."""
    if higher is None:
        return lower
    if higher.kind == FLOAT_KIND:
        return higher
    if higher is BOOL or (lower is not None and lower.kind == FLOAT_KIND):
        return promote_types(higher, lower)
    return higher


def number_dtype(value: Any, default_float: DType) -> DType:
    """The dtype a Python number takes part in promotion with (a *wrapped number*)."""
    if value.__class__ is bool:
        return BOOL
    if value.__class__ is int:
        return INT64
    return default_float


def result_type(tensors: Iterable[tuple[DType, int]], numbers: Iterable[Any],
                default_float: DType) -> DType:
    """PyTorch's result dtype of an op on tensors (dtype, ndim) and Python numbers."""
    dim = zero = wrapped = None
    for dt, ndim in tensors:
        if ndim:
            dim = promote_types(dim, dt)
        else:
            zero = promote_types(zero, dt)
    for v in numbers:
        wrapped = promote_types(wrapped, number_dtype(v, default_float))
    out = _combine(dim, _combine(zero, wrapped))
    return out if out is not None else default_float


def to_dtype(value: Any) -> DType:
    """A ``dtype=`` argument as a DType (PyTorch's TypeError otherwise)."""
    if isinstance(value, DType):
        return value
    raise ScriptError(f"dtype must be torch.dtype, not {type(value).__name__}", kind="TypeError")


def kernel_error(kernel: str, dtype: DType | str) -> ScriptError:
    """PyTorch's NotImplementedError for a CPU kernel not built for ``dtype`` (a DType, or
    PyTorch's scalar name such as "Bool")."""
    name = dtype if isinstance(dtype, str) else SCALAR_NAMES[dtype.name]
    return ScriptError(f'"{kernel}" not implemented for \'{name}\'', kind="NotImplementedError")
