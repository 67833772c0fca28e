"""The ``numpy`` module a script imports (``import numpy as np``), ``numpy.linalg`` and
``numpy.fft``: the installed NumPy's functions that real programs use to make, transform and
reshape data, each through the gate of ``numpy_values`` with a rule for how large its result
may be (docs/commands.md), and nothing that reaches files, pickles or Python objects (``np.load``,
``np.save``, ``np.lib`` ...: a clear refusal). ``numpy.random`` is ``numpy_random``'s.

A name NumPy has that is not here says "not supported yet"; a name NumPy does not have (or no
longer has: ``np.float_`` under NumPy 2) gets NumPy's own AttributeError.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import ScriptError
from .numpy_arrays import (
    broadcast_elements,
    dot_elements,
    matmul_elements,
    repeat_elements,
    shape_of,
)
from .numpy_values import (
    DEFAULT_PRINT,
    FILE_HINT,
    FILE_MESSAGE,
    TYPES,
    NumpyFunction,
    numeric_dtype,
    numpy_error,
    state,
)
from .types import TypeObject

Rule = Callable[[tuple, dict], int]


# ---- how large a result may be ------------------------------------------------------------------
def _get(args: tuple, kwargs: dict, i: int, name: str, default: Any = None) -> Any:
    """The argument at position ``i`` or keyword ``name``."""
    return args[i] if len(args) > i else kwargs.get(name, default)


def _size(v: Any) -> int:
    return math.prod(shape_of(v))


def _count(shape: Any) -> int:
    """Elements of a shape argument (an int or a sequence of ints; 0 for what NumPy refuses)."""
    if isinstance(shape, (int, np.integer)):
        return max(int(shape), 0)
    if isinstance(shape, (tuple, list)) and all(isinstance(d, (int, np.integer)) for d in shape):
        return math.prod(max(int(d), 0) for d in shape)
    return 0


def _number(v: Any) -> float | None:
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError):
        return None


def shape_at(i: int, name: str = "shape") -> Rule:
    """The result has the shape given at position ``i`` (or as ``name=``)."""
    return lambda a, k: _count(_get(a, k, i, name))


def _broadcast(a: tuple, k: dict) -> int:
    return broadcast_elements(*a[:3])


def _arange(a: tuple, k: dict) -> int:
    if len(a) == 1 and "stop" not in k:
        start, stop = 0, a[0]
    else:
        start, stop = _get(a, k, 0, "start", 0), _get(a, k, 1, "stop")
    start, stop, step = _number(start), _number(stop), _number(_get(a, k, 2, "step", 1))
    if start is None or stop is None or not step:
        return 0
    n = (stop - start) / step
    return max(math.ceil(n), 0) if math.isfinite(n) else 0  # NumPy refuses an infinite one


def _spaced(a: tuple, k: dict) -> int:
    return _count(_get(a, k, 2, "num", 50)) * max(broadcast_elements(*a[:2]), 1)


def _square(n_at: int, m_at: int | None, n_name: str, m_name: str = "M") -> Rule:
    def rule(a: tuple, k: dict) -> int:
        n = _count(_get(a, k, n_at, n_name))
        m = n if m_at is None else _get(a, k, m_at, m_name)
        return n * _count(n if m is None else m)
    return rule


def _diag(a: tuple, k: dict) -> int:
    v, offset = _get(a, k, 0, "v"), _get(a, k, 1, "k", 0)
    n = len(shape_of(v)) == 1 and _size(v)
    return (n + abs(int(offset))) ** 2 if n and isinstance(offset, (int, np.integer)) else 0


def _diagflat(a: tuple, k: dict) -> int:
    offset = _get(a, k, 1, "k", 0)
    return (_size(a[0]) + abs(int(offset))) ** 2 if a and isinstance(
        offset, (int, np.integer)) else 0


def _joined(a: tuple, k: dict) -> int:
    arrays = _get(a, k, 0, "arrays", ())
    return sum(_size(x) for x in arrays) if isinstance(arrays, (list, tuple)) else 0


def _pair(a: tuple, k: dict) -> int:
    return _size(a[0]) * _size(a[1]) if len(a) > 1 else 0


def _summed(a: tuple, k: dict) -> int:
    return sum(_size(x) for x in a[:2])


def _tile(a: tuple, k: dict) -> int:
    return _size(_get(a, k, 0, "A")) * _count(_get(a, k, 1, "reps", 1))


def _meshgrid(a: tuple, k: dict) -> int:
    return math.prod(_size(x) for x in a) * len(a)


def _pad(a: tuple, k: dict) -> int:
    shape = shape_of(_get(a, k, 0, "array"))
    try:
        widths = np.broadcast_to(np.asarray(_get(a, k, 1, "pad_width", 0)), (len(shape), 2))
        return math.prod(d + int(w.sum()) for d, w in zip(shape, widths))
    except (ValueError, TypeError):
        return 0


def _bincount(a: tuple, k: dict) -> int:
    x = _get(a, k, 0, "x")
    try:
        top = int(np.max(x)) + 1 if _size(x) else 0
    except (ValueError, TypeError):
        return 0
    return max(top, _count(_get(a, k, 2, "minlength", 0)))


def _histogram(a: tuple, k: dict) -> int:
    return _count(_get(a, k, 1, "bins", 10)) if isinstance(_get(a, k, 1, "bins", 10),
                                                           (int, np.integer)) else 0


def _quantiles(a: tuple, k: dict) -> int:
    data, axis = _get(a, k, 0, "a"), _get(a, k, 2, "axis")
    shape = shape_of(data)
    per = 1 if axis is None or not isinstance(axis, (int, np.integer)) or not shape else \
        math.prod(shape) // max(shape[int(axis) % len(shape)], 1)
    return _size(_get(a, k, 1, "q")) * per


def _covariance(a: tuple, k: dict) -> int:
    rowvar = _get(a, k, 2, "rowvar", True)
    n = 0
    for m in (_get(a, k, 0, "m"), _get(a, k, 1, "y")):
        shape = shape_of(m)
        n += 0 if m is None else 1 if len(shape) < 2 else shape[0 if rowvar else 1]
    return n * n


def _polyfit(a: tuple, k: dict) -> int:
    deg = _get(a, k, 2, "deg")
    return _size(a[0]) * (int(deg) + 1) if isinstance(deg, (int, np.integer)) else 0


def _tensordot(a: tuple, k: dict) -> int:
    sa, sb = shape_of(a[0]), shape_of(a[1])
    axes = _get(a, k, 2, "axes", 2)
    try:
        if isinstance(axes, (int, np.integer)):
            return math.prod(sa[:len(sa) - int(axes)]) * math.prod(sb[int(axes):])
        drop_a, drop_b = ({int(i) % len(s) for i in np.atleast_1d(ax)}
                          for s, ax in zip((sa, sb), axes))
        return math.prod(d for i, d in enumerate(sa) if i not in drop_a) * \
            math.prod(d for i, d in enumerate(sb) if i not in drop_b)
    except (TypeError, ValueError, ZeroDivisionError):
        return 0


def _svd(a: tuple, k: dict) -> int:
    shape = shape_of(a[0])
    if len(shape) < 2 or not _get(a, k, 1, "full_matrices", True):
        return 0
    m, n = shape[-2:]
    return math.prod(shape[:-2]) * (m * m + n * n)


def _transform(a: tuple, k: dict) -> int:
    """Elements of a discrete Fourier transform (numpy.fft): the other dimensions times each
    transformed length, ``n=`` or ``s=`` where given, else twice the input's (an inverse real
    transform's default, its largest)."""
    shape = shape_of(_get(a, k, 0, "a"))
    lengths = _get(a, k, 1, "s") if "n" not in k else k["n"]
    axes = _get(a, k, 2, "axes") if "axis" not in k else k["axis"]
    if lengths is None:
        return 2 * math.prod(shape)
    try:
        lengths = [int(n) for n in np.atleast_1d(lengths)]
        if axes is None:
            axes = range(-len(lengths), 0)
        dims = {int(i) % len(shape) for i in np.atleast_1d(axes)}
    except (TypeError, ValueError, ZeroDivisionError):
        return 0  # NumPy says what is wrong
    return math.prod(d for i, d in enumerate(shape) if i not in dims) * \
        math.prod(max(n, 0) for n in lengths)


# ---- the table ------------------------------------------------------------------------------------
def _fn(name: str, rule: Rule | None = None, tensors: str | None = None,
        dtype_at: int | None = None, warns: bool = False, source: Any = np,
        label: str | None = None, fn: Any = None) -> NumpyFunction:
    return NumpyFunction(name, fn if fn is not None else getattr(source, name, None), rule,
                         tensors, dtype_at, warns, label=label)


def _zeros(shape: Any, dtype: Any = float, order: str = "C") -> Any:
    """``np.empty``: zeros, so that a run repeats (NumPy's holds whatever memory it got)."""
    return np.zeros(shape, dtype, order)


def _zeros_like(a: Any, dtype: Any = None, order: str = "K", subok: bool = True,
                shape: Any = None) -> Any:
    """``np.empty_like``: zeros, as ``np.empty``."""
    return np.zeros_like(a, dtype, order, subok, shape)


def set_printoptions(precision: Any = None, threshold: Any = None, edgeitems: Any = None,
                     linewidth: Any = None, suppress: Any = None, nanstr: Any = None,
                     infstr: Any = None, formatter: Any = None, sign: Any = None,
                     floatmode: Any = None, *, legacy: Any = None) -> None:
    """``np.set_printoptions``: how the run prints arrays from now on (NumPy checks them)."""
    given = {k: v for k, v in locals().items() if v is not None}
    if "formatter" in given:
        raise ScriptError("gradcli does not support numpy.set_printoptions(formatter=...) yet",
                          kind="NotImplementedError")
    options = {**state().print_options, **given}
    try:
        with np.printoptions(**options):  # NumPy's own checks of the values
            pass
    except (TypeError, ValueError) as exc:
        raise numpy_error(exc) from None
    state().print_options = options


def get_printoptions() -> dict:
    """``np.get_printoptions()``: the run's options."""
    with np.printoptions(**state().print_options):
        return dict(np.get_printoptions())


def _dtype(obj: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.dtype('float32')``: a dtype of numbers or booleans."""
    numeric_dtype(obj)
    return np.dtype(obj, *args, **kwargs)


_UFUNCS_1 = (
    "abs", "absolute", "fabs", "sign", "sqrt", "cbrt", "square", "exp", "exp2", "expm1", "log",
    "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc", "rint", "negative",
    "positive", "reciprocal", "isnan", "isinf", "isfinite", "logical_not", "deg2rad", "rad2deg",
    "degrees", "radians", "signbit", "conj", "conjugate")
_UFUNCS_2 = (
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
    "float_power", "mod", "remainder", "fmod", "maximum", "minimum", "fmax", "fmin", "arctan2",
    "hypot", "logaddexp", "logaddexp2", "greater", "greater_equal", "less", "less_equal", "equal",
    "not_equal", "logical_and", "logical_or", "logical_xor", "heaviside", "copysign")
_SAME = (  # results no larger than the arguments
    "sum", "prod", "min", "max", "amin", "amax", "argmin", "argmax", "cumsum", "cumprod", "all",
    "any", "ptp", "count_nonzero", "nansum", "nanmax", "nanmin", "nanargmax", "nanargmin",
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "squeeze", "expand_dims", "flip",
    "fliplr", "flipud", "roll", "rot90", "sort", "argsort", "unique", "nonzero", "flatnonzero",
    "argwhere", "diff", "triu", "tril", "trace", "diagonal", "atleast_1d", "atleast_2d",
    "atleast_3d", "round", "around", "searchsorted", "digitize", "shape", "ndim", "size",
    "split", "array_split", "hsplit", "vsplit", "nan_to_num", "array_equal", "isin",
    "unravel_index", "setdiff1d", "intersect1d", "union1d", "interp", "polyval",
    "cross", "isclose", "allclose", "clip", "where", "issubdtype", "real", "imag", "angle",
    "iscomplexobj", "isrealobj")
_WARNS = ("mean", "std", "var", "median", "average", "nanmean", "nanstd", "nanvar",
          "nanmedian")
_JOINS = ("concatenate", "stack", "vstack", "hstack", "column_stack", "dstack")
_FFTS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
         "fftn", "ifftn", "rfftn", "irfftn")
_LINALG_SAME = ("norm", "inv", "det", "pinv", "matrix_rank", "eigh", "eigvalsh", "cholesky",
                "matrix_power", "slogdet", "cond")
# reading and writing files, pickles, raw memory, the process: never offered
REFUSED = frozenset({
    "load", "save", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "fromfile",
    "memmap", "fromregex", "DataSource", "lib", "ctypeslib", "f2py", "distutils",
    "show_config", "show_runtime", "info", "frombuffer", "fromstring", "from_dlpack",
    "tofile", "recfromtxt", "recfromcsv"})


def _numpy_members() -> dict[str, Any]:
    members: dict[str, Any] = {}
    for name in _UFUNCS_1:
        members[name] = _fn(name, tensors="wrap")
    for name in _UFUNCS_2:
        members[name] = _fn(name, _broadcast, tensors="wrap")
    for name in _SAME:
        members[name] = _fn(name, _broadcast if name in ("clip", "where", "isclose", "allclose",
                                                           "cross", "polyval") else None,
                            tensors="convert" if name in ("allclose", "isclose",
                                                          "array_equal") else None)
    for name in _WARNS:
        members[name] = _fn(name, warns=True)
    for name in _JOINS:
        members[name] = _fn(name, _joined, tensors="convert")
    members.update({
        "array": _fn("array", tensors="convert", dtype_at=1),
        "asarray": _fn("asarray", tensors="convert", dtype_at=1),
        "copy": _fn("copy", tensors="convert"),
        "zeros": _fn("zeros", shape_at(0), dtype_at=1),
        "ones": _fn("ones", shape_at(0), dtype_at=1),
        "empty": _fn("empty", shape_at(0), dtype_at=1, fn=_zeros),
        "full": _fn("full", shape_at(0), dtype_at=2),
        "zeros_like": _fn("zeros_like", shape_at(4), tensors="convert", dtype_at=1),
        "ones_like": _fn("ones_like", shape_at(4), tensors="convert", dtype_at=1),
        "empty_like": _fn("empty_like", shape_at(4), tensors="convert", dtype_at=1,
                          fn=_zeros_like),
        "full_like": _fn("full_like", shape_at(5), tensors="convert", dtype_at=2),
        "arange": _fn("arange", _arange, dtype_at=3),
        "linspace": _fn("linspace", _spaced, dtype_at=5),
        "logspace": _fn("logspace", _spaced, dtype_at=5),
        "geomspace": _fn("geomspace", _spaced, dtype_at=4),
        "eye": _fn("eye", _square(0, 1, "N"), dtype_at=3),
        "identity": _fn("identity", _square(0, None, "n"), dtype_at=1),
        "tri": _fn("tri", _square(0, 1, "N"), dtype_at=3),
        "diag": _fn("diag", _diag),
        "diagflat": _fn("diagflat", _diagflat),
        "meshgrid": _fn("meshgrid", _meshgrid),
        "append": _fn("append", _summed),
        "tile": _fn("tile", _tile),
        "repeat": _fn("repeat", lambda a, k: repeat_elements(a[0], _get(a, k, 1, "repeats", 0))),
        "broadcast_to": _fn("broadcast_to", shape_at(1)),
        "pad": _fn("pad", _pad),
        "dot": _fn("dot", lambda a, k: dot_elements(*a[:2]) if len(a) > 1 else 0),
        "matmul": _fn("matmul", lambda a, k: matmul_elements(*a[:2]) if len(a) > 1 else 0,
                      tensors="wrap"),
        "inner": _fn("inner", lambda a, k: math.prod(shape_of(a[0])[:-1]) *
                     math.prod(shape_of(a[1])[:-1]) if len(a) > 1 else 0),
        "outer": _fn("outer", _pair),
        "kron": _fn("kron", _pair),
        "vdot": _fn("vdot"),
        "tensordot": _fn("tensordot", lambda a, k: _tensordot(a, k) if len(a) > 1 else 0),
        "bincount": _fn("bincount", _bincount),
        "histogram": _fn("histogram", _histogram),
        "convolve": _fn("convolve", _summed),
        "correlate": _fn("correlate", _summed),
        "percentile": _fn("percentile", _quantiles, warns=True),
        "quantile": _fn("quantile", _quantiles, warns=True),
        "cov": _fn("cov", _covariance, warns=True),
        "corrcoef": _fn("corrcoef", _covariance, warns=True),
        "polyfit": _fn("polyfit", _polyfit, warns=True),
        "set_printoptions": set_printoptions,
        "get_printoptions": get_printoptions,
        "dtype": TypeObject("numpy.dtype", (np.dtype,), NumpyFunction("dtype", _dtype)),
        "pi": np.pi, "e": np.e, "inf": np.inf, "nan": np.nan, "newaxis": None,
        "__version__": np.__version__,
    })
    for cls, t in TYPES.items():
        members[cls.__name__] = t
        if cls is np.bool_:
            members["bool_"] = t  # NumPy 2 names the class bool, and keeps bool_
    return {k: v for k, v in members.items() if not isinstance(v, NumpyFunction)
            or v.fn is not None}


def _linalg_members() -> dict[str, Any]:
    members: dict[str, Any] = {
        name: _fn(name, source=np.linalg, label=f"numpy.linalg.{name}")
        for name in _LINALG_SAME}
    members.update({
        "solve": _fn("solve", lambda a, k: matmul_elements(*a[:2]) if len(a) > 1 else 0,
                     source=np.linalg, label="numpy.linalg.solve"),
        "lstsq": _fn("lstsq", _summed, source=np.linalg, label="numpy.linalg.lstsq"),
        "qr": _fn("qr", lambda a, k: _size(a[0]) + max(shape_of(a[0])[-2:] or (0,)) ** 2
                  if a else 0, source=np.linalg, label="numpy.linalg.qr"),
        "svd": _fn("svd", _svd, source=np.linalg, label="numpy.linalg.svd"),
    })
    return members


def _fft_members() -> dict[str, Any]:
    members = {name: _fn(name, _transform, source=np.fft, label=f"numpy.fft.{name}")
               for name in _FFTS}
    for name in ("fftfreq", "rfftfreq"):
        members[name] = _fn(name, shape_at(0, "n"), source=np.fft, label=f"numpy.fft.{name}")
    for name in ("fftshift", "ifftshift"):
        members[name] = _fn(name, source=np.fft, label=f"numpy.fft.{name}")
    return members


def members(module: str) -> dict[str, Any]:
    """The members of ``numpy``, ``numpy.linalg`` or ``numpy.fft`` (``numpy.random``:
    numpy_random; the submodules as members: namespace.py)."""
    if module == "numpy":
        return _numpy_members()
    if module == "numpy.linalg":
        return _linalg_members()
    if module == "numpy.fft":
        return _fft_members()
    from .numpy_random import random_members

    return random_members()


def unknown(owner: str, attr: str) -> ScriptError:
    """The error for ``np.attr`` that gradcli does not offer: a refusal for file access,
    "not supported yet" for the rest of NumPy, NumPy's own AttributeError otherwise."""
    if attr in REFUSED:
        return ScriptError(FILE_MESSAGE.format(f"{owner}.{attr}"), kind="PermissionError",
                           hint=FILE_HINT)
    real = {"numpy": np, "numpy.linalg": np.linalg, "numpy.random": np.random,
            "numpy.fft": np.fft}[owner]
    try:
        getattr(real, attr)
    except AttributeError as exc:
        return ScriptError(str(exc), kind="AttributeError")
    return ScriptError(f"gradcli does not support {owner}.{attr} yet",
                       kind="NotImplementedError")


__all__ = ["DEFAULT_PRINT", "REFUSED", "get_printoptions", "members", "set_printoptions",
           "unknown"]
