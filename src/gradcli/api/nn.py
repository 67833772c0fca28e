"""``torch.nn``: ``Parameter`` and the modules a program builds without writing a class.

A module is a Python object of gradcli's with PyTorch's behaviour as a script sees it: its
parameters and child modules by name, ``model(x)`` calling its ``forward`` (the functions of
``torch.nn.functional``), ``parameters()``/``named_parameters()`` as generators, ``zero_grad``,
``train``/``eval``, ``requires_grad_``, and ``print(model)`` as PyTorch's ``Module.__repr__``.
``Linear`` draws its weight and bias as PyTorch's ``reset_parameters`` does (``nn_init``), so a
seeded program gets PyTorch's numbers.  Each class is a ``TypeObject`` (``CLASSES``) for
``type()``, ``isinstance`` and construction; what a script may read or assign on a module is the
class's ``script_attributes`` / ``script_settable``.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterator
from typing import Any

from ..engine import NN_FUNCTIONS
from ..engine.args import check_device
from ..engine.attributes import is_floating
from ..engine.context import current
from ..engine.dtypes import DTYPES, DType, to_dtype
from ..engine.tensor import Tensor
from ..errors import ScriptError
from . import nn_init
from .creation import get_default_dtype, zeros
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
    if isinstance(v, Module):
        return type(v).script_class.qualname
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


_COMMON = frozenset({
    "forward", "parameters", "named_parameters", "children", "named_children", "modules",
    "named_modules", "zero_grad", "train", "eval", "training", "requires_grad_", "extra_repr",
    "get_parameter", "get_submodule", "cpu", "to", "float", "double", "apply",
})


class Module:
    """``torch.nn.Module``: parameters and children by name, in the order they were set."""

    script_attributes = _COMMON
    script_settable = frozenset({"training"})
    script_owners: tuple[str, ...] = ("torch.nn.Module",)  # whose recorded names it may lack
    script_class: TypeObject  # set below, for each class

    def __init__(self) -> None:
        self._parameters: dict[str, Tensor | None] = {}
        self._modules: dict[str, Module] = {}
        self.training = True

    # -- attributes: parameters by name ---------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        params = self.__dict__.get("_parameters")
        if params is not None and name in params:
            return params[name]
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if params is not None and name in params:
            if value is not None and not is_parameter(value):
                raise ScriptError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                  "(torch.nn.Parameter or None expected)", kind="TypeError")
            params[name] = value
            return
        object.__setattr__(self, name, value)

    def add_module(self, name: str, module: Any) -> None:
        """Add a child module under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise ScriptError(f"{typename(module)} is not a Module subclass", kind="TypeError")
        if not isinstance(name, str):
            raise ScriptError(f"module name should be a string. Got {typename(name)}",
                              kind="TypeError")
        if "." in name:
            raise ScriptError(f"module name can't contain \".\", got: {name}", kind="KeyError")
        if name == "":
            raise ScriptError('module name can\'t be empty string ""', kind="KeyError")
        self._modules[name] = module

    def script_unsupported(self, name: str) -> ScriptError:
        """The error for ``module.name``: a real ``nn.Module`` attribute gradcli lacks
        (``state_dict``), else Python's AttributeError with a did-you-mean."""
        from .torch_names import NAMES  # only on this error path: it is a long list

        for owner in type(self).script_owners:
            if name in NAMES.get(owner, ()):
                return ScriptError(f"gradcli does not support {owner.rpartition('.')[2]}.{name} "
                                   "yet", kind="NotImplementedError")
        close = difflib.get_close_matches(name, sorted({*type(self).script_attributes,
                                                        *self._parameters}), n=1)
        return ScriptError(f"'{type(self).__name__}' object has no attribute '{name}'",
                           kind="AttributeError",
                           hint=f"did you mean '{close[0]}'?" if close else None)

    # -- calling --------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return binding(self.forward, *args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """What calling the module computes."""
        raise ScriptError(f'Module [{type(self).__name__}] is missing the required "forward" '
                          "function", kind="NotImplementedError")

    # -- walking the tree -----------------------------------------------------------------------
    def named_modules(self, memo: Any = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """(name, module) for this module and every module below it, each once."""
        seen = set() if memo is None else memo
        if id(self) in seen:
            return
        if remove_duplicate:
            seen.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from child.named_modules(seen, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """This module and every module below it."""
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, child) for the direct children."""
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator[Module]:
        """The direct children."""
        for _, child in self.named_children():
            yield child

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, parameter), each parameter once, in the order they were set."""
        members = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else iter([(prefix, self)])
        seen: set[int] = set()
        for module_prefix, module in members:
            for name, p in module._parameters.items():
                if p is None or id(p) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(p))
                yield module_prefix + ("." if module_prefix else "") + name, p

    def parameters(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every parameter, as ``named_parameters`` lists them."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def get_submodule(self, target: str) -> Module:
        """The module at a dotted path of child names (``"0"``, ``"0.1"``)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if item not in mod._modules:
                raise ScriptError(f"{mod._get_name()} has no attribute `{item}`",
                                  kind="AttributeError")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target: str) -> Tensor:
        """The parameter at a dotted path (``"0.weight"``)."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if name not in mod._parameters:
            raise ScriptError(f"{mod._get_name()} has no attribute `{name}`",
                              kind="AttributeError")
        param = mod._parameters[name]
        if param is None:
            raise ScriptError(f"`{name}` is not an nn.Parameter", kind="AttributeError")
        return param

    # -- state ----------------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Training mode on (or off) for this module and every module below it."""
        if not isinstance(mode, bool):
            raise ScriptError("training mode is expected to be boolean", kind="ValueError")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to None, or to zeros in place."""
        for p in self.parameters():
            g = p._grad
            if g is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn: Any) -> Module:
        """``fn(m)`` for every module below this one, then for this one."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def _convert(self, dtype: Any) -> Module:
        """Every floating-point parameter (and its grad) converted to ``dtype`` in place."""
        for module in self.modules():
            for p in module._parameters.values():
                if p is not None and is_floating(p) and p.dtype is not dtype:
                    _swap_data(p, dtype)
        return self

    def float(self) -> Module:
        """Floating-point parameters to float32."""
        return self._convert(DTYPES["float32"])

    def double(self) -> Module:
        """Floating-point parameters to float64."""
        return self._convert(DTYPES["float64"])

    def cpu(self) -> Module:
        """The module itself: gradcli runs on the CPU."""
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)``: the CPU, a floating dtype."""
        dtype = kwargs.pop("dtype", None)
        dev = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise ScriptError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'",
                              kind="TypeError")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, DType):
                dtype = a
            else:
                dev = a
        check_device(dev)
        if dtype is None:
            return self
        if not dtype.is_floating_point:
            raise ScriptError("nn.Module.to only accepts floating point or complex dtypes, but "
                              f"got desired dtype={dtype}", kind="TypeError")
        return self._convert(dtype)

    # -- printing -------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings, for its repr."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): {_addindent(repr(m), 2)}" for key, m in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def script_repr(self, printer: Any) -> str:
        """``print(model)``: PyTorch's ``Module.__repr__``."""
        return repr(self)


def _addindent(s: str, spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * spaces + ln if ln.strip() else "" for ln in lines)


def _swap_data(p: Tensor, dtype: Any) -> None:
    """``p.data = p.data.to(dtype)`` (and its grad), keeping ``p`` the same object."""
    p.data = p.detach().to(dtype).data
    if p._grad is not None:
        p._grad = p._grad.detach().to(dtype)


# -- the modules with parameters --------------------------------------------------------------------
def _sizes(*sizes: Any) -> tuple[int, ...]:
    """``torch.empty(sizes)``'s checks, with its messages."""
    for pos, v in enumerate(sizes, 1):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ScriptError(f"empty(): argument 'size' failed to unpack the object at pos "
                              f"{pos} with error \"type must be tuple of ints,but got "
                              f"{typename(v)}\"", kind="TypeError")
    for v in sizes:
        if v < 0:
            raise ScriptError(f"Trying to create tensor with negative dimension {v}: "
                              f"{list(sizes)}")
    return sizes


class Linear(Module):
    """``nn.Linear(in_features, out_features, bias=True)``: ``x @ weight.T + bias``."""

    script_attributes = _COMMON | {"weight", "bias", "in_features", "out_features",
                                   "reset_parameters"}
    script_settable = frozenset({"training", "weight", "bias", "in_features", "out_features"})

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        check_device(device)
        dt = get_default_dtype() if dtype is None else to_dtype(dtype)
        out_n, in_n = _sizes(out_features, in_features)
        self.in_features = in_features
        self.out_features = out_features
        self._parameters["weight"] = Parameter(zeros(out_n, in_n, dtype=dt))
        self._parameters["bias"] = Parameter(zeros(out_n, dtype=dt)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's initialisation: kaiming_uniform_(a=sqrt(5)), then the bias uniform in
        +-1/sqrt(fan_in)."""
        nn_init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = nn_init.fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            nn_init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Any) -> Tensor:
        """``F.linear(input, weight, bias)``."""
        return NN_FUNCTIONS["linear"](input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Identity(Module):
    """``nn.Identity(*args, **kwargs)``: its input, unchanged."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        """The input itself."""
        return input


class Sequential(Module):
    """``nn.Sequential(m0, m1, ...)``: each module's output is the next one's input."""

    script_attributes = _COMMON | {"append"}
    script_owners = ("torch.nn.Sequential",)
    script_sequence = True  # len(model), model[i], model[i] = m, for m in model

    def __init__(self, *args: Any) -> None:
        super().__init__()
        for i, m in enumerate(args):
            self.add_module(str(i), m)

    def forward(self, input: Any) -> Any:
        """Each child in order."""
        for module in self._modules.values():
            input = module(input)
        return input

    def _index(self, idx: Any) -> int:
        size = len(self._modules)
        if isinstance(idx, bool) or not isinstance(idx, int):
            raise ScriptError(f"'{typename(idx)}' object cannot be interpreted as an integer",
                              kind="TypeError")
        if not -size <= idx < size:
            raise ScriptError(f"index {idx} is out of range", kind="IndexError")
        return idx % size

    def __getitem__(self, idx: Any) -> Module:
        if isinstance(idx, slice):
            out = Sequential()
            for key, m in list(self._modules.items())[idx]:
                out._modules[key] = m
            return out
        return list(self._modules.values())[self._index(idx)]

    def __setitem__(self, idx: Any, module: Any) -> None:
        key = list(self._modules)[self._index(idx)]
        if module is not None and not isinstance(module, Module):
            raise ScriptError(f"cannot assign '{typename(module)}' as child module '{key}' "
                              "(torch.nn.Module or None expected)", kind="TypeError")
        self._modules[key] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(list(self._modules.values()))

    def append(self, module: Any) -> Sequential:
        """Add ``module`` at the end."""
        self.add_module(str(len(self._modules)), module)
        return self



# -- activations --------------------------------------------------------------------------------------
def _inplace(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class ReLU(Module):
    """``nn.ReLU(inplace=False)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Any) -> Tensor:
        """``F.relu``."""
        return NN_FUNCTIONS["relu"](input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``nn.LeakyReLU(negative_slope=0.01, inplace=False)``."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Any) -> Tensor:
        """``F.leaky_relu``."""
        return NN_FUNCTIONS["leaky_relu"](input, self.negative_slope, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace(self.inplace)}"


class ELU(Module):
    """``nn.ELU(alpha=1.0, inplace=False)``."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Any) -> Tensor:
        """``F.elu``."""
        return NN_FUNCTIONS["elu"](input, self.alpha, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace(self.inplace)}"


class GELU(Module):
    """``nn.GELU(approximate='none')``."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Any) -> Tensor:
        """``F.gelu``."""
        if self.approximate == "none":
            return NN_FUNCTIONS["gelu"](input)
        return NN_FUNCTIONS["gelu"](input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """``nn.Softplus(beta=1.0, threshold=20.0)``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Any) -> Tensor:
        """``F.softplus``."""
        return NN_FUNCTIONS["softplus"](input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Any) -> Tensor:
        """The function over ``dim``."""
        return NN_FUNCTIONS[self._function](input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"

    _function = "softmax"


class Softmax(_Softmax):
    """``nn.Softmax(dim=None)``."""


class LogSoftmax(_Softmax):
    """``nn.LogSoftmax(dim=None)``."""

    _function = "log_softmax"


def _elementwise(name: str, function: str, doc: str) -> type:
    """A module without settings that applies one function (``nn.Tanh``: ``torch.tanh``)."""
    def forward(self: Module, input: Any) -> Tensor:
        return NN_FUNCTIONS[function](input)

    forward.__doc__ = doc
    forward.__qualname__ = f"{name}.forward"  # Python's binding messages name it
    return type(name, (Module,), {"forward": forward, "__doc__": f"``nn.{name}()``."})


Tanh = _elementwise("Tanh", "tanh", "``torch.tanh``.")
Sigmoid = _elementwise("Sigmoid", "sigmoid", "``torch.sigmoid``.")
LogSigmoid = _elementwise("LogSigmoid", "logsigmoid", "``F.logsigmoid``.")


class SiLU(Module):
    """``nn.SiLU(inplace=False)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Any) -> Tensor:
        """``F.silu``."""
        return NN_FUNCTIONS["silu"](input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Flatten(Module):
    """``nn.Flatten(start_dim=1, end_dim=-1)``."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Any) -> Tensor:
        """``input.flatten(start_dim, end_dim)``."""
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


# -- losses -----------------------------------------------------------------------------------------
class _Loss(Module):
    """A loss: ``reduction`` (or the legacy ``size_average``/``reduce``) and the function."""

    _function = ""
    _keywords: tuple[str, ...] = ()

    def __init__(self, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            average = True if size_average is None else bool(size_average)
            reduces = True if reduce is None else bool(reduce)
            reduction = "mean" if average and reduces else "sum" if reduces else "none"
            current().warn("size_average and reduce args will be deprecated, please use "
                           f"reduction='{reduction}' instead.", category="UserWarning")
        self.reduction = reduction

    def forward(self, input: Any, target: Any) -> Tensor:
        """The loss function with the module's settings."""
        kwargs = {k: getattr(self, k) for k in self._keywords}
        return NN_FUNCTIONS[self._function](input, target, reduction=self.reduction, **kwargs)


_LEGACY = ("size_average", "reduce", "reduction")


def _loss(name: str, function: str, signature: tuple[str, ...] = _LEGACY,
          init: str | None = None, **settings: Any) -> type:
    """A loss module over ``F.<function>``: ``signature`` is PyTorch's ``__init__`` parameters
    in order, ``settings`` the defaults of those beyond the legacy three (passed on to the
    function), ``init`` the class whose ``__init__`` it inherits in PyTorch (for messages)."""
    owner = f"{init or name}.__init__()"

    def __init__(self: _Loss, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(signature):
            raise ScriptError(f"{owner} takes from 1 to {len(signature) + 1} positional "
                              f"arguments but {len(args) + 1} were given", kind="TypeError")
        given = dict(zip(signature, args))
        for k, v in kwargs.items():
            if k in given:
                raise ScriptError(f"{owner} got multiple values for argument '{k}'",
                                  kind="TypeError")
            if k not in signature:
                raise ScriptError(f"{owner} got an unexpected keyword argument '{k}'",
                                  kind="TypeError")
            given[k] = v
        _Loss.__init__(self, *(given.pop(k, None) for k in _LEGACY[:2]),
                       given.pop("reduction", "mean"))
        for k, default in settings.items():
            object.__setattr__(self, k, given.get(k, default))

    def forward(self: _Loss, input: Any, target: Any) -> Tensor:
        return _Loss.forward(self, input, target)

    forward.__qualname__ = f"{name}.forward"  # Python's binding messages name it
    return type(name, (_Loss,), {
        "__init__": __init__, "forward": forward, "_function": function, "_keywords": tuple(settings),
        "__doc__": f"``nn.{name}``: ``F.{function}`` with the module's ``reduction``.",
        "script_attributes": _COMMON | {"reduction", *settings},
        "script_settable": frozenset({"training", "reduction", *settings})})


MSELoss = _loss("MSELoss", "mse_loss", init="_Loss")
L1Loss = _loss("L1Loss", "l1_loss", init="_Loss")
SmoothL1Loss = _loss("SmoothL1Loss", "smooth_l1_loss", (*_LEGACY, "beta"), beta=1.0)
NLLLoss = _loss("NLLLoss", "nll_loss",
                ("weight", "size_average", "ignore_index", "reduce", "reduction"),
                weight=None, ignore_index=-100)
CrossEntropyLoss = _loss("CrossEntropyLoss", "cross_entropy",
                         ("weight", "size_average", "ignore_index", "reduce", "reduction",
                          "label_smoothing"), weight=None, ignore_index=-100,
                         label_smoothing=0.0)
BCELoss = _loss("BCELoss", "binary_cross_entropy", ("weight", *_LEGACY), init="_WeightedLoss",
                weight=None)
BCEWithLogitsLoss = _loss("BCEWithLogitsLoss", "binary_cross_entropy_with_logits",
                          ("weight", *_LEGACY, "pos_weight"), weight=None, pos_weight=None)


# -- the classes as a script sees them ------------------------------------------------------------------
_PLACES = {
    "Module": "module", "Linear": "linear", "Identity": "linear", "Sequential": "container",
    "Flatten": "flatten",
    **{n: "activation" for n in ("ReLU", "LeakyReLU", "ELU", "GELU", "Softplus", "Softmax",
                                 "LogSoftmax", "Tanh", "Sigmoid", "SiLU", "LogSigmoid")},
    **{n: "loss" for n in ("MSELoss", "L1Loss", "SmoothL1Loss", "NLLLoss", "CrossEntropyLoss",
                           "BCELoss", "BCEWithLogitsLoss")},
}
CLASSES: dict[str, TypeObject] = {}


def _classes() -> None:
    base = None
    for name, place in _PLACES.items():
        cls = globals()[name]
        cls.script_type = name  # Python's messages name the class ('Linear' object ...)
        cls.script_class = CLASSES[name] = TypeObject(
            f"torch.nn.modules.{place}.{name}", (cls,),
            lambda *args, _cls=cls, **kwargs: binding(_cls, *args, **kwargs), parent=base)
        base = base or cls.script_class


_classes()

