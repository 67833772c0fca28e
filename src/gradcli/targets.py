"""What ``--of`` and ``--wrt`` name: the output of interest and the tensors it is
differentiated by, found in a finished run.

The output, when ``--of`` is not given, is the tensor the script last called ``backward()``
on; else the last scalar that requires grad (the newest by its ``grad_fn``); else there is none
and a command that needs one says which tensors the script has.

A name is looked up where the output was made, as Python looks names up: in the function that
called that ``backward()`` (``main()`` of a script whose work is there), then among the
top-level bindings; with no backward, the top level, then the function the top level called
last.  A name is a path as a PyTorch user writes it, read from the run's objects without
running any of the script's code:

- ``w``, ``model.0.weight`` (a ``Sequential``'s child), ``model.fc1.bias``,
  ``net.layers[2].weight``, ``opt.param_groups[0]['params'][1]``;
- a name ``named_parameters()`` gives in a module of the scope (``fc1.weight``, ``0.bias``);
- a module (its parameters, by name), a list or tuple of tensors, or an optimizer's parameter
  group (its ``params``): one target per tensor.
"""

from __future__ import annotations

import re
from typing import Any

from .api.nn_module import Module
from .engine import Tensor
from .errors import ScriptError, Span, UsageError
from .script.functions import FUNCTION_KEY
from .script.values import tname

CANDIDATES_SHOWN = 8  # tensors listed when no output can be chosen


class Target:
    """A tensor and the name it goes by (``loss``, ``model.0.weight``), and where it was bound
    (top level) or backward() was called.  (A plain class: a dataclass's generated methods are
    compiled at every start of the process.)"""

    __slots__ = ("name", "span", "tensor")

    def __init__(self, name: str, tensor: Tensor, span: Span | None = None) -> None:
        self.name = name
        self.tensor = tensor
        self.span = span

    def __repr__(self) -> str:
        return f"Target(name={self.name!r}, tensor={self.tensor!r}, span={self.span!r})"


# -- scopes ---------------------------------------------------------------------------------------
def scopes(result: Any) -> list[tuple[str | None, dict]]:
    """The scopes names are looked up in, first first: (function name or None, names)."""
    out: list[tuple[str | None, dict]] = []
    call = result.backward_call
    if call is not None and FUNCTION_KEY in call.scope:
        out.append((call.scope[FUNCTION_KEY].name, call.scope))
    out.append((None, result.bindings))
    if call is None and result.last_call is not None:
        out.append((result.last_call[FUNCTION_KEY].name, result.last_call))
    return out


def home(result: Any) -> str | None:
    """The function whose names need no ``f:`` prefix in listings (the output's, if any)."""
    call = result.backward_call
    if call is not None:
        fn = call.scope.get(FUNCTION_KEY)
        return fn.name if fn is not None else None
    bindings = result.bindings
    if result.last_call is not None and not any(
            isinstance(v, Tensor) and v.requires_grad for v in bindings.values()):
        return result.last_call[FUNCTION_KEY].name  # main() holds every tensor
    return None


def _names(scope: dict) -> list[tuple[str, Any]]:
    return [(k, v) for k, v in scope.items() if k != FUNCTION_KEY and not k.startswith("__")]


# -- the output -----------------------------------------------------------------------------------
def output(result: Any, of: str | None, need: bool) -> Target | None:
    """The output: ``--of``'s tensor, else the default above; None when there is none and
    ``need`` is false (a listing then marks no output), else a UsageError listing candidates."""
    if of is not None:
        found = resolve(result, of, "--of")
        if len(found) != 1:
            raise UsageError(f"--of {of}: names {len(found)} tensors; the output is one tensor",
                             hint="name one of them: " + ", ".join(t.name for t in found[:4]))
        return Target(of, found[0].tensor, _bound_at(result, of))
    call = result.backward_call
    if call is not None:
        return Target(_name_of(result, call.tensor) or _receiver(result, call.span),
                      call.tensor, call.span)
    best = None  # the newest scalar that requires grad: the first scope's, on a tie
    for _, scope in scopes(result):
        found = None
        for name, v in reversed(scope.items()):  # newest first: most are ranked out at once
            if isinstance(v, Tensor) and v.requires_grad:
                rank = v.grad_fn.seq if v.grad_fn is not None else -1
                # >=: on a tie the name bound first wins (_names(scope)'s, checked last)
                if (found is None or rank >= found[0]) and not name.startswith("__") and \
                        v.numel() == 1:
                    found = (rank, name, v)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    if best is not None:
        return Target(best[1], best[2], _bound_at(result, best[1]))
    if not need:  # a listing without an output to mark: the last tensor bound, as before
        last = result.last_assigned
        t = result.bindings.get(last)
        return Target(last, t, _bound_at(result, last)) if isinstance(t, Tensor) else None
    raise UsageError("no output to differentiate: the script calls no backward() and binds no "
                     "scalar that requires grad", hint=_candidates(result))


def _candidates(result: Any) -> str:
    tensors = []
    seen: set[int] = set()
    for fn, scope in scopes(result):
        for name, v in _names(scope):
            if isinstance(v, Tensor) and id(v) not in seen:
                seen.add(id(v))
                shape = "scalar" if not v.shape else "shape (" + ", ".join(map(str, v.shape)) \
                    + ("," if len(v.shape) == 1 else "") + ")"
                flag = "requires grad" if v.requires_grad else "does not require grad"
                tensors.append(f"{name if fn is None else fn + ':' + name} ({shape}, {flag})")
    if not tensors:
        return "the script binds no tensor; compute one and name it with --of NAME"
    more = len(tensors) - CANDIDATES_SHOWN
    listed = ", ".join(tensors[-CANDIDATES_SHOWN:][::-1]) + (f" and {more} more" if more > 0
                                                             else "")
    return f"name the output with --of NAME; the tensors bound: {listed}"


def _name_of(result: Any, t: Tensor) -> str | None:
    for _, scope in scopes(result):
        for name, v in _names(scope):
            if v is t:
                return name
    return None


_BACKWARD_CALL = re.compile(r"^\s*(.+?)\.backward\s*\(")


def _receiver(result: Any, span: Span | None) -> str:
    """What the script called backward() on, as written (``(a * b).sum()``)."""
    lines = result.program.source.splitlines()
    if span is not None and 0 < span.line <= len(lines):
        match = _BACKWARD_CALL.match(lines[span.line - 1][span.column - 1:])
        if match:
            return match.group(1).strip()
        return f"output of line {span.line}"
    return "output"


def _bound_at(result: Any, name: str) -> Span | None:
    return result.binding_spans.get(name)


def differentiable(result: Any, out: Target, wrt: list[Target], why: str | None = None) -> None:
    """PyTorch's error for an output that does not require grad (never zero gradients),
    positioned where it was bound, with why (``why``: from the graph records, when there are
    some) and what to choose instead."""
    if out.tensor.requires_grad:
        return
    others = []
    call = result.backward_call
    if call is not None and call.tensor is not out.tensor:
        others.append(_name_of(result, call.tensor) or _receiver(result, call.span))
    hint = why or (f"'{out.name}' does not require grad: no op that made it is differentiable "
                   f"with respect to {', '.join(w.name for w in wrt) or 'anything'} (an argmax, "
                   "a comparison, an integer result, no_grad or detach() on the way)")
    if others:
        hint += f"; the script called backward() on {others[0]}: try --of {others[0]}"
    raise ScriptError("element 0 of tensors does not require grad and does not have a grad_fn",
                      span=out.span, hint=hint)


# -- names of tensors -----------------------------------------------------------------------------
def inputs(result: Any, names: list[str]) -> list[Target]:
    """The tensors ``--wrt`` names, a module's parameters each by its own name."""
    out: list[Target] = []
    seen: set[int] = set()
    modules: dict[int, str] | None = None
    for name in names:
        found = resolve(result, name, "--wrt")
        for t in found:
            if id(t.tensor) in seen:
                continue
            seen.add(id(t.tensor))
            if t.name.endswith("]"):  # an item of a list or a parameter group goes by the
                if modules is None:   # name the script gave it (W1, model.0.weight)
                    modules = _given_names(result)
                t = Target(modules.get(id(t.tensor), t.name), t.tensor, t.span)
            out.append(t)
    return out


def _given_names(result: Any) -> dict[int, str]:
    """id(tensor) -> the name a tensor is bound to in the scopes, else its module name."""
    out = {}
    for _, scope in scopes(result):
        for name, v in _names(scope):
            if isinstance(v, Tensor):
                out.setdefault(id(v), name)
    for key, name in parameter_names(result).items():
        if "param_groups" not in name:
            out.setdefault(key, name)
    return out


_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*|\d+)|\[\s*(-?\d+)\s*\]|\[\s*(['\"])(.*?)\3\s*\]")
_FIRST = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")


def parse(text: str) -> list[str | int] | None:
    """A path's keys (``net.layers[2].weight`` -> ``['net', 'layers', 2, 'weight']``), or
    None when it is not one."""
    first = _FIRST.match(text)
    if first is None:
        return None
    keys: list[str | int] = [first.group()]
    pos = first.end()
    while pos < len(text):
        m = _STEP.match(text, pos)
        if m is None:
            return None
        if m.group(1) is not None:
            keys.append(m.group(1))
        elif m.group(2) is not None:
            keys.append(int(m.group(2)))
        else:
            keys.append(m.group(4))
        pos = m.end()
    return keys


def resolve(result: Any, text: str, flag: str) -> list[Target]:
    """The tensors a name stands for (one, or a module's parameters), or a UsageError."""
    keys = parse(text.strip())
    if keys is None:
        raise UsageError(f"{flag} {text}: not a name (write w, model.0.weight, "
                         "net.layers[2].weight or opt.param_groups[0])")
    first = keys[0]
    value, where = _MISSING, None
    for fn, scope in scopes(result):
        if first in scope and first != FUNCTION_KEY:
            value, where = scope[first], fn
            break
    if value is _MISSING:
        found = _parameter_named(result, text.strip())
        if found is not None:
            return found
        raise UsageError(f"{flag} {text}: the script binds no '{first}' "
                         f"({_where_looked(result)})", hint=_known(result))
    path = str(first)
    for key in keys[1:]:
        value = _step(value, key, flag, text, path)
        path += f".{key}" if isinstance(key, str) and _identifier(key) else f"[{key!r}]"
    shown = text.strip()
    span = _bound_at(result, shown) if where is None else None
    return _expand(value, shown, flag, span)


_MISSING = object()


def _identifier(key: str) -> bool:
    return key.isidentifier() or key.isdigit()


def _where_looked(result: Any) -> str:
    fns = [fn for fn, _ in scopes(result) if fn is not None]
    return "in " + " or ".join([f"{fn}()" for fn in fns] + ["the top level"]) if fns else \
        "at the top level"


def _known(result: Any) -> str:
    names: list[str] = []
    for fn, scope in scopes(result):
        for name, v in _names(scope):
            if isinstance(v, (Tensor, Module)):
                names.append(name if fn is None else f"{name} (in {fn}())")
    if not names:
        return "the script binds no tensor or module by that name"
    return "tensors and modules there: " + ", ".join(dict.fromkeys(names))


def _step(value: Any, key: str | int, flag: str, text: str, path: str) -> Any:
    """``value.key`` / ``value[key]`` as the run's objects hold it, nothing evaluated."""
    if isinstance(value, Module):
        state = value.__dict__
        if isinstance(key, int):
            children = [m for m in state["_modules"].values() if m is not None]
            if -len(children) <= key < len(children):
                return children[key]
        else:
            for where in ("_parameters", "_buffers", "_modules"):
                if key in state[where]:
                    return state[where][key]
            if key in state and not key.startswith("_"):
                return state[key]
    elif isinstance(value, (list, tuple)):
        index = int(key) if isinstance(key, str) and key.lstrip("-").isdigit() else key
        if isinstance(index, int) and -len(value) <= index < len(value):
            return value[index]
    elif isinstance(value, dict):
        if key in value:
            return value[key]
    elif isinstance(key, str) and not key.startswith("_") and not isinstance(value, Tensor):
        attrs = getattr(value, "__dict__", None)
        if isinstance(attrs, dict) and key in attrs:
            return attrs[key]
    raise UsageError(f"{flag} {text}: {path} ({tname(value)}) has no "
                     f"{'item' if isinstance(key, int) else 'member'} {key!r}",
                     hint=_members(value))


def _members(value: Any) -> str | None:
    if isinstance(value, Module):
        state = value.__dict__
        names = [*state["_parameters"], *state["_buffers"], *state["_modules"]]
        return "its members: " + ", ".join(names) if names else None
    if isinstance(value, (list, tuple)):
        return f"it has {len(value)} items" if value else "it is empty"
    if isinstance(value, dict):
        return "its keys: " + ", ".join(map(repr, list(value)[:10]))
    return None


def _module(v: Any) -> bool:
    """Whether ``v`` is a module whose ``Module.__init__`` ran (a script's ``__init__`` that
    failed, or never called it, leaves one without parameters or submodules to walk)."""
    return isinstance(v, Module) and "_parameters" in v.__dict__


def _expand(value: Any, name: str, flag: str, span: Span | None) -> list[Target]:
    if isinstance(value, Tensor):
        return [Target(name, value, span)]
    if isinstance(value, Module):
        params = [Target(f"{name}.{p}", t) for p, t in value.named_parameters()] \
            if _module(value) else []
        if not params:
            raise UsageError(f"{flag} {name}: the {tname(value)} has no parameters")
        return params
    if isinstance(value, dict) and isinstance(value.get("params"), (list, tuple)):
        name, value = f"{name}['params']", value["params"]  # an optimizer's parameter group
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Tensor) for v in value):
        return [Target(f"{name}[{i}]", t) for i, t in enumerate(value)]
    kind = tname(value)
    article = "an" if kind[:1] in "aeiou" else "a"
    raise UsageError(f"{flag} {name}: '{name}' is {article} {kind}, not a tensor",
                     hint="name a tensor, a module (its parameters) or a list of tensors")


def _parameter_named(result: Any, text: str) -> list[Target] | None:
    """``fc1.weight``: a ``named_parameters()`` name (or a submodule's) in a module of the
    scope, when exactly one module has it."""
    found: list[list[Target]] = []
    for _, scope in scopes(result):
        for name, v in _names(scope):
            if not _module(v):
                continue
            params = dict(v.named_parameters())
            if text in params:
                found.append([Target(f"{name}.{text}", params[text])])
                continue
            modules = dict(v.named_modules())
            if text in modules and text:
                found.append(_expand(modules[text], f"{name}.{text}", "--wrt", None))
    return found[0] if len(found) == 1 else None


def parameter_names(result: Any) -> dict[int, str]:
    """id(tensor) -> ``model.0.weight`` for every parameter and buffer of the modules in scope,
    and ``opt.param_groups[0]['params'][i]`` for an optimizer's parameters no module names."""
    out: dict[int, str] = {}
    optimizers = []
    for fn, scope in scopes(result):
        for name, v in _names(scope):
            if _module(v):
                for p, t in [*v.named_parameters(), *v.named_buffers()]:
                    out.setdefault(id(t), f"{name}.{p}")
            elif isinstance(getattr(v, "param_groups", None), list):
                optimizers.append((name, v.param_groups))
    for name, groups in optimizers:
        for g, group in enumerate(groups):
            for i, t in enumerate(group.get("params", ()) if isinstance(group, dict) else ()):
                out.setdefault(id(t), f"{name}.param_groups[{g}]['params'][{i}]")
    return out


__all__ = ["Target", "differentiable", "home", "inputs", "output", "parameter_names",
           "resolve", "scopes"]
