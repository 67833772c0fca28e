"""Statements that define things: ``def``, ``lambda``'s function object, ``class`` and a class
body's annotations, and decorators (``@torch.no_grad()``, ``@dataclass``, ``@property``).

``Definitions`` is a mixin of ``interpreter.Interpreter`` (it shares the run's state): a
function's qualified name, closure and defaults are decided when its ``def`` runs; a class
body runs in a scope of its own (``functions.ClassBody``) whose functions see the scope
around the class, and its namespace becomes a ``classes.ScriptClass``.
"""

from __future__ import annotations

import copy
from typing import Any

from ..engine.context import GradMode
from ..errors import ScriptError
from ..language import program as P
from .builtins import GRAD_MODE_FACTORIES
from .classes import check_bases
from .functions import FUNCTION_KEY, ClassBody, Function, GradModeFunction
from .instances import make_class

ANNOTATIONS = "__annotations__"  # where a class body keeps its annotations


class Definitions:
    """``def``, ``class`` and decorators for the interpreter (see the module docstring)."""

    globals: dict[str, Any]

    # -- classes --------------------------------------------------------------------------------
    def _class(self, s: P.ClassDef, scope: dict, top: bool) -> None:
        decorators = [self.eval(d, scope) for d in s.decorators]
        bases = tuple(self.eval(b, scope) for b in s.bases)
        check_bases(bases)
        if s.keywords:
            raise ScriptError(f"gradcli does not support class keywords ('{s.keywords[0][0]}=')",
                              kind="NotImplementedError")
        where = scope.get(FUNCTION_KEY)
        qualname = s.name if where is None else f"{where.qualname}.{s.name}" \
            if where.__class__ is ClassBody else f"{where.qualname}.<locals>.{s.name}" \
            if where.__class__ is Function else s.name
        body: dict[str, Any] = {FUNCTION_KEY: ClassBody(
            qualname, None if scope is self.globals else scope)}
        first = s.body[0]
        body["__doc__"] = first.value.value if first.__class__ is P.ExprStmt and \
            first.value.__class__ is P.String else None
        self.exec_block(s.body, body)
        del body[FUNCTION_KEY]
        cls: Any = make_class(self, s.name, qualname, bases, body)
        for value in body.values():  # what super() in each method starts after
            fn = getattr(value, "function", value)
            for f in (fn, getattr(value, "fget", None), getattr(value, "fset", None)):
                if f.__class__ is Function and f.owner is None:
                    f.owner = cls
        for dec in reversed(decorators):
            cls = self._decorate(dec, cls)
        self.bind(s.name, cls, scope, top)

    def _annotation(self, s: P.Annotation, scope: dict, top: bool) -> None:
        """``name: annotation``: evaluated and kept at the top level and in a class body, as
        Python does; not evaluated in a function."""
        where = scope.get(FUNCTION_KEY)
        if where is None:
            self.eval(s.annotation, scope)  # kept in the module's __annotations__, unread
        elif where.__class__ is ClassBody:  # dataclasses read the class's
            scope.setdefault(ANNOTATIONS, {})[s.target] = self.eval(s.annotation, scope)

    # -- functions ------------------------------------------------------------------------------
    def _def(self, s: P.FunctionDef, scope: dict, top: bool) -> None:
        decorators = [self.eval(d, scope) for d in s.decorators]
        fn: Any = self.make_function(s, scope)
        for dec in reversed(decorators):
            fn = self._decorate(dec, fn)
        self.bind(s.name, fn, scope, top)

    def make_function(self, node: P.FunctionDef | P.Lambda, scope: dict) -> Function:
        """A function object: defaults evaluated now, as Python does, in the defining scope."""
        p = node.params
        defaults = tuple(self.eval(d, scope) for d in p.defaults)
        kw_defaults = {name: self.eval(d, scope) for name, d in zip(p.kwonly, p.kw_defaults)
                       if d is not None}
        closure = None if scope is self.globals else scope
        name = node.name if node.__class__ is P.FunctionDef else "<lambda>"
        qualname = name
        where = scope.get(FUNCTION_KEY)
        if where.__class__ is ClassBody:  # a method: it sees the scope around the class
            closure, qualname = where.closure, f"{where.qualname}.{name}"
        elif where.__class__ is Function:
            qualname = f"{where.qualname}.<locals>.{name}"
        return Function(node, self, closure, defaults, kw_defaults, qualname)

    def _decorate(self, dec: Any, fn: Any) -> Any:
        if isinstance(dec, GradMode):  # @torch.no_grad(): a fresh mode object for each call
            if callable(dec):  # what decorating does besides (set_grad_enabled undoes itself)
                dec(fn)
            fresh = getattr(dec, "clone", None)
            return GradModeFunction(fn, fresh if fresh is not None else lambda: copy.copy(dec))
        if any(dec is f for f in GRAD_MODE_FACTORIES):  # @torch.no_grad without parentheses
            return GradModeFunction(fn, dec)
        return self.call_value(dec, [fn], {})


__all__ = ["Definitions"]
