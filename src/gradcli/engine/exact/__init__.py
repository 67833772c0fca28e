"""PyTorch 2.13's CPU kernels emulated in NumPy, so float32 and float64 results match its bits.

The engine reaches these through ``engine.kernels`` (which falls back to plain Array API code
for other backends); only this package and ``backend.py`` import NumPy.  What each kernel
reproduces, and how exactly, is said in its module: reduce.py (sum, mean), ranges.py
(linspace), softmaxes.py,
unary.py (elementwise math and backward kernels), onednn.py (oneDNN's float32 GELU kernels),
sleef.py and libm.py (the vector and scalar
math libraries PyTorch calls), vml.py and blas.py (MKL's vector math and matrix products,
called through libmkl.py as ATen calls them), iterator.py (TensorIterator's walk),
moments.py (var and std), norms.py (vector norms), batchnorm.py (batch_norm's statistics, output and backward),
layernorm.py (layer_norm's row statistics, output and backward), conv.py
(convolutions by im2col and gemm), select.py (the sorting kernels' order of equal values: libstdc++'s std::sort, partial_sort
and nth_element, ATen's quick-select; pure Python) and machine.py (the CPU whose results these
are).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import machine
from . import batchnorm, blas, conv, layernorm, onednn, softmaxes, unary
from .fp import fma64, fused_add
from .moments import var_std
from .norms import vector_norm
from .ranges import linspace
from .reduce import mean, nll_cascade, nll_forward, nll_grad, nll_targets, scatter_add, sum_


def _keep_scalar(fn: Callable) -> Callable:
    """A NumPy scalar in, a NumPy scalar out (the engine keeps 0-d values as scalars: their
    arithmetic is about ten times faster than 0-d arrays')."""
    @functools.wraps(fn)
    def wrapper(x: Any, *args: Any, **kwargs: Any) -> Any:
        out = fn(x, *args, **kwargs)
        return out[()] if isinstance(x, np.generic) else out
    return wrapper


erf, expm1, log1p, logsigmoid, sigmoid, softplus, pow_scalar, logaddexp = (
    _keep_scalar(f) for f in (unary.erf, unary.expm1, unary.log1p, unary.logsigmoid,
                              unary.sigmoid, unary.softplus, unary.pow_scalar, unary.logaddexp))
logsigmoid_backward, sigmoid_backward, softplus_backward, tanh_backward = (
    _keep_scalar(f) for f in (unary.logsigmoid_backward, unary.sigmoid_backward,
                              unary.softplus_backward, unary.tanh_backward))
gelu_tanh, gelu_tanh_backward = (_keep_scalar(f) for f in (unary.gelu_tanh,
                                                           unary.gelu_tanh_backward))
elu, elu_backward, silu, silu_backward, softshrink = (
    _keep_scalar(f) for f in (unary.elu, unary.elu_backward, unary.silu, unary.silu_backward,
                              unary.softshrink))
mkl, library, c_library = unary.mkl, unary.library, unary.c_library  # keep scalars themselves
threshold_backward = unary.threshold_backward
smooth_l1_backward, huber_backward = unary.smooth_l1_backward, unary.huber_backward
softmax, log_softmax, softmax_backward, log_softmax_backward = (
    _keep_scalar(f) for f in (softmaxes.softmax, softmaxes.log_softmax,
                              softmaxes.softmax_backward, softmaxes.log_softmax_backward))

__all__ = [
    "accepts",
    "batchnorm",
    "blas",
    "bmm",
    "broadcast_to",
    "c_library",
    "conv",
    "elu",
    "elu_backward",
    "erf",
    "expm1",
    "fma64",
    "fused_add",
    "gelu",
    "gelu_backward",
    "gelu_tanh",
    "gelu_tanh_backward",
    "huber_backward",
    "layernorm",
    "library",
    "linspace",
    "log1p",
    "log_softmax",
    "log_softmax_backward",
    "logaddexp",
    "logsigmoid",
    "logsigmoid_backward",
    "matmul",
    "mean",
    "mkl",
    "nll_cascade",
    "nll_forward",
    "nll_grad",
    "nll_targets",
    "pow_scalar",
    "scatter_add",
    "sigmoid",
    "sigmoid_backward",
    "silu",
    "silu_backward",
    "smooth_l1_backward",
    "softmax",
    "softmax_backward",
    "softplus",
    "softplus_backward",
    "softshrink",
    "sum_",
    "tanh_backward",
    "threshold_backward",
    "var_std",
    "vector_norm",
]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _onednn_takes(x: Any) -> bool:
    """Whether PyTorch hands ``x`` to oneDNN for GELU (Activation.cpp's ``use_mkldnn``): float32,
    contiguous, more than one element."""
    return x.dtype == _F32 and x.size > 1 and x.flags.c_contiguous


def gelu(x: Any) -> Any:
    """``F.gelu(x)`` (approximate='none'): oneDNN's kernel where PyTorch calls it (onednn.py; the
    AVX-512 one where the machine's CPU has AVX-512), else ATen's kernel (unary.py: float64,
    and float32 of one element or not contiguous).

    NOTE: oneDNN picks its ISA from the CPU, not from ``ATEN_CPU_CAPABILITY``: on a CPU with
    AVX-512 run under ``avx2`` (or ``default``) PyTorch still takes the AVX-512 kernel
    (``Machine.onednn_avx512``)."""
    if x.__class__ is np.ndarray and _onednn_takes(x):
        if machine.current().onednn_avx512:
            return onednn.gelu_avx512(x)
        return onednn.gelu_avx2(x)
    out = unary.gelu_aten(x)
    return out[()] if isinstance(x, np.generic) else out


def gelu_backward(grad: Any, x: Any) -> Any:
    """``gelu_backward(grad, x)`` (approximate='none'), chosen by ``x`` as PyTorch chooses."""
    if x.__class__ is np.ndarray and _onednn_takes(x):
        return onednn.gelu_backward(grad, x)
    out = unary.gelu_backward_aten(grad, x)
    return out[()] if isinstance(x, np.generic) and isinstance(grad, np.generic) else out


def matmul(a: Any, b: Any) -> Any:
    """``torch.matmul`` of float32 and float64 vectors and matrices as MKL computes them
    (blas.py); None for the rest, which NumPy's matmul serves."""
    if a.ndim > 2 or b.ndim > 2 or 0 in a.shape + b.shape:
        return None
    return blas.matmul(np.asarray(a), np.asarray(b))


def bmm(a: Any, b: Any) -> Any:
    """``torch.bmm`` of float32 or float64 batches as ATen computes it (blas.py)."""
    return blas.bmm(np.asarray(a), np.asarray(b))


_TYPES = frozenset((np.ndarray, np.float32, np.float64))
_ndarray = np.ndarray


def broadcast_to(x: Any, shape: tuple) -> Any:
    """``numpy.broadcast_to``: a read-only view of ``x`` in ``shape``; a one-element value
    (the gradient of a sum or a mean) by one constructor call, several times faster."""
    if x.__class__ is not _ndarray or x.ndim == 0:
        x = np.asarray(x)
        if x.ndim == 0 and x.dtype.kind == "f":
            out = _ndarray(shape, x.dtype, x, 0, (0,) * len(shape))
            out.flags.writeable = False
            return out
    return np.broadcast_to(x, shape)


_F32, _F64 = _FLOATS


def accepts(*arrays: Any) -> bool:
    """True when every argument is a NumPy float32/float64 array or scalar of one dtype."""
    first = arrays[0]
    if type(first) not in _TYPES:
        return False
    dtype = first.dtype
    # NumPy's native float dtypes are single objects: identity first, equality (a dtype of
    # another byte order, with metadata) only for the rest
    if dtype is not _F32 and dtype is not _F64 and dtype not in _FLOATS:
        return False
    for a in arrays[1:]:  # a plain loop: this runs for every op and every gradient
        if type(a) not in _TYPES:
            return False
        d = a.dtype
        if d is not dtype and d != dtype:
            return False
    return True
