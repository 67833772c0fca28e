"""Array backends: NumPy, CuPy or any Array API namespace, chosen once per run.

The engine and the op table speak only the Python Array API through ``Backend.xp``.  This is
the only module that imports NumPy or CuPy, and ``to_host`` is the one place where data leaves
the device.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy

from .errors import UsageError

DTYPES = ("float64", "float32")
BACKENDS = ("numpy", "cupy")

_cupy_failure: str | None = None  # why CuPy cannot run here, kept from the one import attempt
_cupy_module: ModuleType | None = None


@dataclass(eq=False)
class Backend:
    """An array namespace plus the run's dtype and random generator."""

    name: str
    xp: Any
    dtype: Any
    dtype_name: str
    seed: int = 0
    _rng: Any = field(default=None, repr=False)
    formulas: Any = field(default=None, repr=False)  # the op table's formula namespace, cached

    def asarray(self, data: Any) -> Any:
        """Data (numbers, nested lists, host arrays) as a writable array of the run's dtype."""
        return self.xp.asarray(data, dtype=self.dtype, copy=True)

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

    def random(self, shape: tuple[int, ...], normal: bool) -> Any:
        """Uniform [0, 1) or standard normal samples from the backend's seeded generator."""
        if self._rng is None:
            self.reseed(self.seed)
        if self.name == "cupy":
            fn = self._rng.standard_normal if normal else self._rng.random
            return fn(shape, dtype=self.dtype)
        host = self._rng.standard_normal(shape) if normal else self._rng.random(shape)
        return self.asarray(host)

    def reseed(self, seed: int) -> None:
        """Restart the generator (``seed(n)`` in a script, ``--seed`` on the command line)."""
        seed %= 2 ** 64  # negative seeds wrap, as torch.manual_seed's; NumPy wants seed >= 0
        self.seed = seed
        if self.name == "cupy":
            self._rng = _cupy_module.random.default_rng(seed)
        else:
            self._rng = numpy.random.default_rng(seed)


def get_backend(name: str | None = None, dtype: str = "float64", seed: int = 0) -> Backend:
    """The backend named ``name`` (default: $GRADCLI_BACKEND or numpy); UsageError if unavailable."""
    name = name or os.environ.get("GRADCLI_BACKEND") or "numpy"
    if dtype not in DTYPES:
        raise UsageError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPES)}")
    if name == "numpy":
        xp = _numpy_namespace()
    elif name == "cupy":
        xp = _import_cupy()
    elif name == "array_api_strict":
        import array_api_strict as xp
    else:
        raise UsageError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    return Backend(name, xp, getattr(xp, dtype), dtype, seed)


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
    return Backend(getattr(xp, "__name__", "array_api"), xp, getattr(xp, dtype), dtype, seed)


def _import_cupy() -> Any:
    """Import CuPy once and check a GPU is usable; keep the reason when not."""
    global _cupy_failure, _cupy_module
    if _cupy_module is None and _cupy_failure is None:
        try:
            import cupy

            cupy.cuda.runtime.getDeviceCount()
            import array_api_compat.cupy  # noqa: F401
        except ImportError as exc:
            _cupy_failure = f"CuPy is not installed ({exc.msg}); install gradcli[cupy]"
        except Exception as exc:  # noqa: BLE001 - CUDA runtime errors have no common base
            _cupy_failure = f"CuPy is installed but no usable NVIDIA GPU was found ({exc})"
        else:
            _cupy_module = cupy
    if _cupy_failure is not None:
        raise UsageError(f"backend 'cupy' is unavailable: {_cupy_failure}")
    import array_api_compat.cupy as xp

    return xp


def to_host(array: Any) -> Any:
    """The one device→host transfer: any backend array as a NumPy array."""
    if isinstance(array, numpy.ndarray | numpy.generic):
        return numpy.asarray(array)
    if hasattr(array, "get"):  # CuPy
        return array.get()
    return numpy.asarray(numpy.from_dlpack(array)) if hasattr(array, "__dlpack__") else (
        numpy.asarray(array)
    )


def quiet() -> Any:
    """Silence NumPy's floating-point warnings: PyTorch gives inf/nan for 1/0 and log(-1)."""
    return numpy.errstate(all="ignore")


def _npy_shape(f: Any) -> tuple[int, ...] | None:
    """The shape a .npy header announces, read before the data; None if there is no header."""
    from numpy.lib import format as npformat

    try:
        version = npformat.read_magic(f)
        if version == (1, 0):
            return tuple(npformat.read_array_header_1_0(f)[0])
        if version == (2, 0):
            return tuple(npformat.read_array_header_2_0(f)[0])
        return tuple(npformat._read_array_header(f, version)[0])
    except (ValueError, AttributeError, EOFError):
        return None


def read_array(path: str, shown: str, key: str | None = None,
               check_shape: Any = None) -> Any:
    """Numbers from a .npy, .npz or .csv file as a host array; never unpickles.

    ``check_shape(shape)`` (the element limit) sees a .npy/.npz array's shape before its data
    is read, so a small compressed file cannot make gradcli allocate gigabytes.
    """
    from .errors import ScriptError

    def fail(why: str, kind: str = "ValueError") -> ScriptError:
        return ScriptError(f"load(): {why}", kind=kind)

    ext = os.path.splitext(path)[1].lower()
    if ext not in (".npy", ".npz", ".csv"):
        raise fail(f"'{shown}' is not a .npy, .npz or .csv file")
    if not os.path.isfile(path):
        raise fail(f"no such file '{shown}'", "FileNotFoundError")
    try:
        if ext == ".npy":
            with open(path, "rb") as f:
                shape = _npy_shape(f)
            if shape is None:
                raise fail(f"'{shown}' is not a .npy file (no NumPy header)")
            if check_shape is not None:
                check_shape(shape)
            data = numpy.load(path, allow_pickle=False)
        elif ext == ".npz":
            if not zipfile.is_zipfile(path):
                raise fail(f"'{shown}' is not a .npz file (not a zip archive)")
            with numpy.load(path, allow_pickle=False) as archive:
                names = list(archive.files)
                if key is None and len(names) == 1:
                    key = names[0]
                if key is None or key not in names:
                    raise fail(f"'{shown}' holds {', '.join(map(repr, names)) or 'no arrays'}; "
                               "choose one with key=", "KeyError")
                member = key if key in archive.zip.namelist() else key + ".npy"
                with archive.zip.open(member) as f:
                    shape = _npy_shape(f)
                if shape is not None and check_shape is not None:
                    check_shape(shape)
                data = archive[key]
        else:
            data = numpy.loadtxt(path, delimiter=",", ndmin=1, comments="#")
    except ScriptError:
        raise
    except ValueError as exc:
        if "pickle" in str(exc):
            raise fail(f"'{shown}' holds Python objects; gradcli never loads pickles") from None
        raise fail(f"'{shown}' is not a valid {ext} file of numbers ({exc})") from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise fail(f"cannot read '{shown}' ({exc})", "OSError") from None
    if not isinstance(data, numpy.ndarray) or data.dtype.kind not in "biuf":
        raise fail(f"'{shown}' does not hold numbers (dtype {getattr(data, 'dtype', '?')})")
    return data


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
