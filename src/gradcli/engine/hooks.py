"""Hooks, as PyTorch runs them: on tensors (``register_hook``) and on grad_fn nodes.

A tensor hook lives on the node its gradient flows into: a non-leaf's ``grad_fn``, a leaf's
``AccumulateGrad``.  So a hook registered before an in-place update stays with the old
``grad_fn`` and sees the gradient of the old value, as in PyTorch.  The backward
(``autograd._run``) calls, per node: tensor hooks, then ``retain_grad``'s, then the node's
pre-hooks, the node, and its post-hooks.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any, Self

from ..errors import ScriptError
from .context import current
from .custom import FunctionNode, Parts
from .graph import Node, edge
from .tensor import Tensor

_IDS = itertools.count()  # handle ids only key dicts: their values are never shown


class NodeHooks:
    """The hooks registered on one node, each kind in registration order."""

    __slots__ = ("accumulated", "owner", "post", "pre", "tensor")

    def __init__(self) -> None:
        self.owner: Any = None  # a weak reference to the tensor whose hooks these are (traces)
        self.tensor: dict[int, Callable] = {}
        self.pre: dict[int, Callable] = {}
        self.post: dict[int, Callable] = {}
        self.accumulated: dict[int, Callable] = {}  # a leaf's post-accumulate-grad hooks


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook (from its
    table and from the tables that mark it, ``extra``: a module hook's with_kwargs)."""

    __slots__ = ("_extra", "_table", "id")

    def __init__(self, table: dict[int, Callable], hook_id: int, extra: tuple = ()) -> None:
        self._table, self.id, self._extra = table, hook_id, extra

    def remove(self) -> None:
        """Unregister the hook (a second call does nothing, as PyTorch's)."""
        self._table.pop(self.id, None)
        for table in self._extra:
            table.pop(self.id, None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<torch.utils.hooks.RemovableHandle object at {id(self):#x}>"


def new_hook_id() -> int:
    """A fresh hook id (the handle's ``id``)."""
    return next(_IDS)


def add_node_hook(node: Node, kind: str, fn: Any) -> RemovableHandle:
    """Register ``fn`` on ``node`` as a tensor hook, a pre-hook or a post-hook."""
    if not callable(fn):
        raise ScriptError(f"'{type(fn).__name__}' object is not callable", kind="TypeError")
    if node.hooks is None:
        node.hooks = NodeHooks()
    table = getattr(node.hooks, kind)
    hook_id = next(_IDS)
    table[hook_id] = fn
    return RemovableHandle(table, hook_id)


def node_register_hook(self: Node, fn: Any) -> RemovableHandle:
    """``grad_fn.register_hook(fn(grad_inputs, grad_outputs))``: runs after the node."""
    return add_node_hook(self, "post", fn)


def node_register_prehook(self: Node, fn: Any) -> RemovableHandle:
    """``grad_fn.register_prehook(fn(grad_outputs))``: runs before the node."""
    return add_node_hook(self, "pre", fn)


def register_hook(self: Tensor, hook: Any) -> RemovableHandle:
    """``Tensor.register_hook(fn)``: ``fn(grad)`` runs when this tensor's gradient is computed.

    It may return a gradient to use instead.  On a leaf it runs before the gradient is added
    into ``.grad``.
    """
    if not self.requires_grad:
        raise ScriptError("cannot register a hook on a tensor that doesn't require gradient")
    node = edge(self)
    handle = add_node_hook(node, "tensor", hook)
    node.hooks.owner = weakref.ref(self)
    if self.grad_fn is None:
        self._accumulator = node  # held: its hooks are the leaf's (graph.accumulator)
    return handle


def register_post_accumulate_grad_hook(self: Tensor, hook: Any) -> RemovableHandle:
    """``Tensor.register_post_accumulate_grad_hook(fn)``: ``fn(leaf)`` runs after the backward
    added into the leaf's ``.grad`` (kept on its AccumulateGrad, as its tensor hooks)."""
    if not self.requires_grad:
        raise ScriptError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise ScriptError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    node = edge(self)
    handle = add_node_hook(node, "accumulated", hook)
    self._accumulator = node  # held: its hooks are the leaf's (graph.accumulator)
    return handle


def run_accumulated_hooks(node: Any) -> None:
    """The post-accumulate-grad hooks of ``node``'s leaf (an AccumulateGrad), after it added
    into ``.grad``; each must return None (PyTorch's check)."""
    for fn in list(node.hooks.accumulated.values()):
        if fn(node.variable) is not None:
            raise ScriptError("Tensor post accumulate grad hooks should return None.")


def _name(fn: Any) -> str:
    """The hook's ``__name__`` in PyTorch's messages (a script function's own name)."""
    for attr in ("__name__", "name"):
        name = getattr(fn, attr, None)
        if isinstance(name, str):
            return name
    return type(fn).__name__


def _as_tensor(g: Any, backend: Any) -> Tensor:
    return g if isinstance(g, Tensor) else Tensor(g, backend)


def _checked(fn: Any, value: Any, before: Tensor) -> Tensor:
    """A hook's replacement gradient, with PyTorch's checks."""
    if not isinstance(value, Tensor):
        raise ScriptError(f"expected Variable, but hook returned '{type(value).__name__}'",
                          kind="TypeError")
    if tuple(value.shape) != tuple(before.shape):
        raise ScriptError(f"hook '{_name(fn)}' has changed the size of value")
    was, got = before.dtype, value.dtype
    if was != got:
        raise ScriptError(f"hook '{_name(fn)}' has changed the type of value (was "
                          f"torch.{was.legacy} got torch.{got.legacy})")
    return value


def run_tensor_hooks(node: Node, g: Any, create_graph: bool) -> Any:
    """The tensor hooks of ``node``'s output on its gradient ``g`` (array or tensor)."""
    hooks = node.hooks.tensor
    if not hooks:
        return g
    t = _as_tensor(g, node.backend)
    tracer = current().tracer
    for fn in list(hooks.values()):
        out = fn(t)
        if tracer is not None:
            owner = node.hooks.owner
            tracer.hook(owner() if owner is not None else None, t, out)
        if out is not None:
            t = _checked(fn, out, t)
    return t if create_graph else t.data


def _grad_outputs(node: Node, g: Any) -> tuple:
    """The gradients of a node's outputs, as its hooks see them (a custom Function's several
    outputs: one each, None where none came)."""
    if node.__class__ is FunctionNode:
        parts = g if isinstance(g, Parts) else \
            Parts({next(i for i, o in enumerate(node.outputs) if o and o[2]): g})
        return tuple(None if parts.get(i) is None else _as_tensor(parts[i], node.backend)
                     for i in range(len(node.outputs)))
    return (_as_tensor(g, node.backend),)


def run_pre_hooks(node: Node, g: Any, create_graph: bool) -> Any:
    """``grad_fn.register_prehook`` hooks: ``fn(grad_outputs)`` may return new ones."""
    hooks = node.hooks.pre
    if not hooks:
        return g
    if node.__class__ is FunctionNode:
        raise ScriptError("gradcli does not support pre-hooks on a custom Function's node",
                          kind="NotImplementedError")
    t = _as_tensor(g, node.backend)
    for fn in list(hooks.values()):
        out = fn((t,))
        if out is not None:
            t = _checked(fn, _single(out, "pre-hook"), t)
    return t if create_graph else t.data


def run_post_hooks(node: Node, grads_in: list, g: Any, create_graph: bool) -> list:
    """``grad_fn.register_hook`` hooks: ``fn(grad_inputs, grad_outputs)`` may replace the first."""
    hooks = node.hooks.post
    if not hooks:
        return grads_in
    backend = node.backend
    ins = tuple(None if x is None else _as_tensor(x, backend) for x in grads_in)
    outs = _grad_outputs(node, g)
    for fn in list(hooks.values()):
        new = fn(ins, outs)
        if new is None:
            continue
        if not isinstance(new, (tuple, list)) or len(new) != len(ins):
            raise ScriptError(f"hook '{_name(fn)}' has returned an incorrect number of values "
                              f"(got {len(new) if isinstance(new, (tuple, list)) else 1}, but "
                              f"expected {len(ins)})")
        ins = tuple(None if n is None else _checked(fn, n, o) if o is not None else n
                    for n, o in zip(new, ins))
    return [None if x is None else x if create_graph else x.data for x in ins]


def _single(out: Any, what: str) -> Any:
    if isinstance(out, (tuple, list)):
        if len(out) != 1:
            raise ScriptError(f"{what} has returned an incorrect number of values (got "
                              f"{len(out)}, but expected 1)")
        return out[0]
    return out
