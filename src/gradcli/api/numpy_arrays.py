"""NumPy values under Python's protocols, for the interpreter: ``arr.attr`` (a listed subset of
NumPy's), operators, ``arr[key]``, iteration, ``str``/``repr``/``format``, ``type(arr)``; and a
tensor meeting an array as PyTorch's ``Tensor`` makes them meet (``t + arr`` is NumPy's ufunc
on the tensor's memory, wrapped back into a tensor; ``arr - t`` is Python's TypeError).
Everything calls NumPy through ``numpy_values.run``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ..engine.backend import NUMPY_CLASSES, numpy_type_name
from ..engine.tensor import Tensor
from ..errors import ScriptError
from ..limits import MAX_SEQUENCE
from .numpy_values import (
    FILE_HINT,
    FILE_MESSAGE,
    NumpyFunction,
    argument,
    check_elements,
    complex_scalar,
    numpy_error,
    run,
    state,
    type_object,
    wrap_tensor,
)

OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
             "@": operator.matmul, "&": operator.and_, "|": operator.or_, "^": operator.xor,
             "<<": operator.lshift, ">>": operator.rshift}
IN_PLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
            "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow,
            "@": operator.imatmul, "&": operator.iand, "|": operator.ior, "^": operator.ixor,
            "<<": operator.ilshift, ">>": operator.irshift}
COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
               "==": operator.eq, "!=": operator.ne}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert}


# ---- sizes: how many elements a result may have ----------------------------------------------
def shape_of(v: Any) -> tuple:
    """The shape NumPy gives a value (a list's as an array's; () for a number)."""
    if v.__class__ is np.ndarray or v.__class__ in NUMPY_CLASSES:
        return v.shape
    if isinstance(v, (list, tuple)):
        try:
            return np.shape(v)
        except ValueError:  # ragged: NumPy will say so itself
            return ()
    return ()


def broadcast_elements(*values: Any) -> int:
    """Elements of the broadcast of the values' shapes (0 when they do not broadcast: NumPy
    raises its own error)."""
    shapes = [shape_of(v) for v in values]
    widest = max(shapes, key=len, default=())
    if all(s == widest or not s for s in shapes):  # the common case: no broadcasting
        return math.prod(widest)
    try:
        return math.prod(np.broadcast_shapes(*shapes))
    except ValueError:
        return 0


def matmul_elements(a: Any, b: Any) -> int:
    """Elements of ``a @ b`` (batch dimensions broadcast), 0 when NumPy will refuse it."""
    sa, sb = shape_of(a), shape_of(b)
    if not sa or not sb:
        return 0  # NumPy's matmul refuses scalars
    if len(sa) == 1 and len(sb) == 1:
        return 1
    sa = sa if len(sa) > 1 else (1, *sa)
    sb = sb if len(sb) > 1 else (*sb, 1)
    try:
        batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        return 0
    return math.prod(batch) * sa[-2] * sb[-1]


def dot_elements(a: Any, b: Any) -> int:
    """Elements of ``np.dot(a, b)``: the scalar case broadcasts; N-d arrays take every pair of
    ``a``'s rows and ``b``'s columns."""
    sa, sb = shape_of(a), shape_of(b)
    if not sa or not sb:
        return math.prod(sa or sb)
    if len(sb) == 1:
        return math.prod(sa[:-1])
    return math.prod(sa[:-1]) * math.prod(sb[:-2]) * sb[-1]


def repeat_elements(a: Any, repeats: Any) -> int:
    """At most ``a.size`` times the largest repeat count."""
    r = np.max(repeats) if np.size(repeats) else 0
    return math.prod(shape_of(a)) * max(int(r), 0)


# ---- attributes ---------------------------------------------------------------------------------
ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "T", "itemsize", "nbytes", "strides",
                        "real", "imag"})
DTYPE_ATTRIBUTES = frozenset({"name", "kind", "itemsize", "char", "type", "str"})
FILE_METHODS = frozenset({"tofile", "dump", "dumps"})


def _tolist(obj: Any, args: tuple, kwargs: dict) -> int:
    """A list of Python numbers is bounded as the script's own lists are."""
    if obj.size > MAX_SEQUENCE:
        raise ScriptError(f"numpy.ndarray.tolist would make a list of {obj.size:,} numbers, "
                          f"over the limit of {MAX_SEQUENCE:,}", kind="MemoryError")
    return 0


def _method_rules() -> dict[str, dict[str, Any]]:
    same: dict[str, Any] = {}
    methods = {name: same for name in (
        "reshape", "ravel", "flatten", "copy", "transpose", "swapaxes", "squeeze", "sum", "min",
        "max", "argmin", "argmax", "prod", "cumsum", "cumprod", "all", "any", "round", "item",
        "fill", "sort", "argsort", "nonzero", "diagonal", "trace", "conj", "conjugate",
        "is_integer")}
    methods.update({
        "astype": {"dtype_at": 0},
        "mean": {"warns": True}, "std": {"warns": True}, "var": {"warns": True},
        "clip": {"rule": lambda obj, a, k: broadcast_elements(obj, *a, *k.values())},
        "dot": {"rule": lambda obj, a, k: dot_elements(obj, a[0]) if a else 0},
        "repeat": {"rule": lambda obj, a, k: repeat_elements(obj, a[0] if a else
                                                             k.get("repeats", 0))},
        "tolist": {"rule": _tolist},
    })
    return methods


METHODS = _method_rules()


def attribute(obj: Any, name: str) -> Any:
    """``obj.name`` for a NumPy array, scalar or dtype: the listed attributes and methods."""
    owner = numpy_type_name(type(obj))
    if name in FILE_METHODS:
        raise ScriptError(FILE_MESSAGE.format(f"{owner}.{name}"), kind="PermissionError",
                          hint=FILE_HINT)
    if isinstance(obj, np.dtype):
        if name in DTYPE_ATTRIBUTES:
            value = getattr(obj, name)
            return type_object(value(0)) if name == "type" else value
    elif name in ATTRIBUTES and hasattr(obj, name):
        return getattr(obj, name)
    elif name in METHODS and hasattr(obj, name):
        spec = dict(METHODS[name])
        rule = spec.pop("rule", None)
        return NumpyFunction(name, getattr(obj, name), owner=obj, **spec,
                             rule=None if rule is None else
                             lambda args, kwargs: rule(obj, args, kwargs))
    if hasattr(obj, name) and not name.startswith("_"):
        raise ScriptError(f"gradcli does not support {owner}.{name} yet",
                          kind="NotImplementedError")
    raise ScriptError(f"'{owner}' object has no attribute '{name}'", kind="AttributeError")


# ---- operators ----------------------------------------------------------------------------------
def binary(op: str, a: Any, b: Any, augmented: bool = False) -> Any:
    """``a op b`` (``a op= b`` with ``augmented``) where NumPy's value is an operand and no
    tensor is: NumPy's own operator, after its result's size is checked."""
    a, b = argument(a), argument(b)
    n = matmul_elements(a, b) if op == "@" else broadcast_elements(a, b)
    check_elements(f"'{op}'", n)
    fn = IN_PLACE[op] if augmented else OPERATORS[op]
    return run(fn, (a, b), {}, f"'{op}'")


def compare(op: str, a: Any, b: Any) -> Any:
    """``a < b`` ... where NumPy's value is an operand: elementwise, or with a tensor as
    PyTorch compares (``==`` and ``!=`` elementwise; an order is Python's TypeError)."""
    if a.__class__ is Tensor or b.__class__ is Tensor:
        t, other = (a, b) if a.__class__ is Tensor else (b, a)
        if isinstance(other, np.generic):
            other = other.item()
        elif other.__class__ is np.ndarray and op in ("==", "!="):
            from .creation import as_tensor

            other = as_tensor(other)
        elif op in ("==", "!="):
            return _identity(op, a, b)
        else:
            raise TypeError  # the interpreter's message: '<' not supported between ...
        return COMPARISONS[op](t, other) if a is t else COMPARISONS[op](other, t)
    try:
        a, b = argument(a), argument(b)
    except ScriptError:
        if op in ("==", "!="):  # x.dtype == torch.float32: neither side knows the other
            return _identity(op, a, b)
        raise
    check_elements(f"'{op}'", broadcast_elements(a, b))
    return run(COMPARISONS[op], (a, b), {}, f"'{op}'")


def _identity(op: str, a: Any, b: Any) -> bool:
    """Python's ``==`` when both operands decline: the same object or not."""
    return (a is b) == (op == "==")


def contains(container: Any, item: Any) -> bool:
    """``item in array``: ``(array == item).any()``, as NumPy's ``__contains__``."""
    return bool(compare("==", container, item).any())


def unary(op: str, v: Any) -> Any:
    """``-arr``, ``+arr``, ``~arr``."""
    return run(UNARY[op], (v,), {}, f"unary {op}")


class _TensorOperand:
    """A tensor as NumPy's operators see one: a higher ``__array_priority__`` and reflected
    operators that decline, as PyTorch's do for an array (so ``arr - t`` is Python's own
    TypeError, and ``arr + t`` NumPy's message about concatenation)."""

    __array_priority__ = 1000

    def _decline(self, other: Any) -> Any:
        return NotImplemented

    __radd__ = __rsub__ = __rmul__ = __rtruediv__ = __rfloordiv__ = __rmod__ = _decline
    __rpow__ = __rmatmul__ = __rand__ = __ror__ = __rxor__ = __rlshift__ = _decline
    __rrshift__ = _decline


_TensorOperand.__name__ = _TensorOperand.__qualname__ = "Tensor"


def with_tensor(op: str, a: Any, b: Any, augmented: bool = False) -> Any:
    """``a op b`` between a tensor and an array, as PyTorch does it: ``t op arr`` runs the
    array's ufunc on the tensor's memory (``t.numpy()``: an error if it requires grad) and
    wraps the result in a new tensor; ``arr / t`` is ``t.reciprocal() * arr`` (PyTorch's
    ``__rtruediv__``); any other ``arr op t`` is Python's TypeError."""
    if a.__class__ is Tensor:
        array = a.numpy()
        n = matmul_elements(array, b) if op == "@" else broadcast_elements(array, b)
        check_elements(f"'{op}'", n)
        return wrap_tensor(run(OPERATORS[op], (array, b), {}, f"'{op}'"))
    if op == "/":
        return with_tensor("*", b.reciprocal(), a)
    try:
        (IN_PLACE if augmented else OPERATORS)[op](a, _TensorOperand())
    except TypeError as exc:
        raise ScriptError(str(exc), kind="TypeError") from None
    raise ScriptError(f"unsupported operand type(s) for {op}: 'numpy.ndarray' and 'Tensor'",
                      kind="TypeError")


# ---- items and iteration ------------------------------------------------------------------------
def _index_elements(shape: tuple, key: Any) -> int:
    """At most how many elements ``array[key]`` has when integer or boolean arrays pick them
    (0: no array in the key, so the result is a view, or NumPy will refuse the key): the picked
    positions times what the other dimensions keep."""
    parts = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(p, (list, np.ndarray)) for p in parts):
        return 0
    picked, spans = [], []  # index arrays' shapes; each part's (dimensions, drops them)
    for p in parts:
        if p is None or p is Ellipsis:
            spans.append((0, False, p is Ellipsis))
        elif isinstance(p, (list, np.ndarray)):
            arr = np.asarray(p)
            boolean = arr.dtype == bool
            picked.append((int(np.count_nonzero(arr)),) if boolean else arr.shape)
            spans.append((arr.ndim if boolean else 1, True, False))
        else:
            spans.append((1, not isinstance(p, slice), False))
    used = sum(n for n, _, _ in spans)
    if used > len(shape):
        return 0
    dropped, dim = 1, 0
    for n, drops, ellipsis in spans:
        if ellipsis:
            dim += len(shape) - used
        elif drops:
            dropped *= math.prod(shape[dim:dim + n])
        dim += n
    try:
        positions = math.prod(np.broadcast_shapes(*picked))
    except ValueError:
        return 0
    return positions * (math.prod(shape) // dropped if dropped else 0)


def getitem(obj: Any, key: Any) -> Any:
    """``obj[key]`` for a NumPy value (a tensor in the key as NumPy's ``__index__`` or
    ``__array__`` of it)."""
    key = argument(key)
    check_elements("indexing", _index_elements(np.shape(obj), key))
    return run(operator.getitem, (obj, key), {}, "indexing")


def setitem(obj: Any, key: Any, value: Any) -> None:
    """``obj[key] = value`` for an array."""
    run(operator.setitem, (obj, argument(key), argument(value)), {}, "assignment")


def iterate(v: Any) -> Any:
    """``iter(arr)``: its rows, or its elements (NumPy's error for a 0-d array)."""
    try:
        return iter(v)
    except TypeError as exc:
        raise numpy_error(exc) from None


# ---- a tensor's keys and values -----------------------------------------------------------------
def tensor_key(key: Any) -> Any:
    """A tensor's index with NumPy's values as PyTorch takes them: a scalar as its number, an
    array as a tensor on its memory."""
    cls = key.__class__
    if cls is tuple or cls is list:
        return cls(tensor_key(k) for k in key)
    if cls is np.ndarray:
        from .creation import as_tensor

        return as_tensor(key)
    if cls in NUMPY_CLASSES:
        return key.item()
    return key


def tensor_value(t: Tensor, value: Any) -> Any:
    """A value assigned into a tensor: a NumPy scalar as its number; an array is PyTorch's
    TypeError."""
    if value.__class__ is np.ndarray:
        raise ScriptError(f"can't assign a numpy.ndarray to a torch.{t.dtype.legacy}",
                          kind="TypeError")
    err = complex_scalar(value)
    if err is not None:
        raise err
    return value.item() if value.__class__ in NUMPY_CLASSES else value


# ---- printing -----------------------------------------------------------------------------------
def text(v: Any, how: str) -> str:
    """``str(v)`` (how "str"), ``repr(v)`` (how "repr") or ``format(v, spec)`` (how ":spec")
    of a NumPy value, under the run's print options."""
    options = state().print_options
    if how == "str":
        fn, args = str, (v,)
    elif how == "repr":
        fn, args = repr, (v,)
    else:
        fn, args = format, (v, how[1:])
    with np.printoptions(**options):
        return run(fn, args, {}, "printing")


__all__ = ["ATTRIBUTES", "METHODS", "attribute", "binary", "broadcast_elements", "compare",
           "complex_scalar", "contains", "dot_elements", "getitem", "iterate", "matmul_elements",
           "repeat_elements", "setitem", "shape_of", "tensor_key", "tensor_value", "text",
           "unary", "with_tensor"]
