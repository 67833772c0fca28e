"""The built-in names of each mode: a grad script's (docs/language.md) and a PyTorch program's (§7).

A grad script has the PyTorch surface under bare names (``api``, generated from the op table)
plus Python's built-ins; ``sum``, ``max``, ``min`` and ``abs`` of a tensor are PyTorch's
there (``sum(x, dim=0)``) and Python's otherwise (``sum(x**2 for x in xs)``). A PyTorch
program has Python's built-ins only, and the modules it imports.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .. import api
from ..api.creation import leaf
from ..api.namespace import register_module
from ..engine import NN_FUNCTIONS, Tensor, enable_grad, no_grad
from ..engine.args import check_numel
from ..errors import ScriptError
from .data import read_array
from .pybuiltins import PY_BUILTINS
from .pydataclasses import MEMBERS as DATACLASSES
from .pyprotocols import needs_interpreter
from .stdlib import MODULES as STANDARD_MODULES


@needs_interpreter
def seed(interp: Any, n: int) -> None:
    """Restart the run's random generator."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise ScriptError("seed() takes an integer", kind="TypeError")
    interp.backend.reseed(n)  # torch.manual_seed's range and message


@needs_interpreter
def load(interp: Any, path: str, key: str | None = None, requires_grad: bool = False) -> Tensor:
    """Read a .npy, .npz (by ``key``) or .csv file into a leaf, relative to the script's folder."""
    if not isinstance(path, str):
        raise ScriptError("load() takes a file name string", kind="TypeError")
    full = path if os.path.isabs(path) else os.path.join(interp.base_dir, path)
    data = read_array(full, path, key, check_numel)
    return leaf(interp.backend.asarray(data), requires_grad)


def _method(name: str) -> Callable[..., Any]:
    def call(x: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(x, Tensor):
            raise ScriptError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                              f"{type(x).__name__}", kind="TypeError")
        return getattr(x, name)(*args, **kwargs)

    call.__name__ = name
    return call


def _tensor_or_python(torch_fn: Callable[..., Any], python_fn: Any) -> Callable[..., Any]:
    """``sum(x, dim=0)`` on a tensor is torch.sum; ``sum(generator)`` is Python's."""
    name = python_fn.__name__

    @needs_interpreter
    def call(interp: Any, *args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], Tensor):
            return torch_fn(*args, **kwargs)
        if getattr(python_fn, "needs_interpreter", False):
            return python_fn(interp, *args, **kwargs)
        return python_fn(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


# A grad script: every function of the PyTorch surface (torch.* and torch.nn.functional) by its
# bare name, Python's built-ins, and gradcli's own.
GRAD_BUILTINS: dict[str, Any] = {
    **PY_BUILTINS, **api.FUNCTIONS, **NN_FUNCTIONS,
    "detach": _method("detach"), "load": load, "seed": seed,
}
# (any and all too: tools/torch_oracle.py translates a grad script with Python's)
for _name in ("int", "float", "bool", "print", "range", "len", "list", "tuple", "dict", "set",
              "str", "type", "isinstance", "any", "all"):
    GRAD_BUILTINS[_name] = PY_BUILTINS[_name]  # Python's, never a torch function's
for _name, _fn in PY_BUILTINS.items():  # sum, max, min, abs, round: PyTorch's for a tensor
    if _name in api.FUNCTIONS and GRAD_BUILTINS[_name] is api.FUNCTIONS[_name]:
        GRAD_BUILTINS[_name] = _tensor_or_python(api.FUNCTIONS[_name], _fn)

# A PyTorch program: Python's built-ins; torch and the rest come from its imports.
TORCH_BUILTINS: dict[str, Any] = dict(PY_BUILTINS)
# The standard modules (script.stdlib, and dataclasses: the script's own classes; torch's and
# math are api.namespace's)
for _module, _members in STANDARD_MODULES.items():
    register_module(_module, _members)
register_module("dataclasses", DATACLASSES)

# What ``@torch.no_grad`` (without parentheses) may name: each makes a fresh grad mode.
GRAD_MODE_FACTORIES: tuple[Any, ...] = (
    no_grad, enable_grad, *(f for k, f in api.GRAD_MODE.items()
                            if k in ("no_grad", "enable_grad", "inference_mode")))


BUILTINS = GRAD_BUILTINS  # the name other modules and tools know

__all__ = ["BUILTINS", "GRAD_BUILTINS", "GRAD_MODE_FACTORIES", "TORCH_BUILTINS"]
