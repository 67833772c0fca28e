"""The autograd engine: tensors on an Array API backend, the op table, graph nodes, backward.

Layers inside, bottom up: ``backend`` and ``context`` (per-run state); ``strides``,
``printing``; ``tensor``; ``graph`` (nodes); ``ops`` (THE op table); ``record`` (apply an op);
``args`` and ``shape``, then ``reductions``, ``linalg``, ``joins`` and ``nn_functional`` by
theme, and ``functions`` over them (PyTorch's dispatch); ``autograd`` (running backward).
Importing the engine gives ``Tensor`` its operators and methods, once, from ``functions`` and
``autograd``.
"""

from __future__ import annotations

from .autograd import backward, backward_all, grad
from .context import RunContext, current, enable_grad, is_grad_enabled, no_grad, use
from .functions import FUNCTIONS, LINALG, METHODS, NN_FUNCTIONS, OPERATORS
from .graph import AccumulateGrad, CopySlices, Node, SavedInfo
from .ops import OPS, Op
from .tensor import Tensor


def _install() -> None:
    for name, fn in {**OPERATORS, **METHODS, "backward": backward}.items():
        setattr(Tensor, name, fn)


_install()

__all__ = ["FUNCTIONS", "LINALG", "METHODS", "NN_FUNCTIONS", "OPS", "AccumulateGrad", "CopySlices", "Node",
           "Op", "RunContext", "SavedInfo", "Tensor", "backward_all", "current", "enable_grad",
           "grad", "is_grad_enabled", "no_grad", "use"]
