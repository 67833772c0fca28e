"""``torch.autograd``'s functions as a script calls them, with PyTorch's argument errors."""

from __future__ import annotations

from typing import Any

from ..engine import autograd as engine_autograd
from ..engine.tensor import Tensor
from ..errors import ScriptError


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool | None = None,
         materialize_grads: bool = False) -> list:
    """As ``torch.autograd.grad``: a list of gradients, nothing accumulated into ``.grad``."""
    for v in (outputs, inputs):
        items = v if isinstance(v, list) else [v]
        if not items or not all(isinstance(t, Tensor) for t in items):
            raise ScriptError("grad() takes a tensor or a list of tensors", kind="TypeError")
    return engine_autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                                bool(allow_unused), materialize_grads)
