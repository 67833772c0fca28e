"""``gradcli export``: a grad script as the standalone PyTorch program it means (SPEC §2.7, §7).

The program is written from the compiled ``language/program.py`` dataclasses and the script's
own text: every expression that needs no translation is copied from the source as written
(names, spacing, comments inside brackets), and only what differs is rewritten in place, each
rewrite a call or an attribute, so no operator precedence changes:

- a bare-literal assignment ``x = 1`` makes a leaf, ``torch.tensor(1, dtype=torch.float64)``
  (``requires_grad=True`` when ``--wrt`` names it);
- a built-in is PyTorch's function, ``tanh(x)`` → ``torch.tanh(x)``, ``softmax`` →
  ``F.softmax``; ``param``, ``tensor``, ``arange``, ``full``, ``grad``, ``seed`` as SPEC §2.7
  says; ``sum``/``max``/``min``/``round`` are PyTorch's for a tensor and Python's otherwise,
  so they become ``torch.sum`` or stay Python's where the argument's kind is known from the
  script, and a small helper decides at run time where it is not;
- a ``--wrt`` name is made to require grad after each top-level binding, as gradcli does;
- grad scripts compute in float64, so the program sets PyTorch's default dtype (which also
  makes its tensor reprs print as gradcli prints them), and seeds PyTorch's generator with
  ``--seed`` when the script draws random numbers.

Comments are kept at their lines.  A construct with no faithful PyTorch equivalent is a
``UsageError`` at its position (exit 2), never a program that computes something else.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import Span, UsageError
from .language import program as P
from .language.checks import _subexprs, blocks, target_names

# Built-ins whose translation is not "prefix torch." (SPEC §2.7), handled in `_call`.
_SPECIAL = frozenset({"param", "tensor", "arange", "full", "grad", "seed", "load", "reshape",
                      "view"})
_METHODS = frozenset({"reshape", "view"})  # reshape(x, 2, 3): torch.reshape takes one tuple
# PyTorch's for a tensor first argument, Python's otherwise; Python's round() of a tensor
# fails (Tensor has no __round__), abs() and pow() of one are PyTorch's already.
_DUAL = ("sum", "max", "min", "round")
_CREATION_DTYPE = frozenset({"tensor", "arange", "full"})  # int data would make int64 tensors
_RANDOM = frozenset({"rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                     "normal", "bernoulli", "multinomial", "normal_", "uniform_", "bernoulli_",
                     "exponential_", "random_", "geometric_", "cauchy_", "log_normal_",
                     "dropout"})
# Tensor methods and attributes whose result is not a tensor (for the kind of an expression)
_PLAIN_METHODS = frozenset({"item", "tolist", "dim", "size", "numel", "nelement", "ndimension",
                            "backward", "register_hook", "retain_grad", "is_contiguous",
                            "is_floating_point", "element_size", "stride", "data_ptr",
                            "storage_offset", "equal", "allclose", "name"})
_TENSOR_ATTRIBUTES = frozenset({"grad", "data", "T", "mT", "H", "mH", "real"})
_PLAIN_RESULTS = frozenset({"numel", "equal", "allclose", "grad", "no_grad", "enable_grad",
                            "split", "chunk", "unbind", "seed"})


def export_source(source: str, filename: str, *, wrt: tuple[str, ...] | list[str] = (),
                  dtype: str = "float64", seed: int = 0) -> str:
    """The PyTorch program equivalent to the grad script ``source`` (raises UsageError for a
    construct it cannot translate, ScriptSyntaxError for a script that does not parse)."""
    from .language.parser import parse

    return export_program(parse(source, filename), filename, wrt=wrt, dtype=dtype, seed=seed)


def export_program(program: P.Program, filename: str, *, wrt: tuple[str, ...] | list[str] = (),
                   dtype: str = "float64", seed: int = 0) -> str:
    """The PyTorch program equivalent to a parsed grad script."""
    from .engine.context import process_guard

    with process_guard():  # an expression may nest 1,000 deep: the recursion limit is raised
        return _Exporter(program, filename, tuple(wrt), dtype, seed).program()


# ---------------------------------------------------------------- scopes and kinds


@dataclass
class _Scope:
    """Names a scope binds, and the values bound to each (for the kind of a name)."""

    names: set[str] = field(default_factory=set)
    values: dict[str, list[Any]] = field(default_factory=dict)
    parent: _Scope | None = None
    globals: set[str] = field(default_factory=set)
    spans: dict[str, Span] = field(default_factory=dict)

    def bind(self, name: str, value: Any) -> None:
        self.names.add(name)
        self.values.setdefault(name, []).append(value)


_UNKNOWN = "unknown"  # a binding whose value's kind cannot be told (a parameter, a loop item)
_TENSOR = "tensor"
_PYTHON = "python"


def _scan(body: tuple[Any, ...], scope: _Scope, module: _Scope,
          functions: dict[int, _Scope]) -> None:
    """Record what each statement of ``body`` binds in ``scope`` (function bodies: their own)."""
    for s in body:
        cls = s.__class__
        if cls is P.FunctionDef:
            _bind(scope, module, s.name, _PYTHON, s.span)
            inner = _Scope(parent=scope)
            functions[id(s)] = inner
            for name in _param_names(s.params):
                star = name in (s.params.vararg, s.params.kwarg)  # a tuple, a dict
                inner.bind(name, _PYTHON if star else _UNKNOWN)
                module.spans.setdefault(name, s.params.span)
            inner.globals = {n for g in _walk_stmts(s.body) if g.__class__ is P.Global
                             for n in g.names}
            _scan(s.body, inner, module, functions)
            continue
        if cls is P.Assign:
            _bind(scope, module, s.target, _TENSOR if s.literal else s.value, s.span)
        elif cls is P.AssignTo:
            for t in s.targets:
                if t.__class__ is P.Name:
                    _bind(scope, module, t.id, _TENSOR if s.literal else s.value, s.span)
                else:
                    for name in target_names(t):
                        _bind(scope, module, name, _UNKNOWN, s.span)
        elif cls is P.AugAssign:
            value = P.Binary(s.op, P.Name(s.target, s.span), s.value, s.span)
            _bind(scope, module, s.target, value, s.span)
        elif cls is P.For:
            item = _PYTHON if _is_range(s.iter) else _UNKNOWN
            for name in target_names(s.target):
                _bind(scope, module, name, item, s.span)
        elif cls is P.With and s.target is not None:
            for name in target_names(s.target):
                _bind(scope, module, name, _UNKNOWN, s.span)
        elif cls is P.Try:
            for h in s.handlers:
                if h.name is not None:
                    _bind(scope, module, h.name, _PYTHON, s.span)
        elif cls is P.Import or cls is P.ImportFrom:
            for name, alias in s.names:
                bound = alias or name.split(".")[0]
                if bound == "torch" and name.split(".")[0] == "torch" and cls is P.Import:
                    scope.bind(bound, _PYTHON)  # `import torch` later in a script: the same
                    continue
                _bind(scope, module, bound, _PYTHON, s.span)
        elif cls is P.Delete:
            for t in s.targets:
                for name in target_names(t):
                    _bind(scope, module, name, _UNKNOWN, s.span)
        for b in blocks(s):
            _scan(tuple(b), scope, module, functions)


def _bind(scope: _Scope, module: _Scope, name: str, value: Any, span: Span) -> None:
    (module if name in scope.globals else scope).bind(name, value)
    module.spans.setdefault(name, span)  # where a name is first bound, in any scope


def _param_names(params: P.Params) -> list[str]:
    return [*params.names, *([params.vararg] if params.vararg else []), *params.kwonly,
            *([params.kwarg] if params.kwarg else [])]


def _walk_stmts(body: tuple[Any, ...]) -> Iterator[Any]:
    """Every statement of a function body, not descending into nested functions."""
    stack = list(body)
    while stack:
        s = stack.pop()
        yield s
        for b in blocks(s):
            stack.extend(b)


def _is_range(e: Any) -> bool:
    return e.__class__ is P.Call and e.func.__class__ is P.Name and e.func.id == "range"


# ---------------------------------------------------------------- the exporter


class _Exporter:
    """Writes one program; ``uses`` collects what its header must provide."""

    def __init__(self, program: P.Program, filename: str, wrt: tuple[str, ...], dtype: str,
                 seed: int) -> None:
        from .script.builtins import GRAD_BUILTINS

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
        self.module = _Scope()
        self.functions: dict[int, _Scope] = {}
        _scan(program.body, self.module, self.module, self.functions)
        self.uses: set[str] = set()  # "F", "random", "sum", "max", ...
        self.helper = {name: self._fresh(f"_{name}") for name in _DUAL}
        self.functional = "F" if "F" not in self._all_names() else "torch.nn.functional"
        if "torch" in self.module.spans:
            where = self.module.spans["torch"]
            raise UsageError("cannot export a script that binds the name 'torch': the program "
                             "calls PyTorch through it", span=where,
                             hint="rename the script's variable")
        self.kinds: dict[tuple[int, str], str] = {}
        self.assumed: dict[tuple[int, str], str] = {}
        self.budget = _KIND_BUDGET
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
        helpers = [name for name in _DUAL if name in self.uses]
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
    def block(self, body: tuple[Any, ...], scope: _Scope) -> None:
        """Write the statements of a block; simple statements sharing a source line stay on
        one line, joined by ``; `` as the script wrote them, unless that line grows too long."""
        group: list[tuple[str, bool]] = []  # (text, a --wrt statement that has its own line)
        spans: list[Span] = []

        def close() -> None:
            if not group:
                return
            indent = spans[0].column - 1
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
            if s.__class__ in _COMPOUND:
                close()
                self.compound(s, scope)
                continue
            if spans and s.span.line != spans[-1].end_line:
                close()
            group.extend(self.simple(s, scope))
            spans.append(s.span)
        close()

    def simple(self, s: Any, scope: _Scope) -> list[tuple[str, bool]]:
        """The text of a simple statement, then the --wrt statements that follow it (each on a
        line of its own)."""
        return [(text, i > 0) for i, text in enumerate(self._simple(s, scope))]

    def _simple(self, s: Any, scope: _Scope) -> list[str]:
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
                kind = self.kind(P.Binary(s.op, P.Name(s.target, s.span), s.value, s.span),
                                 scope)
                if kind == _UNKNOWN:
                    return [text, self.guarded(s.target)]
            return [text]
        if cls is P.ExprStmt:
            v = s.value
            if v.__class__ is P.Call and v.func.__class__ is P.Name and v.func.id == "seed" \
                    and self.builtin("seed", scope):
                return [self.seed_call(v, scope)]
            return [self.splice_stmt(s, scope)]
        if cls is P.Pass and self.slice(s.span) != "pass":
            return ["pass"]  # an annotation without a value (`x: int`) binds nothing
        return [self.splice_stmt(s, scope)]

    def splice_stmt(self, s: Any, scope: _Scope) -> str:
        children = _stmt_children(s)
        return self.splice(s.span, children, scope)

    def marked(self, name: str, scope: _Scope) -> bool:
        """Whether binding ``name`` in ``scope`` makes a leaf require grad (--wrt, at top
        level or through ``global``)."""
        return name in self.wrt and (scope is self.module or name in scope.globals)

    def mark(self, name: str, value: Any, scope: _Scope, marked: bool) -> list[str]:
        """The statement after a binding of a --wrt name: make a leaf require grad."""
        if not marked:
            return []
        kind = self.kind(value, scope) if value is not None else _UNKNOWN
        if kind == _TENSOR:
            return [f"{name}.requires_grad_()"]
        if kind == _PYTHON:
            return []
        return [self.guarded(name)]

    @staticmethod
    def guarded(name: str) -> str:
        return f"if isinstance({name}, torch.Tensor) and {name}.is_leaf: {name}.requires_grad_()"

    def compound(self, s: Any, scope: _Scope) -> None:
        cls = s.__class__
        indent = s.span.column - 1
        if cls is P.FunctionDef:
            for d in s.decorators:
                self.header(d.span.line, indent, "@" + self.expr(d, scope), [d])
            inner = self.functions[id(s)]
            params = self.params(s.params, scope)
            self.header(s.params.span.line, indent, f"def {s.name}{params}:", [s.params])
            self.block(s.body, inner)
            return
        if cls is P.For:
            self.header(s.span.line, indent, f"for {self.expr(s.target, scope)} in "
                        f"{self.expr(s.iter, scope)}:", [s.target, s.iter])
            marks = [self.guarded(n) for n in target_names(s.target)
                     if self.marked(n, scope) and not _is_range(s.iter)]
            if marks:  # the loop variable is bound at the top of each pass
                first = s.body[0].span
                self.emit(first.line, first.line - 1, first.column - 1, marks, [])
            self.block(s.body, scope)
            self.orelse(s.orelse, indent, scope)
            return
        if cls is P.While:
            self.header(s.span.line, indent, f"while {self.expr(s.test, scope)}:", [s.test])
            self.block(s.body, scope)
            self.orelse(s.orelse, indent, scope)
            return
        if cls is P.If:
            for i, (test, body) in enumerate(s.branches):
                word = "if" if i == 0 else "elif"
                self.header(test.span.line, indent, f"{word} {self.expr(test, scope)}:", [test])
                self.block(body, scope)
            self.orelse(s.orelse, indent, scope)
            return
        if cls is P.With:
            text = f"with {self.expr(s.context, scope)}"
            parts = [s.context]
            if s.target is not None:
                text += f" as {self.expr(s.target, scope)}"
                parts.append(s.target)
            self.header(s.span.line, indent, text + ":", parts)
            if s.target is not None:
                marks = [self.guarded(n) for n in target_names(s.target)
                         if self.marked(n, scope)]
                if marks:
                    first = s.body[0].span
                    self.emit(first.line, first.line - 1, first.column - 1, marks, [])
            self.block(s.body, scope)
            return
        if cls is P.Try:
            self.header(s.span.line, indent, "try:", [])
            self.block(s.body, scope)
            for h in s.handlers:
                text = "except"
                parts = []
                if h.type is not None:
                    text += " " + self.expr(h.type, scope)
                    parts.append(h.type)
                if h.name is not None:
                    text += f" as {h.name}"
                self.header(h.span.line, indent, text + ":", parts)
                self.block(h.body, scope)
            self.orelse(s.orelse, indent, scope)
            if s.finalbody:
                self.header(self.line_before(s.finalbody), indent, "finally:", [])
                self.block(s.finalbody, scope)
            return
        raise AssertionError(cls)  # pragma: no cover - _COMPOUND lists the classes above

    def orelse(self, body: tuple[Any, ...], indent: int, scope: _Scope) -> None:
        if body:
            self.header(self.line_before(body), indent, "else:", [])
            self.block(body, scope)

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

    def params(self, params: P.Params, scope: _Scope) -> str:
        if not params.defaults and not any(params.kw_defaults):
            return self.slice(params.span)
        children = [*params.defaults, *(d for d in params.kw_defaults if d is not None)]
        return self.splice(params.span, children, scope)

    # -- expressions ----------------------------------------------------------------------------
    def builtin(self, name: str, scope: _Scope | None) -> bool:
        """Whether ``name`` read in ``scope`` is the grad language's built-in."""
        while scope is not None:
            if name in scope.names:
                return False
            scope = scope.parent
        return name in self.builtins

    def expr(self, e: Any, scope: _Scope) -> str:
        """An expression's text: copied from the source, with the parts that differ rewritten."""
        cls = e.__class__
        if cls is P.Name:
            return self.name(e, scope)
        if cls is P.Call and e.func.__class__ is P.Name and self.builtin(e.func.id, scope):
            return self.call(e, scope)
        if cls is P.Lambda:
            inner = _Scope(parent=scope)
            for name in _param_names(e.params):
                inner.bind(name, _UNKNOWN)
            children = [*e.params.defaults, *(d for d in e.params.kw_defaults if d)]
            return self.splice(e.span, [*children, e.body], scope, {id(e.body): inner})
        if cls is P.Comprehension:
            inner = _Scope(parent=scope)
            for g in e.generators:
                for name in target_names(g.target):
                    inner.bind(name, _UNKNOWN)
            # the first iterable is read in the enclosing scope, everything else inside
            first = e.generators[0]
            outer = {id(first.iter): scope}
            render = {id(first): lambda g: self.splice(g.span, list(_subexprs(g)), inner,
                                                       outer)}
            return self.splice(e.span, list(_subexprs(e)), inner, render=render)
        if cls is P.Attribute and e.attr in _RANDOM:
            self.uses.add("random")
        return self.splice(e.span, list(_subexprs(e)), scope)

    def splice(self, span: Span, children: list[Any], scope: _Scope,
               scopes: dict[int, _Scope] | None = None,
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

    def name(self, e: P.Name, scope: _Scope) -> str:
        """A name read as a value: a built-in's PyTorch name."""
        n = e.id
        if not self.builtin(n, scope):
            return n
        fn = self.builtins[n]
        from .script.pybuiltins import PY_BUILTINS

        if PY_BUILTINS.get(n) is fn or n in ("abs", "pow"):
            return n
        if n in _DUAL:
            self.uses.add(n)
            return self.helper[n]
        if n in _SPECIAL:
            raise self.refuse(f"{n} as a value", e, f"call it: {n}(...)")
        if n in _RANDOM:
            self.uses.add("random")
        return self.torch_name(n)

    def torch_name(self, n: str) -> str:
        from . import api
        from .engine import NN_FUNCTIONS

        fn = self.builtins[n]
        if n in NN_FUNCTIONS and fn is NN_FUNCTIONS[n] and api.FUNCTIONS.get(n) is not fn:
            self.uses.add("F")
            return f"{self.functional}.{n}"
        return f"torch.{n}"

    def call(self, e: P.Call, scope: _Scope) -> str:
        """A call of a built-in: its PyTorch form."""
        n = e.func.id
        if n in _DUAL and e.__class__ is P.Call:
            if not e.args:
                return self.splice(e.span, [e.func, *e.args, *(v for _, v in e.kwargs)], scope)
            kind = self.kind(e.args[0], scope)
            fn = {_TENSOR: f"torch.{n}", _PYTHON: n}.get(kind)
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

    def seed_call(self, e: P.Call, scope: _Scope) -> str:
        if e.kwargs or len(e.args) != 1:
            raise self.refuse("seed() with other than one argument", e)
        return f"torch.manual_seed({self.expr(e.args[0], scope)})"

    def leaf(self, value: Any, requires_grad: bool) -> str:
        """``torch.tensor(<literal>, dtype=...)`` for a bare-literal assignment (SPEC §2.4)."""
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

    # -- kinds ----------------------------------------------------------------------------------
    # Only readability rests on these: an unknown kind gets the run-time test (a helper, a
    # guarded requires_grad_()), so a kind may be unknown but never wrong.
    def kind(self, e: Any, scope: _Scope) -> str:
        """Whether ``e`` is surely a tensor, surely not, or either (``_UNKNOWN``)."""
        self.budget = _KIND_BUDGET
        return self._kind(e, scope)

    def _kind(self, e: Any, scope: _Scope) -> str:
        self.budget -= 1
        if isinstance(e, str) or self.budget < 0:
            return e if isinstance(e, str) else _UNKNOWN
        cls = e.__class__
        if cls in (P.Number, P.String, P.FString, P.ListExpr, P.Tuple, P.DictExpr, P.SetExpr,
                   P.Comprehension, P.Lambda):
            return _PYTHON
        if cls is P.Name:
            return self.name_kind(e.id, scope)
        if cls is P.Unary:
            return _PYTHON if e.op == "not" else self._kind(e.operand, scope)
        if cls is P.Compare and any(op in ("is", "is not", "in", "not in") for op in e.ops):
            return _PYTHON
        if cls is P.Binary and e.op == "%" and e.left.__class__ in (P.String, P.FString):
            return _PYTHON
        if cls is P.Binary or cls is P.Compare:
            sides = [e.left, e.right] if cls is P.Binary else list(e.operands)
            kinds = {self._kind(x, scope) for x in sides}
            if _TENSOR in kinds:
                return _TENSOR
            return _PYTHON if kinds == {_PYTHON} else _UNKNOWN
        if cls is P.IfExp:
            kinds = {self._kind(e.body, scope), self._kind(e.orelse, scope)}
            return kinds.pop() if len(kinds) == 1 else _UNKNOWN
        if cls is P.Attribute:
            if self._kind(e.value, scope) != _TENSOR:
                return _UNKNOWN
            return _TENSOR if e.attr in _TENSOR_ATTRIBUTES else _PYTHON
        if cls is P.Subscript:
            return _TENSOR if self._kind(e.value, scope) == _TENSOR else _UNKNOWN
        if cls is P.Call:
            return self.call_kind(e, scope)
        return _UNKNOWN

    def call_kind(self, e: P.Call, scope: _Scope) -> str:
        f = e.func
        if f.__class__ is P.Attribute:
            if f.attr in ("item", "tolist"):
                return _PYTHON
            if f.attr in _TUPLE_METHODS or self._kind(f.value, scope) != _TENSOR:
                return _UNKNOWN
            return _PYTHON if f.attr in _PLAIN_METHODS else _TENSOR
        if f.__class__ is not P.Name or not self.builtin(f.id, scope):
            return _UNKNOWN
        n = f.id
        from .script.pybuiltins import PY_BUILTINS

        if n in _DUAL or n in ("abs", "pow"):
            kinds = [self._kind(a, scope) for a in e.args]
            if not kinds or kinds[0] != _TENSOR:
                return _UNKNOWN
            if n in ("max", "min") and (e.kwargs or kinds[1:] not in ([], [_TENSOR])):
                return _UNKNOWN  # max(x, 0) is (values, indices)
            return _TENSOR
        if n in ("next", "getattr"):
            return _UNKNOWN
        if PY_BUILTINS.get(n) is self.builtins[n] or n in _PLAIN_RESULTS:
            return _PYTHON
        return _TENSOR

    def name_kind(self, name: str, scope: _Scope) -> str:
        """The kind every binding of ``name`` gives it; a binding that reads the name itself
        (``w = w * 2``) is solved by assuming a kind and checking it."""
        while scope is not None and name not in scope.names:
            scope = scope.parent
        if scope is None:
            return _PYTHON  # a built-in function
        key = (id(scope), name)
        if key in self.assumed:
            return self.assumed[key]
        if key in self.kinds:
            return self.kinds[key]
        found = _UNKNOWN
        for guess in (_TENSOR, _PYTHON):
            self.assumed[key] = guess
            kinds = {self._kind(v, scope) for v in scope.values.get(name, [])}
            del self.assumed[key]
            if kinds == {guess}:
                found = guess
                break
        if not self.assumed and self.budget >= 0:  # a kind found under no assumption holds
            self.kinds[key] = found
        return found


_KIND_BUDGET = 2000  # steps for one kind: beyond, it is unknown (and tested at run time)
_TUPLE_METHODS = frozenset({"max", "min", "sort", "topk", "kthvalue", "median", "mode",
                            "aminmax", "split", "chunk", "unbind", "tensor_split", "nonzero"})
_LINE = 99  # joined statements longer than this go on lines of their own
_ATOMS = (P.Name, P.Call, P.Attribute, P.Subscript)  # a method can follow them unbracketed
_COMPOUND = (P.FunctionDef, P.For, P.While, P.If, P.With, P.Try)


def _signed(node: Any, negate: bool, ex: _Exporter) -> str:
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


__all__ = ["export_program", "export_source"]
