"""Writes the program of ``export``: statements, expressions rewritten in place, comments, header.

Text that needs no translation is copied from the script (``splice``): an expression's source
with each rewritten part put in place of its own span.  Every rewrite is a call or an
attribute, so it never changes which operator binds first.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterator
from typing import Any

from ..errors import Span, UsageError
from ..language import program as P
from ..language.checks import subexprs, target_names
from .kinds import DUAL, PYTHON, TENSOR, UNKNOWN, Kinds, Scope, is_range, param_names, scan

# Built-ins whose translation is not "prefix torch." (docs/language.md), handled in `Writer.call`.
_SPECIAL = frozenset({"param", "tensor", "arange", "full", "grad", "seed", "load", "reshape",
                      "view"})
_METHODS = frozenset({"reshape", "view"})  # reshape(x, 2, 3): torch.reshape takes one tuple
_RANDOM = frozenset({"rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                     "normal", "bernoulli", "multinomial", "normal_", "uniform_", "bernoulli_",
                     "exponential_", "random_", "geometric_", "cauchy_", "log_normal_",
                     "dropout"})


class Writer:
    """Writes one program; ``uses`` collects what its header must provide."""

    def __init__(self, program: P.Program, filename: str, wrt: tuple[str, ...], dtype: str,
                 seed: int) -> None:
        from ..script.builtins import GRAD_BUILTINS

        self.builtins = GRAD_BUILTINS
        self.src = program.source
        self.prog = program
        self.filename = filename
        self.wrt = frozenset(wrt)
        self.dtype = f"torch.{dtype}"
        self.default_dtype = dtype
        self.seed = seed
        self.lines = self.src.split("\n")
        self.starts = [0]
        for ln in self.lines:
            self.starts.append(self.starts[-1] + len(ln) + 1)
        self.module = Scope()
        self.functions: dict[int, Scope] = {}
        scan(program.body, self.module, self.module, self.functions)
        self.uses: set[str] = set()  # "F", "random", "sum", "max", ...
        self.helper = {name: self._fresh(f"_{name}") for name in DUAL}
        self.functional = "F" if "F" not in self._all_names() else "torch.nn.functional"
        if "torch" in self.module.spans:
            where = self.module.spans["torch"]
            raise UsageError("cannot export a script that binds the name 'torch': the program "
                             "calls PyTorch through it", span=where,
                             hint="rename the script's variable")
        self.k = Kinds(GRAD_BUILTINS)
        self.comments = list(_comments(self.src))
        self.next_comment = 0
        self.out: list[str] = []
        self.last_line = 0

    def _all_names(self) -> set[str]:
        names = set(self.module.names)
        for s in self.functions.values():
            names |= s.names
        return names

    def _fresh(self, name: str) -> str:
        taken = self._all_names()
        while name in taken:
            name += "_"
        return name

    # -- text -----------------------------------------------------------------------------------
    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def span_range(self, span: Span) -> tuple[int, int]:
        return self.offset(span.line, span.column), self.offset(span.end_line, span.end_column)

    def slice(self, span: Span) -> str:
        a, b = self.span_range(span)
        return self.src[a:b]

    def refuse(self, what: str, where: Any, hint: str | None = None) -> UsageError:
        return UsageError(f"cannot export {what}", span=where.span, hint=hint)

    # -- the whole program ----------------------------------------------------------------------
    def program(self) -> str:
        """The whole program: a header (imports, dtype, seed, helpers), then the script."""
        self.block(self.prog.body, self.module)
        self.flush_comments(None)
        body = self.out
        while body and not body[0].strip():
            body.pop(0)
        name = self.filename
        head = [f"# Exported from {name} by gradcli. Run by Python with PyTorch, this program",
                f"# prints what `gradcli run {name}` prints.", "import torch"]
        if "F" in self.uses and self.functional == "F":
            head.append("import torch.nn.functional as F")
        setup = []
        if self.default_dtype == "float64":
            setup.append("torch.set_default_dtype(torch.float64)  # a grad script computes in "
                         "float64")
        if "random" in self.uses:
            setup.append(f"torch.manual_seed({self.seed})  # gradcli seeds its generator with "
                         f"--seed ({self.seed})")
        if self.wrt:
            names = ", ".join(sorted(self.wrt))
            setup.append(f"# --wrt {names}: each top-level binding of these names to a leaf "
                         "makes it require grad")
        if setup:
            head += ["", *setup]
        helpers = [name for name in DUAL if name in self.uses]
        for name in helpers:
            head += ["", "", f"def {self.helper[name]}(x, *args, **kwargs):",
                     f'    """The script\'s {name}(): PyTorch\'s for a tensor, Python\'s otherwise."""',
                     "    if isinstance(x, torch.Tensor):",
                     f"        return torch.{name}(x, *args, **kwargs)",
                     f"    return {name}(x, *args, **kwargs)"]
        head += ["", ""] if helpers else [""]
        return "\n".join(head + body).rstrip("\n") + "\n"

    # -- comments and blank lines ---------------------------------------------------------------
    def flush_comments(self, before: int | None) -> None:
        """Write the own-line comments above source line ``before`` (all when None)."""
        while self.next_comment < len(self.comments):
            line, col, text, own = self.comments[self.next_comment]
            if before is not None and line >= before:
                return
            self.next_comment += 1
            if not own:  # a trailing comment no statement took (its statement was dropped)
                continue
            self.gap(line)
            self.out.append(" " * col + text)
            self.last_line = line

    def gap(self, line: int) -> None:
        """Keep (up to two of) the blank lines between ``line`` and what was written last."""
        if self.last_line and line > self.last_line + 1:
            between = self.lines[self.last_line:line - 1]
            blank = sum(1 for ln in between if not ln.strip())
            self.out.extend([""] * min(2, blank))

    def trailing(self, first: int, last: int, inside: list[tuple[int, int]]) -> str:
        """The end-of-line comments on lines first..last that are not inside copied text."""
        found = []
        for i in range(self.next_comment, len(self.comments)):
            line, col, text, own = self.comments[i]
            if line > last:
                break
            if own or line < first:
                continue
            at = self.offset(line, col + 1)
            if any(a <= at < b for a, b in inside):
                continue
            found.append(text)
            self.comments[i] = (line, col, "", False)  # taken: never written again
        return ("  " + "  ".join(found)) if found else ""

    def emit(self, first: int, last: int, indent: int, lines: list[str],
             inside: list[tuple[int, int]]) -> None:
        """Write program lines for source lines first..last (a line may hold copied newlines);
        the end-of-line comments of those source lines go after the last."""
        self.flush_comments(first)
        self.gap(first)
        for text in lines[:-1]:
            self.out.append(" " * indent + text)
        self.out.append(" " * indent + lines[-1] + self.trailing(first, last, inside))
        self.last_line = max(self.last_line, last)

    # -- statements -----------------------------------------------------------------------------
    def block(self, body: tuple[Any, ...], scope: Scope, indent: int | None = None) -> None:
        """Write the statements of a block; simple statements sharing a source line stay on
        one line, joined by ``; `` as the script wrote them, unless that line grows too long.
        ``indent`` replaces the script's for a block it wrote on its header's line."""
        forced = indent
        group: list[tuple[str, bool]] = []  # (text, a --wrt statement that has its own line)
        spans: list[Span] = []

        def close() -> None:
            if not group:
                return
            indent = forced if forced is not None else spans[0].column - 1
            runs: list[list[str]] = [[]]
            for text, own in group:
                if own:
                    runs += [[text], []]
                else:
                    runs[-1].append(text)
            lines: list[str] = []
            for run in filter(None, runs):
                joined = "; ".join(run)
                lines += [joined] if indent + len(joined) <= _LINE else run
            self.emit(spans[0].line, max(sp.end_line for sp in spans), indent, lines,
                      [self.span_range(sp) for sp in spans])
            group.clear()
            spans.clear()

        for s in body:
            if s.__class__ is P.ClassDef:
                raise self.refuse("a class statement", s, "export writes grad scripts without "
                                  "classes as PyTorch programs; a script with classes is one "
                                  "already (gradcli run FILE.py)")
            if s.__class__ in _COMPOUND:
                close()
                self.compound(s, scope)
                continue
            if spans and s.span.line != spans[-1].end_line:
                close()
            group.extend(self.simple(s, scope))
            spans.append(s.span)
        close()

    def simple(self, s: Any, scope: Scope) -> list[tuple[str, bool]]:
        """The text of a simple statement, then the --wrt statements that follow it (each on a
        line of its own)."""
        return [(text, i > 0) for i, text in enumerate(self._simple(s, scope))]

    def _simple(self, s: Any, scope: Scope) -> list[str]:
        cls = s.__class__
        if cls is P.Assign:
            marked = self.marked(s.target, scope)
            if s.literal:
                return [f"{s.target} = {self.leaf(s.value, marked)}"]
            return [self.splice_stmt(s, scope), *self.mark(s.target, s.value, scope, marked)]
        if cls is P.AssignTo:
            names = [t.id for t in s.targets if t.__class__ is P.Name]
            if s.literal and len(names) == len(s.targets):
                marked = any(self.marked(n, scope) for n in names)
                return [" = ".join(names) + " = " + self.leaf(s.value, marked)]
            if s.literal:
                raise self.refuse("a literal assigned to an attribute or an item together "
                                  "with names", s)
            extra: list[str] = []
            for t in s.targets:
                for name in target_names(t):
                    value = s.value if t.__class__ is P.Name else None
                    extra += self.mark(name, value, scope, self.marked(name, scope))
            return [self.splice_stmt(s, scope), *extra]
        if cls is P.AugAssign:
            text = self.splice_stmt(s, scope)
            if self.marked(s.target, scope):
                kind = self.k.kind(P.Binary(s.op, P.Name(s.target, s.span), s.value, s.span),
                                 scope)
                if kind == UNKNOWN:
                    return [text, self.guarded(s.target)]
            return [text]
        if cls is P.ExprStmt:
            v = s.value
            if v.__class__ is P.Call and v.func.__class__ is P.Name and v.func.id == "seed" \
                    and self.k.builtin("seed", scope):
                return [self.seed_call(v, scope)]
            return [self.splice_stmt(s, scope)]
        if cls is P.Annotation:  # `x: int` binds nothing; `x: int = v` is the assignment
            end = self.span_range(s.span)[1]
            return [] if self.src[end:].lstrip(" \t").startswith("=") else ["pass"]
        return [self.splice_stmt(s, scope)]

    def splice_stmt(self, s: Any, scope: Scope) -> str:
        children = _stmt_children(s)
        return self.splice(s.span, children, scope)

    def marked(self, name: str, scope: Scope) -> bool:
        """Whether binding ``name`` in ``scope`` makes a leaf require grad (--wrt, at top
        level or through ``global``)."""
        return name in self.wrt and (scope is self.module or name in scope.globals)

    def mark(self, name: str, value: Any, scope: Scope, marked: bool) -> list[str]:
        """The statement after a binding of a --wrt name: make a leaf require grad."""
        if not marked:
            return []
        kind = self.k.kind(value, scope) if value is not None else UNKNOWN
        if kind == TENSOR:
            return [f"{name}.requires_grad_()"]
        if kind == PYTHON:
            return []
        return [self.guarded(name)]

    @staticmethod
    def guarded(name: str) -> str:
        return f"if isinstance({name}, torch.Tensor) and {name}.is_leaf: {name}.requires_grad_()"

    def compound(self, s: Any, scope: Scope) -> None:
        """A compound statement: its header lines and blocks."""
        cls = s.__class__
        indent = s.span.column - 1
        if cls is P.FunctionDef:
            for d in s.decorators:
                self.header(d.span.line, indent, "@" + self.expr(d, scope), [d])
            params = self.params(s.params, scope)
            self.suite(s.params.span.line, indent, f"def {s.name}{params}:", [s.params], s.body,
                       self.functions[id(s)])
        elif cls is P.For:
            marks = [self.guarded(n) for n in target_names(s.target)
                     if self.marked(n, scope) and not is_range(s.iter)]
            self.suite(s.span.line, indent, f"for {self.expr(s.target, scope)} in "
                       f"{self.expr(s.iter, scope)}:", [s.target, s.iter], s.body, scope, marks)
            self.orelse(s.orelse, indent, scope)
        elif cls is P.While:
            self.suite(s.span.line, indent, f"while {self.expr(s.test, scope)}:", [s.test],
                       s.body, scope)
            self.orelse(s.orelse, indent, scope)
        elif cls is P.If:
            for i, (test, body) in enumerate(s.branches):
                word = "if" if i == 0 else "elif"
                self.suite(test.span.line, indent, f"{word} {self.expr(test, scope)}:", [test],
                           body, scope)
            self.orelse(s.orelse, indent, scope)
        elif cls is P.With:
            items, parts, marks, body = [], [], [], s.body
            while True:  # `with a, b:` is a With inside a With, both on the header's line
                text = self.expr(s.context, scope)
                parts.append(s.context)
                if s.target is not None:
                    text += f" as {self.expr(s.target, scope)}"
                    parts.append(s.target)
                    marks += [self.guarded(n) for n in target_names(s.target)
                              if self.marked(n, scope)]
                items.append(text)
                body = s.body
                if not (len(body) == 1 and body[0].__class__ is P.With
                        and body[0].span == s.span):
                    break
                s = body[0]
            self.suite(s.span.line, indent, "with " + ", ".join(items) + ":", parts, body,
                       scope, marks)
        elif cls is P.Try:
            self.suite(s.span.line, indent, "try:", [], s.body, scope)
            for h in s.handlers:
                text = "except"
                parts = []
                if h.type is not None:
                    text += " " + self.expr(h.type, scope)
                    parts.append(h.type)
                if h.name is not None:
                    text += f" as {h.name}"
                self.suite(h.span.line, indent, text + ":", parts, h.body, scope)
            self.orelse(s.orelse, indent, scope)
            if s.finalbody:
                self.suite(self.line_before(s.finalbody), indent, "finally:", [], s.finalbody,
                           scope)

    def suite(self, line: int, indent: int, text: str, parts: list[Any], body: tuple[Any, ...],
              scope: Scope, marks: list[str] | tuple[str, ...] = ()) -> None:
        """A header and its block; a block the script wrote on the header's line stays there
        (``if c: x = 1``) unless the line grows too long or --wrt statements must follow."""
        colon = max([line, *(p.span.end_line for p in parts)])
        inline = body[0].span.line == colon
        if inline and not marks:
            entries = [e for st in body for e in self.simple(st, scope)]
            joined = text + " " + "; ".join(t for t, _ in entries)
            if indent + len(joined) <= _LINE and not any(own for _, own in entries):
                inside = [self.span_range(p.span) for p in [*parts, *body]]
                self.emit(line, max(colon, body[-1].span.end_line), indent, [joined], inside)
                return
        self.header(line, indent, text, parts)
        inner = indent + 4 if inline else body[0].span.column - 1
        if marks:  # a loop's or a with's variable is bound at the top of the block
            self.emit(body[0].span.line, body[0].span.line - 1, inner, list(marks), [])
        self.block(body, scope, inner if inline else None)

    def orelse(self, body: tuple[Any, ...], indent: int, scope: Scope) -> None:
        if body:
            self.suite(self.line_before(body), indent, "else:", [], body, scope)

    def line_before(self, body: tuple[Any, ...]) -> int:
        """The line of the ``else:``/``finally:`` above a block (or the block's own line)."""
        first = body[0].span
        line = first.line
        while line > 1 and not self.lines[line - 1][:first.column - 1].strip():
            line -= 1
            stripped = self.lines[line - 1].strip()
            if stripped.startswith(("else", "finally")):
                return line
        return first.line

    def header(self, line: int, indent: int, text: str, parts: list[Any]) -> None:
        inside = [self.span_range(p.span) for p in parts]
        end = max([line, *(p.span.end_line for p in parts)])
        self.emit(line, end, indent, [text], inside)

    def params(self, params: P.Params, scope: Scope) -> str:
        if not params.defaults and not any(params.kw_defaults):
            return self.slice(params.span)
        children = [*params.defaults, *(d for d in params.kw_defaults if d is not None)]
        return self.splice(params.span, children, scope)

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, e: Any, scope: Scope) -> str:
        """An expression's text: copied from the source, with the parts that differ rewritten."""
        cls = e.__class__
        if cls is P.Name:
            return self.name(e, scope)
        if cls is P.Call and e.func.__class__ is P.Name and self.k.builtin(e.func.id, scope):
            return self.call(e, scope)
        if cls is P.Lambda:
            inner = Scope(parent=scope)
            for name in param_names(e.params):
                inner.bind(name, UNKNOWN)
            children = [*e.params.defaults, *(d for d in e.params.kw_defaults if d)]
            return self.splice(e.span, [*children, e.body], scope, {id(e.body): inner})
        if cls is P.Comprehension:
            inner = Scope(parent=scope)
            for g in e.generators:
                for name in target_names(g.target):
                    inner.bind(name, UNKNOWN)
            # the first iterable is read in the enclosing scope, everything else inside
            first = e.generators[0]
            outer = {id(first.iter): scope}
            render = {id(first): lambda g: self.splice(g.span, list(subexprs(g)), inner,
                                                       outer)}
            return self.splice(e.span, list(subexprs(e)), inner, render=render)
        if cls is P.Attribute and e.attr in _RANDOM:
            self.uses.add("random")
        return self.splice(e.span, list(subexprs(e)), scope)

    def splice(self, span: Span, children: list[Any], scope: Scope,
               scopes: dict[int, Scope] | None = None,
               render: dict[int, Any] | None = None) -> str:
        """The source of ``span`` with each child's text in place of its own span."""
        a, b = self.span_range(span)
        parts: list[str] = []
        at = a
        for child in sorted(children, key=lambda c: self.span_range(c.span)[0]):
            ca, cb = self.span_range(child.span)
            if ca < at or cb > b:  # a child not laid out in the text: copying would be wrong
                raise self.refuse("this expression", child,
                                  "its parts are not where the source has them")
            parts.append(self.src[at:ca])
            if render and id(child) in render:
                parts.append(render[id(child)](child))
            else:
                parts.append(self.expr(child, (scopes or {}).get(id(child), scope)))
            at = cb
        parts.append(self.src[at:b])
        return "".join(parts)

    def name(self, e: P.Name, scope: Scope) -> str:
        """A name read as a value: a built-in's PyTorch name."""
        n = e.id
        if not self.k.builtin(n, scope):
            return n
        fn = self.builtins[n]
        from ..script.pybuiltins import PY_BUILTINS

        if PY_BUILTINS.get(n) is fn or n in ("abs", "pow"):
            return n
        if n in DUAL:
            self.uses.add(n)
            return self.helper[n]
        if n in _SPECIAL:
            raise self.refuse(f"{n} as a value", e, f"call it: {n}(...)")
        if n in _RANDOM:
            self.uses.add("random")
        return self.torch_name(n)

    def torch_name(self, n: str) -> str:
        from .. import api
        from ..engine import NN_FUNCTIONS

        fn = self.builtins[n]
        if n in NN_FUNCTIONS and fn is NN_FUNCTIONS[n] and api.FUNCTIONS.get(n) is not fn:
            self.uses.add("F")
            return f"{self.functional}.{n}"
        return f"torch.{n}"

    def call(self, e: P.Call, scope: Scope) -> str:
        """A call of a built-in: its PyTorch form."""
        n = e.func.id
        if n in DUAL and e.__class__ is P.Call:
            if not e.args:
                return self.splice(e.span, [e.func, *e.args, *(v for _, v in e.kwargs)], scope)
            kind = self.k.kind(e.args[0], scope)
            fn = {TENSOR: f"torch.{n}", PYTHON: n}.get(kind)
            if fn is None:
                self.uses.add(n)
                fn = self.helper[n]
            whole = self.splice(e.span, [*e.args, *(v for _, v in e.kwargs)], scope)
            return fn + whole[len(self.slice(e.func.span)):]
        if n not in _SPECIAL:
            return self.splice(e.span, [e.func, *e.args, *(v for _, v in e.kwargs)], scope)
        if e.__class__ is not P.Call:
            raise self.refuse(f"{n}() with *args or **kwargs", e)
        if n == "load":
            raise self.refuse("load()", e, "the program would read the file with NumPy; "
                              "write the data into the script, or load it in the exported "
                              "program yourself")
        if n == "seed":
            raise self.refuse("seed() inside an expression", e,
                              "call seed(n) as a statement of its own")
        args = [self.expr(a, scope) for a in e.args]
        kwargs = [(k, self.expr(v, scope)) for k, v in e.kwargs]
        keys = {k for k, _ in kwargs}
        if n == "grad":
            return "list(torch.autograd.grad(" + self.arglist(args, kwargs) + "))"
        if n in _METHODS:
            if not e.args:
                raise self.refuse(f"{n}() without a tensor", e)
            first = e.args[0]
            receiver = args[0] if first.__class__ in _ATOMS else f"({args[0]})"
            return f"{receiver}.{n}(" + self.arglist(args[1:], kwargs) + ")"
        if n == "param":
            if len(args) != 1 or kwargs:
                raise self.refuse("param() with other than one argument", e)
            return f"torch.tensor({args[0]}, dtype={self.dtype}, requires_grad=True)"
        if "dtype" not in keys:
            kwargs.insert(0, ("dtype", self.dtype))
        return f"torch.{n}(" + self.arglist(args, kwargs) + ")"

    @staticmethod
    def arglist(args: list[str], kwargs: list[tuple[str, str]]) -> str:
        return ", ".join([*args, *(f"{k}={v}" for k, v in kwargs)])

    def seed_call(self, e: P.Call, scope: Scope) -> str:
        if e.kwargs or len(e.args) != 1:
            raise self.refuse("seed() with other than one argument", e)
        return f"torch.manual_seed({self.expr(e.args[0], scope)})"

    def leaf(self, value: Any, requires_grad: bool) -> str:
        """``torch.tensor(<literal>, dtype=...)`` for a bare-literal assignment (docs/language.md)."""
        text = self.literal(value)
        grad = ", requires_grad=True" if requires_grad else ""
        return f"torch.tensor({text}, dtype={self.dtype}{grad})"

    def literal(self, value: Any) -> str:
        """A literal's text as written, unless a sign stands before a list (``-[1, 2]`` is not
        Python): then the signs go into the numbers, ``[-1, -2]``."""
        stack = [value]
        while stack:
            node = stack.pop()
            if node.__class__ is P.Unary:
                if node.operand.__class__ is P.ListExpr:
                    return _signed(value, False, self)
                stack.append(node.operand)
            elif node.__class__ is P.ListExpr:
                stack.extend(node.items)
        return self.slice(value.span)

_LINE = 99  # joined statements longer than this go on lines of their own
_ATOMS = (P.Name, P.Call, P.Attribute, P.Subscript)  # a method can follow them unbracketed
_COMPOUND = (P.FunctionDef, P.For, P.While, P.If, P.With, P.Try)


def _signed(node: Any, negate: bool, ex: Writer) -> str:
    """A literal with its signs moved into the numbers: ``-[1, [2, -3]]`` as ``[-1, [-2, 3]]``
    (a literal is at most a few dimensions deep, so the recursion is shallow)."""
    if node.__class__ is P.Unary:
        return _signed(node.operand, negate != (node.op == "-"), ex)
    if node.__class__ is P.ListExpr:
        return "[" + ", ".join(_signed(item, negate, ex) for item in node.items) + "]"
    return ("-" if negate else "") + ex.slice(node.span)


def _stmt_children(s: Any) -> list[Any]:
    """The expressions a simple statement is made of, in source order."""
    cls = s.__class__
    if cls is P.Assign or cls is P.AugAssign:
        return [s.value]
    if cls is P.AssignTo:
        return [*s.targets, s.value]
    if cls is P.AugAssignTo:
        return [s.target, s.value]
    if cls is P.ExprStmt:
        return [s.value]
    if cls is P.Return:
        return [s.value] if s.value is not None else []
    if cls is P.Raise:
        return [x for x in (s.exc, s.cause) if x is not None]
    if cls is P.Assert:
        return [x for x in (s.test, s.msg) if x is not None]
    if cls is P.Delete:
        return list(s.targets)
    return []


def _comments(source: str) -> Iterator[tuple[int, int, str, bool]]:
    """(line, column, text, on a line of its own) of every comment in the script."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                line, col = tok.start
                own = not tok.line[:col].strip()
                yield line, col, tok.string, own
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return
