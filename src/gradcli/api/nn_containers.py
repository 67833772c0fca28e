"""``nn.ModuleList``, ``nn.ModuleDict``, ``nn.ParameterList`` and ``nn.ParameterDict`` as
PyTorch 2.13's ``torch/nn/modules/container.py`` has them: modules and parameters registered
under their index or key (so ``parameters()``, ``state_dict()`` and ``print(model)`` see
them), indexed, iterated and printed as PyTorch does.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, Self

from ..engine.tensor import Tensor
from ..errors import ScriptError
from .nn_module import _COMMON, Module, _addindent, _repr
from .nn_parameter import Parameter, is_parameter, typename


def _index(container: Any, idx: Any) -> str:
    """``_get_abs_string_index``: an int index in range, as the key it is stored under."""
    if isinstance(idx, Tensor):
        idx = idx.__index__()
    if not isinstance(idx, int):
        raise ScriptError(f"'{type(idx).__name__}' object cannot be interpreted as an integer",
                          kind="TypeError")
    n = len(container)
    if not -n <= idx < n:
        raise ScriptError(f"index {idx} is out of range", kind="IndexError")
    return str(idx + n if idx < 0 else idx)


def _items(values: Any, what: str) -> list:
    """The items of an iterable argument, or PyTorch's error naming the method."""
    if isinstance(values, Tensor) or not hasattr(values, "__iter__"):
        raise ScriptError(f"{what} should be called with an iterable, but got "
                          f"{type(values).__name__}", kind="TypeError")
    return list(values)


def _pairs(items: Any, owner: str, method_owner: str | None = None) -> list:
    """The (key, value) pairs of an ``update`` argument that is no mapping, with PyTorch's
    checks (its ``update`` of a ParameterDict names itself ``ParametersDict.update``)."""
    out = []
    for j, pair in enumerate(_items(items, f"{method_owner or owner}.update")):
        if not isinstance(pair, (tuple, list)):
            raise ScriptError(f"{owner} update sequence element #{j} should be Iterable; "
                              f"is{type(pair).__name__}", kind="TypeError")
        if len(pair) != 2:
            raise ScriptError(f"{owner} update sequence element #{j} has length {len(pair)}; "
                              "2 is required", kind="ValueError")
        out.append((pair[0], pair[1]))
    return out


class ModuleList(Module):
    """``nn.ModuleList(modules)``: submodules by position."""

    script_attributes = _COMMON | {"append", "extend", "insert", "pop"}
    script_owners = ("torch.nn.Module",)
    script_sequence = True

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[_index(self, idx)]

    def __setitem__(self, idx: Any, module: Any) -> None:
        setattr(self, _index(self, idx), module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, _index(self, idx))
        self.__dict__["_modules"] = dict(zip((str(i) for i in range(len(self._modules))),
                                             self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._modules.values()))

    def __iadd__(self, modules: Any) -> Self:
        return self.extend(modules)

    def __add__(self, other: Any) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate([*self, *_items(other, "ModuleList.__add__")]):
            combined.add_module(str(i), module)
        return combined

    def append(self, module: Any) -> Self:
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Any) -> Self:
        """Add each of ``modules`` at the end."""
        offset = len(self)
        for i, module in enumerate(_items(modules, "ModuleList.extend")):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index: int, module: Any) -> None:
        """Put ``module`` before position ``index``."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def pop(self, key: Any) -> Any:
        """Remove and return the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def script_repr(self, printer: Any) -> str:
        """PyTorch's: runs of equal modules folded (``(0-2): 3 x Linear(...)``)."""
        reprs = [_repr(m, printer) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks: list[list] = []
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = []
        for start, end, r in blocks:
            line = f"({start}): {r}" if start == end else \
                f"({start}-{end}): {end - start + 1} x {r}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """``nn.ModuleDict(modules)``: submodules by key."""

    script_attributes = _COMMON | {"clear", "pop", "keys", "items", "values", "update"}
    script_sequence = True

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: Any) -> Any:
        try:
            return self._modules[key]
        except KeyError:
            err = ScriptError(repr(key), kind="KeyError")
            err.pyargs = (key,)  # type: ignore[attr-defined]
            raise err from None

    def __setitem__(self, key: Any, module: Any) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: Any) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._modules))

    def __contains__(self, key: Any) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: Any) -> Any:
        """Remove and return the module under ``key``."""
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        """The keys."""
        return self._modules.keys()

    def items(self) -> Any:
        """(key, module) pairs."""
        return self._modules.items()

    def values(self) -> Any:
        """The modules."""
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Add the modules of a mapping, or of (key, module) pairs, in order."""
        if isinstance(modules, (dict, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for key, module in _pairs(modules, "ModuleDict"):
            self[key] = module


def _param_line(k: Any, p: Any, dtype_name: Any) -> str:
    if isinstance(p, Tensor):
        size = "x".join(str(s) for s in p.shape)
        kind = "Parameter" if is_parameter(p) else "Tensor"
        return f"  ({k}): {kind} containing: [{dtype_name(p)} of size {size}]"
    return f"  ({k}): Object of type: {typename(p).rpartition('.')[2]}"


class ParameterList(Module):
    """``nn.ParameterList(values)``: parameters by position (tensors become Parameters)."""

    script_attributes = _COMMON | {"append", "extend"}
    script_sequence = True

    def __init__(self, values: Any = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, _index(self, idx))

    def __setitem__(self, idx: Any, param: Any) -> None:
        if isinstance(param, Tensor) and not is_parameter(param):
            param = Parameter(param)
        setattr(self, _index(self, idx), param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter([self[i] for i in range(len(self))])

    def __iadd__(self, values: Any) -> Self:
        return self.extend(values)

    def append(self, value: Any) -> Self:
        """Add ``value`` at the end."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Any) -> Self:
        """Add each of ``values`` at the end."""
        for value in _items(values, "ParameterList.extend"):
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_param_line(k, p, lambda t: str(t.dtype)) for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ScriptError("ParameterList should not be called.")


class ParameterDict(Module):
    """``nn.ParameterDict(parameters)``: parameters by key (tensors become Parameters)."""

    script_attributes = _COMMON | {"keys", "items", "values", "update", "pop", "get", "clear",
                                   "setdefault", "copy"}
    script_sequence = True

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr(key: Any) -> str:
        if not isinstance(key, str):
            raise ScriptError("Index given to ParameterDict cannot be used as a key as it is not "
                              f"a string (type is '{type(key).__name__}'). Open an issue on "
                              "github if you need non-string keys.", kind="TypeError")
        return key

    def __getitem__(self, key: Any) -> Any:
        return getattr(self, self._attr(key))

    def __setitem__(self, key: Any, value: Any) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not is_parameter(value):
            value = Parameter(value)
        setattr(self, self._attr(key), value)

    def __delitem__(self, key: Any) -> None:
        del self._keys[key]
        delattr(self, self._attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._keys))

    def __contains__(self, key: Any) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict of the same parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``self[key]``, set to ``default`` first if absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every parameter."""
        for k in list(self._keys):
            del self[k]

    def pop(self, key: str) -> Any:
        """Remove and return the parameter under ``key``."""
        v = self[key]
        del self[key]
        return v

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]`` or ``default``."""
        return self[key] if key in self else default  # noqa: SIM401 (this is get)

    def keys(self) -> Any:
        """The keys."""
        return self._keys.keys()

    def items(self) -> Any:
        """(key, parameter) pairs."""
        return [(k, self[k]) for k in self._keys]

    def values(self) -> Any:
        """The parameters."""
        return [self[k] for k in self._keys]

    def update(self, parameters: Any) -> None:
        """Add a mapping's parameters (a plain dict's sorted by key, as PyTorch), or pairs'."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, p in parameters.items():
                self[key] = p
        elif isinstance(parameters, dict):
            for key, p in sorted(parameters.items()):
                self[key] = p
        else:
            for key, p in _pairs(parameters, "ParameterDict", "ParametersDict"):
                self[key] = p

    def extra_repr(self) -> str:
        return "\n".join(_param_line(k, p, typename) for k, p in self.items())

    def __call__(self, input: Any) -> Any:
        raise ScriptError("ParameterDict should not be called.")


__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList"]
