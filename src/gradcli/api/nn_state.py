"""``Module.state_dict`` and ``Module.load_state_dict`` in memory, as PyTorch 2.13 has them.

A state dict is an ``OrderedDict`` of the parameters and persistent buffers by dotted name
(detached, sharing memory); loading copies each tensor in place under ``no_grad`` (or assigns
it, ``assign=True``) and reports missing and unexpected keys and size mismatches with
PyTorch's messages.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, NamedTuple

from ..engine.context import current, no_grad
from ..engine.tensor import Size, Tensor
from ..errors import ScriptError
from .nn_parameter import Parameter, is_parameter

POSITIONAL_MSG = ("Positional args are being deprecated, use kwargs instead. Refer to "
                  "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                  "#torch.nn.Module.state_dict for details.")


class IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` returns: the keys it missed and those it did not expect."""

    missing_keys: list
    unexpected_keys: list

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
                f"unexpected_keys={self.unexpected_keys!r})")

    script_attributes = frozenset({"missing_keys", "unexpected_keys"})
    script_type = "_IncompatibleKeys"


def state_dict(module: Any, args: tuple, destination: Any, prefix: str,
               keep_vars: bool) -> Any:
    """The module's state, its children's after its own, by dotted name."""
    if args:
        current().warn(POSITIONAL_MSG, "FutureWarning")
        destination = args[0] if destination is None else destination
        if len(args) > 1 and prefix == "":
            prefix = args[1]
        if len(args) > 2 and keep_vars is False:
            keep_vars = args[2]
    if destination is None:
        destination = OrderedDict()
    _save(module, destination, prefix, keep_vars)
    return destination


def _save(module: Any, destination: Any, prefix: str, keep_vars: bool) -> None:
    for name, p in module._parameters.items():
        if p is not None:
            lazy = p.__class__ is not Tensor  # a lazy module's: kept itself, as PyTorch's
            destination[prefix + name] = p if keep_vars or lazy else p.detach()
    for name, b in module._buffers.items():
        if b is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = b if keep_vars else b.detach()
    for name, child in module._modules.items():
        if child is not None:
            _save(child, destination, prefix + name + ".", keep_vars)


def load_state_dict(module: Any, state: Any, strict: bool, assign: bool) -> IncompatibleKeys:
    """Copy (or assign) ``state``'s tensors into the module tree; PyTorch's report."""
    if not isinstance(state, dict):
        raise ScriptError(f"Expected state_dict to be dict-like, got {_pytype(state)}.",
                          kind="TypeError")
    missing: list[str] = []
    unexpected: list[str] = []
    errors: list[str] = []
    _load(module, dict(state), "", missing, unexpected, errors, assign)
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing)))
    if errors:
        raise ScriptError("Error(s) in loading state_dict for {}:\n\t{}".format(
            type(module).__name__, "\n\t".join(errors)))
    return IncompatibleKeys(missing, unexpected)


def _load(module: Any, state: dict, prefix: str, missing: list, unexpected: list,
          errors: list, assign: bool) -> None:
    persistent = {k: v for k, v in module._buffers.items()
                  if k not in module._non_persistent_buffers_set}
    local = {k: v for k, v in [*module._parameters.items(), *persistent.items()]
             if v is not None}
    for name, param in local.items():
        key = prefix + name
        if key not in state:
            missing.append(key)
            continue
        value = state[key]
        if not isinstance(value, Tensor):
            errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                          f"Tensor-like object from checkpoint but received {_pytype(value)}")
            continue
        if param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
            value = value[0]
        if tuple(value.shape) != tuple(param.shape):
            errors.append(f"size mismatch for {key}: copying a param with shape "
                          f"{Size(value.shape)} from checkpoint, the shape in current model is "
                          f"{Size(param.shape)}.")
            continue
        with no_grad():
            if assign:
                _assign(module, name, param, value)
            else:
                param.copy_(value)
    for key in state:
        if key.startswith(prefix):
            head, dot, _ = key[len(prefix):].partition(".")
            if dot and head not in module._modules or not dot and head not in local:
                unexpected.append(key)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            _load(child, {k: v for k, v in state.items() if k.startswith(child_prefix)},
                  child_prefix, missing, unexpected, errors, assign)


def _assign(module: Any, name: str, param: Tensor, value: Tensor) -> None:
    """``assign=True``: the state's tensor itself (a Parameter for a parameter)."""
    if is_parameter(param) and not is_parameter(value):
        value = Parameter(value, requires_grad=param.requires_grad)
    elif is_parameter(param):
        value.requires_grad_(param.requires_grad)
    setattr(module, name, value)


def _pytype(v: Any) -> str:
    """``type(v)`` as PyTorch's messages show it."""
    name = "torch.Tensor" if isinstance(v, Tensor) else type(v).__name__
    return f"<class '{name}'>"


__all__ = ["IncompatibleKeys", "load_state_dict", "state_dict"]
