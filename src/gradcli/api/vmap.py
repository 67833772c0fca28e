"""``torch.func.vmap`` (also ``torch.vmap``): a function mapped over a dimension of its inputs.

NOTE: gradcli runs the function once per sample and stacks the results along ``out_dims``
(PyTorch runs it once on BatchedTensors, each op by its batching rule).  Every op of the table
then gives PyTorch's values, and vmap composes with every transform of api/func.py and with
``functional_call`` as it stands.  A ``VmapLevel`` (engine/batching.py) keeps which tensors are
batched during those runs, for PyTorch's errors (``.item()``, data-dependent control flow, an
in-place write into an unbatched tensor, ``out_dims=None``) and ``randomness``.  Inputs and
outputs follow PyTorch's pytree rules (tuples, lists and dicts; anything else a leaf) and its
messages, whose ``TreeSpec(...)`` texts ``_Spec`` writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.backend import to_host
from ..engine.batching import VmapLevel
from ..engine.context import current
from ..engine.shape import _select
from ..engine.tensor import Tensor
from ..errors import ScriptError

_RANDOMNESS = ("error", "different", "same")


class _Spec:
    """A pytree's structure (PyTorch's TreeSpec): a leaf, or a tuple/list/dict of specs."""

    def __init__(self, kind: type | None, context: Any = None, children: tuple = ()) -> None:
        self.kind = kind  # None for a leaf
        self.context = context
        self.children = children

    def leaves(self) -> int:
        return 1 if self.kind is None else sum(c.leaves() for c in self.children)

    def text(self, indent: int = 0) -> str:
        """PyTorch's ``TreeSpec.__repr__``."""
        if self.kind is None:
            return "*"
        out = f"TreeSpec({self.kind.__name__}, {self.context}, ["
        if self.children:
            indent += 2
            out += self.children[0].text(indent)
            out += "," if len(self.children) > 1 else ""
            out += ",".join("\n" + " " * indent + c.text(indent) for c in self.children[1:])
        return out + "])"


def _flatten(tree: Any) -> tuple[list, _Spec]:
    """(the leaves in order, the structure)."""
    if isinstance(tree, dict):
        keys = list(tree)
        pairs = [_flatten(tree[k]) for k in keys]
        return [x for p in pairs for x in p[0]], _Spec(dict, keys, tuple(p[1] for p in pairs))
    if isinstance(tree, (tuple, list)):
        pairs = [_flatten(v) for v in tree]
        return [x for p in pairs for x in p[0]], _Spec(type(tree), None,
                                                          tuple(p[1] for p in pairs))
    return [tree], _Spec(None)


def _unflatten(leaves: list, spec: _Spec) -> Any:
    it = iter(leaves)

    def build(s: _Spec) -> Any:
        if s.kind is None:
            return next(it)
        items = [build(c) for c in s.children]
        if s.kind is dict:
            return dict(zip(s.context, items))
        return s.kind(items)
    return build(spec)


def _broadcast(tree: Any, spec: _Spec) -> list | None:
    """PyTorch's ``_broadcast_to_and_flatten``: ``tree`` (in_dims or out_dims) with a leaf
    standing for a whole subtree of ``spec``; None when the structures do not fit."""
    if spec.kind is None:
        return [tree]
    if not isinstance(tree, (tuple, list, dict)):
        return [tree] * spec.leaves()
    if type(tree) is not spec.kind:
        return None
    children = [tree[k] for k in tree] if isinstance(tree, dict) else list(tree)
    if len(children) != len(spec.children) or \
            (isinstance(tree, dict) and list(tree) != spec.context):
        return None
    out: list = []
    for child, s in zip(children, spec.children):
        flat = _broadcast(child, s)
        if flat is None:
            return None
        out += flat
    return out


def _name(func: Any) -> str:
    """PyTorch's ``_get_name``: the function's ``__name__``, else its repr."""
    name = getattr(func, "name", None) if getattr(func, "script_type", None) in (
        "function", "method") else getattr(func, "__name__", None)
    return name if isinstance(name, str) else repr(func)


def _is_int(v: Any) -> bool:
    return isinstance(v, int)


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: Any = "error", *,
         chunk_size: Any = None) -> Callable:
    """``torch.func.vmap``: ``func`` mapped over dimension ``in_dims`` of its inputs."""
    if randomness not in _RANDOMNESS:
        raise ScriptError("Only allowed values for randomness are 'error', 'different', or "
                          f"'same'. Got {randomness}", kind="RuntimeError")
    if chunk_size is not None:
        if not isinstance(chunk_size, (int, float)):
            raise ScriptError("'>' not supported between instances of "
                              f"'{type(chunk_size).__name__}' and 'int'", kind="TypeError")
        if not chunk_size > 0:
            raise ScriptError(f"vmap: chunk_size should be None or greater than 0. (got "
                              f"{chunk_size})", kind="ValueError")

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _run(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return wrapped


def _inputs(func: Any, in_dims: Any, args: tuple) -> tuple[int, list, list, _Spec]:
    """PyTorch's ``_process_batched_inputs``: (batch size, in_dims, inputs, structure)."""
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ScriptError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` "
                          "to be int or a (potentially nested) tuple matching the structure of "
                          f"inputs, got: {type(in_dims)}.", kind="ValueError")
    if not args:
        raise ScriptError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                          "inputs, or you are trying to vmap over a function with no inputs. "
                          "The latter is unsupported.", kind="ValueError")
    flat, spec = _flatten(args)
    dims = _broadcast(in_dims, spec)
    head = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): "
    if dims is None:
        raise ScriptError(f"{head}in_dims is not compatible with the structure of `inputs`. "
                          f"in_dims has structure {_flatten(in_dims)[1].text()} but inputs has "
                          f"structure {spec.text()}.", kind="ValueError")
    for i, (arg, d) in enumerate(zip(flat, dims)):
        if d is not None and not _is_int(d):
            raise ScriptError(f"{head}Got in_dim={d} for an input but in_dim must be either an "
                              "integer dimension or None.", kind="ValueError")
        if d is not None and not isinstance(arg, Tensor):
            raise ScriptError(f"{head}Got in_dim={d} for an input but the input is of type "
                              f"{type(arg)}. We cannot vmap over non-Tensor arguments, please "
                              "use None as the respective in_dim", kind="ValueError")
        if d is not None:
            n = arg.data.ndim
            if not -n <= d < n:
                raise ScriptError(f"{head}Got in_dim={d} for some input, but that input is a "
                                  f"Tensor of dimensionality {n} so expected in_dim to satisfy "
                                  f"-{n} <= in_dim < {n}.", kind="ValueError")
            dims[i] = d % n
    sizes = [arg.shape[d] for arg, d in zip(flat, dims) if d is not None]
    if not sizes:
        raise ScriptError("vmap: Expected at least one Tensor to vmap over", kind="ValueError")
    if any(s != sizes[0] for s in sizes):
        raise ScriptError("vmap: Expected all tensors to have the same size in the mapped "
                          f"dimension, got sizes {sizes} for the mapped dimension",
                          kind="ValueError")
    return sizes[0], dims, flat, spec


def _check_out_dims(func: Any, out_dims: Any) -> None:
    """PyTorch's ``_check_out_dims_is_int_or_int_pytree``."""
    if _is_int(out_dims):
        return
    for d in _flatten(out_dims)[0]:
        if d is not None and not _is_int(d):
            raise ScriptError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must "
                              "be an int, None or a python collection of ints representing "
                              "where in the outputs the vmapped dimension should appear.",
                              kind="ValueError")


def _chunks(batch: int, chunk_size: Any) -> list[int]:
    if chunk_size is None:
        return [batch]
    if not _is_int(chunk_size):
        raise ScriptError(f"can't multiply sequence by non-int of type "
                          f"'{type(chunk_size).__name__}'", kind="TypeError")
    sizes = [chunk_size] * (batch // chunk_size)
    return sizes + ([batch % chunk_size] if batch % chunk_size else [])


def _run(func: Any, in_dims: Any, out_dims: Any, randomness: str, chunk_size: Any,
         args: tuple, kwargs: dict) -> Any:
    """One call of a vmapped function: a run per sample, the results stacked."""
    _check_out_dims(func, out_dims)
    batch, dims, flat, spec = _inputs(func, in_dims, args)
    if batch == 0:
        raise ScriptError("gradcli does not support vmap over a batch of size 0 yet",
                          kind="NotImplementedError")
    if not callable(func):
        raise ScriptError(f"'{type(func).__name__}' object is not callable", kind="TypeError")
    level = VmapLevel(current(), randomness)
    outputs = []
    level.enter()
    try:
        i = 0
        for size in _chunks(batch, chunk_size):
            for row in range(size):
                level.sample(i, row, size)
                leaves = []
                for arg, d in zip(flat, dims):
                    if d is None:
                        leaves.append(arg)
                    else:
                        s = _select(arg, d, i)
                        level.mark(s)
                        leaves.append(s)
                outputs.append(func(*_unflatten(leaves, spec), **kwargs))
                i += 1
    finally:
        level.exit()
    return _outputs(func, out_dims, outputs, level)


def _outputs(func: Any, out_dims: Any, outputs: list, level: VmapLevel) -> Any:
    """PyTorch's ``_unwrap_batched``: each output stacked along its out_dim."""
    name = _name(func)
    first, spec = _flatten(outputs[0])
    if isinstance(outputs[0], Tensor):  # PyTorch's edge case for a single tensor
        dims = [out_dims] if out_dims is None or _is_int(out_dims) else \
            list(out_dims) if isinstance(out_dims, tuple) and len(out_dims) == 1 else None
    else:
        dims = _broadcast(out_dims, spec)
    if dims is None:
        raise ScriptError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                          "compatible with the structure of `outputs`. out_dims has structure "
                          f"{_flatten(out_dims)[1].text()} but outputs has structure "
                          f"{spec.text()}.", kind="ValueError")
    per_sample = [_flatten(o)[0] for o in outputs]
    stack = _functions()["stack"]
    result = []
    for j, (value, d) in enumerate(zip(first, dims)):
        batched = isinstance(value, Tensor) and _batched(level, [o[j] for o in per_sample])
        if d is None:
            if batched:
                raise ScriptError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                  "when out_dim is None", kind="ValueError")
            result.append(value)
            continue
        if not isinstance(value, Tensor):
            raise ScriptError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                              f"{type(value)}. Did you mean to set out_dims= to None for "
                              "output?", kind="ValueError")
        if not batched:  # PyTorch expands an unbatched output (a stride of 0)
            u = _functions()["unsqueeze"](value, d)
            sizes = [-1] * u.data.ndim
            sizes[d % u.data.ndim] = len(outputs)
            result.append(u.expand(*sizes))
            continue
        result.append(stack([leaves[j] for leaves in per_sample], dim=d))
    return _unflatten(result, spec)


def _batched(level: VmapLevel, values: list) -> bool:
    """Whether an output is batched: the level marked it, or the samples gave different values
    (a tensor the marks miss, such as a gradient computed from a saved tensor)."""
    if level.holds(values[0]):
        return True
    first = values[0]
    host = to_host(first.data).tobytes()
    return any(not isinstance(v, Tensor) or v.shape != first.shape or v.dtype is not first.dtype
               or to_host(v.data).tobytes() != host for v in values[1:])


def _functions() -> dict:
    from . import FUNCTIONS

    return FUNCTIONS
