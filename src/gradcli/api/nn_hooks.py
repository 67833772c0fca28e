"""A module called with hooks, as PyTorch's ``Module._call_impl`` calls it: forward pre-hooks,
``forward``, forward hooks (full backward hooks come with custom Functions).
"""

from __future__ import annotations

from typing import Any

from ..engine.context import current
from ..engine.tensor import Tensor
from ..errors import ScriptError
from .nn_parameter import binding


def call_with_hooks(module: Any, args: tuple, kwargs: dict) -> Any:
    """``module(*args, **kwargs)`` with its hooks."""
    full = list(module._backward_hooks.values())
    pre = list(module._backward_pre_hooks.values())
    for hook_id, hook in list(module._forward_pre_hooks.items()):
        if hook_id in module._forward_pre_hooks_with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise ScriptError("forward pre-hook must return None or a tuple of "
                                      f"(new_args, new_kwargs), but got {result}.")
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    hooks = BackwardHook(module, full, pre) if full or pre else None
    if hooks is not None:
        args = hooks.setup_input_hook(args)
    result = binding(module.forward, *args, **kwargs)
    for hook_id, hook in list(module._forward_hooks.items()):
        if hook_id in module._forward_hooks_with_kwargs:
            hook_result = hook(module, args, kwargs, result)
        else:
            hook_result = hook(module, args, result)
        if hook_result is not None:
            result = hook_result
    if hooks is not None:
        if not isinstance(result, (Tensor, tuple)):
            current().warn("For backward hooks to be called, module output should be a Tensor "
                           f"or a tuple of Tensors but received {_pytype(result)}")
        result = hooks.setup_output_hook(result)
    return result


def _pytype(v: Any) -> str:
    cls = getattr(type(v), "script_class", None)
    return repr(cls) if cls is not None else f"<class '{type(v).__name__}'>"


class BackwardHook:
    """PyTorch's ``torch.utils.hooks.BackwardHook``: not in gradcli yet."""

    def __init__(self, module: Any, user_hooks: list, user_pre_hooks: list) -> None:
        raise ScriptError("gradcli does not support full backward hooks yet",
                          kind="NotImplementedError")

    def setup_input_hook(self, args: tuple) -> tuple:
        """Unreachable."""
        return args

    def setup_output_hook(self, result: Any) -> Any:
        """Unreachable."""
        return result


__all__ = ["BackwardHook", "call_with_hooks"]
