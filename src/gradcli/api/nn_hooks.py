"""A module called with hooks, as PyTorch's ``Module._call_impl`` calls it: forward pre-hooks,
``forward``, forward hooks, and full backward hooks (``register_full_backward_hook``).

A full backward hook is PyTorch's ``BackwardHook``: the module's tensor inputs and outputs go
through ``BackwardHookFunction``, an identity custom Function (its node is
``BackwardHookFunctionBackward``), whose nodes' hooks see the gradients of the outputs, then
those of the inputs, and call the module's hooks with both.
"""

from __future__ import annotations

from typing import Any

from ..engine.context import current
from ..engine.custom import run_function
from ..engine.tensor import Tensor
from ..errors import ScriptError
from .nn_parameter import binding

NO_INPUT_GRAD_MSG = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")


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


def _identity_forward(ctx: Any, *args: Any) -> tuple:
    ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
    return args


def _identity_backward(ctx: Any, *grads: Any) -> tuple:
    return grads


def _through_identity(tensors: list) -> tuple:
    """``BackwardHookFunction.apply(*tensors)``."""
    out = run_function("BackwardHookFunction", _identity_forward, _identity_backward, None,
                       tuple(tensors), {}, tensors[0].backend)
    return out if isinstance(out, tuple) else (out,)


class BackwardHook:
    """PyTorch's ``torch.utils.hooks.BackwardHook`` for one call of a module."""

    def __init__(self, module: Any, user_hooks: list, user_pre_hooks: list) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_outputs = -1
        self.output_index: list | None = None
        self.n_inputs = -1
        self.input_index: list | None = None

    def _apply_on_tensors(self, fn: Any, args: tuple) -> tuple[tuple, list | None]:
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and current().grad_enabled):
            return args, None
        new = _through_identity(tensors)
        node = next(t.grad_fn for t in new if t.grad_fn is not None)
        fn(getattr(node, "main", node))
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args: tuple) -> tuple:
        """The module's inputs through the identity; its node calls the module's hooks."""
        def hook(grad_input: tuple, _: Any) -> Any:
            if self.grad_outputs is None:
                return None
            res = _pack(self.input_index, grad_input, self.n_inputs)
            for user in self.user_hooks:
                out = user(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise ScriptError("Backward hook returned an invalid number of grad_input, "
                                      f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_index)

        res, index = self._apply_on_tensors(lambda node: node.register_hook(hook), args)
        self.n_inputs = len(args)
        self.input_index = index
        return res

    def setup_output_hook(self, result: Any) -> Any:
        """The module's outputs through the identity; its node records their gradients."""
        def hook(_: Any, grad_output: tuple) -> Any:
            self.grad_outputs = _pack(self.output_index, grad_output, self.n_outputs)
            for user in self.user_pre_hooks:
                new = user(self.module, self.grad_outputs)
                if new is None:
                    continue
                if len(new) != len(self.grad_outputs):
                    raise ScriptError("Backward pre hook returned an invalid number of "
                                      f"grad_output, got {len(new)}, but expected "
                                      f"{len(self.grad_outputs)}")
                self.grad_outputs = new
            local = self.grad_outputs
            if self.input_index is None:  # no input requires grad: the hooks run here
                current().warn(NO_INPUT_GRAD_MSG)
                grad_inputs = _pack([], [], self.n_inputs)
                for user in self.user_hooks:
                    res = user(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (isinstance(res, tuple) and
                                                all(r is None for r in res)):
                        raise ScriptError("Backward hook for Modules where no input requires "
                                          "gradient should always return None or None for all "
                                          "gradients.")
                self.grad_outputs = None
            if local is not None:
                return tuple(local[i] for i in self.output_index)
            return None

        single = not isinstance(result, tuple)
        args = (result,) if single else result
        res, index = self._apply_on_tensors(lambda node: node.register_hook(hook), args)
        self.n_outputs = len(args)
        self.output_index = index
        return res[0] if single else res


def _pack(index: list, values: Any, size: int) -> tuple:
    out: list = [None] * size
    for i, v in zip(index, values):
        out[i] = v
    return tuple(out)


__all__ = ["BackwardHook", "call_with_hooks"]
