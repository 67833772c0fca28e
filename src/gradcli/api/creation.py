"""Where tensors come from: the constructors of the PyTorch surface (leaves of the graph).

They build arrays on the run's backend (``engine.context``), in the dtype PyTorch would choose
(``dtype=``, else inferred from the data: bool, int64 or the default float dtype; a grad script
makes every tensor floating, docs/language.md), within the run's element limit, and draw random numbers
from the run's generator.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy

from ..engine import dtypes as D
from ..engine import kernels
from ..engine import strides as layout
from ..engine.args import check_device, check_numel, is_number, tensor_arg, type_name
from ..engine.backend import NUMPY_CLASSES, numpy_type_name
from ..engine.context import current
from ..engine.dtypes import DType, to_dtype
from ..engine.tensor import Tensor
from ..errors import ScriptError
from ..limits import MAX_DIMS

REQUIRES_FLOAT_MSG = "Only Tensors of floating point and complex dtype can require gradients"
COPY_CONSTRUCT_MSG = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor)."
)
# PyTorch's words for NumPy arrays it cannot take (torch/csrc/utils/tensor_numpy.cpp)
NEGATIVE_STRIDES_MSG = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a copy "
    "of your array  with array.copy().) ")
BYTE_ORDER_MSG = ("given numpy array has byte order different from the native byte order. "
                  "Conversion between byte orders is currently not supported.")
NOT_WRITABLE_MSG = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
    "This means writing to this tensor will result in undefined behavior. You may want to copy "
    "the array to protect its data or make it writable before converting it to a tensor. This "
    "type of warning will be suppressed for the rest of this program.")
LIST_OF_ARRAYS_MSG = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
    "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
    "tensor.")
COMPLEX_TO_REAL_MSG = "Casting complex values to real discards the imaginary part"
_PYTORCH_TYPES = ("float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
                  "uint64, uint32, uint16, uint8, and bool")


# --- constructors -------------------------------------------------------------------------------
def leaf(data: Any, requires_grad: bool) -> Tensor:
    """A leaf tensor around a backend array (checked against the element limit)."""
    be = current().backend
    check_numel(tuple(data.shape))
    if requires_grad and not be.dtype_of(data).is_floating_point:
        raise ScriptError(REQUIRES_FLOAT_MSG)
    return Tensor(be.leaf_data(data), be, bool(requires_grad))


def _dtype(dtype: Any, inferred: DType) -> DType:
    """The dtype asked for, else the inferred one (floating in a grad script)."""
    if dtype is not None:
        return to_dtype(dtype)
    ctx = current()
    if not ctx.integer_tensors and not inferred.is_floating_point:
        return ctx.backend.default
    return inferred


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A leaf from numbers or nested lists (a copy when given a tensor, as torch.tensor)."""
    ctx = current()
    be = ctx.backend
    check_device(device)
    if data.__class__ is Tensor:
        ctx.warn(COPY_CONSTRUCT_MSG)
        dt = to_dtype(dtype) if dtype is not None else data.dtype
        return leaf(be.astype(be.xp.asarray(data.data, copy=True), dt), requires_grad)
    if data.__class__ in NUMPY_CLASSES:  # an array or NumPy scalar: a copy, in its dtype
        array = numpy.asarray(data)
        if dtype is not None and array.dtype.kind == "c":
            array = _real_part(array)
        t = _on_array(array, share=False)
        out = leaf(be.astype(t.data, _dtype(dtype, t.dtype)), requires_grad)
        out._strides = t._strides
        return out
    kinds: set[DType] = set()
    arrays: set[DType] = set()  # the dtypes of NumPy values in the lists: PyTorch keeps them
    if isinstance(data, (list, tuple)) and data and data[0].__class__ is numpy.ndarray:
        ctx.warn_once(LIST_OF_ARRAYS_MSG)
    shape = _check_literal(data, kinds, arrays)
    if len(shape) > MAX_DIMS:
        raise ScriptError(f"a tensor can have at most {MAX_DIMS} dimensions (NumPy's limit)",
                          kind="ValueError")
    inferred = None if not kinds else builtins.max(kinds, key=_KIND_ORDER.index)
    if inferred is D.FLOAT32 or (inferred is None and not arrays):
        inferred = be.default
    for found in arrays:
        inferred = D.promote_types(inferred, found)
    dt = _dtype(dtype, inferred)
    if 0 in shape:  # PyTorch reads nothing past an empty dimension
        return leaf(be.xp.zeros(shape, dtype=be.xp_dtype(dt)), requires_grad)
    try:
        array = be.asarray(_plain(data), dt)
    except OverflowError:  # an int beyond int64
        raise ScriptError("Overflow when unpacking long long", kind="ValueError") from None
    return leaf(array, requires_grad)


_KIND_ORDER = [D.BOOL, D.INT64, D.FLOAT32]


def _check_literal(data: Any, kinds: set, arrays: set) -> tuple[int, ...]:
    """The shape of a nested list of numbers, as torch.tensor finds it: the kinds of every
    item first (bool, int, float, noted in ``kinds``; NumPy values' dtypes in ``arrays``),
    then the sizes read along the first items, then each item checked against them, with
    PyTorch's errors at each step."""
    _infer_kinds(data, kinds, arrays)
    sizes: list[int] = []
    item = data
    while _sequence(item):
        sizes.append(len(item))
        if not len(item):
            break
        item = item[0]
    if 0 not in sizes:  # PyTorch stores (and so checks) nothing in an empty tensor
        _check_sizes(data, tuple(sizes), 0, D.FLOAT32 in kinds)
    return tuple(sizes)


def _sequence(x: Any) -> bool:
    """A list, a tuple, or an array with dimensions (its rows are its items)."""
    return isinstance(x, (list, tuple)) or (x.__class__ is numpy.ndarray and x.ndim > 0)


def _infer_kinds(data: Any, kinds: set, arrays: set) -> None:
    if isinstance(data, (list, tuple)):
        for item in data:
            _infer_kinds(item, kinds, arrays)
    elif data.__class__ in NUMPY_CLASSES:
        arrays.add(_numpy_dtype(numpy.asarray(data)))
    elif data.__class__ is Tensor:  # a list of one-element tensors: their values
        if data.numel() != 1:
            raise ScriptError("only one element tensors can be converted to Python scalars",
                              kind="ValueError")
        kinds.add(_KIND_ORDER[data.dtype.kind])
    elif data.__class__ is str:
        raise ScriptError("new(): invalid data type 'str'", kind="TypeError")
    elif not is_number(data):
        raise ScriptError(f"Could not infer dtype of {type_name(data)}", kind="TypeError")
    else:
        if data.__class__ is int and data.bit_length() > 1023:
            try:
                builtins.float(data)
            except OverflowError:
                raise ScriptError("int too large to convert to float",
                                  kind="OverflowError") from None
        kinds.add(D.BOOL if data.__class__ is bool else D.INT64 if data.__class__ is int
                  else D.FLOAT32)


def _check_sizes(data: Any, sizes: tuple[int, ...], dim: int, floating: bool) -> None:
    if dim == len(sizes):
        if _sequence(data):
            name = type_name(data)
            raise ScriptError(f"must be real number, not {name}" if floating else
                              f"'{name}' object cannot be interpreted as an integer",
                              kind="TypeError")
        return
    if not _sequence(data):
        raise ScriptError("not a sequence", kind="TypeError")
    if len(data) != sizes[dim]:
        raise ScriptError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                          f"(got {len(data)})", kind="ValueError")
    for item in data:
        _check_sizes(item, sizes, dim + 1, floating)


def _plain(data: Any) -> Any:
    """Nested lists with one-element tensors replaced by their values."""
    if isinstance(data, (list, tuple)):
        return [_plain(item) for item in data]
    return data.item() if data.__class__ is Tensor else data


def from_numpy(ndarray: Any) -> Tensor:
    """``torch.from_numpy``: a tensor on the array's own memory, so a write through either
    shows in both (and one through the array bumps no version, as in PyTorch), with the
    array's strides; off the CPU backend, a copy."""
    if ndarray.__class__ is not numpy.ndarray:
        raise ScriptError(f"expected np.ndarray (got {type_name(ndarray)})", kind="TypeError")
    return _on_array(ndarray, share=True)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``torch.as_tensor``: a tensor or an array as it is when its dtype is the one asked for
    (the array's memory shared), else a converted copy, as ``torch.tensor``."""
    check_device(device)
    dt = None if dtype is None else to_dtype(dtype)
    if data.__class__ is Tensor:
        return data if dt is None or dt is data.dtype else data.to(dt)
    if data.__class__ is numpy.ndarray:
        if dt is not None and data.dtype.kind == "c":
            return tensor(data, dtype=dt)
        t = from_numpy(data)
        return t if dt is None or dt is t.dtype else t.to(dt)
    return tensor(data, dtype=dtype)


def _real_part(array: Any) -> Any:
    """A complex array converted to a real dtype: its real part, with PyTorch's warning (once
    a run, as TORCH_WARN_ONCE; gradcli's tensors are all real)."""
    current().warn_once(COMPLEX_TO_REAL_MSG)
    return array.real


def legacy_tensor(*args: Any, dtype: Any = None) -> Tensor:
    """``torch.Tensor(data)`` and ``torch.Tensor(*sizes)`` in the default float dtype (a typed
    one's, ``torch.LongTensor([1])``, in its dtype): an array's memory when its dtype is that
    one, as PyTorch's legacy constructor takes it; ``torch.Tensor()`` is empty."""
    dt = get_default_dtype() if dtype is None else to_dtype(dtype)
    if len(args) == 1:
        data = args[0]
        if data.__class__ is numpy.ndarray:
            return as_tensor(data, dtype=dt)
        if isinstance(data, (list, tuple, Tensor)):
            return tensor(data, dtype=dt)
    if all(isinstance(a, (int, numpy.integer)) and not isinstance(a, (bool, numpy.bool_))
           for a in args):
        return empty(*(int(a) for a in args) if args else (0,), dtype=dt)  # zeros, as empty()
    raise ScriptError(f"new(): data must be a sequence (got {type_name(args[0])})",
                      kind="TypeError")


def tensor_new(self: Tensor, *args: Any, device: Any = None) -> Tensor:
    """``t.new(data)``, ``t.new(*sizes)``, ``t.new()``: the legacy constructor in ``t``'s
    dtype (``input.new(numpy_result)`` in a Function that computes with NumPy)."""
    check_device(device)
    if len(args) == 1 and args[0].__class__ is Tensor:
        raise ScriptError("gradcli does not support Tensor.new(tensor) yet",
                          kind="NotImplementedError",
                          hint="t.detach().clone() copies a tensor; t.new(data) takes lists "
                               "and arrays")
    return legacy_tensor(*args, dtype=self.dtype)


def _on_array(array: Any, share: bool) -> Tensor:
    """A tensor on a NumPy array's memory (``share``) or a copy of it, with the array's dtype
    and strides; PyTorch's errors for what it cannot take."""
    ctx = current()
    be = ctx.backend
    if not array.dtype.isnative:
        raise ScriptError(BYTE_ORDER_MSG, kind="ValueError")
    dt = _numpy_dtype(array)
    if any(s < 0 for s in array.strides):
        raise ScriptError(NEGATIVE_STRIDES_MSG, kind="ValueError")
    check_numel(array.shape)
    if share and be.name == "numpy":
        if not array.flags.writeable:
            ctx.warn_once(NOT_WRITABLE_MSG)
        data = array
    else:
        data = be.xp.asarray(numpy.array(array, copy=True, order="K"))
    t = Tensor(data, be)
    laid = data if isinstance(data, numpy.ndarray) else array  # a copy is dense, in order
    t._strides = layout.normalise(array.shape, [s // dt.itemsize for s in laid.strides])
    return t


def _numpy_dtype(array: Any) -> DType:
    """PyTorch's dtype of a NumPy array (its errors for a dtype it has not)."""
    found = D.DTYPES.get(array.dtype.name)
    if found is not None:
        return found
    name = array.dtype.name
    if name in ("uint16", "uint32", "uint64", "complex64", "complex128"):
        raise ScriptError(f"gradcli does not support {name} tensors yet",
                          kind="NotImplementedError")
    raise ScriptError(f"can't convert np.ndarray of type {numpy_type_name(array.dtype.type)}. "
                      f"The only supported types are: {_PYTORCH_TYPES}.", kind="TypeError")


# torch.tensor's data keeps a NumPy scalar's dtype (script/calls.py passes it as it is)
tensor.takes_numpy = as_tensor.takes_numpy = from_numpy.takes_numpy = True  # type: ignore[attr-defined]
legacy_tensor.takes_numpy = tensor_new.takes_numpy = True  # type: ignore[attr-defined]


def param(data: Any) -> Tensor:
    """A leaf that requires grad (gradcli's shorthand for tensor(data, requires_grad=True))."""
    return tensor(data, requires_grad=True)


def _size(shape: tuple) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    for d in shape:
        if not isinstance(d, int) or isinstance(d, bool):
            raise ScriptError(f"size must be ints, not {type_name(d)}", kind="TypeError")
        if d < 0:
            raise ScriptError(f"Trying to create tensor with negative dimension {d}: "
                              f"{list(shape)}")
    check_numel(shape)
    return tuple(shape)


def _shape(shape: tuple, size: Any) -> tuple:
    """The sizes given as ``*size`` or as the keyword ``size=`` (PyTorch takes either)."""
    if size is None:
        return shape
    if shape:
        raise ScriptError("got multiple values for argument 'size'", kind="TypeError")
    return (size,)


def _filled(fill: str, size: tuple, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    be = current().backend
    check_device(device)
    native = be.xp_dtype(_dtype(dtype, be.default))
    make = be.xp.zeros if fill == "zeros" else be.xp.ones
    return leaf(make(_size(size), dtype=native), requires_grad)


def zeros(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False) -> Tensor:
    """A leaf of zeros."""
    return _filled("zeros", _shape(shape, size), dtype, device, requires_grad)


def ones(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    """A leaf of ones."""
    return _filled("ones", _shape(shape, size), dtype, device, requires_grad)


def empty(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False) -> Tensor:
    """An uninitialised leaf: gradcli fills it with zeros, so runs are repeatable."""
    return _filled("zeros", _shape(shape, size), dtype, device, requires_grad)


def full(size: Any, fill_value: Any, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    """A leaf filled with ``fill_value`` (its dtype inferred from the value, as PyTorch)."""
    be = current().backend
    check_device(device)
    if fill_value.__class__ is Tensor:
        fill_value = fill_value.item()
    if not is_number(fill_value):
        raise ScriptError("full(): argument 'fill_value' must be Number, not "
                          f"{type_name(fill_value)}", kind="TypeError")
    dt = _dtype(dtype, D.number_dtype(fill_value, be.default))
    try:
        value = fill_value if not dt.is_floating_point else builtins.float(fill_value)
    except OverflowError:
        raise ScriptError("int too large to convert to float", kind="OverflowError") from None
    shape = _size((size,) if not isinstance(size, (list, tuple)) else (tuple(size),))
    return leaf(be.xp.full(shape, value, dtype=be.xp_dtype(dt)), requires_grad)


def eye(n: int, m: int | None = None, dtype: Any = None, device: Any = None,
        requires_grad: bool = False) -> Tensor:
    """The identity matrix (n x m)."""
    be = current().backend
    check_device(device)
    _size((n, n if m is None else m))
    return leaf(be.xp.eye(n, m, dtype=be.xp_dtype(_dtype(dtype, be.default))), requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    """Evenly spaced values in [start, end): int64 when every bound is an int, as PyTorch."""
    be = current().backend
    check_device(device)
    if end is None:
        start, end = 0, start
    bounds = [v.item() if v.__class__ is Tensor else v for v in (start, end, step)]
    for v in bounds:
        if not is_number(v):
            raise ScriptError(f"arange(): argument 'end' must be Number, not {type_name(v)}",
                              kind="TypeError")
    start, end, step = bounds
    if step == 0:
        raise ScriptError("step must be nonzero")
    if (end - start) * step < 0:
        raise ScriptError("upper bound and lower bound inconsistent with step sign")
    try:
        n = builtins.max(0, math.ceil((end - start) / step))
    except (OverflowError, ValueError):  # an inf or nan bound or step
        raise ScriptError(f"unsupported range: {start} -> {end}") from None
    check_numel((n,))
    integral = all(v.__class__ in (int, bool) for v in bounds)
    dt = _dtype(dtype, D.INT64 if integral else be.default)
    # NOTE: PyTorch computes start + i * step (not a running sum), as NumPy's arange does.
    return leaf(be.xp.arange(start, end, step, dtype=be.xp_dtype(dt)), requires_grad)


def linspace(start: float, end: float, steps: int, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from start to end inclusive."""
    be = current().backend
    check_device(device)
    _size((steps,))
    native = be.xp_dtype(_dtype(dtype, be.default))
    if steps == 0:
        return leaf(be.xp.zeros((0,), dtype=native), requires_grad)
    return leaf(kernels.linspace(be.xp, start, end, steps, native), requires_grad)


def _float_dtype(dtype: Any, fn: str) -> DType:
    be = current().backend
    dt = to_dtype(dtype) if dtype is not None else be.default
    if not dt.is_floating_point:
        raise D.kernel_error(fn, dt)
    return dt


def _like(fill: str, input: Any, dtype: Any, requires_grad: bool, name: str) -> Tensor:
    x = tensor_arg(input, name)
    be = x.backend
    native = be.xp_dtype(to_dtype(dtype)) if dtype is not None else x.data.dtype
    make = be.xp.zeros if fill == "zeros" else be.xp.ones
    return leaf(make(x.data.shape, dtype=native), requires_grad)


def zeros_like(input: Any, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """Zeros of ``input``'s shape (and dtype)."""
    check_device(device)
    return _like("zeros", input, dtype, requires_grad, "zeros_like")


def ones_like(input: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """Ones of ``input``'s shape (and dtype)."""
    check_device(device)
    return _like("ones", input, dtype, requires_grad, "ones_like")


def empty_like(input: Any, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """``input``'s shape, uninitialised: zeros here, so runs are repeatable."""
    check_device(device)
    return _like("zeros", input, dtype, requires_grad, "empty_like")


def full_like(input: Any, fill_value: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """``input``'s shape (and dtype) filled with ``fill_value``."""
    x = tensor_arg(input, "full_like")
    return full(x.shape, fill_value, dtype=dtype if dtype is not None else x.dtype,
                device=device, requires_grad=requires_grad)


def set_default_dtype(d: Any) -> None:
    """``torch.set_default_dtype``: float32 or float64 (float16 too) for the rest of the run."""
    dt = to_dtype(d)
    if not dt.is_floating_point:
        raise ScriptError("only floating-point types are supported as the default type",
                          kind="TypeError")
    current().backend.set_default(dt)


def get_default_dtype() -> DType:
    """``torch.get_default_dtype()``."""
    return current().backend.default
