"""PyTorch 2.13's CPU kernels emulated in NumPy, so float32 and float64 results match its bits.

The engine reaches these through ``engine.kernels`` (which falls back to plain Array API code
for other backends); only this package and ``backend.py`` import NumPy.  What each kernel
reproduces, and how exactly, is said in its module: reduce.py (sum, mean), softmaxes.py,
unary.py (elementwise math and backward kernels), blas.py (matmul), sleef.py and libm.py (the
vector and scalar math libraries PyTorch calls), iterator.py (TensorIterator's walk) and
machine.py (the CPU whose results these are).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import blas
from .reduce import mean, sum_
from .softmaxes import log_softmax, log_softmax_backward, softmax, softmax_backward
from .unary import (erf, expm1, log1p, logsigmoid, logsigmoid_backward, mkl, pow_scalar,
                    sigmoid, sigmoid_backward, softplus, softplus_backward, tanh_backward)

__all__ = ["accepts", "blas", "erf", "expm1", "log1p", "log_softmax", "log_softmax_backward",
           "logsigmoid", "logsigmoid_backward", "matmul", "mean", "mkl", "pow_scalar", "sigmoid",
           "sigmoid_backward", "softmax", "softmax_backward", "softplus", "softplus_backward",
           "sum_", "tanh_backward"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def matmul(a: Any, b: Any) -> Any:
    """``torch.matmul`` of float32 vectors and matrices, and float64 vectors, in MKL's order
    (blas.py); None for the rest, which NumPy's matmul serves."""
    if a.ndim > 2 or b.ndim > 2 or 0 in a.shape + b.shape:
        return None
    if a.dtype == np.float64:  # only ddot's order is known for float64
        return blas.dot(a, b) if a.ndim == b.ndim == 1 else None
    return blas.matmul(np.asarray(a), np.asarray(b))[0]


def accepts(*arrays: Any) -> bool:
    """True when every argument is a NumPy float32/float64 array or scalar of one dtype."""
    first = getattr(arrays[0], "dtype", None)
    if first not in _FLOATS:
        return False
    return all(isinstance(a, np.ndarray | np.generic) and a.dtype == first for a in arrays)
