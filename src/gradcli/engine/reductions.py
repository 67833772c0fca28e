"""Reductions as PyTorch dispatches them: sum, mean, prod, max/min (of everything, along a dim
with their indices, or of two tensors), argmax/argmin, std, var, the vector norm, and the
closeness tests (isclose, allclose, equal)."""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import ops as O
from .args import broadcast_shape, dim_arg, tensor_arg, typed_arg
from .context import current
from .record import apply
from .tensor import Tensor, vmap_from


def _dims(dim: Any, ndim: int) -> tuple[int, ...] | None:
    """``dim`` (an int, a list or tuple of them, or None) as sorted, wrapped dims."""
    if dim is None:
        return None
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    wrapped = [dim_arg(d, ndim) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise ScriptError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(wrapped))


def _reduce(whole: Any, by_dim: Any, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    if dim is None and not keepdim:
        return apply(whole, (input,))
    dims = _dims(dim, input.ndim) if dim is not None else tuple(range(input.ndim))
    if input.ndim == 0:  # dim 0 or -1 of a 0-d tensor names no axis to reduce (PyTorch allows it)
        dims = ()
    return apply(by_dim, (input,), {"dim": dims, "keepdim": bool(keepdim)})


def sum(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Sum of all elements (SumBackward0) or over ``dim`` (SumBackward1)."""
    tensor_arg(input, "sum")
    return _reduce(O.SUM, O.SUM_DIM, input, dim, keepdim)


def mean(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Mean of all elements (MeanBackward0) or over ``dim`` (MeanBackward1)."""
    tensor_arg(input, "mean")
    return _reduce(O.MEAN, O.MEAN_DIM, input, dim, keepdim)


def prod(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Product of all elements (ProdBackward0) or along one ``dim`` (ProdBackward1)."""
    x = tensor_arg(input, "prod")
    if dim is None:
        return apply(O.PROD, (x,))
    d = dim_arg(dim, x.ndim)
    return apply(O.PROD_DIM, (x,), {"dim": d if x.ndim else None, "keepdim": bool(keepdim)})


# --- max and min --------------------------------------------------------------------------------
class ReturnType(tuple):
    """PyTorch's ``torch.return_types.max``, ``sort``, ``topk`` ...: a (values, indices) pair
    with names."""

    __slots__ = ()
    kind = ""

    @property
    def values(self) -> Tensor:
        """The largest (smallest) values along the dim."""
        return self[0]

    @property
    def indices(self) -> Tensor:
        """Where they are along the dim (int64)."""
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self.kind}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    __str__ = __repr__


RETURN_TYPES = {k: type(k, (ReturnType,), {"__slots__": (), "kind": k}) for k in (
    "max", "min", "sort", "topk", "kthvalue", "median", "mode", "cummax", "cummin")}


def _indices(x: Tensor, name: str, dim: int, keepdim: bool) -> Tensor:
    """argmax/argmin along ``dim`` (the first one on ties; NaN counts as the extreme)."""
    xp, be = x.backend.xp, x.backend
    if not x.ndim:
        return Tensor(be.astype(xp.zeros((), dtype=xp.int64), D.INT64), be)
    if x.shape[dim] == 0:
        raise ScriptError(f"{name}(): Expected reduction dim {dim} to have non-zero size.",
                          kind="IndexError")
    find = xp.argmax if name in ("max", "argmax") else xp.argmin
    return vmap_from(Tensor(be.astype(xp.asarray(find(x.data, axis=dim, keepdims=keepdim)),
                                      D.INT64), be), x)


def extreme(op: Any, dim_op: Any, pairwise: Any, name: str, word: str) -> Any:
    """``torch.max`` or ``torch.min``: of everything, along a dim, or ``pairwise`` of two."""

    def fn(input: Any, dim: Any = None, keepdim: Any = False, *, other: Any = None) -> Any:
        if dim.__class__ is Tensor or other is not None:
            return pairwise(input, dim if other is None else other)
        x = tensor_arg(input, name)
        if dim is None:
            _nonempty(x, name)
            return apply(op, (x,))
        d = dim_arg(dim, x.ndim)
        indices = _indices(x, name, d, bool(keepdim))
        values = apply(dim_op, (x, indices), {"dim": d, "keepdim": bool(keepdim)})
        return RETURN_TYPES[name]((values, indices))

    fn.__name__ = name
    fn.__doc__ = (f"{word} element ({op.grad_fn}); along ``dim`` the named tuple (values, "
                  f"indices) ({dim_op.grad_fn}); of two tensors ``{pairwise.__name__}``.")
    return fn


def _nonempty(t: Tensor, name: str) -> None:
    if t.numel() == 0:
        raise ScriptError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                          "== 0. Specify the reduction dim with the 'dim' argument.")


def _arg_extreme(name: str) -> Any:
    def fn(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
        x = tensor_arg(input, name)
        if dim is not None:
            return _indices(x, name, dim_arg(dim, x.ndim), bool(keepdim))
        if x.numel() == 0:
            raise ScriptError(f"{name}(): Expected reduction dim to be specified for "
                              "input.numel() == 0.", kind="IndexError")
        xp = x.backend.xp
        flat = Tensor(xp.reshape(x.data, (-1,)), x.backend)
        out = _indices(flat, name, 0, False)
        if keepdim:
            out = Tensor(xp.reshape(out.data, (1,) * x.ndim), x.backend)
        return out

    fn.__name__ = name
    fn.__doc__ = f"The index of the {name[3:]}imum (int64, never differentiable)."
    return fn


argmax = _arg_extreme("argmax")
argmin = _arg_extreme("argmin")


# --- spread and size ----------------------------------------------------------------------------
def _spread(op: Any, name: str) -> Any:
    def fn(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
           correction: Any = None) -> Tensor:
        x = tensor_arg(input, name)
        if not x.dtype.is_floating_point:
            raise ScriptError("std and var only support floating point and complex dtypes")
        if isinstance(dim, bool):  # x.std(False): the legacy unbiased flag
            dim, unbiased = None, dim
        if correction is None:
            correction = 0 if unbiased is False else 1
        dims = _dims(dim, x.ndim) if x.ndim else None
        n = 1
        for i, size in enumerate(x.shape):
            if dims is None or i in dims:
                n *= size
        if n - correction <= 0:
            current().warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                           "less than the reduction factor (input numel divided by output "
                           "numel).")
        return apply(op, (x,), {"dim": dims, "correction": correction, "keepdim": bool(keepdim)})

    fn.__name__ = name
    fn.__doc__ = (f"``{name}`` over all elements or ``dim``, with Bessel's correction unless "
                  f"``unbiased=False`` / ``correction=`` ({op.grad_fn}).")
    return fn


std = _spread(O.STD, "std")
var = _spread(O.VAR, "var")


def vector_norm(input: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """``torch.linalg.vector_norm`` (LinalgVectorNormBackward0)."""
    x = tensor_arg(input, "linalg_vector_norm")
    if not x.dtype.is_floating_point:
        raise ScriptError("linalg.vector_norm: Expected a floating point or complex tensor as "
                          f"input. Got {D.SCALAR_NAMES[x.dtype.name]}")
    if dtype is not None and not isinstance(dtype, D.DType):
        raise ScriptError(f"linalg_vector_norm(): argument 'dtype' must be torch.dtype, not "
                          f"{type(dtype).__name__}", kind="TypeError")
    if dtype is not None and not dtype.is_floating_point:
        raise ScriptError("linalg.vector_norm: dtype should be floating point or complex, but "
                          f"got {D.SCALAR_NAMES[dtype.name]}")
    if dtype is not None and D.promote_types(x.dtype, dtype) is not dtype:
        raise ScriptError(f"linalg.vector_norm: the dtype of the input "
                          f"({D.SCALAR_NAMES[x.dtype.name]}) should be convertible without "
                          f"narrowing to the specified dtype ({D.SCALAR_NAMES[dtype.name]})")
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise ScriptError(f"linalg_vector_norm(): argument 'ord' must be Number, not "
                          f"{type(ord).__name__}", kind="TypeError")
    params = {"ord": ord, "dim": _dims(dim, x.ndim) if x.ndim else None, "keepdim": bool(keepdim)}
    if dtype is None:
        return apply(O.VECTOR_NORM, (x,), params)
    return apply(O.VECTOR_NORM_TO, (x,), {**params, "dtype": dtype})


def norm(input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None) -> Tensor:
    """``torch.norm``: the vector norms, dispatched to vector_norm as PyTorch 2 does."""
    x = tensor_arg(input, "norm")
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            p = 2
        elif p in ("fro", "nuc"):
            raise ScriptError(f"torch.norm(p={p!r}) of a matrix is not supported by gradcli "
                              "(only vector norms)", hint="use p='fro' or a number")
        else:
            raise ScriptError(f"linalg.matrix_norm: Order {p} not supported.")
    return vector_norm(x, 2.0 if p is None else p, dim, keepdim, dtype=dtype)


def linalg_norm(input: Any, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """``torch.linalg.norm``: a vector norm, or the Frobenius norm (the 2-norm over the two
    dims), both through vector_norm as ATen's linalg_norm goes; other matrix orders are not
    built."""
    x = tensor_arg(input, "linalg_norm")
    dims = None if dim is None else [dim] if isinstance(dim, int) else list(dim)
    if dims is not None and len(dims) not in (1, 2):
        raise ScriptError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                          f"Got {dims}")
    if dims is None and ord is not None and x.ndim not in (1, 2):
        raise ScriptError("linalg.norm: If dim is not specified but ord is, the input must be "
                          f"1D or 2D. Got {x.ndim}D.")
    matrix = ord is not None and (len(dims) == 2 if dims is not None else x.ndim == 2)
    if isinstance(ord, str):
        if x.ndim < 2:
            raise ScriptError("linalg.matrix_norm: The input tensor A must have at least 2 "
                              "dimensions.")
        if ord not in ("fro", "nuc"):
            raise ScriptError(f"linalg.matrix_norm: Order {ord} not supported.")
        matrix = ord == "nuc"
        dims = dims or [0, 1]
    if matrix:
        raise ScriptError(f"torch.linalg.norm(ord={ord!r}) of a matrix is not supported by "
                          "gradcli (vector norms and ord='fro' only)",
                          hint="the spectral and nuclear norms need singular values, "
                               "which gradcli does not compute; torch.linalg.vector_norm(A, "
                               "ord, dim=(-2, -1)) is the entrywise norm")
    return vector_norm(x, 2 if ord is None or ord == "fro" else ord,
                       None if dims is None else tuple(dims), keepdim, dtype=dtype)


def numel(input: Any) -> int:
    """``torch.numel``: the number of elements."""
    return tensor_arg(input, "numel").numel()


# --- closeness (bool results, never recorded) ----------------------------------------------------
def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (equal values, infinities
    included, are close; NaNs only with ``equal_nan``)."""
    a, b = tensor_arg(input, "isclose"), tensor_arg(other, "isclose", "other", 2)
    if a.dtype is not b.dtype:
        raise ScriptError(f"{D.SCALAR_NAMES[a.dtype.name]} did not match "
                          f"{D.SCALAR_NAMES[b.dtype.name]}")
    broadcast_shape(a.shape, b.shape)
    xp = a.backend.xp
    x, y = a.data, b.data
    close = x == y
    if a.dtype.is_floating_point:
        if equal_nan:
            close = close | (xp.isnan(x) & xp.isnan(y))
        diff = xp.abs(x - y)
        close = close | (xp.isfinite(diff) & (diff <= atol + rtol * xp.abs(y)))
    elif rtol or atol:
        close = close | (xp.abs(x - y) <= atol + rtol * xp.abs(y))
    return vmap_from(Tensor(a.backend.writable(close), a.backend), a, b)


def allclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether every element is close (``isclose``)."""
    close = isclose(input, other, rtol, atol, equal_nan)
    return bool(close.backend.xp.all(close.data))


def equal(input: Any, other: Any) -> bool:
    """Same shape and the same values (NaN is never equal)."""
    a, b = tensor_arg(input, "equal"), tensor_arg(other, "equal", "other", 2)
    if a.shape != b.shape:
        return False
    return bool(a.backend.xp.all(a.data == b.data))


# --- cumulative and further reductions (ops group A) ---------------------------------------------
_NO_DIM = object()


def _cumulative(op: Any, name: str) -> Any:
    def fn(input: Any, dim: Any = _NO_DIM, *, dtype: Any = None) -> Tensor:
        x = tensor_arg(input, name)
        if dim is _NO_DIM:
            raise ScriptError(f'{name}() missing 1 required positional arguments: "dim"',
                              kind="TypeError")
        typed_arg(name, "dim", dim, int, 2)
        if dtype is not None:
            if not isinstance(dtype, D.DType):
                raise ScriptError(f"{name}(): argument 'dtype' must be torch.dtype, not "
                                  f"{type(dtype).__name__}", kind="TypeError")
            if dtype is D.BOOL:
                raise D.kernel_error(f"{name}_out_cpu", "Bool")
        params: dict[str, Any] = {"dim": dim_arg(dim, x.ndim)}
        if op is O.CUMSUM:  # the formulas' reverse cumulative sum is the same op
            params["reverse"] = False
        if dtype is not None:  # computed in that dtype, the same node
            params["dtype"] = dtype
            return apply(O.CUMSUM_TO if op is O.CUMSUM else O.CUMPROD_TO, (x,), params)
        return apply(op, (x,), params)

    fn.__name__ = name
    fn.__doc__ = (f"The cumulative {name[3:]} along ``dim`` ({op.grad_fn}), accumulated in "
                  "double as PyTorch's CPU kernel; integers give int64.")
    return fn


cumsum = _cumulative(O.CUMSUM, "cumsum")
cumprod = _cumulative(O.CUMPROD, "cumprod")


def dims_arg(name: str, dim: Any, ndim: int, pos: int = 2) -> tuple[int, ...] | None:
    """``dim`` (None, an int or a list or tuple of them) as sorted dims, with PyTorch's
    TypeError for anything else; None for None or a 0-d tensor."""
    items = dim if isinstance(dim, (list, tuple)) else (dim,)
    if dim is not None and any(isinstance(d, bool) or not isinstance(d, int) for d in items):
        raise ScriptError(f"{name}(): argument 'dim' (position {pos}) must be tuple of ints, "
                          f"not {type(dim).__name__ if dim.__class__ is not Tensor else 'Tensor'}",
                          kind="TypeError")
    dims = _dims(dim, ndim) if dim is not None else None  # range-checked on 0-d too
    return dims if ndim else None


def keepdim_arg(name: str, keepdim: Any, pos: int = 3) -> bool:
    """``keepdim``, which PyTorch wants a bool."""
    if not isinstance(keepdim, bool):
        raise ScriptError(f"{name}(): argument 'keepdim' (position {pos}) must be bool, not "
                          f"{'Tensor' if keepdim.__class__ is Tensor else type(keepdim).__name__}",
                          kind="TypeError")
    return keepdim


def _all_dims(x: Tensor, dim: Any, name: str) -> tuple[int, ...]:
    """``dim`` as sorted dims; None or () is every dim (amax's and logsumexp's default)."""
    if dim is not None and not isinstance(dim, (int, list, tuple)) or isinstance(dim, bool):
        raise ScriptError(f"{name}(): argument 'dim' must be tuple of ints, not "
                          f"{type(dim).__name__}", kind="TypeError")
    if not x.ndim:
        if dim is not None and dim != ():
            _dims(dim, 0)  # checks the range
        return ()
    if dim is None or dim == () or dim == []:
        return tuple(range(x.ndim))
    return _dims(dim, x.ndim)  # type: ignore[return-value]


def logsumexp(input: Any, dim: Any = _NO_DIM, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input)))`` over ``dim``, stable (LogsumexpBackward0)."""
    x = tensor_arg(input, "logsumexp")
    if dim is _NO_DIM:
        raise ScriptError('logsumexp() missing 1 required positional arguments: "dim"',
                          kind="TypeError")
    if dim is None:
        raise ScriptError("logsumexp(): argument 'dim' (position 2) must be tuple of ints, not "
                          "NoneType", kind="TypeError")
    keepdim_arg("logsumexp", keepdim)
    return apply(O.LOGSUMEXP, (x,), {"dim": _all_dims(x, dim, "logsumexp"),
                                     "keepdim": keepdim})


def _amax_amin(op: Any, name: str) -> Any:
    def fn(input: Any, dim: Any = (), keepdim: bool = False) -> Tensor:
        x = tensor_arg(input, name)
        keepdim_arg(name, keepdim)
        dims = _all_dims(x, dim, name)
        if x.numel() == 0:
            if dim is None or dim == () or dim == []:
                raise ScriptError(f"{name}(): Expected reduction dim to be specified for "
                                  "input.numel() == 0. Specify the reduction dim with the "
                                  "'dim' argument.")
            for d in dims:
                if x.shape[d] == 0:
                    raise ScriptError(f"{name}(): Expected reduction dim {d} to have non-zero "
                                      "size.", kind="IndexError")
        return apply(op, (x,), {"dim": dims, "keepdim": bool(keepdim)})

    fn.__name__ = name
    fn.__doc__ = (f"The {name[1:]}imum over ``dim`` (every dim by default); ties share the "
                  f"gradient evenly ({op.grad_fn}).")
    return fn


amax = _amax_amin(O.AMAX, "amax")
amin = _amax_amin(O.AMIN, "amin")


class MinMax(tuple):
    """PyTorch's ``torch.return_types.aminmax``: a (min, max) pair with names."""

    __slots__ = ()

    @property
    def min(self) -> Tensor:
        """The smallest values."""
        return self[0]

    @property
    def max(self) -> Tensor:
        """The largest values."""
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"

    __str__ = __repr__


def aminmax(input: Any, *, dim: Any = None, keepdim: bool = False) -> MinMax:
    """The minimum and the maximum, of everything or along ``dim`` (AminmaxBackward0)."""
    x = tensor_arg(input, "aminmax")
    if dim is not None:
        typed_arg("aminmax", "dim", dim, int)
    dims = tuple(range(x.ndim)) if dim is None else ((dim_arg(dim, x.ndim),) if x.ndim else ())
    if any(x.shape[d] == 0 for d in dims) or (dim is None and x.numel() == 0):
        raise ScriptError("aminmax(): cannot compute aminmax over an empty dimension as the "
                          "operation has no identity.")
    params = {"dim": dims, "keepdim": bool(keepdim)}
    return MinMax((apply(O.AMINMAX_MIN, (x,), params), apply(O.AMINMAX_MAX, (x,), params)))


def nansum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum with NaNs counted as zero (NansumBackward0); ``dtype`` converts first."""
    x = tensor_arg(input, "nansum")
    keepdim_arg("nansum", keepdim)
    dims = dims_arg("nansum", dim, x.ndim)
    if dtype is not None:
        if not isinstance(dtype, D.DType):
            raise ScriptError(f"nansum(): argument 'dtype' must be torch.dtype, not "
                              f"{type(dtype).__name__}", kind="TypeError")
        return apply(O.NANSUM_TO, (x,), {"dim": dims, "keepdim": keepdim, "dtype": dtype})
    return apply(O.NANSUM, (x,), {"dim": dims, "keepdim": keepdim})


def nanmean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean of the elements that are not NaN: nansum divided by their count
    (DivBackward0 over NansumBackward0, as PyTorch writes it)."""
    x = tensor_arg(input, "nanmean")
    if not x.dtype.is_floating_point:
        raise ScriptError("nanmean(): expected input to have floating point or complex dtype "
                          f"but got {D.SCALAR_NAMES[x.dtype.name]}")
    keepdim_arg("nanmean", keepdim)
    dims_arg("nanmean", dim, x.ndim)
    total = nansum(x, dim, keepdim, dtype=dtype)
    be = x.backend
    xp = be.xp
    dims = _dims(dim, x.ndim) if dim is not None and x.ndim else None
    count = xp.sum(xp.astype(~xp.isnan(xp.asarray(x.data)), xp.int64), axis=dims,
                   keepdims=bool(keepdim))
    return apply(O.DIV, (total, Tensor(be.astype(xp.asarray(count), D.INT64), be)))


def trace(input: Any) -> Tensor:
    """The sum of a matrix's diagonal (TraceBackward0)."""
    x = tensor_arg(input, "trace")
    if x.dtype is D.BOOL:
        raise D.kernel_error("trace", "Bool")
    if x.ndim != 2:
        raise ScriptError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    return apply(O.TRACE, (x,))


def dist(input: Any, other: Any, p: Any = 2) -> Tensor:
    """The p-norm of ``input - other`` (DistBackward0)."""
    a, b = tensor_arg(input, "dist"), tensor_arg(other, "dist", "other", 2)
    if p.__class__ is Tensor and not p.ndim:  # a 0-d tensor is a Number to PyTorch
        p = p.item()
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ScriptError(f"dist(): argument 'p' (position 3) must be Number, not "
                          f"{'Tensor' if p.__class__ is Tensor else type(p).__name__}",
                          kind="TypeError")
    for t in (a, b):
        if not t.dtype.is_floating_point:
            raise ScriptError("norm(): input dtype should be either floating point or complex. "
                              f"Got {D.SCALAR_NAMES[t.dtype.name]} instead.")
    broadcast_shape(a.shape, b.shape)
    return apply(O.DIST, (a, b), {"p": p})
