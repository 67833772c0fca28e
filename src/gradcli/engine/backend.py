"""Array backends: NumPy, CuPy or any Array API namespace, chosen once per run.

The engine and the op table speak only the Python Array API through ``Backend.xp``.  This is
the engine's only module that chooses an array library, and ``to_host`` is the one place where
data leaves the device (printing and the renderers work on host NumPy arrays).  Random numbers
are made on the host by ``generator.py`` and enter the run's namespace in ``Backend.random``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import types
from collections.abc import Iterator
from typing import Any

import numpy

from ..errors import UsageError
from .dtypes import DTYPES as ALL_DTYPES
from .dtypes import DType
from .fpstate import QUIET

DTYPES = ("float64", "float32")  # the default float dtypes a run can choose
BACKENDS = ("numpy", "cupy")


class Backend:
    """An array namespace plus the run's default float dtype and random generator.

    ``dtype``/``dtype_name``/``default`` name the default float dtype (PyTorch's
    ``torch.get_default_dtype()``); tensors carry their own dtype in their arrays, and
    ``dtype_of`` maps an array's dtype back to PyTorch's.
    """

    def __init__(self, name: str, xp: Any, dtype_name: str, seed: int = 0) -> None:
        self.name = name
        self.xp = xp
        self.dtype_name = dtype_name
        self.seed = seed
        self._generator: Any = None  # made on first use (generator.py)
        self.formulas: Any = None  # the op table's formula namespace, cached
        self._to_xp: dict = {}
        self._from_xp: dict = {}
        for dt in ALL_DTYPES.values():
            native = getattr(self.xp, dt.name, None)
            if native is None:
                continue
            try:  # NumPy and CuPy arrays report numpy.dtype objects, not the scalar types
                native = numpy.dtype(native)
            except TypeError:
                pass
            self._to_xp[dt] = native
            self._from_xp[native] = dt
        self.default: DType = ALL_DTYPES[self.dtype_name]
        self.dtype = self._to_xp[self.default]
        # the native float dtypes: ops on these need no promotion (record.apply's fast paths)
        self.float_natives = frozenset(n for d, n in self._to_xp.items() if d.is_floating_point)

    def set_default(self, dt: DType) -> None:
        """``torch.set_default_dtype``: the float dtype of new tensors and of Python floats."""
        self.default, self.dtype_name, self.dtype = dt, dt.name, self._to_xp[dt]

    def xp_dtype(self, dt: DType) -> Any:
        """The namespace's dtype for ``dt``."""
        try:
            return self._to_xp[dt]
        except KeyError:
            raise UsageError(f"backend {self.name!r} has no {dt.name}") from None

    def dtype_of(self, array: Any) -> DType:
        """PyTorch's dtype of an array of this namespace (or a NumPy scalar)."""
        return self._from_xp[array.dtype]

    def from_native(self, native: Any) -> DType:
        """PyTorch's dtype for one of the namespace's dtypes."""
        return self._from_xp[native]

    def asarray(self, data: Any, dtype: DType | None = None) -> Any:
        """Data (numbers, nested lists, host arrays) as a writable array, of the run's
        default float dtype unless ``dtype`` is given."""
        native = self.dtype if dtype is None else self._to_xp[dtype]
        return self.xp.asarray(data, dtype=native, copy=True)

    def astype(self, array: Any, dtype: DType) -> Any:
        """``array`` converted to ``dtype`` (a copy; the same array when it already is)."""
        native = self._to_xp[dtype]
        if array.dtype is native:
            return array
        return self.xp.astype(self.writable(array), native)

    def leaf_data(self, array: Any) -> Any:
        """Storage for a new leaf: NumPy keeps a 0-d value as a NumPy scalar.

        Arithmetic on NumPy scalars is about ten times faster than on 0-d arrays, and scalar
        scripts are mostly 0-d.  In-place updates, views and ``detach()`` call ``writable`` when
        they need an array that can be shared and written.
        """
        if self.name == "numpy" and not array.shape:
            return array[()]
        return array

    def writable(self, array: Any) -> Any:
        """The same values as an array object that supports ``a[...] = v`` and views.

        NumPy turns 0-d results into immutable scalars; in-place updates and aliases need an
        ndarray.  Other namespaces already return arrays.
        """
        return numpy.asarray(array) if self.name == "numpy" else array

    @property
    def generator(self) -> Any:
        """The run's default generator: PyTorch's CPU generator (``torch.default_generator``)."""
        if self._generator is None:
            from .generator import Generator  # imported on first use: startup stays light

            self._generator = Generator(self.seed)
        return self._generator

    def reseed(self, seed: int) -> None:
        """Restart the generator (``seed(n)`` in a script, ``--seed`` on the command line)."""
        from .generator import check_seed

        self.seed = check_seed(seed)  # negative seeds wrap, as torch.manual_seed's
        if self._generator is not None:
            self._generator.manual_seed(seed)


def get_backend(name: str | None = None, dtype: str = "float64", seed: int = 0) -> Backend:
    """The backend named ``name`` (default: $GRADCLI_BACKEND or numpy); UsageError if unavailable."""
    name = name or os.environ.get("GRADCLI_BACKEND") or "numpy"
    if dtype not in DTYPES:
        raise UsageError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPES)}")
    if not -(2 ** 63) <= seed < 2 ** 64:  # torch.manual_seed's range
        raise UsageError(f"--seed must be in [-2**63, 2**64), got {seed}")
    if name == "numpy":
        xp = _numpy_namespace()
    elif name == "cupy":
        xp = _import_cupy()
    elif name == "array_api_strict":
        import array_api_strict as xp
    else:
        raise UsageError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    return Backend(name, xp, dtype, seed % 2 ** 64)


def _numpy_namespace() -> Any:
    """NumPy itself where it implements the Array API (2.1+): importing the compat layer costs
    more than NumPy (it pulls in numpy.testing, f2py, ma) and its wrappers slow every call."""
    major, minor = (int(p) for p in numpy.__version__.split(".")[:2])
    if (major, minor) >= (2, 1):
        return numpy
    import array_api_compat.numpy as xp

    return xp


def from_namespace(xp: Any, dtype: str = "float64", seed: int = 0) -> Backend:
    """A backend over any Array API namespace (library use and the array-api-strict tests)."""
    return Backend(getattr(xp, "__name__", "array_api"), xp, dtype, seed)


def _import_cupy() -> Any:
    """CuPy's Array API namespace, or a UsageError that says why CuPy cannot run here."""
    failure = _cupy_failure()
    if failure is not None:
        raise UsageError(f"backend 'cupy' is unavailable: {failure}")
    import array_api_compat.cupy as xp

    return xp


@functools.cache
def _cupy_failure() -> str | None:
    """Import CuPy once and check a GPU is usable; the reason when not."""
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        import array_api_compat.cupy  # noqa: F401
    except ImportError as exc:
        return f"CuPy is not installed ({exc.msg}); install gradcli[cupy]"
    except Exception as exc:  # noqa: BLE001 - CUDA runtime errors have no common base
        return f"CuPy is installed but no usable NVIDIA GPU was found ({exc})"
    return None


@functools.cache
def exact_kernels(xp: Any) -> Any:
    """The PyTorch-exact kernels (engine/exact) when ``xp`` is NumPy, else None.

    They are NumPy code, so only NumPy arrays can take them; other namespaces keep the plain
    Array API formulas of engine.kernels.  Imported on first use: most commands never need them.
    """
    if xp is numpy or (isinstance(xp, types.ModuleType)
                       and xp.__name__ == "array_api_compat.numpy"):
        from . import exact

        return exact
    return None


def to_host(array: Any) -> Any:
    """The one device→host transfer: any backend array as a NumPy array."""
    if isinstance(array, numpy.ndarray | numpy.generic):
        return numpy.asarray(array)
    if hasattr(array, "get"):  # CuPy
        return array.get()
    return numpy.asarray(numpy.from_dlpack(array)) if hasattr(array, "__dlpack__") else (
        numpy.asarray(array)
    )


def memory_order(shape: tuple, strides: tuple) -> Any:
    """For a strided tensor, each element's rank in memory order (row-major positions in the
    tensor -> position among its elements sorted by memory offset): how PyTorch fills a
    transposed or sliced tensor with draws, which come in memory order."""
    offsets = numpy.zeros((), dtype=numpy.int64)
    for d, st in zip(shape, strides):
        offsets = numpy.add.outer(offsets, numpy.arange(d, dtype=numpy.int64) * st)
    flat = offsets.reshape(-1)
    rank = numpy.empty(flat.size, dtype=numpy.int64)
    rank[numpy.argsort(flat, kind="stable")] = numpy.arange(flat.size)
    return rank.reshape(tuple(shape))


def host_index(data: Any) -> Any:
    """An index (a list, or a backend array) as a host array: int64, or bool for a mask; an
    empty list indexes nothing (int64)."""
    arr = numpy.asarray(to_host(data) if hasattr(data, "shape") else data)
    if arr.dtype == bool:
        return arr
    if arr.size == 0 or arr.dtype.kind in "iu":
        return arr.astype(numpy.int64)
    return arr


def flat_positions(shape: tuple, key: tuple) -> Any:
    """The flat (row-major) positions that NumPy's ``a[key]`` picks from an array of ``shape``,
    in the result's shape: how advanced indexing becomes a take by position."""
    n = 1
    for d in shape:
        n *= d
    return numpy.arange(n, dtype=numpy.int64).reshape(shape)[key]


def take_flat(xp: Any, x: Any, positions: Any) -> Any:
    """``x``'s elements at flat (row-major) ``positions``, in the shape of ``positions``: NumPy
    arrays by one call (``ndarray.take`` reads ``x`` flattened; of 0-d positions it returns a
    NumPy scalar, not the 0-d array the Array API's calls give), others by the Array API's."""
    if x.__class__ is numpy.ndarray and positions.__class__ is numpy.ndarray and positions.ndim:
        return x.take(positions)
    return xp.reshape(xp.take(xp.reshape(x, (-1,)), xp.reshape(positions, (-1,))),
                      tuple(positions.shape))


def index_put(xp: Any, flat: Any, positions: Any, values: Any, accumulate: bool) -> Any:
    """A copy of the 1-D ``flat`` with ``values`` written at ``positions`` (added, with
    ``accumulate``, duplicates included): PyTorch's ``index_put``, which the Array API lacks.

    NumPy and CuPy do it natively; any other namespace goes through the host.
    """
    name = getattr(xp, "__name__", "")
    if xp is numpy or name == "array_api_compat.numpy":
        out = numpy.array(flat, copy=True)
        if accumulate:
            numpy.add.at(out, positions, values)
        else:
            out[positions] = values
        return out
    if "cupy" in name:
        import cupy
        import cupyx

        out = cupy.array(flat, copy=True)
        if accumulate:
            cupyx.scatter_add(out, positions, values)
        else:
            out[positions] = values
        return out
    host = numpy.array(to_host(flat), copy=True)
    pos = to_host(positions)
    vals = to_host(values) if hasattr(values, "shape") else values
    if accumulate:
        numpy.add.at(host, pos, vals)
    else:
        host[pos] = vals
    return xp.asarray(host)


# NumPy's elementwise ops that write straight into their first operand, by the op table's name
# (record.py's in-place updates outside autograd: one IEEE operation per element, as the op's
# forward, without a new array and its copy; NumPy copies an overlapping operand first)
WRITES_INTO = {"add": numpy.add, "sub": numpy.subtract, "mul": numpy.multiply,
               "div": numpy.divide}
NDARRAY = numpy.ndarray


@contextlib.contextmanager
def quiet(log: FloatingPointLog | None = None) -> Iterator[None]:
    """Silence NumPy's floating-point warnings: PyTorch gives inf/nan for 1/0 and log(-1).

    With ``log``, NumPy writes its warning texts there instead (``errstate``'s "log" mode, as
    Python's defaults warn: never for underflow); the log keeps them only while a script's own
    NumPy call runs (``FloatingPointLog.active``), so the engine's ops stay silent.
    """
    state = numpy.errstate(all="ignore") if log is None else \
        numpy.errstate(divide="log", over="log", invalid="log", under="ignore", call=log)
    token = QUIET.set(True if log is None else log)
    try:
        with state:
            yield
    finally:
        QUIET.reset(token)


class FloatingPointLog:
    """Where NumPy writes "Warning: divide by zero encountered in log" (``quiet(log)``)."""

    __slots__ = ("active", "messages")

    def __init__(self) -> None:
        self.active = False
        self.messages: list[str] = []

    def write(self, text: str) -> None:
        """NumPy's call: ``"Warning: <what> encountered in <ufunc>\\n"``."""
        if self.active:
            self.messages.append(text.removeprefix("Warning: ").rstrip("\n"))


# A script's NumPy values: arrays and NumPy's scalar types (float64, int64, bool_, str_ ...);
# and the classes of their dtypes (``x.dtype``: numpy.dtypes.Float64DType under NumPy 2)
NUMPY_CLASSES = frozenset({numpy.ndarray, *numpy.sctypeDict.values()})
NUMPY_DTYPES = frozenset(type(numpy.dtype(t)) for t in numpy.sctypeDict.values())


def numpy_type_name(cls: type) -> str:
    """A NumPy class as Python's messages name it: ``numpy.ndarray``, ``numpy.float64``."""
    return f"{cls.__module__}.{cls.__name__}"


def view_maps(backend: Backend, base_shape: tuple, view_fn: Any) -> tuple[Any, Any]:
    """Where a view's elements sit in its base, both ways, as integer arrays.

    ``index`` has the view's shape and holds flat base positions; ``inverse`` has one entry per
    base element: the flat view position there, or -1.  Views here never overlap.
    """
    xp = backend.xp
    n = 1
    for d in base_shape:
        n *= d
    index = view_fn(xp.reshape(xp.arange(n, dtype=xp.int64), base_shape))
    host = numpy.asarray(to_host(index)).reshape(-1)
    inverse = numpy.full(n, -1, dtype=numpy.int64)
    inverse[host] = numpy.arange(host.size)
    return index, xp.asarray(inverse)


def view_geometry(backend: Backend, base_shape: tuple, base_strides: tuple, view_fn: Any,
                  index: Any) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """A view's sizes, strides and storage offset in its base's storage, the arguments of the
    as_strided that PyTorch's AsStridedBackward0 saves: the view replayed, under NumPy, on the
    base's storage positions laid out with the base's strides (a size-1 dimension's stride is
    only known there); otherwise read off ``index`` (view_maps'), size-1 strides contiguous."""
    shape = tuple(index.shape)
    if backend.name == "numpy" and all(base_shape):
        span = 1 + sum((d - 1) * s for d, s in zip(base_shape, base_strides))
        storage = numpy.arange(span, dtype=numpy.int64)
        view = view_fn(numpy.lib.stride_tricks.as_strided(
            storage, base_shape, [s * storage.itemsize for s in base_strides]))
        if numpy.shares_memory(view, storage):
            start = view.__array_interface__["data"][0] - storage.__array_interface__["data"][0]
            return shape, tuple(s // storage.itemsize for s in view.strides), \
                start // storage.itemsize
    host = numpy.asarray(to_host(index))
    strides, step = [], 1
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] > 1 and host.size:  # an empty view: contiguous strides
            at = [0] * len(shape)
            at[d] = 1
            step = int(host[tuple(at)] - host[(0,) * len(shape)])
        strides.append(step)
        step *= max(shape[d], 1)
    return shape, tuple(reversed(strides)), int(host.flat[0]) if host.size else 0


def strided_diagonal(array: Any, offset: int, dim1: int, dim2: int) -> Any:
    """The ``offset``-th diagonal over ``dim1``, ``dim2`` (last, as PyTorch's) as a writable
    view of a NumPy array, or None for other namespaces (which take it by slicing)."""
    if not isinstance(array, numpy.ndarray):
        return None
    sub = array
    if offset > 0:
        sub = sub[(slice(None),) * dim2 + (slice(offset, None),)]
    elif offset < 0:
        sub = sub[(slice(None),) * dim1 + (slice(-offset, None),)]
    n = min(sub.shape[dim1], sub.shape[dim2])
    rest = [i for i in range(sub.ndim) if i not in (dim1, dim2)]
    shape = tuple(sub.shape[i] for i in rest) + (n,)
    strides = tuple(sub.strides[i] for i in rest) + (sub.strides[dim1] + sub.strides[dim2],)
    return numpy.lib.stride_tricks.as_strided(sub, shape, strides)
