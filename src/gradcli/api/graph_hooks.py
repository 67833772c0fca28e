"""``torch.autograd.graph``'s saved-tensor hooks: ``saved_tensors_hooks``, ``save_on_cpu``
and ``disable_saved_tensors_hooks`` (engine/saved_hooks.py packs and unpacks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.context import current
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


GRAPH: dict[str, Any] = {
    "saved_tensors_hooks": saved_tensors_hooks, "save_on_cpu": save_on_cpu,
    "disable_saved_tensors_hooks": disable_saved_tensors_hooks,
}
