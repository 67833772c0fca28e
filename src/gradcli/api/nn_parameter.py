"""``nn.Parameter`` and what every ``torch.nn`` module file shares: ``torch.typename`` as
PyTorch's messages name a value, and calling with Python's argument errors as the script's.
"""

from __future__ import annotations

from typing import Any

from ..engine.attributes import is_floating
from ..engine.context import current
from ..engine.tensor import Tensor
from ..errors import ScriptError
from .types import TypeObject


def Parameter(data: Any = None, requires_grad: bool = True) -> Tensor:
    """``nn.Parameter(t)``: a leaf over ``t``'s memory that requires grad and prints as
    ``Parameter containing:``; ops on it give ordinary tensors.

    NOTE: it is an engine Tensor marked as a parameter, not a subclass, so
    ``isinstance(p, nn.Parameter)`` cannot be asked of it.
    """
    if data is None:
        be = current().backend
        data = Tensor(be.xp.zeros((0,), dtype=be.dtype), be)
    if not isinstance(data, Tensor):
        raise ScriptError("_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                          f"{type(data).__name__}", kind="TypeError")
    if not isinstance(requires_grad, bool):
        raise ScriptError("_make_subclass(): argument 'require_grad' (position 3) must be bool, "
                          f"not {type(requires_grad).__name__}", kind="TypeError")
    if requires_grad and not is_floating(data):
        raise ScriptError("Only Tensors of floating point and complex dtype can require "
                          "gradients")
    out = data.detach()
    out.requires_grad = requires_grad
    out._is_param = True
    return out


def is_parameter(v: Any) -> bool:
    """Whether ``v`` is an ``nn.Parameter``."""
    return isinstance(v, Tensor) and bool(getattr(v, "_is_param", False))


def typename(v: Any) -> str:
    """``torch.typename(v)``, as PyTorch's messages name a value."""
    if isinstance(v, Tensor):
        kind = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool",
                "int32": "Int", "float16": "Half"}.get(v.dtype.name, "")
        return f"torch.{kind}Tensor" if kind else "torch.Tensor"
    cls = getattr(type(v), "script_class", None)  # a module, a script's object
    if isinstance(cls, TypeObject):
        return cls.qualname
    return {bool: "bool", int: "int", float: "float", str: "str", list: "list", tuple: "tuple",
            dict: "dict", type(None): "NoneType"}.get(type(v), type(v).__name__)


def binding(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, Python's error for arguments that do not bind to ``fn`` as the
    script's TypeError (``Linear.forward() takes 2 positional arguments but 3 were given``)."""
    try:
        return fn(*args, **kwargs)
    except TypeError as exc:
        if exc.__traceback__ is None or exc.__traceback__.tb_next is not None:
            raise  # raised inside fn: not the call's arguments
        raise ScriptError(str(exc), kind="TypeError") from None



__all__ = ["Parameter", "binding", "is_parameter", "typename"]
