"""``torch.autograd.graph``: the saved-tensor hooks ``saved_tensors_hooks``, ``save_on_cpu``
and ``disable_saved_tensors_hooks`` (engine/saved_hooks.py packs and unpacks), and
``register_multi_grad_hook`` (tensor hooks that count the backward's calls, as PyTorch's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.context import current
from ..engine.graph import edge
from ..engine.hooks import RemovableHandle
from ..engine.saved_hooks import SavedHooks
from ..engine.tensor import Tensor
from ..errors import ScriptError


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
    """``save_on_cpu(pin_memory=False)``: saved tensors kept on the CPU (where they are)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(_keep, _give_back)


def _keep(t: Tensor) -> tuple:
    return (t.backend, t.backend.xp.asarray(t.data, copy=True))


def _give_back(packed: tuple) -> Tensor:
    backend, data = packed
    return Tensor(data, backend)


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


GRAPH: dict[str, Any] = {
    "saved_tensors_hooks": saved_tensors_hooks, "save_on_cpu": save_on_cpu,
    "disable_saved_tensors_hooks": disable_saved_tensors_hooks,
    "register_multi_grad_hook": register_multi_grad_hook,
}
