"""The PyTorch surface: every function a script can call, by its PyTorch name.

``FUNCTIONS`` is ``torch.<name>`` (a grad script's bare built-ins), ``NN_FUNCTIONS`` is
``torch.nn.functional``, ``LINALG`` is ``torch.linalg``; the op table's surfaced entries are in
both through ``engine.functions``, the constructors come from ``creation``.  ``AUTOGRAD``,
``AUTOGRAD_FUNCTIONAL``, ``NN`` and ``OPTIM`` are ``torch.autograd``,
``torch.autograd.functional``, ``torch.nn`` and ``torch.optim`` (``NN_INIT`` is
``torch.nn.init``); ``GRAD_MODE`` the grad-mode
names of ``torch`` and ``TENSOR_ATTRIBUTES`` the tensor attributes a program assigns, as
``name: (get, set)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import ATTRIBUTES as TENSOR_ATTRIBUTES
from ..engine import FUNCTIONS as ENGINE_FUNCTIONS
from ..engine import LINALG, NN_FUNCTIONS
from ..engine.context import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from ..engine.dtypes import ALIASES, DType
from ..engine.dtypes import DTYPES as ALL_DTYPES
from ..engine.tensor import Tensor
from . import (
    anomaly,
    autograd,
    creation,
    functional,
    gradchecks,
    nn,
    nn_init,
    optim,
    options,
    random,
    threads,
)
from .autograd import grad

CREATION: dict[str, Callable[..., Any]] = {
    fn.__name__: fn for fn in (
        creation.tensor, creation.param, creation.zeros, creation.ones, creation.full,
        creation.eye, creation.arange, creation.linspace, random.rand, random.randn,
        creation.zeros_like, creation.ones_like, creation.empty, creation.empty_like,
        creation.full_like)
}
# torch.manual_seed, randint, randperm, normal, Generator, ...: the torch namespace's (a grad
# script has rand, randn and seed())
RANDOM: dict[str, Any] = {n: f for n, f in random.FUNCTIONS.items() if n not in CREATION}
# set_default_dtype/get_default_dtype: the torch namespace's (a grad script's default dtype is
# --dtype's)
DEFAULT_DTYPE: dict[str, Callable[..., Any]] = {
    "set_default_dtype": creation.set_default_dtype, "get_default_dtype": creation.get_default_dtype}
# torch.set_printoptions: the torch namespace's (the run's own options, RunContext.print_options)
PRINT_OPTIONS: dict[str, Callable[..., Any]] = {"set_printoptions": options.set_printoptions}
# torch.set_num_threads/get_num_threads: the run's machine (RunContext.machine)
THREADS: dict[str, Callable[..., Any]] = dict(threads.THREADS)
# torch.float32, torch.float, torch.long, ...: attributes of the torch namespace only (in a grad
# script ``float``, ``int`` and ``bool`` stay Python's).
DTYPES: dict[str, DType] = {**ALL_DTYPES, **ALIASES}
GRAD_MODE: dict[str, Callable[..., Any]] = {
    "no_grad": no_grad, "enable_grad": enable_grad, "set_grad_enabled": set_grad_enabled,
    "is_grad_enabled": is_grad_enabled, "inference_mode": inference_mode,
    # NOTE: inference mode is no_grad here (no inference tensors), so it is on when grad is off
    "is_inference_mode_enabled": lambda: not is_grad_enabled(),
    **anomaly.TORCH,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    **CREATION, **ENGINE_FUNCTIONS, "grad": autograd.grad_list, "no_grad": no_grad,
    "enable_grad": enable_grad,
}
AUTOGRAD: dict[str, Any] = {
    "grad": autograd.grad, "backward": autograd.backward, "Variable": autograd.Variable,
    "Function": autograd.FUNCTION, "gradcheck": gradchecks.gradcheck,
    "gradgradcheck": gradchecks.gradgradcheck, **anomaly.AUTOGRAD,
    **{k: GRAD_MODE[k] for k in ("no_grad", "enable_grad", "set_grad_enabled",
                                 "inference_mode")},
}
AUTOGRAD_FUNCTIONAL: dict[str, Callable[..., Any]] = {
    fn.__name__: fn for fn in (functional.jacobian, functional.hessian, functional.vjp,
                               functional.jvp, functional.vhp, functional.hvp)
}
# torch.nn: Parameter and the module classes (TypeObjects); torch.nn.init's functions
NN: dict[str, Any] = {"Parameter": nn.Parameter, **nn.CLASSES}
NN_INIT: dict[str, Any] = dict(nn_init.FUNCTIONS)
OPTIM: dict[str, Any] = {"SGD": optim.SGD, "Adam": optim.Adam, "AdamW": optim.AdamW,
                          "RMSprop": optim.RMSprop, "Adagrad": optim.Adagrad,
                          "Optimizer": optim.Optimizer}

__all__ = ["AUTOGRAD", "AUTOGRAD_FUNCTIONAL", "CREATION", "DEFAULT_DTYPE", "DTYPES", "FUNCTIONS",
           "GRAD_MODE", "LINALG", "NN", "NN_FUNCTIONS", "NN_INIT", "OPTIM", "PRINT_OPTIONS",
           "RANDOM", "TENSOR_ATTRIBUTES", "THREADS",
           "creation", "grad"]


def __getattr__(name: str) -> Callable[..., Any]:
    """``api.exp`` and the like: every function of the surface as a module attribute."""
    fn = FUNCTIONS.get(name) or NN_FUNCTIONS.get(name) or GRAD_MODE.get(name)
    if fn is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return fn


def _install_methods() -> None:
    """The surface's Tensor methods that are not the engine's own (the in-place draws, the
    legacy constructor ``t.new``)."""
    for name, fn in random.METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.new = creation.tensor_new  # type: ignore[attr-defined]


_install_methods()
