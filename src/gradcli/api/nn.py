"""``torch.nn``'s modules for programs without classes: ``Linear`` (PyTorch's seeded
initialisation, ``nn_init``), ``Sequential``, activations and losses over
``torch.nn.functional``.  Each class is a ``TypeObject`` (``CLASSES``) for ``type()``,
``isinstance`` and construction.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from ..engine import NN_FUNCTIONS
from ..engine.args import check_device
from ..engine.context import current
from ..engine.dtypes import to_dtype
from ..engine.lazy import UninitializedParameter
from ..engine.tensor import Tensor
from ..errors import ScriptError
from . import nn_conv, nn_init, nn_layers, nn_recurrent
from .creation import get_default_dtype, zeros
from .nn_containers import ModuleDict, ModuleList, ParameterDict, ParameterList
from .nn_module import _COMMON, Module
from .nn_parameter import Parameter, binding, typename
from .types import TypeObject


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


class LazyLinear(Linear):
    """``nn.LazyLinear(out_features, bias=True)``: a ``Linear`` whose ``in_features`` is the
    first input's last size.  Until then its parameters are ``UninitializedParameter``s; the
    first call's forward pre-hook (registered first, as PyTorch's ``LazyModuleMixin`` does)
    materialises them in place, draws them as ``Linear`` does, removes itself and makes the
    module a ``Linear``."""

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        Module.__init__(self)
        check_device(device)
        dt = get_default_dtype() if dtype is None else to_dtype(dtype)
        self.in_features = 0
        self.out_features = out_features
        self._parameters["weight"] = UninitializedParameter(zeros(0, dtype=dt).data)
        self._parameters["bias"] = UninitializedParameter(zeros(0, dtype=dt).data) if bias else None
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters,
                                                               with_kwargs=True)

    def reset_parameters(self) -> None:
        """Nothing until the parameters have their shapes (PyTorch's LazyLinear)."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter still waits for the first forward."""
        return any(p.__class__ is UninitializedParameter for p in self._parameters.values())

    def initialize_parameters(self, input: Any) -> None:
        """``in_features`` from ``input.shape[-1]``; the parameters materialised and drawn
        under no_grad."""
        if not self.has_uninitialized_params():
            return
        if not isinstance(input, Tensor):
            raise ScriptError(f"'{typename(input)}' object has no attribute 'shape'",
                              kind="AttributeError")
        if input.ndim == 0:
            raise ScriptError("tuple index out of range", kind="IndexError")
        self.in_features = input.shape[-1]
        self.weight.materialize((self.out_features, self.in_features))
        if self.bias is not None:
            self.bias.materialize((self.out_features,))
        self.reset_parameters()  # nn.init's draws run under no_grad


def _infer_parameters(module: LazyLinear, args: tuple, kwargs: dict) -> None:
    """PyTorch's ``LazyModuleMixin._infer_parameters``: the first call's pre-hook."""
    module.initialize_parameters(*args, **kwargs)
    module._initialize_hook.remove()
    del module._initialize_hook
    module.__class__ = Linear


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
        if len(args) == 1 and isinstance(args[0], OrderedDict):  # the children by name
            for key, m in args[0].items():
                self.add_module(key, m)
            return
        for i, m in enumerate(args):
            self.add_module(str(i), m)

    def forward(self, input: Any) -> Any:
        """Each child in order."""
        for module in self._modules.values():
            input = module(input)
        return input

    def _index(self, idx: Any) -> int:
        size = len(self._modules)
        if not isinstance(idx, int):  # operator.index: a bool is an int
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

    def forward(self, input: Any) -> Tensor:
        """``F.softmax`` over ``dim``."""
        return _Softmax.forward(self, input)


class LogSoftmax(_Softmax):
    """``nn.LogSoftmax(dim=None)``."""

    _function = "log_softmax"

    def forward(self, input: Any) -> Tensor:
        """``F.log_softmax`` over ``dim``."""
        return _Softmax.forward(self, input)


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
        if not isinstance(input, Tensor):
            raise ScriptError(f"'{type(input).__name__}' object has no attribute 'flatten'",
                              kind="AttributeError")
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


def _forward3(a: str, b: str, c: str) -> Any:
    """A loss's ``forward`` over three tensors with PyTorch's parameter names."""
    def forward(self: _Loss, *args: Any, **kwargs: Any) -> Tensor:
        bound = dict(zip((a, b, c), args), **kwargs)
        missing = [k for k in (a, b, c) if k not in bound]
        if missing or len(args) > 3 or set(bound) - {a, b, c}:
            raise ScriptError(f"{type(self).__name__}.forward() takes exactly the arguments "
                              f"{a}, {b}, {c}", kind="TypeError")
        keywords = {k: getattr(self, k) for k in self._keywords}
        return NN_FUNCTIONS[self._function](bound[a], bound[b], bound[c],
                                            reduction=self.reduction, **keywords)

    return forward


def _loss(name: str, function: str, signature: tuple[str, ...] = _LEGACY,
          init: str | None = None, three: tuple[str, str, str] | None = None,
          **settings: Any) -> type:
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
        if name == "TripletMarginLoss" and given.get("margin", 1.0) <= 0:
            raise ScriptError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                              f"{given['margin']} instead", kind="ValueError")
        _Loss.__init__(self, *(given.pop(k, None) for k in _LEGACY[:2]),
                       given.pop("reduction", "mean"))
        for k, default in settings.items():
            value = given.get(k, default)
            if k in ("weight", "pos_weight") and value is not None and \
                    not isinstance(value, Tensor):  # PyTorch registers them as buffers
                raise ScriptError(f"cannot assign '{typename(value)}' object to buffer '{k}' "
                                  "(torch Tensor or None required)", kind="TypeError")
            object.__setattr__(self, k, value)

    if three is None:
        def forward(self: _Loss, input: Any, target: Any) -> Tensor:
            return _Loss.forward(self, input, target)
    else:  # the ranking losses: three tensors, named as PyTorch names them
        forward = _forward3(*three)

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
HuberLoss = _loss("HuberLoss", "huber_loss", ("reduction", "delta"), delta=1.0)
KLDivLoss = _loss("KLDivLoss", "kl_div", (*_LEGACY, "log_target"), log_target=False)
SoftMarginLoss = _loss("SoftMarginLoss", "soft_margin_loss", init="_Loss")
MarginRankingLoss = _loss("MarginRankingLoss", "margin_ranking_loss", ("margin", *_LEGACY),
                          three=("input1", "input2", "target"), margin=0.0)
CosineEmbeddingLoss = _loss("CosineEmbeddingLoss", "cosine_embedding_loss", ("margin", *_LEGACY),
                            three=("input1", "input2", "target"), margin=0.0)
TripletMarginLoss = _loss("TripletMarginLoss", "triplet_margin_loss",
                          ("margin", "p", "eps", "swap", *_LEGACY),
                          three=("anchor", "positive", "negative"), margin=1.0, p=2.0, eps=1e-6,
                          swap=False)


# -- the classes as a script sees them ------------------------------------------------------------------
_PLACES = {
    "Module": "module", "Linear": "linear", "LazyLinear": "linear", "Identity": "linear", "Sequential": "container",
    "ModuleList": "container", "ModuleDict": "container", "ParameterList": "container",
    "ParameterDict": "container",
    "Flatten": "flatten",
    **{n: "activation" for n in ("ReLU", "LeakyReLU", "ELU", "GELU", "Softplus", "Softmax",
                                 "LogSoftmax", "Tanh", "Sigmoid", "SiLU", "LogSigmoid")},
    **{n: "loss" for n in ("MSELoss", "L1Loss", "SmoothL1Loss", "NLLLoss", "CrossEntropyLoss",
                           "BCELoss", "BCEWithLogitsLoss", "HuberLoss", "KLDivLoss",
                           "SoftMarginLoss", "MarginRankingLoss", "TripletMarginLoss",
                           "CosineEmbeddingLoss")},
}
_PLACES.update(nn_layers.PLACES)
_PLACES.update(nn_conv.PLACES)
_PLACES.update(nn_recurrent.PLACES)
CLASSES: dict[str, TypeObject] = {}


def _classes() -> None:
    base = None
    for name, place in _PLACES.items():
        cls = globals().get(name) or getattr(nn_layers, name, None) or \
            getattr(nn_conv, name, None) or getattr(nn_recurrent, name)
        cls.script_type = name  # Python's messages name the class ('Linear' object ...)
        cls.script_class = CLASSES[name] = TypeObject(
            f"torch.nn.modules.{place}.{name}", (cls,),
            lambda *args, _cls=cls, **kwargs: binding(_cls, *args, **kwargs), parent=base)
        base = base or cls.script_class


_classes()


__all__ = ["CLASSES", "LazyLinear", "Linear", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList",
           "Sequential"]
