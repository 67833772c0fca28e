"""The PyTorch surface: every function a script can call, by its PyTorch name.

``FUNCTIONS`` is ``torch.<name>`` (a grad script's bare built-ins), ``NN_FUNCTIONS`` is
``torch.nn.functional``, ``LINALG`` is ``torch.linalg``; the op table's surfaced entries are in both through
``engine.functions``, the constructors come from ``creation``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import FUNCTIONS as ENGINE_FUNCTIONS
from ..engine import LINALG, NN_FUNCTIONS, enable_grad, no_grad
from ..engine.dtypes import ALIASES, DType
from ..engine.dtypes import DTYPES as ALL_DTYPES
from ..engine.tensor import Tensor
from . import creation, random
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
# torch.float32, torch.float, torch.long, ...: attributes of the torch namespace only (in a grad
# script ``float``, ``int`` and ``bool`` stay Python's).
DTYPES: dict[str, DType] = {**ALL_DTYPES, **ALIASES}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    **CREATION, **ENGINE_FUNCTIONS, "grad": grad, "no_grad": no_grad, "enable_grad": enable_grad,
}

__all__ = ["CREATION", "DEFAULT_DTYPE", "DTYPES", "FUNCTIONS", "LINALG", "NN_FUNCTIONS", "RANDOM",
           "creation", "grad"]


def __getattr__(name: str) -> Callable[..., Any]:
    """``api.exp`` and the like: every function of the surface as a module attribute."""
    fn = FUNCTIONS.get(name) or NN_FUNCTIONS.get(name)
    if fn is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return fn


def _install_methods() -> None:
    """The surface's Tensor methods that are not the engine's own (the in-place draws)."""
    for name, fn in random.METHODS.items():
        setattr(Tensor, name, fn)


_install_methods()
