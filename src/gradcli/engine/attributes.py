"""Tensor attributes a PyTorch program reads and assigns: ``requires_grad``, ``grad``, ``data``.

The engine keeps a tensor's array in ``Tensor.data`` and its flags in plain slots (the hot
paths read them directly), so PyTorch's attribute semantics live here as getter/setter pairs:
``ATTRIBUTES[name] = (get, set)``, with PyTorch's checks and messages.  ``detach_`` and a
checked ``requires_grad_`` are Tensor methods from here too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from .tensor import Tensor

LEAF_ONLY_MSG = "you can only change requires_grad flags of leaf variables."
DETACH_HINT = (" If you want to use a computed variable in a subgraph that doesn't require "
               "differentiation use var_no_grad = var.detach().")
DETACH_VIEW_MSG = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)
# PyTorch's C++ type names in the grad-assignment message
_C_TYPE = {"float64": "double", "float32": "float", "int64": "long int", "bool": "bool"}
_SCALAR_TYPE = {"float64": "Double", "float32": "Float", "int64": "Long", "bool": "Bool"}


def dtype_of(t: Tensor) -> str:
    """The tensor's dtype name (``float64``, ``int64`` …)."""
    return t.dtype.name


def is_floating(t: Tensor) -> bool:
    """Whether the tensor can require grad (a floating-point dtype)."""
    return t.dtype.is_floating_point


# -- requires_grad ------------------------------------------------------------------------------
def get_requires_grad(t: Tensor) -> bool:
    """``x.requires_grad``."""
    return t.requires_grad


def set_requires_grad(t: Tensor, value: Any) -> None:
    """``x.requires_grad = b``: leaves only, floating point only, a bool only."""
    if not isinstance(value, bool):
        raise ScriptError("requires_grad must be a bool")
    if t.grad_fn is not None:
        raise ScriptError(LEAF_ONLY_MSG + (DETACH_HINT if not value else ""))
    if value and not is_floating(t):
        raise ScriptError("only Tensors of floating point and complex dtype can require "
                          "gradients")
    t.requires_grad = value


def requires_grad_(self: Tensor, requires_grad: Any = True) -> Tensor:
    """``x.requires_grad_(b)``: as the setter, but a non-leaf asked for True is returned as is."""
    if not isinstance(requires_grad, bool):
        raise ScriptError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, "
                          f"not {type(requires_grad).__name__}", kind="TypeError")
    if self.grad_fn is not None:
        if not requires_grad:
            raise ScriptError(LEAF_ONLY_MSG + DETACH_HINT)
        return self
    if requires_grad and not is_floating(self):
        raise ScriptError("only Tensors of floating point dtype can require gradients")
    self.requires_grad = requires_grad
    return self


# -- grad ---------------------------------------------------------------------------------------
def get_grad(t: Tensor) -> Tensor | None:
    """``x.grad`` (a non-leaf without a gradient warns, as PyTorch)."""
    return t.grad


def set_grad(t: Tensor, value: Any) -> None:
    """``x.grad = g``: None, or a tensor of the same shape and dtype (not ``x`` itself)."""
    if value is None:
        t._grad = None
        return
    if not isinstance(value, Tensor):
        raise ScriptError("assigned grad expected to be a Tensor or None but got grad of type "
                          f"{type(value).__name__}", kind="TypeError")
    if value is t:
        raise ScriptError("can't assign Variable as its own grad")
    have, want = dtype_of(value), dtype_of(t)
    if have != want:
        raise ScriptError(
            f"attempting to assign a gradient with dtype '{_C_TYPE.get(have, have)}' to a tensor "
            f"with grad_dtype '{_SCALAR_TYPE.get(want, want)}'. The gradient must match the "
            "tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
            "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
            "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
            "downstream systems that assume they match.")
    if tuple(value.shape) != tuple(t.shape):
        raise ScriptError(f"attempting to assign a gradient of size '{list(value.shape)}' to a "
                          f"tensor of size '{list(t.shape)}'. Please ensure that the gradient "
                          "and the tensor are the same size")
    # NOTE: later backwards add into this very tensor in place, as PyTorch's AccumulateGrad
    value.data = value.backend.writable(value.data)
    t._grad = value


# -- data ---------------------------------------------------------------------------------------
def get_data(t: Tensor) -> Tensor:
    """``x.data``: a leaf sharing ``x``'s memory, outside autograd, with its own version counter."""
    t.data = t.backend.writable(t.data)
    out = Tensor(t.data, t.backend)
    out._strides = t._strides
    return out


def set_data(t: Tensor, value: Any) -> None:
    """``x.data = y``: ``x`` now uses ``y``'s memory (any shape); its version is unchanged."""
    if not isinstance(value, Tensor):
        raise ScriptError(f"Variable data has to be a tensor, but got {type(value).__name__}",
                          kind="TypeError")
    if t.requires_grad and not is_floating(value):
        raise ScriptError("data set to a tensor that requires gradients must be floating point "
                          "or complex dtype")
    value.data = value.backend.writable(value.data)
    t.data = value.data
    t._strides = value._strides


# -- detach_ ------------------------------------------------------------------------------------
def detach_(self: Tensor) -> Tensor:
    """``x.detach_()``: cut ``x`` from the graph in place (not allowed on a view in a graph)."""
    if self._base is not None and self.requires_grad:
        raise ScriptError(DETACH_VIEW_MSG)
    if self._retains_grad and self.grad_fn is not None:
        self.grad_fn.retained = None
    self._retains_grad = False
    self.grad_fn = None
    self.requires_grad = False
    return self


ATTRIBUTES: dict[str, tuple[Callable[[Tensor], Any], Callable[[Tensor, Any], None]]] = {
    "requires_grad": (get_requires_grad, set_requires_grad),
    "grad": (get_grad, set_grad),
    "data": (get_data, set_data),
}
