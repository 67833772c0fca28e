"""The grad language's built-in names (SPEC §2.5) and what ``print`` shows.

Functions come from ``functions.py`` (PyTorch's functions over the op table); this module adds
the ones that need the running interpreter (``print``, ``load``, ``seed``) and Python's few
(``range`` only in ``for``; ``len``, ``float``, ``int``).
"""

from __future__ import annotations

import math
import os
from typing import Any

from . import autograd, engine
from . import functions as F
from .engine import Node, Tensor
from .errors import ScriptError


class Size(tuple):
    """``x.shape``: a tuple that prints as ``torch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__


def display(value: Any) -> str:
    """``str(value)`` as the same PyTorch program would print it."""
    if isinstance(value, Tensor):
        return repr(value)
    if isinstance(value, Node):
        return f"<{value.name} object>"
    if isinstance(value, list):
        return "[" + ", ".join(display(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return str(value)


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
    if not -2 ** 63 <= n < 2 ** 64:  # torch.manual_seed's range
        raise ScriptError("Overflow when unpacking long")
    interp.backend.reseed(n)


@_needs_interpreter
def load(interp: Any, path: str, key: str | None = None, requires_grad: bool = False) -> Tensor:
    """Read a .npy, .npz (by ``key``) or .csv file into a leaf, relative to the script's folder."""
    if not isinstance(path, str):
        raise ScriptError("load() takes a file name string", kind="TypeError")
    full = path if os.path.isabs(path) else os.path.join(interp.base_dir, path)
    from .backend import read_array

    data = read_array(full, path, key, F._check_numel)
    return F._leaf(interp.backend.asarray(data), requires_grad)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool | None = None,
         materialize_grads: bool = False) -> list:
    """As ``torch.autograd.grad``: a list of gradients, nothing accumulated into ``.grad``."""
    for v in (outputs, inputs):
        items = v if isinstance(v, list) else [v]
        if not items or not all(isinstance(t, Tensor) for t in items):
            raise ScriptError("grad() takes a tensor or a list of tensors", kind="TypeError")
    return autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                       bool(allow_unused), materialize_grads)


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


BUILTINS: dict[str, Any] = {
    # leaves
    "param": F.param, "tensor": F.tensor, "zeros": F.zeros, "ones": F.ones, "full": F.full,
    "eye": F.eye, "arange": F.arange, "linspace": F.linspace, "rand": F.rand, "randn": F.randn,
    "zeros_like": F.zeros_like, "ones_like": F.ones_like, "load": load,
    # arithmetic
    "neg": F.neg, "add": F.add, "sub": F.sub, "mul": F.mul, "div": F.div, "pow": F.pow,
    "matmul": F.matmul, "mm": F.mm, "maximum": F.maximum, "minimum": F.minimum,
    "clamp": F.clamp,
    # elementwise
    "exp": F.exp, "log": F.log, "sqrt": F.sqrt, "abs": F.abs, "sin": F.sin, "cos": F.cos,
    "tanh": F.tanh, "sigmoid": F.sigmoid, "relu": F.relu,
    # reductions
    "sum": F.sum, "mean": F.mean, "max": F.max, "min": F.min,
    # shape
    "reshape": F.reshape, "view": F.view, "t": F.t, "transpose": F.transpose,
    "unsqueeze": F.unsqueeze, "squeeze": F.squeeze, "flatten": F.flatten,
    # neural
    "softmax": F.softmax, "log_softmax": F.log_softmax, "mse_loss": F.mse_loss,
    # autograd
    "grad": grad, "no_grad": engine.no_grad, "enable_grad": engine.enable_grad,
    "detach": _method("detach"), "clone": F.clone,
    # other
    "print": print_, "seed": seed, "range": range_, "len": len_, "float": float_, "int": int_,
}

TENSOR_ATTRIBUTES = frozenset({"grad", "grad_fn", "is_leaf", "requires_grad", "shape", "T",
                               "ndim"})
TENSOR_METHODS = frozenset(
    {fn.__name__ for fn in F.METHODS}
    | {"backward", "retain_grad", "detach", "requires_grad_", "item", "numel"}
)
