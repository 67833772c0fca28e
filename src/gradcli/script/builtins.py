"""The grad language's built-in names (SPEC §2.5).

Functions come from the PyTorch surface (``api``, generated from the op table); this module
adds the ones that need the running interpreter (``print``, ``load``, ``seed``) and Python's
few (``range`` only in ``for``; ``len``, ``float``, ``int``).
"""

from __future__ import annotations

import math
import os
from typing import Any

from .. import api
from ..api.creation import leaf
from ..engine import METHODS, NN_FUNCTIONS, Tensor
from ..engine.args import check_numel
from ..errors import ScriptError
from .data import read_array
from .values import display


def _needs_interpreter(fn: Any) -> Any:
    fn.needs_interpreter = True
    return fn


@_needs_interpreter
def print_(interp: Any, *args: Any, sep: str = " ", end: str = "\n") -> None:
    """Record (and stream) one printed line."""
    for name, v in (("sep", sep), ("end", end)):
        if v is not None and not isinstance(v, str):
            raise ScriptError(f"{name} must be None or a string, not {type(v).__name__}",
                              kind="TypeError")
    sep = " " if sep is None else sep
    end = "\n" if end is None else end
    text = sep.join(display(a) for a in args) + (end if end != "\n" else "")
    interp.result.prints.append(text)
    if interp.on_print is not None:
        interp.on_print(text)


@_needs_interpreter
def seed(interp: Any, n: int) -> None:
    """Restart the run's random generator."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise ScriptError("seed() takes an integer", kind="TypeError")
    interp.backend.reseed(n)  # torch.manual_seed's range and message


@_needs_interpreter
def load(interp: Any, path: str, key: str | None = None, requires_grad: bool = False) -> Tensor:
    """Read a .npy, .npz (by ``key``) or .csv file into a leaf, relative to the script's folder."""
    if not isinstance(path, str):
        raise ScriptError("load() takes a file name string", kind="TypeError")
    full = path if os.path.isabs(path) else os.path.join(interp.base_dir, path)
    data = read_array(full, path, key, check_numel)
    return leaf(interp.backend.asarray(data), requires_grad)


def len_(x: Any) -> int:
    """Length of a tensor's first dimension, or of a list or shape."""
    if isinstance(x, (Tensor, list, tuple, str)):
        return len(x)
    raise ScriptError(f"object of type '{type(x).__name__}' has no len()", kind="TypeError")


def float_(x: Any) -> float:
    """A tensor's single value, or a number, as a float."""
    if isinstance(x, Tensor):
        return float(x)
    if isinstance(x, (int, float)):
        return float(x)
    raise ScriptError(f"float() argument must be a number, not '{type(x).__name__}'",
                      kind="TypeError")


def int_(x: Any) -> int:
    """A tensor's single value, or a number, truncated to an int."""
    v = x.item() if isinstance(x, Tensor) else float_(x)
    if math.isnan(v) or math.isinf(v):
        raise ScriptError(f"cannot convert float {v} to integer", kind="ValueError")
    return int(v)


def range_(*args: Any) -> Any:
    raise ScriptError("range() is only allowed in 'for i in range(...)'", kind="TypeError")


def _method(name: str) -> Any:
    def call(x: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(x, Tensor):
            raise ScriptError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                              f"{type(x).__name__}", kind="TypeError")
        return getattr(x, name)(*args, **kwargs)

    call.__name__ = name
    return call


# Every function of the PyTorch surface (torch.* and torch.nn.functional) by its bare name,
# then the interpreter's own.
BUILTINS: dict[str, Any] = {
    **api.FUNCTIONS, **NN_FUNCTIONS,
    "detach": _method("detach"), "load": load,
    "print": print_, "seed": seed, "range": range_, "len": len_, "float": float_, "int": int_,
}

# what messages and print() call them: the script's names, not the Python functions' (print_)
for _name, _fn in (("print", print_), ("len", len_), ("float", float_), ("int", int_),
                   ("range", range_)):
    _fn.__name__ = _fn.__qualname__ = _name

TENSOR_ATTRIBUTES = frozenset({"grad", "grad_fn", "is_leaf", "requires_grad", "shape", "T",
                               "ndim", "dtype"})
TENSOR_METHODS = frozenset(
    set(METHODS) | {"backward", "retain_grad", "detach", "requires_grad_", "item", "numel",
                    "dim", "size", "tolist", "is_floating_point", "register_hook", "detach_",
                    *api.random.METHODS}
)
