"""``torch.autograd.graph.saved_tensors_hooks``: what a node saves goes through the program's
pack hook when the node is made, and through its unpack hook when the saved tensor is used.

While hooks are set, a ``SavedHooks`` stands in ``RunContext.recorder``'s place (passing every
report on), so each op's new node is seen right after it was made: its saved tensors are
packed in PyTorch's order and replaced by ``Packed`` entries, which ``graph.Node.unpack``
unpacks.  Runs without hooks pay nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from .context import current, no_grad
from .tensor import Tensor

_EMPTY: dict = {}
_FORCE = [1]  # a version counter ahead of the entry's 0: the backward takes the checked path


class Packed(tuple):
    """A saved entry whose tensor the pack hook took: ``(value, None, _FORCE, 0, producer,
    is_output)`` as every entry, with the hooks and what the pack hook returned."""

    hooks: Any
    packed: Any
    requires: bool  # the saved tensor's requires_grad
    node: Any  # the node that saved it
    name: str  # its saved name (``self``, ``saved_tensors[0]``)
    source: Any  # the tensor the pack hook was given (what trace names)

    def value(self, tensor_mode: bool) -> Any:
        """The unpack hook's values with the saved tensor's autograd identity (PyTorch's
        SavedVariable::unpack: its grad_fn, or a leaf's requires_grad); an array when the
        backward runs on arrays."""
        hooks = self.hooks
        out = hooks.unpack(self.packed)
        tracer = current().tracer
        if tracer is not None:
            tracer.unpack(self.node, self.name, hooks.origin or hooks.unpack, out)
        if not isinstance(out, Tensor):
            raise ScriptError("Output of saved tensor unpack_hook expected to be a Tensor but "
                              f"got result of type {type(out).__name__}", kind="TypeError")
        if not tensor_mode:
            return out.data
        if self[5]:
            return Tensor(out.data, out.backend, True, self.node)
        return Tensor(out.data, out.backend, self.requires, self[4])


class SavedHooks:
    """The (pack, unpack) pair of one ``saved_tensors_hooks`` block (module docstring)."""

    __slots__ = ("disabled", "on_write", "origin", "pack", "prev", "unpack")

    def __init__(self, pack: Callable | None, unpack: Callable | None,
                 disabled: str | None = None, on_write: Callable | None = None) -> None:
        self.pack = pack
        self.unpack = unpack
        self.disabled = disabled  # disable_saved_tensors_hooks's message
        # allow_mutation_on_saved_tensors: told of each in-place write before it is made
        self.on_write = on_write
        # the context manager's name when gradcli gives the hooks (save_on_cpu), for trace
        self.origin: str | None = None
        self.prev: Any = None

    def enter(self) -> None:
        ctx = current()
        outer = ctx.recorder
        if isinstance(outer, SavedHooks):
            if outer.disabled is not None:
                raise ScriptError(outer.disabled)
            if self.disabled is not None:
                raise ScriptError(self.disabled)
            outer = outer.prev  # the innermost hooks replace the outer ones
        self.prev = outer
        ctx.recorder = self

    def exit(self, previous: Any) -> None:
        current().recorder = previous

    def __call__(self, out: Tensor, op: Any, args: tuple, inplace: bool,
                 params: dict = _EMPTY) -> None:
        if self.prev is not None:
            self.prev(out, op, args, inplace, params)
        if inplace and self.on_write is not None and op.name != "copy_slices":
            # (a view's write reaches its base as copy_slices: PyTorch clones by the view's
            # own data pointer, so a base saved at another address is not cloned)
            self.on_write(out, True)  # before the write: a saved original is cloned
            self._pack_node(out, op)
            self.on_write(out, False)
        else:
            self._pack_node(out, op)

    def _pack_node(self, out: Tensor, op: Any) -> None:
        """Pack what the node that made ``out`` saved, in its saving order."""
        node = out.grad_fn
        if self.disabled is not None or node is None or getattr(node, "op", None) is not op \
                or not node.saved or node.freed:
            return  # (disable_saved_tensors_hooks refuses hooks, not saving)
        saved = node.saved
        for nm, entry in list(saved.items()):
            if entry.__class__ is Packed or entry[0] is None:
                continue
            tensor, is_output = entry[1], entry[5]
            if is_output:
                tensor = out
            elif tensor is None:  # a wrapped number: PyTorch keeps it as it is
                continue
            saved[nm] = self.packed(entry, nm, tensor, node)

    def packed(self, entry: tuple, name: str, tensor: Tensor, node: Any) -> Packed:
        """``entry``'s tensor given to the pack hook, under no_grad as PyTorch's
        ``SavedVariable`` calls it."""
        packed = Packed((entry[0], None, _FORCE, 0, entry[4], entry[5]))
        packed.hooks, packed.requires, packed.node = self, tensor.requires_grad, node
        packed.name, packed.source = name, tensor
        with no_grad():
            packed.packed = self.pack(tensor)
        tracer = current().tracer
        if tracer is not None:
            tracer.pack(node, name, tensor, self.origin or self.pack, packed.packed)
        return packed


def active_hooks() -> SavedHooks | None:
    """The hooks in force (the innermost block's), found along the recorders' chain; None
    outside every block."""
    r = current().recorder
    while r is not None:
        if r.__class__ is SavedHooks:
            return r
        r = getattr(r, "prev", None)
    return None


def before_write(t: Tensor) -> None:
    """An in-place write outside the op table (an optimizer's step, an embedding's renorm)
    is about to change ``t``: allow_mutation_on_saved_tensors clones what saved it."""
    guard = current().allow_mutation
    if guard is not None:
        guard.clone_saved(t)
