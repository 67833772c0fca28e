"""``torch.nn``'s base: ``Module`` as a script sees it (``Parameter`` is ``nn_parameter``'s).

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
from ..engine.dtypes import DTYPES, DType
from ..engine.hooks import RemovableHandle, new_hook_id
from ..engine.tensor import Tensor
from ..errors import ScriptError
from .nn_hooks import call_with_hooks
from .nn_parameter import binding, is_parameter, typename
from .nn_state import load_state_dict, state_dict
from .types import TypeObject


class MissingAttribute(ScriptError, AttributeError):
    """PyTorch's AttributeError from ``Module.__getattr__``: the script's error, and an
    AttributeError to Python (``getattr(m, name, default)``)."""


_COMMON = frozenset({
    "forward", "parameters", "named_parameters", "children", "named_children", "modules",
    "named_modules", "zero_grad", "train", "eval", "training", "requires_grad_", "extra_repr",
    "get_parameter", "get_submodule", "get_buffer", "cpu", "to", "float", "double", "apply",
    "register_buffer", "register_parameter", "add_module", "register_module", "buffers",
    "named_buffers", "state_dict", "load_state_dict", "register_forward_hook",
    "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook",
})
# What Module.__init__ sets: a script may read them, as in PyTorch, but not replace them.
_STATE = ("_parameters", "_buffers", "_non_persistent_buffers_set", "_modules",
          "_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
          "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_backward_hooks",
          "_backward_pre_hooks")


class Module:
    """``torch.nn.Module``: parameters, buffers and children by name, in the order they were
    set, as PyTorch's ``__setattr__`` registers them."""

    script_attributes = _COMMON
    script_settable = frozenset({"training"})
    script_owners: tuple[str, ...] = ("torch.nn.Module",)  # whose recorded names it may lack
    script_class: TypeObject  # set for each class by api/nn.py
    script_subclassable = True  # a script's class may derive from it (script/classes.py)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:  # PyTorch's own checks, naming the class
            raise ScriptError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                              f"argument '{next(iter(kwargs))}'", kind="TypeError")
        if args:
            raise ScriptError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                              f"but {len(args) + 1} were given", kind="TypeError")
        state = self.__dict__
        state["training"] = True
        for name in _STATE:
            state[name] = set() if name == "_non_persistent_buffers_set" else {}

    # -- attributes: parameters, buffers and submodules by name -----------------------------------
    def __getattr__(self, name: str) -> Any:
        state = self.__dict__
        for where in ("_parameters", "_buffers", "_modules"):
            found = state.get(where)
            if found is not None and name in found:
                return found[name]
        raise MissingAttribute(f"'{type(self).__name__}' object has no attribute '{name}'",
                               kind="AttributeError")

    def __setattr__(self, name: str, value: Any) -> None:
        state = self.__dict__
        params = state.get("_parameters")
        if is_parameter(value):
            if params is None:
                raise ScriptError("cannot assign parameters before Module.__init__() call",
                                  kind="AttributeError")
            self._remove(name, "__dict__", "_buffers", "_modules")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise ScriptError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                  "(torch.nn.Parameter or None expected)", kind="TypeError")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            modules = state.get("_modules")
            if modules is None:
                raise ScriptError("cannot assign module before Module.__init__() call",
                                  kind="AttributeError")
            self._remove(name, "__dict__", "_parameters", "_buffers")
            modules[name] = value
        elif name in state.get("_modules", ()):
            if value is not None:
                raise ScriptError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                  "(torch.nn.Module or None expected)", kind="TypeError")
            state["_modules"][name] = value
        elif name in state.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise ScriptError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                  "(torch.nn.Buffer, torch.Tensor or None expected)",
                                  kind="TypeError")
            state["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        state = self.__dict__
        if name in state["_parameters"]:
            del state["_parameters"][name]
        elif name in state["_buffers"]:
            del state["_buffers"][name]
            state["_non_persistent_buffers_set"].discard(name)
        elif name in state["_modules"]:
            del state["_modules"][name]
        elif name in state:
            del state[name]
        else:
            raise ScriptError(f"'{type(self).__name__}' object has no attribute '{name}'",
                              kind="AttributeError")

    def _remove(self, name: str, *places: str) -> None:
        state = self.__dict__
        for where in places:
            table = state if where == "__dict__" else state[where]
            table.pop(name, None)
        state["_non_persistent_buffers_set"].discard(name)

    def _has(self, name: str) -> bool:
        """PyTorch's ``hasattr(self, name)``: the instance's, its class's (a script's class
        included) and its registered members."""
        if name in self.__dict__ or name in type(self).script_attributes:
            return True
        cls = getattr(type(self), "script_class", None)
        lookup = getattr(cls, "lookup", None)  # a script's class
        if lookup is not None and lookup(name)[0] is not None:
            return True
        return any(name in self.__dict__.get(w, ()) for w in ("_parameters", "_buffers",
                                                               "_modules"))

    def script_member(self, name: str) -> Any:
        """``module.name`` past its attributes: a parameter, buffer or submodule, else
        PyTorch's AttributeError (or "not supported yet" for an ``nn.Module`` name)."""
        state = self.__dict__
        for where in ("_parameters", "_buffers", "_modules"):
            found = state.get(where)
            if found is not None and name in found:
                return found[name]
        from .torch_names import NAMES  # only on this error path: it is a long list

        for owner in type(self).script_owners:
            if name in NAMES.get(owner, ()):
                raise ScriptError(f"gradcli does not support {owner.rpartition('.')[2]}.{name} "
                                  "yet", kind="NotImplementedError")
        close = difflib.get_close_matches(name, sorted({
            *type(self).script_attributes, *state.get("_parameters", ()),
            *state.get("_buffers", ()), *state.get("_modules", ())}), n=1)
        raise ScriptError(f"'{type(self).__name__}' object has no attribute '{name}'",
                          kind="AttributeError",
                          hint=f"did you mean '{close[0]}'?" if close else None)

    def script_setattr(self, name: str, value: Any) -> None:
        """``module.name = value`` from a script's subclass: PyTorch's rules, but never over
        the module's own machinery."""
        if name in _STATE or name not in type(self).script_settable and \
                hasattr(type(self), name) and not name.startswith("__") and \
                type(self).script_class.lookup(name)[0] is None:  # its code calls it
            raise ScriptError(f"gradcli does not let a script replace nn.Module's '{name}'",
                              kind="NotImplementedError",
                              hint="choose another name for the attribute")
        setattr(self, name, value)

    def script_delattr(self, name: str) -> None:
        """``del module.name``: a parameter, buffer, submodule or plain attribute."""
        if name in _STATE:
            raise ScriptError(f"gradcli does not let a script delete nn.Module's '{name}'",
                              kind="NotImplementedError")
        delattr(self, name)

    # -- registering ------------------------------------------------------------------------------
    def register_buffer(self, name: Any, tensor: Any, persistent: bool = True) -> None:
        """A tensor that is state but not a parameter (in ``state_dict`` if persistent)."""
        if "_buffers" not in self.__dict__:
            raise ScriptError("cannot assign buffer before Module.__init__() call",
                              kind="AttributeError")
        self._check_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise ScriptError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                              "(torch Tensor or None required)", kind="TypeError")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: Any, param: Any) -> None:
        """Add a parameter (or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise ScriptError("cannot assign parameter before Module.__init__() call",
                              kind="AttributeError")
        self._check_name(name, "parameter", self._parameters)
        if param is not None and not is_parameter(param):
            raise ScriptError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                              "(torch.nn.Parameter or None required)", kind="TypeError")
        if param is not None and param.grad_fn is not None:
            raise ScriptError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                              f"parameters must be created explicitly. To express '{name}' as a "
                              "function of another Tensor, compute the value in the forward() "
                              "method.", kind="ValueError")
        self._parameters[name] = param

    def _check_name(self, name: Any, what: str, table: dict) -> None:
        if not isinstance(name, str):
            raise ScriptError(f"{what} name should be a string. Got {typename(name)}",
                              kind="TypeError")
        if "." in name:
            raise ScriptError(f'{what} name can\'t contain "."', kind="KeyError")
        if name == "":
            raise ScriptError(f'{what} name can\'t be empty string ""', kind="KeyError")
        if self._has(name) and name not in table:
            raise ScriptError(f"attribute '{name}' already exists", kind="KeyError")

    def add_module(self, name: Any, module: Any) -> None:
        """Add a child module under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise ScriptError(f"{typename(module)} is not a Module subclass", kind="TypeError")
        if not isinstance(name, str):
            raise ScriptError(f"module name should be a string. Got {typename(name)}",
                              kind="TypeError")
        if self._has(name) and name not in self._modules:
            raise ScriptError(f"attribute '{name}' already exists", kind="KeyError")
        if "." in name:
            raise ScriptError(f"module name can't contain \".\", got: {name}", kind="KeyError")
        if name == "":
            raise ScriptError('module name can\'t be empty string ""', kind="KeyError")
        self._modules[name] = module

    def register_module(self, name: Any, module: Any) -> None:
        """``add_module``."""
        self.add_module(name, module)

    # -- calling --------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks or
                self._backward_pre_hooks):
            return binding(self.forward, *args, **kwargs)
        return call_with_hooks(self, args, kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """What calling the module computes."""
        raise ScriptError(f'Module [{type(self).__name__}] is missing the required "forward" '
                          "function", kind="NotImplementedError")

    def register_forward_pre_hook(self, hook: Any, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` before ``forward``; it may return new arguments."""
        return _add_hook(self._forward_pre_hooks, hook, prepend,
                         (self._forward_pre_hooks_with_kwargs, with_kwargs))

    def register_forward_hook(self, hook: Any, *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` after ``forward``; it may return a new output."""
        return _add_hook(self._forward_hooks, hook, prepend,
                         (self._forward_hooks_with_kwargs, with_kwargs),
                         (self._forward_hooks_always_called, always_call))

    def register_full_backward_hook(self, hook: Any, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` when the inputs' gradients are computed."""
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook: Any,
                                        prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` when the outputs' gradients are known."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

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

    def _named_members(self, kind: str, prefix: str, recurse: bool,
                       remove_duplicate: bool) -> Iterator[tuple[str, Tensor]]:
        members = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else iter([(prefix, self)])
        seen: set[int] = set()
        for module_prefix, module in members:
            for name, v in module.__dict__[kind].items():
                if v is None or id(v) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + name, v

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, parameter), each parameter once, in the order they were set."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every parameter, as ``named_parameters`` lists them."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer), each buffer once, in the order they were registered."""
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer, as ``named_buffers`` lists them."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

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

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path (``"bn.running_mean"``)."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if name not in mod._buffers:
            raise ScriptError(f"{mod._get_name()} has no attribute `{name}`",
                              kind="AttributeError")
        return mod._buffers[name]

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

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> Any:
        """Parameters and persistent buffers by dotted name, detached (an OrderedDict)."""
        return state_dict(self, args, destination, prefix, keep_vars)

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        """Copy a state dict's tensors into the parameters and buffers of the same names."""
        return load_state_dict(self, state_dict, strict, assign)

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

    def script_repr(self, printer: Any) -> str:
        """``print(model)``: PyTorch's ``Module.__repr__`` (a child of a script's class prints
        through its own ``__repr__``, when it has one)."""
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): {_addindent(_repr(m, printer), 2)}"
                       for key, m in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __repr__(self) -> str:
        return self.script_repr(None)


def _repr(m: Any, printer: Any) -> str:
    show = getattr(type(m), "script_repr", None)
    return repr(m) if show is None else show(m, printer)


def _add_hook(table: dict, hook: Any, prepend: bool, *flags: tuple[dict, bool]) -> RemovableHandle:
    """Register ``hook`` in ``table`` (first if ``prepend``), marked in each flag's dict."""
    hook_id = new_hook_id()
    table[hook_id] = hook
    if prepend:
        items = list(table.items())
        table.clear()
        table.update([items[-1], *items[:-1]])
    for extra, on in flags:
        if on:
            extra[hook_id] = True
    return RemovableHandle(table, hook_id, tuple(extra for extra, _ in flags))


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
