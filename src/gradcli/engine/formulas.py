"""The op table's formulas' namespace under ``create_graph=True`` (``TENSOR_FORMULAS``, which
``autograd`` hands the formulas instead of the backend's ``xp``): the same names, as recorded
ops, so a gradient is itself differentiable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from . import ops as O
from .arithmetic import pow
from .context import current
from .conversions import _convert
from .functions import SURFACED, clip
from .linalg import matmul
from .nn_layers import constant_pad_nd
from .record import apply
from .reductions import _reduce
from .shape import _view, reshape
from .tensor import Tensor


class TensorFormulas:
    """The formulas' ``xp`` when ``create_graph=True``: the same names, as recorded ops, so
    every formula is itself differentiable (second derivatives)."""

    def __getattr__(self, name: str) -> Callable:
        fn = SURFACED.get(name)
        if fn is None:
            op = O.OPS.get(name)
            if op is None or op.forward is None or op.surface:
                raise ScriptError(f"create_graph=True is not supported through '{name}' in "
                                  "gradcli")
            return lambda *tensors, **params: apply(op, tensors, params)  # an internal op
        return fn

    matmul = staticmethod(matmul)
    clip = staticmethod(clip)
    constant_pad_nd = staticmethod(constant_pad_nd)

    @staticmethod
    def cumsum(x: Tensor, dim: int, reverse: bool = False) -> Tensor:
        """Differentiable cumulative sum, from the end when ``reverse`` (PyTorch flips, sums
        and flips back: the same values, one node here)."""
        return apply(O.CUMSUM, (x,), {"dim": dim, "reverse": reverse})

    @staticmethod
    def cumprod(x: Tensor, dim: int) -> Tensor:
        """Differentiable cumulative product."""
        return apply(O.CUMPROD, (x,), {"dim": dim})

    @property
    def raw(self) -> Any:
        """The backend's namespace, for constants (masks, positions)."""
        return current().backend.xp

    @staticmethod
    def const(array: Any) -> Tensor:
        """An array as a constant operand."""
        return Tensor(array, current().backend)

    # The activations' backward kernels (tanh_backward, softmax_backward ...) are ops of the
    # table, found by name; silu's gradient is composite in PyTorch too.
    @staticmethod
    def power(x: Tensor, exponent: float) -> Tensor:
        """Differentiable ``x ** exponent``."""
        return pow(x, exponent)

    @staticmethod
    def silu_backward(grad: Tensor, x: Tensor) -> Tensor:
        """grad * s * (1 + x * (1 - s)) with s = sigmoid(x)."""
        s = SURFACED["sigmoid"](x)
        return grad * s * (1 + x * (1 - s))

    @staticmethod
    def where(condition: Any, x: Any, y: Any) -> Any:
        """Differentiable ``where`` with a constant condition."""
        cond = condition.data if condition.__class__ is Tensor else condition
        if x.__class__ is not Tensor and y.__class__ is not Tensor:
            return current().backend.xp.where(cond, x, y)
        return apply(O.WHERE, (Tensor(cond, current().backend), x, y))

    @staticmethod
    def prod(x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Differentiable ``xp.prod`` over everything or one axis."""
        if axis is None:
            out = apply(O.PROD, (x,))
            return reshape(out, *(1,) * x.ndim) if keepdims else out
        (d,) = axis if isinstance(axis, tuple) else (axis,)
        return apply(O.PROD_DIM, (x,), {"dim": d, "keepdim": keepdims})

    @staticmethod
    def sum(x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Differentiable ``xp.sum``."""
        return _reduce(O.SUM, O.SUM_DIM, x, axis, keepdims)

    @staticmethod
    def reshape(x: Tensor, shape: tuple) -> Tensor:
        """Differentiable ``xp.reshape``."""
        return reshape(x, *shape)

    @staticmethod
    def broadcast_to(x: Tensor, shape: tuple) -> Tensor:
        """Differentiable ``xp.broadcast_to`` (ExpandBackward0)."""
        if tuple(x.shape) == tuple(shape):
            return x
        return apply(O.EXPAND, (x,), {"shape": tuple(shape)})

    @staticmethod
    def permute_dims(x: Tensor, axes: tuple) -> Tensor:
        """Differentiable ``xp.permute_dims``."""
        return _view(O.PERMUTE, x, {"dims": tuple(axes)}, None)

    @staticmethod
    def astype(x: Tensor, native: Any) -> Tensor:
        """Differentiable ``xp.astype`` (ToCopyBackward0)."""
        return _convert(x, x.backend.from_native(native))

    @staticmethod
    def zeros_like(x: Any) -> Tensor:
        """Constant zeros."""
        return _zeros_like(x)

    @staticmethod
    def expand_as(x: Tensor, shape: tuple) -> Tensor:
        """Differentiable expand, recorded even to the same shape (ExpandBackward0)."""
        return apply(O.EXPAND, (x,), {"shape": tuple(shape)})

    @staticmethod
    def zeros_of(shape: tuple, like: Tensor) -> Tensor:
        """Constant zeros of ``shape`` in ``like``'s dtype."""
        return Tensor(like.backend.xp.zeros(tuple(shape), dtype=like.data.dtype), like.backend)

    @staticmethod
    def count_nonzero(mask: Any) -> Any:
        """Count of true mask entries (a constant)."""
        return current().backend.xp.count_nonzero(mask)

    @staticmethod
    def index_backward(grad: Tensor, shape: tuple, indices: Any) -> Tensor:
        """Differentiable scatter-add of an indexed gradient (IndexPutBackward0)."""
        return apply(O.INDEX_BACKWARD, (grad, indices), {"shape": tuple(shape)})

    @staticmethod
    def take_at(grad: Tensor, indices: Any) -> Tensor:
        """Differentiable gather by flat positions (IndexBackward0)."""
        return apply(O.INDEX, (grad, indices))

    @staticmethod
    def index_fill(grad: Tensor, indices: Any) -> Tensor:
        """``grad`` with zeros where an index_put wrote (IndexPutBackward0)."""
        return apply(O.INDEX_PUT, (grad, indices, 0.0))

    @staticmethod
    def select_backward(grad: Tensor, shape: tuple, dim: int, index: int) -> Tensor:
        """Differentiable scatter of a selected gradient."""
        return apply(O.SELECT_BACKWARD, (grad,), {"shape": shape, "dim": dim, "index": index})

    @staticmethod
    def slice_backward(grad: Tensor, shape: tuple, dim: int, start: int, stop: int,
                       step: int) -> Tensor:
        """Differentiable scatter of a sliced gradient."""
        return apply(O.SLICE_BACKWARD, (grad,),
                     {"shape": shape, "dim": dim, "start": start, "stop": stop, "step": step})


def _zeros_like(x: Tensor) -> Tensor:
    return Tensor(x.backend.xp.zeros_like(x.data), x.backend)


TENSOR_FORMULAS = TensorFormulas()
