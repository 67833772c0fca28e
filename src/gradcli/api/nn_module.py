"""``torch.nn``'s base: ``Parameter`` and ``Module`` as a script sees them.

A module is a Python object of gradcli's with PyTorch's behaviour: its parameters and child
modules by name, ``model(x)`` calling its ``forward``, ``parameters()``/``named_parameters()``
as generators, ``zero_grad``, ``train``/``eval``, ``requires_grad_``, ``to``, and
``print(model)`` as PyTorch's ``Module.__repr__``.  What a script may read or assign on a module
is its class's ``script_attributes`` / ``script_settable``; the classes themselves (``Linear``,
``Sequential``, the activations and losses) are in ``api/nn.py``.
"""


from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from ..engine.args import check_device
from ..engine.attributes import is_floating
from ..engine.context import current
from ..engine.dtypes import DTYPES, DType
from ..engine.tensor import Tensor
from ..errors import ScriptError
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
    script_class: TypeObject  # set for each class by api/nn.py

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:  # PyTorch's own checks, naming the class
            raise ScriptError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                              f"argument '{next(iter(kwargs))}'", kind="TypeError")
        if args:
            raise ScriptError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                              f"but {len(args) + 1} were given", kind="TypeError")
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
