"""A lazy module's parameter before its first forward (PyTorch's ``UninitializedParameter``).

It is a Tensor subclass so that nothing mistakes it for a tensor: the engine's ops test
``a.__class__ is Tensor``, and ``record.apply`` refuses it with PyTorch's error; its
``materialize`` makes it a plain Tensor in place.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from .context import current
from .tensor import Tensor

_UNINITIALIZED_SHAPE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
    "in `load_state_dict` when trying to load an uninitialized parameter into an initialized "
    "one. Call `forward` to initialize the parameters before accessing their attributes.")
# the methods PyTorch's UninitializedTensorMixin lets through (attribute reads pass too)
UNINITIALIZED_ALLOWED = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half",
                                   "float", "double", "char", "short", "int", "long", "cuda",
                                   "cpu", "to", "get_device"})


def uninitialized_use(name: str) -> ScriptError:
    """PyTorch's error for a method of an uninitialized parameter (``w.sum()``)."""
    return ScriptError(
        f"Attempted to use an uninitialized parameter in <method '{name}' of "
        "'torch._C.TensorBase' objects>. This error happens when you are using a `LazyModule` "
        "or explicitly manipulating `torch.nn.parameter.UninitializedParameter` objects. When "
        "using LazyModules Call `forward` with a dummy batch to initialize the parameters before "
        "calling torch functions", kind="ValueError")


class UninitializedParameter(Tensor):
    """A lazy module's parameter before its first forward (PyTorch's
    ``UninitializedParameter``): an empty leaf that requires grad, prints as
    ``<UninitializedParameter>``, refuses ``.shape`` and its methods; ``materialize`` gives it
    its memory in place and makes it an ``nn.Parameter``, so an optimizer built before then
    holds the materialised tensor."""

    __slots__ = ()

    def __init__(self, empty: Any) -> None:
        super().__init__(empty, current().backend, requires_grad=True)
        self._is_param = True

    @property
    def shape(self) -> Any:
        raise ScriptError(_UNINITIALIZED_SHAPE)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__

    def materialize(self, shape: tuple[int, ...]) -> None:
        """Memory of ``shape`` (its values uninitialised: the caller's reset draws them)."""
        self.data = self.backend.xp.zeros(shape, dtype=self.data.dtype)
        self.__class__ = Tensor


def _refused(name: str) -> Any:
    def method(self: Any, *args: Any) -> Any:
        raise uninitialized_use(name)
    return method


for _dunder, _name in (("add", "add"), ("radd", "add"), ("sub", "sub"), ("rsub", "sub"),
                       ("mul", "mul"), ("rmul", "mul"), ("truediv", "div"),
                       ("rtruediv", "div"), ("matmul", "matmul"), ("rmatmul", "matmul"),
                       ("pow", "pow"), ("rpow", "pow"), ("neg", "neg"), ("getitem", "getitem"),
                       ("len", "__len__"), ("iter", "__iter__"), ("bool", "__bool__"),
                       ("float", "__float__"), ("int", "__int__")):
    setattr(UninitializedParameter, f"__{_dunder}__", _refused(_name))


__all__ = ["UNINITIALIZED_ALLOWED", "UninitializedParameter", "uninitialized_use"]
