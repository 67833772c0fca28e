"""dtype conversions as Tensor methods: ``x.to(...)``, ``x.double()`` ..., ``x.type(...)``,
``x.type_as(y)``, ``cpu``/``cuda``; a conversion is a recorded copy (ToCopyBackward0), or the
tensor itself when it has the dtype already."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import ops as O
from .args import check_device, tensor_arg
from .backend import to_host
from .dtypes import DType, to_dtype
from .record import apply
from .tensor import DATA_ERROR, Tensor, in_vmap


def _convert(x: Tensor, dt: DType, copy: bool = False) -> Tensor:
    """``x`` in dtype ``dt``: a recorded copy (ToCopyBackward0), or ``x`` itself if it is one."""
    if x.dtype is dt and not copy:
        return x
    return apply(O.TO_COPY, (x,), {"dtype": dt})


def to(self: Tensor, *args: Any, dtype: Any = None, device: Any = None,
       non_blocking: bool = False, copy: bool = False) -> Tensor:
    """``x.to(torch.float64)``, ``x.to("cpu")``, ``x.to(other)``, as PyTorch's ``Tensor.to``."""
    for a in args:
        if isinstance(a, DType):
            dtype = a
        elif a.__class__ is Tensor:
            dtype = a.dtype
        else:
            device = a
    check_device(device)
    return _convert(self, to_dtype(dtype) if dtype is not None else self.dtype, bool(copy))


def _converter(dt: DType, name: str) -> Callable[[Tensor], Tensor]:
    def fn(self: Tensor) -> Tensor:
        return _convert(self, dt)

    fn.__name__ = name
    fn.__doc__ = f"``x.{name}()``: ``x.to({dt})``."
    return fn


def type_as(self: Tensor, other: Any) -> Tensor:
    """``self.type(other.dtype)``: ``self`` itself when the dtypes agree (ToCopyBackward0)."""
    return _convert(self, tensor_arg(other, "type_as", "other", 2).dtype)


def type_(self: Tensor, dtype: Any = None) -> Any:
    """``x.type()`` names the legacy type (``torch.FloatTensor``); ``x.type(dt)`` converts."""
    if dtype is None:
        return f"torch.{self.dtype.legacy}"
    return _convert(self, to_dtype(dtype))


def cpu(self: Tensor) -> Tensor:
    """The tensor itself: gradcli's tensors live on the CPU (or the run's backend)."""
    return self


NUMPY_GRAD_MSG = ("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                  "instead.")


def numpy(self: Tensor, *, force: bool = False) -> Any:
    """``x.numpy()``: a new array on the tensor's memory (so updates show both ways, and one
    through the array bumps no version, as PyTorch's); off the CPU backend, a host copy."""
    if in_vmap(self):
        raise ScriptError(DATA_ERROR)
    if self.requires_grad and not force:
        raise ScriptError(NUMPY_GRAD_MSG)
    if self.backend.name != "numpy":
        return to_host(self.data)
    self.data = self.backend.writable(self.data)  # a 0-d value becomes an array both share
    return self.data.view()


def cuda(self: Tensor, device: Any = None) -> Tensor:
    """PyTorch's error on a CPU build."""
    check_device("cuda")
    return self


CONVERSIONS = {fn.__name__: fn for fn in (
    _converter(D.FLOAT64, "double"), _converter(D.FLOAT32, "float"),
    _converter(D.FLOAT16, "half"), _converter(D.INT64, "long"), _converter(D.INT32, "int"),
    _converter(D.INT16, "short"), _converter(D.INT8, "char"), _converter(D.UINT8, "byte"),
    _converter(D.BOOL, "bool"), to, cpu, cuda, numpy)}
CONVERSIONS["type"] = type_
CONVERSIONS["type_as"] = type_as
