"""A script's own functions: ``def`` and ``lambda``, their arguments, scopes and decorators.

A ``Function`` is callable from Python (``sorted(xs, key=f)``, ``map(f, xs)``): the call goes
back to the interpreter that made it. Its locals are the names its body assigns, decided once
when the ``def`` runs, as CPython decides them when it compiles; names it reads but does not
assign come from the enclosing function's scope (a closure), then the globals.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from ..language import program as P
from ..language.checks import blocks, target_names

FUNCTION_KEY = "__function__"  # a scope's own function: no script name can start with "__"


class Function:
    """A ``def`` or a ``lambda`` with its defaults, closure and locals."""

    __slots__ = ("closure", "defaults", "globals", "interp", "kw_defaults", "locals", "name",
                 "node", "owner", "params", "qualname")
    script_type = "function"

    def __init__(self, node: P.FunctionDef | P.Lambda, interp: Any, closure: dict | None,
                 defaults: tuple, kw_defaults: dict[str, Any], qualname: str = "") -> None:
        self.node = node
        self.name = node.name if isinstance(node, P.FunctionDef) else "<lambda>"
        self.qualname = qualname or self.name  # Net.forward, f.<locals>.g (Python's messages)
        self.owner: Any = None  # the class whose body defined it (what super() starts from)
        self.params = node.params
        self.interp = interp
        self.closure = closure  # the enclosing function's scope; None at the top level
        self.defaults = defaults
        self.kw_defaults = kw_defaults
        if isinstance(node, P.FunctionDef):
            self.globals = declared_globals(node.body)
            self.locals = frozenset((assigned_names(node.body) | param_names(node.params))
                                    - self.globals)
        else:
            self.globals = frozenset()
            self.locals = frozenset(param_names(node.params))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.interp.call_function(self, list(args), kwargs)

    def positional(self, args: tuple, kwargs: dict) -> tuple:
        """The arguments bound to the parameters, defaults applied, as positional values
        (``inspect.Signature.bind`` and ``apply_defaults``, with its messages)."""
        p = self.params
        names = p.names
        if len(args) > len(names) and p.vararg is None:
            raise ScriptError("too many positional arguments", kind="TypeError")
        bound = dict(zip(names, args))
        for key, value in kwargs.items():
            if key in bound:
                raise ScriptError(f"multiple values for argument '{key}'", kind="TypeError")
            if key not in names:
                raise ScriptError(f"got an unexpected keyword argument '{key}'",
                                  kind="TypeError")
            bound[key] = value
        first_default = len(names) - len(self.defaults)
        for i, name in enumerate(names):
            if name not in bound:
                if i < first_default:
                    raise ScriptError(f"missing a required argument: '{name}'",
                                      kind="TypeError")
                bound[name] = self.defaults[i - first_default]
        return tuple(bound[n] for n in names) + tuple(args[len(names):])

    def script_repr(self, printer: Any) -> str:
        """``<function f at 0x7f…>``."""
        return f"<function {self.qualname} at {printer.address(self)}>"

    @property
    def doc(self) -> str | None:
        """The docstring: the body's first statement, when it is a string."""
        body = self.node.body
        if self.node.__class__ is P.FunctionDef and body and body[0].__class__ is P.ExprStmt \
                and body[0].value.__class__ is P.String:
            return body[0].value.value
        return None


class GradModeFunction:
    """A function under ``@torch.no_grad()`` (or ``enable_grad``): each call runs in the mode."""

    __slots__ = ("fn", "make_mode")
    script_type = "function"

    def __init__(self, fn: Any, make_mode: Any) -> None:
        self.fn = fn
        self.make_mode = make_mode

    @property
    def name(self) -> str:
        """The wrapped function's name (``functools.wraps``)."""
        return getattr(self.fn, "name", "function")

    @property
    def qualname(self) -> str:
        """The wrapped function's qualified name."""
        return getattr(self.fn, "qualname", self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self.make_mode():
            return self.fn(*args, **kwargs)

    def script_repr(self, printer: Any) -> str:
        """Printed as the function it wraps, as ``functools.wraps`` makes it."""
        return f"<function {self.name} at {printer.address(self)}>"


class ClassBody:
    """What a class body's scope knows: the class's qualified name and the scope around the
    ``class`` statement (None at the top level), which its functions see instead of it."""

    __slots__ = ("closure", "qualname")
    locals: frozenset[str] = frozenset()  # a name not bound yet is looked up outside
    globals: frozenset[str] = frozenset()

    def __init__(self, qualname: str, closure: dict | None) -> None:
        self.qualname = qualname
        self.closure = closure


class ComprehensionScope:
    """What a comprehension's scope knows: its own loop names and the scope around it."""

    __slots__ = ("closure", "globals", "locals")

    def __init__(self, locals_: frozenset[str], closure: dict) -> None:
        self.locals = locals_
        self.closure = closure
        self.globals: frozenset[str] = frozenset()


def param_names(params: P.Params) -> set[str]:
    """Every name a parameter list binds."""
    names = set(params.names) | set(params.kwonly)
    names.update(n for n in (params.vararg, params.kwarg) if n)
    return names


def bind_arguments(fn: Function, args: list, kwargs: dict) -> dict[str, Any]:
    """A call's arguments bound to the parameters, with CPython's errors."""
    p = fn.params
    names, defaults = p.names, fn.defaults
    n, required = len(names), len(names) - len(defaults)
    label = fn.qualname

    def fail(message: str) -> ScriptError:
        return ScriptError(f"{label}() {message}", kind="TypeError")

    scope: dict[str, Any] = {}
    if len(args) > n and p.vararg is None:
        takes = f"{n}" if not defaults else f"from {required} to {n}"
        raise fail(f"takes {takes} positional argument{'' if n == 1 else 's'} but {len(args)} "
                   f"{'was' if len(args) == 1 else 'were'} given")
    scope.update(zip(names, args))
    if p.vararg is not None:
        scope[p.vararg] = tuple(args[n:])
    extra: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in names or key in p.kwonly:
            if key in scope:
                raise fail(f"got multiple values for argument '{key}'")
            scope[key] = value
        elif p.kwarg is not None:
            extra[key] = value
        else:
            raise fail(f"got an unexpected keyword argument '{key}'")
    missing = [name for name in names[:required] if name not in scope]
    if missing:
        raise fail(f"missing {len(missing)} required positional argument"
                   f"{'' if len(missing) == 1 else 's'}: {_and(missing)}")
    for name, d in zip(names[required:], defaults):
        scope.setdefault(name, d)
    for name in p.kwonly:
        if name not in scope and name in fn.kw_defaults:
            scope[name] = fn.kw_defaults[name]
    missing = [name for name in p.kwonly if name not in scope]
    if missing:
        raise fail(f"missing {len(missing)} required keyword-only argument"
                   f"{'' if len(missing) == 1 else 's'}: {_and(missing)}")
    if p.kwarg is not None:
        scope[p.kwarg] = extra
    return scope


def _and(names: list[str]) -> str:
    """``'a'``, ``'a' and 'b'``, ``'a', 'b' and 'c'``."""
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def assigned_names(body: tuple) -> set[str]:
    """Names a function body binds (its locals, as CPython decides at compile time)."""
    names: set[str] = set()
    stack = list(body)
    while stack:
        s = stack.pop()
        t = type(s)
        if t is P.Assign or t is P.AugAssign:
            names.add(s.target)
        elif t is P.AssignTo:
            for target in s.targets:
                names.update(target_names(target))
        elif t is P.For or t is P.With and s.target is not None:
            names.update(target_names(s.target))
        elif t is P.FunctionDef or t is P.ClassDef:
            names.add(s.name)
            continue  # its body is its own scope
        elif t is P.Annotation:
            names.add(s.target)
        elif t is P.Delete:
            for target in s.targets:
                names.update(target_names(target))
        elif t is P.Import or t is P.ImportFrom:
            names.update(alias or name.split(".")[0] for name, alias in s.names if name != "*")
        elif t is P.Try:
            names.update(h.name for h in s.handlers if h.name)
        for b in blocks(s):
            stack.extend(b)
    return names


def declared_globals(body: tuple) -> frozenset[str]:
    """Names a function body declares ``global``."""
    names: set[str] = set()
    stack = list(body)
    while stack:
        s = stack.pop()
        if type(s) is P.Global:
            names.update(s.names)
        elif type(s) is not P.FunctionDef and type(s) is not P.ClassDef:
            for b in blocks(s):
                stack.extend(b)
    return frozenset(names)


__all__ = ["FUNCTION_KEY", "ClassBody", "ComprehensionScope", "Function", "GradModeFunction",
           "assigned_names", "bind_arguments"]
