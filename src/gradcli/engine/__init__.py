"""The autograd engine: tensors on an Array API backend, the op table, graph nodes, backward.

Layers inside, bottom up: ``backend`` and ``context`` (per-run state); ``strides``,
``printing``; ``tensor``; ``graph`` (nodes); ``ops`` (THE op table); ``record`` (apply an op);
``args`` and ``shape``, then ``reductions``, ``selection``, ``linalg``, ``joins``,
``nn_functional``, ``logic``, ``pointwise`` and ``arithmetic`` by theme, and ``functions`` over
them (PyTorch's dispatch); ``formulas`` (the formulas as recorded ops) and ``autograd`` (running
backward).
Importing the engine gives ``Tensor`` its operators and methods, once, from ``functions`` and
``autograd``.
"""

from __future__ import annotations

from .attributes import ATTRIBUTES, detach_, requires_grad_, set_grad
from .autograd import backward, backward_all, grad
from .context import RunContext, current, enable_grad, is_grad_enabled, no_grad, use
from .functions import FUNCTIONS, LINALG, METHODS, NN_FUNCTIONS, OPERATORS
from .graph import AccumulateGrad, CopySlices, Node, SavedInfo, install_saved_properties
from .hooks import (
    RemovableHandle,
    node_register_hook,
    node_register_prehook,
    register_hook,
    register_post_accumulate_grad_hook,
)
from .ops import OPS, Op
from .tensor import Tensor


def _install() -> None:
    for name, fn in {**OPERATORS, **METHODS, "backward": backward,
                     "register_hook": register_hook,
                     "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
                     "requires_grad_": requires_grad_,
                     "detach_": detach_}.items():
        setattr(Tensor, name, fn)
    # ``x.grad = g`` from Python checks what PyTorch checks
    Tensor.grad = property(Tensor.grad.fget, set_grad)  # type: ignore[method-assign]
    install_saved_properties(OPS.values())
    Node.register_hook = node_register_hook  # type: ignore[attr-defined]
    Node.register_prehook = node_register_prehook  # type: ignore[attr-defined]


_install()

__all__ = ["ATTRIBUTES", "FUNCTIONS", "LINALG", "METHODS", "NN_FUNCTIONS", "OPS", "AccumulateGrad",
           "CopySlices", "Node", "Op", "RemovableHandle", "RunContext", "SavedInfo", "Tensor",
           "backward_all", "current", "enable_grad",
           "grad", "is_grad_enabled", "no_grad", "use"]
