"""The modules a PyTorch program imports (``torch``, ``torch.nn.functional as F``, ``math``, ...)
and the attributes a script may read and assign on a tensor.

Each module is one table below, built from the api layer's dicts: adding a name is one line
in one place (here, or in the api dict it comes from). An unknown attribute is Python's
AttributeError with a did-you-mean; a real PyTorch name that gradcli lacks (the recorded list
in ``torch_names.py``) says so instead.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

from ..engine import METHODS, Tensor
from ..engine.custom import OutputSlot
from ..engine.hooks import RemovableHandle
from ..engine.lazy import UNINITIALIZED_ALLOWED, UninitializedParameter, uninitialized_use
from ..engine.reductions import MinMax, ReturnType
from ..engine.tensor import Size
from ..errors import ScriptError
from . import (
    AUTOGRAD,
    AUTOGRAD_FUNCTIONAL,
    DEFAULT_DTYPE,
    DTYPES,
    FUNCTIONS,
    GRAD_MODE,
    LINALG,
    NN,
    NN_FUNCTIONS,
    NN_INIT,
    OPTIM,
    PRINT_OPTIONS,
    RANDOM,
    TENSOR_ATTRIBUTES,
    THREADS,
)
from .autograd import FUNCTION_MODULE
from .creation import as_tensor, from_numpy, legacy_tensor
from .data import DATA
from .forward_ad import FORWARD_AD, UnpackedDualTensor
from .func import FUNC
from .graph_hooks import GRAPH, MultiHandle
from .lr_scheduler import SCHEDULERS, LRScheduler
from .nn_utils import NN_UTILS
from .optim import Optimizer
from .random import METHODS as RANDOM_METHODS
from .random import Generator
from .threads import BACKENDS_CPU, BACKENDS_MKL
from .types import TypeObject


def _typed(name: str, dtype: str) -> TypeObject:
    """``torch.LongTensor`` and its kind: a tensor of one dtype, made as ``torch.Tensor``."""
    dt = DTYPES[dtype]

    def make(*args: Any) -> Tensor:
        return legacy_tensor(*args, dtype=dt)

    make.takes_numpy = True  # type: ignore[attr-defined]  # its data keeps NumPy's values
    return TypeObject(f"torch.{name}", (), make,
                      test=lambda v: isinstance(v, Tensor) and v.dtype is dt)


TENSOR = TypeObject("torch.Tensor", (Tensor,), legacy_tensor)
LEGACY_TENSORS = {name: _typed(name, dtype) for name, dtype in (
    ("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("LongTensor", "int64"),
    ("IntTensor", "int32"), ("BoolTensor", "bool"))}
SIZE = TypeObject("torch.Size", (Size,), lambda dims=(): Size(tuple(dims)))
# nn.Parameter is an engine Tensor marked as one; Variable is Tensor under an old name
PARAMETER = TypeObject("torch.nn.parameter.Parameter", (), NN["Parameter"],
                       test=lambda v: isinstance(v, Tensor) and bool(getattr(v, "_is_param",
                                                                             False)))
UNINITIALIZED_PARAMETER = TypeObject("torch.nn.parameter.UninitializedParameter",
                                     (UninitializedParameter,), None, parent=PARAMETER)
VARIABLE = TypeObject("torch.autograd.variable.Variable", (Tensor,), AUTOGRAD["Variable"])
_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                 "lazy, vulkan, mps, meta, hpu, mtia, privateuseone")


# ---- modules ------------------------------------------------------------------------------------
class Module:
    """A module as a script sees it: its members by name, nothing else. ``load`` makes the
    members on first use (NumPy's machinery, for the programs that import it); ``unknown``
    makes the error for a name it lacks (``missing`` by default)."""

    __slots__ = ("_load", "_members", "name", "unknown")
    script_type = "module"

    def __init__(self, name: str, members: Mapping[str, Any] | None = None,
                 load: Callable[[], Mapping[str, Any]] | None = None,
                 unknown: Callable[[str, str], ScriptError] | None = None) -> None:
        self.name = name
        self._members = members
        self._load = load
        self.unknown = unknown

    @property
    def members(self) -> Mapping[str, Any]:
        """The members by name (made now if they are loaded on first use)."""
        if self._members is None:
            self._members = self._load()  # type: ignore[misc]
        return self._members

    def get(self, attr: str) -> Any:
        """``module.attr``, or PyTorch's AttributeError (or "not supported yet")."""
        members = self._members if self._members is not None else self.members
        try:
            value = members[attr]
        except KeyError:
            raise self.missing(attr) from None
        return MODULES[value] if isinstance(value, _Sub) else value

    def missing(self, attr: str) -> ScriptError:
        """The error for ``module.attr`` that the module lacks."""
        if self.unknown is not None:
            return self.unknown(self.name, attr)
        return missing(self.name, attr, self.members)

    def script_repr(self, printer: Any) -> str:
        """``<module 'torch'>``."""
        return f"<module '{self.name}'>"


class _Sub(str):
    """A member that is another module, by its full name (the tables refer to each other)."""


def missing(owner: str, attr: str, known: Any) -> ScriptError:
    """The error for ``owner.attr`` that gradcli does not have."""
    from .torch_names import NAMES  # only on this error path: it is a long list

    if attr in NAMES.get(owner, ()):
        label = owner if owner != "torch.Tensor" else "Tensor"
        return ScriptError(f"gradcli does not support {label}.{attr} yet",
                           kind="NotImplementedError")
    import difflib  # error paths only

    close = difflib.get_close_matches(attr, [k for k in known if not k.startswith("_")], n=1)
    message = f"'Tensor' object has no attribute '{attr}'" if owner == "torch.Tensor" else \
        f"module '{owner}' has no attribute '{attr}'"
    return ScriptError(message, kind="AttributeError",
                       hint=f"did you mean '{close[0]}'?" if close else None)


# ---- devices ------------------------------------------------------------------------------------
class Device:
    """``torch.device('cpu')``; a CUDA device exists as a name, and fails when used."""

    __slots__ = ("index", "type")
    script_type = "torch.device"
    script_attributes = frozenset({"type", "index"})

    def __init__(self, type_: str, index: int | None = None) -> None:
        self.type = type_
        self.index = index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def script_repr(self, printer: Any) -> str:
        """``device(type='cpu')``."""
        extra = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{extra})"

    def script_str(self, printer: Any) -> str:
        """``cpu``, ``cuda:0``."""
        return self.type if self.index is None else f"{self.type}:{self.index}"


CPU = Device("cpu")


def device(spec: Any, index: Any = None) -> Device:
    """``torch.device('cpu')``, ``torch.device('cuda:0')``."""
    if isinstance(spec, Device):
        return spec
    if not isinstance(spec, str):
        raise ScriptError(f"device() received an invalid combination of arguments - got "
                          f"({type(spec).__name__})", kind="TypeError")
    kind, _, number = spec.partition(":")
    if kind not in _DEVICE_TYPES.split(", ") or (number and not number.isdigit()):
        raise ScriptError(f"Expected one of {_DEVICE_TYPES} device type at start of device "
                          f"string: {spec}")
    return Device(kind, int(number) if number else index)


# ---- tensors: what a script may read, call and assign ---------------------------------------------
TENSOR_READ = frozenset({
    "grad", "grad_fn", "is_leaf", "requires_grad", "shape", "T", "mT", "ndim", "dtype", "data",
    "retains_grad", "device", "is_cuda", "output_nr", "_version", "H", "real",
})
TENSOR_CALL = frozenset({
    *METHODS, "backward", "retain_grad", "detach", "detach_", "requires_grad_", "item", "numel",
    "dim", "size", "tolist", "double", "float", "half", "long", "int", "bool", "type", "to",
    "cpu", "cuda", "register_hook", "register_post_accumulate_grad_hook", "is_floating_point",
    "element_size", "nelement",
    "fill_", "normal_", "uniform_", "zero_", "copy_", "contiguous", "is_contiguous", "numpy",
    "stride", "storage_offset", "expand", "expand_as", "repeat", "permute", "view_as",
    "reshape_as", "type_as", "new", "new_tensor", "new_zeros", "new_ones", "new_full", "masked_fill",
    "masked_fill_", "index_select", "gather", "scatter", "argmax", "argmin", "norm", "dot", "mv",
    "bmm", "std", "var", "prod", "cumsum", "square", "exp_", "clamp_", "relu_", "sigmoid_",
    "tanh_", "neg_", "abs_", "sqrt_", "log_", "chunk", "split", "unbind", "flip", "roll",
    "all", "any", "eq", "ne", "lt", "le", "gt", "ge", "equal", "allclose", "isnan", "isinf",
    "softmax", "log_softmax", "sort", "topk", "round", "floor", "ceil", "trunc", "frac",
    "clip", "clamp_min", "clamp_max", "rsqrt", "log2", "log10", "nonzero",
    "short", "byte", "char", *RANDOM_METHODS,
})
# What a script may read on the api's other objects (methods included), by class.
OBJECT_ATTRIBUTES: tuple[tuple[type, frozenset[str]], ...] = (
    (Optimizer, frozenset({"step", "zero_grad", "param_groups", "state", "defaults",
                           "add_param_group"})),
    (LRScheduler, frozenset({"step", "get_last_lr", "last_epoch", "base_lrs", "optimizer"})),
    (Generator, frozenset({"manual_seed", "initial_seed", "seed"})),
    (RemovableHandle, frozenset({"remove", "id"})),
    (MultiHandle, frozenset({"remove", "handles"})),
    (ReturnType, frozenset({"values", "indices"})),
    (MinMax, frozenset({"min", "max"})),
    (UnpackedDualTensor, frozenset({"primal", "tangent"})),
)


def object_attribute(obj: Any, name: str) -> Any:
    """``obj.name`` for an object of the api's (optimizer, generator, hook handle, ...), or
    ``missing`` (a sentinel) if a script may not read it."""
    for cls, names in OBJECT_ATTRIBUTES:
        if isinstance(obj, cls):
            if name in names and hasattr(obj, name):
                return getattr(obj, name)
            break
    return _MISSING


_MISSING = object()
_TENSOR_PLAIN: dict[str, Callable[[Tensor], Any]] = {
    "device": lambda t: CPU, "is_cuda": lambda t: False, "output_nr": lambda t: 0,
    "_version": lambda t: t.version,
}


# the methods a script may call that need no more than Python's attribute read
_METHODS_ONLY = TENSOR_CALL - TENSOR_READ - TENSOR_ATTRIBUTES.keys() - _TENSOR_PLAIN.keys()


def tensor_attribute(t: Tensor, name: str) -> Any:
    """``t.name`` for a script: the listed attributes and methods, PyTorch's error otherwise."""
    if name in _METHODS_ONLY and t.__class__ is Tensor:  # the common case, at once
        method = getattr(t, name, None)
        if method is not None:
            return method
    if name in TENSOR_ATTRIBUTES:  # (get, set) pairs with PyTorch's checks
        return TENSOR_ATTRIBUTES[name][0](t)
    if name in _TENSOR_PLAIN:
        return _TENSOR_PLAIN[name](t)
    if (name in TENSOR_READ or name in TENSOR_CALL) and name != "data" and hasattr(Tensor, name):
        if t.__class__ is UninitializedParameter and name in TENSOR_CALL \
                and name not in UNINITIALIZED_ALLOWED:
            raise uninitialized_use(name)
        value = getattr(t, name)
        if name == "grad_fn" and value.__class__ is OutputSlot:  # output i of a Function
            return value.main
        return Size(value) if name == "shape" and type(value) is not Size else value
    raise missing("torch.Tensor", name, TENSOR_READ | TENSOR_CALL)


def tensor_surface() -> tuple[list[str], list[str]]:
    """The tensor attributes and methods a script can use now (for the README's list)."""
    def available(n: str) -> bool:
        return n in TENSOR_ATTRIBUTES or n in _TENSOR_PLAIN or (n != "data" and hasattr(Tensor, n))

    return (sorted(n for n in TENSOR_READ if available(n) and not n.startswith("_")),
            sorted(n for n in TENSOR_CALL if available(n)))


def set_tensor_attribute(t: Tensor, name: str, value: Any) -> None:
    """``t.name = value``: ``requires_grad``, ``grad`` and ``data``, with PyTorch's checks."""
    if name in TENSOR_ATTRIBUTES:
        TENSOR_ATTRIBUTES[name][1](t, value)
        return
    if name in TENSOR_READ or name in TENSOR_CALL:
        raise ScriptError(f"gradcli does not support assigning Tensor.{name} yet",
                          kind="NotImplementedError")
    raise ScriptError(f"gradcli does not support new attributes on tensors ('{name}')",
                      kind="NotImplementedError", hint="keep the value in a variable of its own")


# ---- the modules' tables --------------------------------------------------------------------------
# gradcli's own built-ins that PyTorch has not under these names (or has elsewhere: grad is
# torch.autograd.grad)
# grad-script built-ins that torch does not have (``reshape(x, 2, 3)``'s twin ``view``)
_GRADCLI_ONLY = frozenset({"param", "grad", "load", "seed", "view"})


def _torch_reshape(input: Any, shape: Any) -> Tensor:
    """``torch.reshape(input, shape)``: the shape one sequence, as PyTorch's signature has it
    (``x.reshape(2, 3)`` and the grad-script built-in take the sizes one by one)."""
    if not isinstance(shape, (tuple, list, Size)):
        raise ScriptError("reshape(): argument 'shape' (position 2) must be tuple of ints, not "
                          f"{type(shape).__name__}", kind="TypeError")
    return FUNCTIONS["reshape"](input, shape)

def _is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def _torch() -> dict[str, Any]:
    members: dict[str, Any] = {n: f for n, f in FUNCTIONS.items() if n not in _GRADCLI_ONLY}
    members.update({**DTYPES, **GRAD_MODE, **RANDOM, **DEFAULT_DTYPE, **PRINT_OPTIONS, **THREADS})
    members.update({
        "Tensor": TENSOR, "Size": SIZE, "device": device, "is_tensor": _is_tensor,
        **LEGACY_TENSORS,
        "reshape": _torch_reshape, "from_numpy": from_numpy, "as_tensor": as_tensor,
        "vmap": FUNC["vmap"], "pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan,
        "nn": _Sub("torch.nn"), "autograd": _Sub("torch.autograd"),
        "optim": _Sub("torch.optim"), "cuda": _Sub("torch.cuda"), "linalg": _Sub("torch.linalg"),
        "backends": _Sub("torch.backends"), "func": _Sub("torch.func"),
        "utils": _Sub("torch.utils"),
    })
    return members


_MATH_FUNCTIONS = (
    "sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos",
    "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "floor", "ceil", "trunc",
    "fabs", "pow", "hypot", "degrees", "radians", "isnan", "isinf", "isfinite", "isclose",
    "copysign", "fmod", "erf", "erfc", "gamma", "lgamma", "fsum", "dist", "remainder",
)


def _math_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A ``math`` function with Python's errors as script errors (math domain error, ...)."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (ValueError, OverflowError) as exc:
            raise ScriptError(str(exc), kind=type(exc).__name__) from None
    return call


MODULES: dict[str, Module] = {}


def _build() -> None:
    tables = {
        # the PyTorch whose behaviour gradcli reproduces (tutorials print it first)
        "torch": {**_torch(), "__version__": "2.13.0+cpu"},
        "torch.nn": {"functional": _Sub("torch.nn.functional"), "init": _Sub("torch.nn.init"),
                     "utils": _Sub("torch.nn.utils"),
                     **NN, "Parameter": PARAMETER},
        "torch.nn.functional": dict(NN_FUNCTIONS),
        "torch.nn.init": dict(NN_INIT),
        "torch.nn.utils": dict(NN_UTILS),
        "torch.autograd": {"functional": _Sub("torch.autograd.functional"), **AUTOGRAD,
                           "forward_ad": _Sub("torch.autograd.forward_ad"),
                           "graph": _Sub("torch.autograd.graph"),
                           "Variable": VARIABLE, "function": _Sub("torch.autograd.function")},
        "torch.autograd.function": dict(FUNCTION_MODULE),
        "torch.autograd.functional": dict(AUTOGRAD_FUNCTIONAL),
        "torch.autograd.forward_ad": dict(FORWARD_AD),
        "torch.func": dict(FUNC),
        "torch.autograd.graph": dict(GRAPH),
        "torch.optim": {**OPTIM, "lr_scheduler": _Sub("torch.optim.lr_scheduler")},
        "torch.optim.lr_scheduler": dict(SCHEDULERS),
        "torch.linalg": dict(LINALG),
        "torch.utils": {"data": _Sub("torch.utils.data")},
        "torch.utils.data": dict(DATA),
        "torch.cuda": {"is_available": lambda: False, "device_count": lambda: 0},
        "torch.backends": {"cpu": _Sub("torch.backends.cpu"), "mkl": _Sub("torch.backends.mkl")},
        "torch.backends.cpu": dict(BACKENDS_CPU),
        "torch.backends.mkl": dict(BACKENDS_MKL),
        "math": {**{n: _math_function(getattr(math, n)) for n in _MATH_FUNCTIONS},
                 "pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf,
                 "nan": math.nan},
    }
    for name, members in tables.items():
        MODULES[name] = Module(name, members)
    for name in ("numpy", "numpy.linalg", "numpy.random", "numpy.fft"):
        MODULES[name] = Module(name, load=functools.partial(_numpy_members, name),
                               unknown=_numpy_unknown)


def _numpy_members(name: str) -> dict[str, Any]:
    """``numpy``, ``numpy.linalg``, ``numpy.fft`` and ``numpy.random``: api/numpy_module.py's,
    loaded when a script first uses them."""
    from .numpy_module import members

    found = members(name)
    if name == "numpy":
        found.update(random=_Sub("numpy.random"), linalg=_Sub("numpy.linalg"),
                     fft=_Sub("numpy.fft"))
    return found


def _numpy_unknown(owner: str, attr: str) -> ScriptError:
    from .numpy_module import unknown

    return unknown(owner, attr)


_build()


def register_module(name: str, members: Mapping[str, Any]) -> None:
    """A module whose members a higher layer makes (``dataclasses``: the script's classes; the
    standard modules, read when first used)."""
    MODULES[name] = Module(name, members)


def import_module(dotted: str) -> Module | None:
    """The module ``import dotted`` names, or None if gradcli does not have it."""
    return MODULES.get(dotted)


__all__ = [
    "CPU",
    "MODULES",
    "PARAMETER",
    "SIZE",
    "TENSOR",
    "UNINITIALIZED_PARAMETER",
    "Device",
    "Module",
    "device",
    "import_module",
    "missing",
    "object_attribute",
    "register_module",
    "set_tensor_attribute",
    "tensor_attribute",
    "tensor_surface",
]
