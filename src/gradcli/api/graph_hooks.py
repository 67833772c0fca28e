"""``torch.autograd.graph``: the saved-tensor hooks ``saved_tensors_hooks``, ``save_on_cpu``
and ``disable_saved_tensors_hooks`` (engine/saved_hooks.py packs and unpacks),
``allow_mutation_on_saved_tensors`` (a saved tensor cloned before an in-place write), and
``register_multi_grad_hook`` (tensor hooks that count the backward's calls, as PyTorch's)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, MutableMapping
from typing import Any, Self
from weakref import WeakKeyDictionary, WeakValueDictionary

from ..engine.context import current
from ..engine.graph import edge
from ..engine.hooks import RemovableHandle
from ..engine.saved_hooks import SavedHooks
from ..engine.tensor import Tensor
from ..errors import ScriptError
from .types import TypeObject


class saved_tensors_hooks:
    """``with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):``."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        for name, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
            if not callable(hook):
                raise ScriptError(f"'{type(hook).__name__}' object is not callable",
                                  kind="TypeError")
        self.hooks = SavedHooks(pack_hook, unpack_hook)
        self.previous: Any = None

    def __enter__(self) -> None:
        self.previous = current().recorder
        self.hooks.enter()

    def __exit__(self, *exc: object) -> None:
        self.hooks.exit(self.previous)


class save_on_cpu(saved_tensors_hooks):
    """``save_on_cpu(pin_memory=False, device_type="cuda")``: PyTorch's ``pack_to_cpu`` and
    ``unpack_from_cpu`` on a CPU tensor: ``tensor.cpu()`` keeps the tensor itself (a later
    in-place write shows in the backward); with ``pin_memory`` a copy is kept (no CUDA device:
    ``torch.empty(..., pin_memory=False).copy_(tensor)``)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(_copy if pin_memory else _keep, _give_back)
        self.hooks.origin = "save_on_cpu"


def _keep(t: Tensor) -> tuple:
    return ("cpu", t)


def _copy(t: Tensor) -> tuple:
    return ("cpu", Tensor(t.backend.xp.asarray(t.data, copy=True), t.backend))


def _give_back(packed: tuple) -> Tensor:
    return packed[1]  # tensor.to("cpu", non_blocking=pin_memory): the tensor itself


class disable_saved_tensors_hooks:
    """``with disable_saved_tensors_hooks(message):``: saving a tensor raises ``message``."""

    def __init__(self, error_message: str) -> None:
        self.hooks = SavedHooks(None, None, str(error_message))
        self.previous: Any = None

    def __enter__(self) -> None:
        self.previous = current().recorder
        self.hooks.enter()

    def __exit__(self, *exc: object) -> None:
        self.hooks.exit(self.previous)


class _Handle:
    """What the pack hook of ``allow_mutation_on_saved_tensors`` returns (PyTorch's _Handle)."""


class AllowMutationContext:
    """``allow_mutation_on_saved_tensors()``: PyTorch's ``_AllowMutationOnSavedContext``, its
    pack and unpack hooks (``_swap_with_cloned``) and the clone made before an in-place write
    to a saved tensor (``_CloneArgBeforeMutateMode``).  A tensor is known by (id, data pointer,
    version), its storage by (data pointer, version), as PyTorch's ``_get_tid``/``_get_sid``."""

    def __init__(self) -> None:
        self.cloned: MutableMapping[_Handle, Tensor] = WeakKeyDictionary()
        self.original: MutableMapping[_Handle, Tensor] = WeakKeyDictionary()
        self.tid_to_weakhandle: MutableMapping[tuple, _Handle] = WeakValueDictionary()
        self.sid_to_tid: dict[tuple, set[tuple]] = defaultdict(set)
        self.hooks = SavedHooks(self.pack_hook, self.unpack_hook, on_write=self.on_write)
        self.hooks.origin = "allow_mutation_on_saved_tensors"
        self.writing: Tensor | None = None  # an in-place op's target, saved before its write
        self.previous: Any = None

    def __enter__(self) -> Self:
        ctx = current()
        self.previous = ctx.recorder
        self.hooks.enter()
        if ctx.allow_mutation is not None:
            self.hooks.exit(self.previous)
            raise ScriptError("allow_mutation_on_saved_tensors contexts cannot be nested")
        ctx.allow_mutation = self
        return self

    def __exit__(self, *exc: object) -> None:
        self.clear()
        current().allow_mutation = None
        self.hooks.exit(self.previous)

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def _ids(self, t: Tensor) -> tuple[tuple, tuple]:
        version = t.version + (t is self.writing)  # saved as the write will leave it
        ptr = _data_ptr(t.data)
        return (id(t), ptr, version), (ptr, version)

    def pack_hook(self, tensor: Tensor) -> _Handle:
        tid, sid = self._ids(tensor)
        self.sid_to_tid[sid].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:  # the same tensor at the same version saved again: its handle
            handle = _Handle()
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = tensor
        return handle

    def unpack_hook(self, handle: _Handle) -> Tensor:
        if current().allow_mutation is not self:
            raise ScriptError(_OUTSIDE, kind="AssertionError")
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise ScriptError(_OUTSIDE, kind="AssertionError")
        return self.original[handle]

    def on_write(self, target: Tensor, before: bool) -> None:
        """Before an in-place write to ``target``: clone every saved tensor that shares its
        storage and version; after it, nothing."""
        if not before:
            self.writing = None
            return
        self.clone_saved(target)
        self.writing = target

    def clone_saved(self, target: Tensor) -> None:
        """Clone every saved tensor that shares ``target``'s storage and version (before a
        write to it: ``_CloneArgBeforeMutateMode``'s ``maybe_clone``)."""
        _, sid = self._ids(target)
        for tid in self.sid_to_tid.get(sid, ()):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:  # freed by a backward, or cloned
                continue
            t = self.original.pop(handle)
            self.cloned[handle] = Tensor(t.backend.xp.asarray(t.data, copy=True), t.backend)

    def __repr__(self) -> str:
        return f"<torch.autograd.graph._AllowMutationOnSavedContext object at {id(self):#x}>"


_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
            "in which the graph was originally recorded.")


def _data_ptr(data: Any) -> int:
    """The address of an array's first element (PyTorch's ``data_ptr()``)."""
    face = getattr(data, "__array_interface__", None)
    return face["data"][0] if face is not None else data.data.ptr


AllowMutationContext.script_class = TypeObject(  # type(ctx), as Python prints it
    "torch.autograd.graph._AllowMutationOnSavedContext", (AllowMutationContext,))


def allow_mutation_on_saved_tensors() -> AllowMutationContext:
    """``with torch.autograd.graph.allow_mutation_on_saved_tensors():``."""
    return AllowMutationContext()


class MultiHandle:
    """What ``register_multi_grad_hook`` returns: ``remove()`` removes every tensor's hook."""

    __slots__ = ("handles",)

    def __init__(self, handles: tuple[RemovableHandle, ...]) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __repr__(self) -> str:
        return f"<torch.autograd.graph._MultiHandle object at {id(self):#x}>"


def register_multi_grad_hook(tensors: Any, fn: Callable, *, mode: str = "all") -> MultiHandle:
    """``register_multi_grad_hook(tensors, fn, mode=)``: with ``"all"``, ``fn(grads)`` once per
    backward after the hooks of every tensor the backward reaches ran (None for the others);
    with ``"any"``, ``fn(grad)`` at the first of them."""
    if mode not in ("all", "any"):
        raise ScriptError(f"Expects mode to be one of ('all', 'any') but got {mode}",
                          kind="ValueError")
    tensors = list(tensors)
    if mode == "all":
        count: dict[int, int] = {}
        buffer: dict[int, list] = {}
        for t in tensors:
            if not t.requires_grad:  # PyTorch's _get_grad_fn_or_grad_acc
                raise ScriptError("Expected gradient function to be set", kind="AssertionError")
        nodes = [edge(t) for t in tensors]
        calls = [0]

        def inner(idx: int) -> Callable:
            def inner_hook(grad: Tensor) -> None:
                task = current().graph_task
                now = count.get(task.id, 0)
                count[task.id] = now + 1
                got = buffer.setdefault(task.id, [None] * len(tensors))
                if now == 0:  # the calls to wait for, counted at the first
                    calls[0] = sum(task.will_execute(n) for n in nodes)
                got[idx] = grad
                if now == calls[0] - 1:
                    fn(got)
                    del count[task.id], buffer[task.id]
            return inner_hook

        return MultiHandle(tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors)))
    ran: set[int] = set()

    def wrapped_fn(grad: Tensor) -> None:
        task = current().graph_task
        if task.id in ran:
            return
        ran.add(task.id)
        fn(grad)

    wrapped_fn.__name__ = getattr(fn, "__name__", "wrapped_fn")
    return MultiHandle(tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad))


MultiHandle.script_class = TypeObject("torch.autograd.graph._MultiHandle", (MultiHandle,))

GRAPH: dict[str, Any] = {
    "saved_tensors_hooks": saved_tensors_hooks, "save_on_cpu": save_on_cpu,
    "disable_saved_tensors_hooks": disable_saved_tensors_hooks,
    "register_multi_grad_hook": register_multi_grad_hook,
    "allow_mutation_on_saved_tensors": allow_mutation_on_saved_tensors,
}
