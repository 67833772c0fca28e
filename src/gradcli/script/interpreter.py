"""Execute a compiled program on the engine: scopes, bindings, limits, prints and warnings.

The runtime never formats for a terminal; it returns a ``RunResult`` that holds the final
bindings, how often each name was bound, what ``print`` printed, the warnings and the error (a
``GradcliError`` with the span of the statement that raised it).  Older bindings are not kept
(a loop rebinding a big tensor must not hold every one); graph listings name them through the
recorder, which keeps what it records anyway.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..api.creation import tensor
from ..engine import RunContext, Tensor, grad, no_grad, use
from ..engine.backend import quiet
from ..engine.context import GradMode, process_guard
from ..engine.functions import METHODS
from ..engine.graph import restored_saved
from ..engine.tensor import NONLEAF_GRAD_MSG
from ..errors import GradcliError, ScriptError, Span
from ..language import program as P
from ..limits import MAX_DIMS, MAX_ELEMENTS, MAX_STEPS
from .builtins import BUILTINS, TENSOR_ATTRIBUTES, TENSOR_METHODS
from .hints import NoneGrad, did_you_mean, hint_for, none_grad, none_grad_reason
from .recorder import Record, Recorder
from .values import COMPARE, Size, arith, check_list, display, literal, tname

MAX_CALL_DEPTH = 200
PROGRESS_EVERY = 8192


@dataclass
class Warning_:
    """A warning raised while running, with the statement that triggered it."""

    message: str
    span: Span | None
    kind: str = "UserWarning"
    hint: str | None = None  # gradcli's, shown after PyTorch's message


@dataclass
class RunResult:
    """Everything a run produced."""

    program: P.Program
    backend: Any
    bindings: dict[str, Any] = field(default_factory=dict)
    binding_counts: dict[str, int] = field(default_factory=dict)  # top-level bindings per name
    binding_spans: dict[str, Span | None] = field(default_factory=dict)  # each name's latest
    last_assigned: str | None = None
    prints: list[str] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)
    error: GradcliError | None = None
    records: list[Record] | None = None
    # recording only: name → (label, id(tensor)) per tensor bound, in binding order (views.py)
    bound: dict[str, list[tuple[str, int]]] | None = None
    kept: Any = None  # RunContext.kept of the run: what its backward() calls freed
    # .grad reads that gave None (recording runs: trace, explain, graph)
    none_grads: list[NoneGrad] = field(default_factory=list)

    def grad(self, of: str, wrt: list[str]) -> list[Tensor]:
        """d(of)/d(w) for each w, as torch.autograd.grad with retain_graph; zeros if unused."""
        out = self.bindings[of]
        inputs = [self.bindings[w] for w in wrt]
        if not out.requires_grad or not any(t.requires_grad for t in inputs):
            # nothing connects them: every --wrt gets a zero gradient (SPEC §3)
            return [Tensor(self.backend.xp.zeros_like(t.data), self.backend) for t in inputs]
        live = [t for t in inputs if t.requires_grad]
        # what the script's own backward() freed is put back meanwhile (a run with keep_freed);
        # inf/nan as PyTorch, no NumPy warnings
        with restored_saved(self.kept), use(RunContext(self.backend)), quiet():
            grads = iter(grad(out, live, retain_graph=True, materialize_grads=True))
        return [next(grads) if t.requires_grad else
                Tensor(self.backend.xp.zeros_like(t.data), self.backend) for t in inputs]


_INPLACE = {"+": "add_", "-": "sub_", "*": "mul_", "/": "div_", "//": "floor_divide_",
            "%": "remainder_", "**": "pow_"}


class _Break(Exception):
    """``break``: leaves the innermost loop."""


class _Continue(Exception):
    """``continue``: goes on with the innermost loop's next iteration."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


@dataclass
class _Function:
    """A user ``def``: its parameters, body, the names it assigns (its locals) and the values
    of its defaults (evaluated once, when the ``def`` runs, as Python does)."""

    node: P.FunctionDef
    locals: frozenset[str]
    defaults: tuple = ()

    type_name = "function"  # what error messages call it (Python's name for a def)

    def __repr__(self) -> str:
        return f"<function {self.node.name}>"


class Interpreter:
    """Runs one program; create one per run."""

    def __init__(self, program: P.Program, backend: Any, *, wrt: tuple[str, ...] = (),
                 overrides: dict[str, Any] | None = None, record: bool = False,
                 max_steps: int = MAX_STEPS, on_print: Callable[[str], None] | None = None,
                 on_progress: Callable[[int], None] | None = None, base_dir: str = ".",
                 perturb: tuple[str, int, Any] | None = None,
                 max_elements: int = MAX_ELEMENTS, tracer: Any = None,
                 keep_freed: bool = False) -> None:
        self.program = program
        self.backend = backend
        self.wrt = frozenset(wrt)
        self.overrides = overrides or {}
        self.max_steps = max_steps
        self.steps = 0
        self.depth = 0
        self.on_print = on_print
        self.on_progress = on_progress  # told the step count every PROGRESS_EVERY statements
        self.base_dir = base_dir
        self.perturb = perturb  # (name, k, delta): add delta to the k-th binding (finite diffs)
        self.globals: dict[str, Any] = {}
        self.result = RunResult(program, backend)
        self.span: Span | None = None
        self.last_backward: tuple[Span, Tensor] | None = None  # for why a .grad is None
        self.nonleaf_reads: list[NoneGrad] = []  # this statement's, for the warning's hint
        self._none_read: NoneGrad | None = None  # the last, for an error's hint
        self.recorder = Recorder(self) if record else None
        if record:
            self.result.records = self.recorder.records
            self.result.bound = self.recorder.bound
        self.ctx = RunContext(backend, max_elements=max_elements, warnings=[],
                              integer_tensors=False,
                              recorder=self.recorder.record if self.recorder else None)
        if keep_freed:  # grad/check after the script's own backward(): see RunResult.grad
            self.ctx.kept = weakref.WeakKeyDictionary()
        if tracer is not None:  # trace and profile: the engine's events (engine.context)
            self.ctx.tracer = tracer
            tracer.attach(self)
        self.result.kept = self.ctx.kept

    # -- running --------------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Execute the whole program; errors end up in ``result.error``."""
        with use(self.ctx), process_guard(), quiet():
            try:
                self.exec_block(self.program.body, self.globals, top=True)
            except _Return:
                pass
            except GradcliError as err:
                self.result.error = err.at(self.span)
                if err.hint is None:
                    err.hint = hint_for(err, self.program.source, self._none_read)
            except RecursionError:
                self.result.error = ScriptError(
                    "maximum recursion depth exceeded", kind="RecursionError", span=self.span)
            except ValueError as exc:  # NumPy's array-rank limit, wherever a shape grows past it
                if "maximum supported dimension" not in str(exc):
                    raise
                found = re.search(r"found (\d+)", str(exc))
                self.result.error = ScriptError(
                    f"a tensor can have at most {MAX_DIMS} dimensions in gradcli"
                    f"{', not ' + found.group(1) if found else ''} (NumPy's limit; PyTorch "
                    "allows more)", span=self.span)
            self._drain()
        return self.result

    def _drain(self) -> None:
        reads = self.nonleaf_reads
        for msg, kind in self.ctx.warnings:
            # PyTorch's non-leaf .grad warning: its hint says which read, in the reads' order
            read = reads.pop(0) if msg == NONLEAF_GRAD_MSG and reads else None
            self.result.warnings.append(Warning_(
                msg, self.span, kind, none_grad_reason(read) if read is not None else None))
        self.ctx.warnings.clear()
        reads.clear()

    def _step_limit(self, span: Span) -> ScriptError:
        return ScriptError(f"the script ran more than {self.max_steps:,} statements (step limit)",
                           span=span, hint="raise the limit with --max-steps if the loop is "
                           "meant to run this long")

    def exec_block(self, body: tuple, scope: dict, top: bool = False) -> None:
        """Run statements in order, counting steps."""
        for stmt in body:
            self.steps += 1
            if self.steps > self.max_steps:
                raise self._step_limit(stmt.span)
            if not self.steps % PROGRESS_EVERY and self.on_progress is not None:
                self.on_progress(self.steps)
            self.span = stmt.span
            self.ctx.free_tag = stmt.span
            self.exec_stmt(stmt, scope, top)
            if self.ctx.warnings:
                self._drain()

    def exec_stmt(self, s: Any, scope: dict, top: bool) -> None:
        """Run one statement."""
        cls = s.__class__
        if cls is P.Assign:
            if s.literal and s.target in self.overrides:
                value = tensor(self.overrides[s.target])
            elif s.literal:
                value = tensor(literal(s.value))
            else:
                value = self.eval(s.value, scope)
            self.bind(s.target, value, scope, top)
        elif cls is P.ExprStmt:
            self.eval(s.value, scope)
        elif cls is P.AugAssign:
            self._aug_assign(s, scope, top)
        elif cls is P.For:
            self._for(s, scope, top)
        elif cls is P.While:
            self._while(s, scope, top)
        elif cls is P.Break:
            raise _Break
        elif cls is P.Continue:
            raise _Continue
        elif cls is P.If:
            for cond, body in s.branches:
                if self.truth(self.eval(cond, scope)):
                    self.exec_block(body, scope, top)
                    break
            else:
                self.exec_block(s.orelse, scope, top)
        elif cls is P.With:
            ctx = self.eval(s.context, scope)
            if not isinstance(ctx, GradMode):
                raise ScriptError("with blocks take no_grad() or enable_grad() only",
                                  kind="TypeError", span=s.span)
            with ctx:
                self.exec_block(s.body, scope, top)
        elif cls is P.FunctionDef:
            defaults = tuple(self.eval(d, scope) for d in s.defaults)
            self.bind(s.name, _Function(s, _assigned(s.body) | set(s.params), defaults), scope,
                      top)
        elif cls is P.Return:
            raise _Return(None if s.value is None else self.eval(s.value, scope))
        elif cls is P.Pass:
            pass
        else:  # pragma: no cover - the compiler produces only the classes above
            raise ScriptError(f"unsupported statement {cls.__name__}")

    def bind(self, name: str, value: Any, scope: dict, top: bool) -> None:
        """Bind a name; top-level tensors named by --wrt become leaves that require grad."""
        if not top:
            scope[name] = value
            return
        count = self.result.binding_counts.get(name, 0)
        if self.perturb is not None and self.perturb[0] == name and isinstance(value, Tensor) \
                and count == self.perturb[1]:
            with no_grad():
                value = value + self.perturb[2]
        scope[name] = value
        if name in self.wrt and isinstance(value, Tensor) and value.is_leaf:
            value.requires_grad_(True)
        if self.recorder is not None:
            self.recorder.bind(name, value)
        self.result.binding_counts[name] = count + 1
        self.result.binding_spans[name] = self.span
        self.result.bindings[name] = value
        self.result.last_assigned = name

    def _aug_assign(self, s: P.AugAssign, scope: dict, top: bool) -> None:
        current = self.lookup(s.target, scope, s.span)
        value = self.eval(s.value, scope)
        if isinstance(current, Tensor):
            method = METHODS[_INPLACE[s.op]]
            try:
                method(current, value)
            except OverflowError as exc:  # a Python int beyond float range
                raise ScriptError(str(exc), kind="OverflowError") from None
            except TypeError:  # e.g. NumPy refuses - on the bool tensors comparisons make
                raise ScriptError(f"unsupported operand type(s) for {s.op}=: 'Tensor' and "
                                  f"'{tname(value)}'", kind="TypeError") from None
            return
        self.bind(s.target, arith(s.op, current, value), scope, top)

    def _for(self, s: P.For, scope: dict, top: bool) -> None:
        args = [self.eval(a, scope) for a in s.args]
        for a in args:
            if isinstance(a, Tensor):
                a = a.item() if a.numel() == 1 else a
            if isinstance(a, float) or not isinstance(a, int):
                raise ScriptError(f"'{type(a).__name__}' object cannot be interpreted as an "
                                  "integer", kind="TypeError", span=s.span)
        if len(args) == 3 and args[2] == 0:
            raise ScriptError("range() arg 3 must not be zero", kind="ValueError", span=s.span)
        for i in range(*args):
            self.bind(s.var, i, scope, top)
            if not self._iteration(s.body, scope, top):
                break

    def _while(self, s: P.While, scope: dict, top: bool) -> None:
        # each test counts as a step, so `while True: pass` meets the step limit too
        while self.truth(self.eval(s.test, scope)):
            self.steps += 1
            if self.steps > self.max_steps:
                raise self._step_limit(s.span)
            if not self._iteration(s.body, scope, top):
                break

    def _iteration(self, body: tuple, scope: dict, top: bool) -> bool:
        """Run one pass of a loop body; False when it ends with ``break``."""
        try:
            self.exec_block(body, scope, top)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    # -- names ----------------------------------------------------------------------------------
    def lookup(self, name: str, scope: dict, span: Span | None) -> Any:
        """A name's value: locals, then globals, then built-ins."""
        if name in scope:
            return scope[name]
        fn = scope.get("__function__")
        if fn is not None and name in fn.locals:
            raise ScriptError(f"cannot access local variable '{name}' where it is not associated "
                              "with a value", kind="UnboundLocalError", span=span)
        if name in self.globals:
            return self.globals[name]
        if name in BUILTINS:
            return BUILTINS[name]
        raise ScriptError(f"name '{name}' is not defined", kind="NameError", span=span,
                          hint=None if name in ("torch", "F", "nn") else  # hints.hint_for
                          did_you_mean(name, [*scope, *self.globals, *BUILTINS]))

    def truth(self, value: Any) -> bool:
        """Python truthiness; a one-element tensor by its value."""
        if isinstance(value, Tensor):
            return bool(value)
        return bool(value)

    # -- expressions ----------------------------------------------------------------------------
    def eval(self, e: Any, scope: dict) -> Any:
        """Evaluate an expression."""
        cls = e.__class__
        if cls is P.Name:
            return self.lookup(e.id, scope, e.span)
        if cls is P.Number or cls is P.String:
            return e.value
        if cls is P.Binary:
            return arith(e.op, self.eval(e.left, scope), self.eval(e.right, scope))
        if cls is P.Call:
            return self._call(e, scope)
        if cls is P.Attribute:
            return self._attribute(self.eval(e.value, scope), e.attr, e.span)
        if cls is P.Unary:
            v = self.eval(e.operand, scope)
            if e.op == "not":
                return not self.truth(v)
            if not isinstance(v, (Tensor, int, float)):
                raise ScriptError(f"bad operand type for unary {e.op}: '{type(v).__name__}'",
                                  kind="TypeError")
            return -v if e.op == "-" else v
        if cls is P.ListExpr:
            return check_list([self.eval(i, scope) for i in e.items])
        if cls is P.Subscript:
            return self._subscript(e, scope)
        if cls is P.Compare:
            return self._compare(e, scope)
        if cls is P.IfExp:
            branch = e.body if self.truth(self.eval(e.test, scope)) else e.orelse
            return self.eval(branch, scope)
        if cls is P.BoolOp:
            v = None
            for item in e.values:
                v = self.eval(item, scope)
                if self.truth(v) == (e.op == "or"):
                    return v
            return v
        raise ScriptError(f"unsupported expression {cls.__name__}")  # pragma: no cover

    def _compare(self, e: P.Compare, scope: dict) -> Any:
        left = self.eval(e.operands[0], scope)
        result: Any = True
        last = len(e.ops) - 1
        for i, (op, right_e) in enumerate(zip(e.ops, e.operands[1:])):
            right = self.eval(right_e, scope)
            try:
                result = COMPARE[op](left, right)
            except OverflowError as exc:  # a tensor against a Python int beyond float range
                raise ScriptError(str(exc), kind="OverflowError") from None
            except TypeError:
                raise ScriptError(f"'{op}' not supported between instances of '{tname(left)}' "
                                  f"and '{tname(right)}'", kind="TypeError") from None
            if i < last and not self.truth(result):  # a < b < c is (a < b) and (b < c)
                return result
            left = right
        return result

    def _subscript(self, e: P.Subscript, scope: dict) -> Any:
        target = self.eval(e.value, scope)
        keys = []
        for k in e.index:
            if k.__class__ is P.Slice:
                keys.append(slice(*(None if p is None else self._int(self.eval(p, scope))
                                    for p in (k.start, k.stop, k.step))))
            else:
                keys.append(self._int(self.eval(k, scope)))
        key = keys[0] if len(keys) == 1 else tuple(keys)
        if isinstance(target, Tensor):
            return target[key]
        if isinstance(target, (list, tuple)) and not isinstance(key, tuple):
            try:
                return target[key]
            except IndexError:
                raise ScriptError(f"{type(target).__name__} index out of range",
                                  kind="IndexError") from None
            except ValueError as exc:  # [a, b][::0]
                raise ScriptError(str(exc), kind="ValueError") from None
        raise ScriptError(f"'{type(target).__name__}' object is not subscriptable",
                          kind="TypeError")

    def _int(self, v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ScriptError("indices must be integers or slices, not "
                              f"{'Tensor' if isinstance(v, Tensor) else type(v).__name__}",
                              kind="TypeError")
        return v

    def _attribute(self, obj: Any, attr: str, span: Span) -> Any:
        if isinstance(obj, Tensor):
            if attr in TENSOR_ATTRIBUTES:
                value = getattr(obj, attr)
                if value is None and attr == "grad":  # why: a hint, trace, explain
                    self._none_read = none_grad(self, obj, span)
                return Size(value) if attr == "shape" else value
            if attr in TENSOR_METHODS:
                if attr == "backward":
                    self.last_backward = (span, obj)
                return getattr(obj, attr)
            raise ScriptError(f"'Tensor' object has no attribute '{attr}'", kind="AttributeError",
                              span=span, hint=did_you_mean(attr, [*TENSOR_ATTRIBUTES,
                                                                   *TENSOR_METHODS]))
        raise ScriptError(f"'{type(obj).__name__}' object has no attribute '{attr}'",
                          kind="AttributeError", span=span)

    def _call(self, e: P.Call, scope: dict) -> Any:
        fn = self.eval(e.func, scope)
        args = [self.eval(a, scope) for a in e.args]
        kwargs = {k: self.eval(v, scope) for k, v in e.kwargs}
        if isinstance(fn, _Function):
            return self._call_user(fn, _bind_arguments(fn, args, kwargs))
        if not callable(fn) or isinstance(fn, Tensor):
            raise ScriptError(f"'{tname(fn)}' object is not callable", kind="TypeError")
        func = e.func
        name = func.id if func.__class__ is P.Name else \
            func.attr if func.__class__ is P.Attribute else getattr(fn, "__name__", "function")
        # a def passed to a built-in (a hook) is called back as a Python callable
        args = [self._callable(a) if isinstance(a, _Function) else a for a in args]
        return _call_builtin(fn, args, kwargs, self, name)

    def _callable(self, fn: _Function) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            # NOTE: a hook runs inside a backward: what that backward frees stays tagged with
            # the backward's statement, not the hook's lines
            tag = self.ctx.free_tag
            try:
                return self._call_user(fn, _bind_arguments(fn, list(args), kwargs))
            finally:
                self.ctx.free_tag = tag

        call.__name__ = fn.node.name
        return call

    def _call_user(self, fn: _Function, scope: dict[str, Any]) -> Any:
        if self.depth >= MAX_CALL_DEPTH:
            raise ScriptError(f"function calls nested deeper than {MAX_CALL_DEPTH}",
                              kind="RecursionError", hint="is there a recursion without a base "
                              "case?")
        scope["__function__"] = fn
        caller_span = self.span
        self.depth += 1
        try:
            self.exec_block(fn.node.body, scope)
        except _Return as r:
            return r.value
        finally:
            self.depth -= 1
            self.span = caller_span
        return None



def _bind_arguments(fn: _Function, args: list, kwargs: dict) -> dict[str, Any]:
    """A call's arguments bound to a ``def``'s parameters, with Python's errors."""
    name, params, defaults = fn.node.name, fn.node.params, fn.defaults
    n, required = len(params), len(params) - len(defaults)

    def fail(message: str) -> ScriptError:
        return ScriptError(f"{name}() {message}", kind="TypeError")

    if len(args) > n:
        takes = f"{n}" if not defaults else f"from {required} to {n}"
        raise fail(f"takes {takes} positional argument{'' if n == 1 else 's'} but {len(args)} "
                   f"{'was' if len(args) == 1 else 'were'} given")
    scope = dict(zip(params, args))
    for key, value in kwargs.items():
        if key not in params:
            raise fail(f"got an unexpected keyword argument '{key}'")
        if key in scope:
            raise fail(f"got multiple values for argument '{key}'")
        scope[key] = value
    missing = [p for p in params[:required] if p not in scope]
    if missing:
        names = " and ".join(", ".join(f"'{m}'" for m in missing).rsplit(", ", 1))
        raise fail(f"missing {len(missing)} required positional argument"
                   f"{'' if len(missing) == 1 else 's'}: {names}")
    for p, d in zip(params[required:], defaults):
        scope.setdefault(p, d)
    return scope


def _call_builtin(fn: Any, args: list, kwargs: dict, interp: Interpreter, name: str) -> Any:
    needs_interp = getattr(fn, "needs_interpreter", False)
    try:
        if needs_interp:
            return fn(interp, *args, **kwargs)
        return fn(*args, **kwargs)
    except TypeError as exc:
        # Only argument-binding errors reach here: built-ins raise ScriptError for bad values.
        message = _binding_message(str(exc), name, needs_interp)
        unknown = re.search(r"unexpected keyword argument '(\w+)'", message)
        raise ScriptError(message, kind="TypeError", hint=did_you_mean(
            unknown.group(1), _parameters(fn)) if unknown else None) from None
    except OverflowError as exc:  # a Python int beyond float range as a scalar argument
        raise ScriptError(str(exc), kind="OverflowError") from None


_QUALNAME = re.compile(r"^[\w.<>]+\(\)")
_COUNTS = re.compile(r"takes (\d+) positional arguments? but (\d+) (?:was|were) given")


def _binding_message(message: str, name: str, needs_interp: bool) -> str:
    """Python's argument-binding message with the name the script called, not the function's
    internal qualified name (``_extreme.<locals>.fn()``), and the interpreter argument of
    interpreter built-ins not counted."""
    message = _QUALNAME.sub(f"{name}()", message, count=1)
    if needs_interp:
        def fix(m: re.Match) -> str:
            takes, given = int(m.group(1)) - 1, int(m.group(2)) - 1
            return (f"takes {takes} positional argument{'' if takes == 1 else 's'} but {given} "
                    f"{'was' if given == 1 else 'were'} given")
        message = _COUNTS.sub(fix, message)
    return message


def _parameters(fn: Any) -> list[str]:
    """A built-in's keyword names, for "did you mean" (none when it has no signature)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and p.name not in ("interp", "self")]


def _assigned(body: tuple) -> set[str]:
    """Names a function body assigns (its locals, as Python decides at compile time)."""
    names: set[str] = set()
    for s in body:
        if isinstance(s, (P.Assign, P.AugAssign)):
            names.add(s.target)
        elif isinstance(s, P.For):
            names.add(s.var)
            names |= _assigned(s.body)
        elif isinstance(s, P.While):
            names |= _assigned(s.body)
        elif isinstance(s, P.If):
            for _, b in s.branches:
                names |= _assigned(b)
            names |= _assigned(s.orelse)
        elif isinstance(s, P.With):
            names |= _assigned(s.body)
        elif isinstance(s, P.FunctionDef):
            names.add(s.name)
    return names


__all__ = ["Interpreter", "Record", "RunResult", "display"]
