"""Execute a compiled program on the engine: statements, scopes, bindings, calls, limits,
prints, warnings and errors.

Two modes (docs/language.md and §7): a grad script has gradcli's bare built-ins and makes a leaf tensor
of each bare-literal assignment; a PyTorch program ("torch") has Python's built-ins and the
modules it imports, and its literals stay Python numbers. The runtime never formats for a
terminal; it returns a ``RunResult`` that holds the final bindings, how often each name was
bound, what ``print`` printed, the warnings and the error (a ``GradcliError`` with the span of
the statement that raised it, and the calls that led there). Older bindings are not kept (a
loop rebinding a big tensor must not hold every one); graph listings name them through the
recorder, which keeps what it records anyway.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from ..api.creation import tensor
from ..api.namespace import Module, import_module
from ..api.types import TypeObject
from ..engine import RunContext, Tensor, no_grad, use
from ..engine.backend import quiet
from ..engine.context import process_guard
from ..engine.forward import seed_tangent
from ..engine.history import History
from ..engine.tensor import NONLEAF_GRAD_MSG
from ..errors import GradcliError, ScriptError, Span
from ..language import program as P
from ..language.checks import overridable
from ..limits import MAX_ELEMENTS, MAX_STEPS
from .builtins import GRAD_BUILTINS, TORCH_BUILTINS
from .calls import call_builtin, iterable, like_literal, module_named, too_many_dims
from .classes import BoundMethod, ScriptClass
from .closures import Break, Continue, Return, block, statement
from .definitions import Definitions
from .exceptions import EXCEPTIONS, ExcValue, catches, raise_value, value_of
from .expressions import Evaluator
from .functions import FUNCTION_KEY, Function, bind_arguments
from .hints import NoneGrad, hint_for, none_grad_reason
from .printing import Printer, type_name
from .pyprotocols import items_of, materialise, truth
from .recorder import Record, Recorder
from .result import BackwardCall, RunResult, Warning_
from .stdlib import PER_RUN
from .values import literal

_BUILTIN_FUNCTION = types.FunctionType
_BUILTIN_METHOD = types.MethodType
MAX_CALL_DEPTH = 200
PROGRESS_EVERY = 8192


class Interpreter(Definitions, Evaluator):
    """Runs one program; create one per run."""

    def __init__(self, program: P.Program, backend: Any, *, mode: str = "grad",
                 wrt: tuple[str, ...] = (), overrides: dict[str, Any] | None = None,
                 record: bool = False, max_steps: int = MAX_STEPS,
                 on_print: Callable[[str], None] | None = None,
                 on_progress: Callable[[int], None] | None = None, base_dir: str = ".",
                 perturb: tuple[str, int, Any] | None = None,
                 max_elements: int = MAX_ELEMENTS, tracer: Any = None,
                 keep_freed: bool = False, tangent: tuple[str, int, Any] | None = None) -> None:
        self.program = program
        self.backend = backend
        self.mode = mode
        self.leaves = mode == "grad"  # bare literals make leaf tensors (docs/language.md)
        self.builtins = GRAD_BUILTINS if mode == "grad" else TORCH_BUILTINS
        self.wrt = frozenset(wrt)
        self.overrides = overrides or {}
        self.max_steps = max_steps
        self.steps = 0
        self.depth = 0
        self.on_print = on_print  # told exactly what Python would write to stdout
        self.on_progress = on_progress  # told the step count every PROGRESS_EVERY statements
        self.base_dir = base_dir
        self.perturb = perturb  # (name, k, delta): add delta to the k-th binding (finite diffs)
        self.tangent = tangent  # (name, k, t): the k-th binding's tangent (grad --mode forward)
        self.reruns = (perturb, tangent) if perturb is not None or tangent is not None else None
        self.globals: dict[str, Any] = {"__name__": "__main__"}
        self.result = RunResult(program, backend, mode=mode)
        self.result.wrt = tuple(wrt)
        self.span: Span | None = None
        self.last_backward: tuple[Span, Tensor] | None = None  # for why a .grad is None
        self.nonleaf_reads: list[NoneGrad] = []  # this statement's, for the warning's hint
        self.module_state: dict[str, Any] = {}  # the standard modules' of this run (stdlib)
        # the warnings shown so far: Python's default filter shows one once per line
        self.warned: set[tuple[str, str, int | None]] = set()
        self._none_read: NoneGrad | None = None  # the last, for an error's hint
        self.calls: list[Span | None] = []  # the call sites of the functions running now
        # the call expression eval is calling (set for call_function, which takes it as the
        # call site; None when a function is called from elsewhere: the statement is the site)
        self.call_at: Span | None = None
        self.fns: list[str] = []  # and the names of those functions (anomaly mode's frames)
        self._frame_texts: dict[tuple, tuple[str, ...]] = {}  # _frames' texts by call stack
        self._called: set[int] = set()  # the function bodies called once (by id)
        self._bodies: dict[int, Any] = {}  # and those called again, compiled (closures.block)
        self.handling: list[GradcliError] = []  # errors being handled (for a bare `raise`)
        self.printer = Printer()
        self.recorder = Recorder(self) if record else None
        if record:
            self.result.records = self.recorder.records
            self.result.bound = self.recorder.bound
            self.result.local = self.recorder.local
        # a grad script's tensors are floating point (docs/language.md); a PyTorch program's
        # torch.tensor([1, 2]) is int64, as in PyTorch
        self.ctx = RunContext(backend, max_elements=max_elements, warnings=[],
                              integer_tensors=mode == "torch",
                              recorder=self.recorder.record if self.recorder else None)
        if record:  # a forward-mode run's views show each state's tangent
            self.ctx.on_tangent = self.recorder.tangent
        if keep_freed:  # grad/check after the script's own backward(): see RunResult.grad
            self.ctx.keep_freed = True
        if keep_freed or record:  # the graph as recorded, after an optimizer's step
            self.ctx.history = History()
        self.frame = self.globals  # the scope of the function running now
        self.ctx.on_backward = self._backward_called
        self.ctx.anomaly_frames = self._frames
        if tracer is not None:  # trace and profile: the engine's events (engine.context)
            self.ctx.tracer = tracer
            tracer.attach(self)
        self.result.history = self.ctx.history

    # -- running --------------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Execute the whole program; errors end up in ``result.error``."""
        with use(self.ctx), process_guard(), quiet(self.ctx.fp_log):
            try:
                self.exec_block(self.program.body, self.globals, top=True)
            except Return:
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
                self.result.error = too_many_dims(exc).at(self.span)
            self.drain()
        # the context's hooks back into the interpreter: no cycle outlives the run (its
        # program and objects go by reference counting, with the collector paused)
        self.ctx.on_backward = self.ctx.anomaly_frames = None
        return self.result

    def _backward_called(self, tensors: list) -> None:
        """The engine starts a backward() from ``tensors``: the default output (targets.py),
        with the scope its names are looked up in."""
        if tensors:
            self.result.backward_call = BackwardCall(tensors[0], self.span, self.frame)

    def _frames(self) -> tuple[str, ...]:
        """Where the running statement was called from, outermost first, as Python's
        ``traceback.format_stack`` writes frames (anomaly mode keeps them per node)."""
        key = (*self.calls, self.span)
        got = self._frame_texts.get(key)
        if got is not None:  # a loop makes many nodes at the same place
            return got
        lines = self.program.source.splitlines()
        out = []
        for name, span in zip(["<module>", *self.fns], [*self.calls, self.span]):
            if span is None:
                continue
            text = lines[span.line - 1].strip() if 0 < span.line <= len(lines) else ""
            out.append(f'  File "{self.program.filename}", line {span.line}, in {name}\n'
                       + (f"    {text}\n" if text else ""))
        got = self._frame_texts[key] = tuple(out)
        return got

    def drain(self) -> None:
        reads = self.nonleaf_reads
        for msg, kind in self.ctx.warnings:
            # PyTorch's non-leaf .grad warning: its hint says which read, in the reads' order,
            # and it stands where that read is
            read = reads.pop(0) if msg == NONLEAF_GRAD_MSG and reads else None
            span = read.span if read is not None else self.span
            key = (msg, kind, span.line if span is not None else None)
            if key in self.warned:  # the "default" action of Python's warnings filter
                continue
            self.warned.add(key)
            self.result.warnings.append(Warning_(
                msg, span, kind, tuple(self.calls),
                none_grad_reason(read) if read is not None else None))
        self.ctx.warnings.clear()
        reads.clear()

    def step_limit(self, span: Span | None) -> ScriptError:
        err = ScriptError(f"the script ran more than {self.max_steps:,} statements (step limit)",
                          span=span, hint="raise the limit with --max-steps if the loop is "
                          "meant to run this long")
        err.limit = True  # type: ignore[attr-defined]  # no `except` catches it
        return err

    def tick(self) -> None:
        """One step of the run (an item of a loop that runs no statement of its own)."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise self.step_limit(self.span)

    def emit(self, text: str, end: str) -> None:
        """What ``print`` writes: streamed as is, kept as lines for the JSON document."""
        if self.on_print is not None:
            self.on_print(text + end)
        self.result.prints.append(text if end == "\n" else text + end)

    def exec_block(self, body: tuple, scope: dict, top: bool = False,
                   runs: tuple | None = None) -> None:
        """Run statements in order, counting steps: each by ``exec_stmt``, or by its closure
        when the block is compiled (``runs``: closures.block's, one per statement)."""
        ctx = self.ctx
        for i, stmt in enumerate(body):
            steps = self.steps = self.steps + 1
            if steps > self.max_steps:
                raise self.step_limit(stmt.span)
            if not steps % PROGRESS_EVERY and self.on_progress is not None:
                self.on_progress(steps)
            self.span = ctx.free_tag = stmt.span
            try:
                if runs is None:
                    self.exec_stmt(stmt, scope, top)
                else:
                    runs[i](scope)
            except GradcliError as err:
                self._placed(err, stmt.span)
                raise
            if ctx.warnings:
                self.drain()

    def _placed(self, err: GradcliError, span: Span) -> None:
        """An error leaving a statement: at it unless an inner one placed it, with the calls
        that led there."""
        if err.span is None:  # the innermost statement that raised it
            err.span = span
        if getattr(err, "calls", None) is None:
            err.calls = tuple(self.calls)  # type: ignore[attr-defined]

    def exec_stmt(self, s: Any, scope: dict, top: bool) -> None:
        """Run one statement."""
        cls = s.__class__
        if cls is P.Assign:
            if s.target in self.overrides and overridable(s):  # not `v = torch.rand()`
                value = self._override(s, scope)
            elif s.literal and self.leaves:
                value = tensor(literal(s.value))
            else:
                value = self.eval(s.value, scope)
            self.bind(s.target, value, scope, top)
        elif cls is P.ExprStmt:
            self.eval(s.value, scope)
        elif cls is P.If:
            for cond, body in s.branches:
                if truth(self.eval(cond, scope)):
                    self.exec_block(body, scope, top)
                    break
            else:
                self.exec_block(s.orelse, scope, top)
        elif cls is P.AugAssign:
            name = s.target
            current = scope[name] if name in scope else self.lookup(name, scope, s.span)
            new = self.inplace(s.op, current, self.eval(s.value, scope))
            if new is not current:
                self.bind(s.target, new, scope, top)
        else:
            self._STATEMENTS[cls](self, s, scope, top)

    # -- bindings -------------------------------------------------------------------------------
    def bind(self, name: str, value: Any, scope: dict, top: bool) -> None:
        """Bind a name; top-level tensors named by --wrt become leaves that require grad."""
        if not top:
            fn = scope.get(FUNCTION_KEY)
            if fn is None or name not in fn.globals:
                scope[name] = value
                if self.recorder is not None and value.__class__ is Tensor:
                    self.recorder.bind_local(fn, name, value)
                return
            scope, top = self.globals, True  # `global name` inside a function
        result = self.result
        counts = result.binding_counts
        count = counts.get(name, 0)
        if self.reruns is not None:  # check's and grad --mode forward's re-runs
            value = self._rerun_binding(name, value, count)
        scope[name] = value
        if name in self.wrt and isinstance(value, Tensor) and value.is_leaf:
            value.requires_grad_(True)
        if self.recorder is not None:
            self.recorder.bind(name, value)
        counts[name] = count + 1
        result.binding_spans[name] = self.span
        result.bindings[name] = value
        result.last_assigned = name

    def _override(self, s: P.Assign, scope: dict) -> Any:
        """``--set NAME=VALUE``: the literal of ``NAME = <literal>`` or of the data argument
        of ``NAME = torch.tensor(<literal>, ...)`` replaced (floats where the literal had)."""
        new = self.overrides[s.target]
        if s.literal:
            value = like_literal(new, s.value)
            return tensor(value) if self.leaves else value
        call = s.value
        data = like_literal(new, call.args[0])
        return self.call_value(self.eval(call.func, scope),
                               [data, *(self.eval(a, scope) for a in call.args[1:])],
                               {k: self.eval(v, scope) for k, v in call.kwargs}, call.func)

    def assign(self, target: Any, value: Any, scope: dict, top: bool) -> None:
        """Store ``value`` into an assignment target (a name, an unpacking, x.attr, x[i])."""
        cls = target.__class__
        if cls is P.Name:
            self.bind(target.id, value, scope, top)
        elif cls is P.Tuple or cls is P.ListExpr:
            self._unpack(target.items, value, scope, top)
        elif cls is P.Attribute:
            self.set_attribute(self.eval(target.value, scope), target.attr, value)
        elif cls is P.Subscript:
            obj = self.eval(target.value, scope)
            self.set_item(obj, self.index(target.index, scope), value)
        else:  # pragma: no cover - the compiler accepts only the targets above
            raise ScriptError(f"cannot assign to {cls.__name__}", kind="SyntaxError")

    def _unpack(self, targets: tuple, value: Any, scope: dict, top: bool) -> None:
        if not iterable(value):
            raise ScriptError(f"cannot unpack non-iterable {type_name(value)} object",
                              kind="TypeError")
        star = next((i for i, t in enumerate(targets) if t.__class__ is P.Starred), None)
        n = len(targets)
        if star is not None:
            items = materialise(self, value)  # within the size limit
        else:
            items = []
            for x in items_of(value):  # stop early when too many, as Python does
                items.append(x)
                if len(items) > n:
                    raise ScriptError(f"too many values to unpack (expected {n})",
                                      kind="ValueError")
        if star is None:
            if len(items) < n:
                raise ScriptError(f"not enough values to unpack (expected {n}, got "
                                  f"{len(items)})", kind="ValueError")
            for t, x in zip(targets, items):
                self.assign(t, x, scope, top)
            return
        if len(items) < n - 1:
            raise ScriptError(f"not enough values to unpack (expected at least {n - 1}, got "
                              f"{len(items)})", kind="ValueError")
        after = n - star - 1
        for t, x in zip(targets[:star], items[:star]):
            self.assign(t, x, scope, top)
        self.assign(targets[star].value, items[star:len(items) - after], scope, top)
        for t, x in zip(targets[star + 1:], items[len(items) - after:]):
            self.assign(t, x, scope, top)

    def _assign_to(self, s: P.AssignTo, scope: dict, top: bool) -> None:
        value = tensor(literal(s.value)) if s.literal and self.leaves else \
            self.eval(s.value, scope)
        for target in s.targets:
            self.assign(target, value, scope, top)

    def _delete(self, s: P.Delete, scope: dict, top: bool) -> None:
        for t in s.targets:
            self._delete_target(t, scope, top)

    def _delete_target(self, t: Any, scope: dict, top: bool) -> None:
        cls = t.__class__
        if cls is P.Name:
            fn = scope.get(FUNCTION_KEY)
            if fn is not None and t.id in fn.globals:
                scope, top = self.globals, True
            if t.id not in scope:
                if fn is not None:
                    raise ScriptError(f"cannot access local variable '{t.id}' where it is not "
                                      "associated with a value", kind="UnboundLocalError")
                raise ScriptError(f"name '{t.id}' is not defined", kind="NameError")
            del scope[t.id]
            if top:
                self.result.bindings.pop(t.id, None)
        elif cls is P.Tuple or cls is P.ListExpr:
            for item in t.items:
                self._delete_target(item, scope, top)
        elif cls is P.Subscript:
            self.del_item(self.eval(t.value, scope), self.index(t.index, scope))
        else:
            self.del_attribute(self.eval(t.value, scope), t.attr)

    # -- control flow ---------------------------------------------------------------------------
    def _compiled(self, s: Any, scope: dict, top: bool) -> None:
        """A statement that exists only compiled (closures.py: loops, ``with``,
        ``x.attr op= value``), compiled where the walker meets it."""
        statement(self, s, top)(scope)

    def _break(self, s: P.Break, scope: dict, top: bool) -> None:
        raise Break

    def _continue(self, s: P.Continue, scope: dict, top: bool) -> None:
        raise Continue

    def _return(self, s: P.Return, scope: dict, top: bool) -> None:
        raise Return(None if s.value is None else self.eval(s.value, scope))

    def _pass(self, s: Any, scope: dict, top: bool) -> None:
        return None

    def _try(self, s: P.Try, scope: dict, top: bool) -> None:
        try:
            try:
                self.exec_block(s.body, scope, top)
            except GradcliError as err:
                if getattr(err, "limit", False):
                    raise
                for h in s.handlers:
                    if h.type is None or catches(self.eval(h.type, scope), err):
                        break
                else:
                    raise
                self._handle(h, err, scope, top)
            else:
                self.exec_block(s.orelse, scope, top)
        finally:
            if s.finalbody:
                self.exec_block(s.finalbody, scope, top)

    def _handle(self, h: P.Handler, err: GradcliError, scope: dict, top: bool) -> None:
        if h.name is not None:
            self.bind(h.name, value_of(err), scope, top)
        self.handling.append(err)
        try:
            self.exec_block(h.body, scope, top)
        finally:
            self.handling.pop()
            if h.name is not None:  # Python deletes the name when the handler ends
                target = self.globals if top else scope
                target.pop(h.name, None)
                if top:
                    self.result.bindings.pop(h.name, None)

    def _raise(self, s: P.Raise, scope: dict, top: bool) -> None:
        if s.exc is None:
            if not self.handling:
                raise ScriptError("No active exception to reraise")
            raise self.handling[-1]
        v = self.eval(s.exc, scope)
        if isinstance(v, TypeObject) and v.is_subclass(EXCEPTIONS["BaseException"]):
            v = v.make()
        if not isinstance(v, ExcValue):
            raise ScriptError("exceptions must derive from BaseException", kind="TypeError")
        if s.cause is not None:
            cause = self.eval(s.cause, scope)
            if cause is not None and not isinstance(cause, (ExcValue, TypeObject)):
                raise ScriptError("exception causes must derive from BaseException",
                                  kind="TypeError")
        raise raise_value(v, self.printer.str)

    def _assert(self, s: P.Assert, scope: dict, top: bool) -> None:
        if truth(self.eval(s.test, scope)):
            return
        if s.msg is None:
            raise ScriptError("", kind="AssertionError")
        raise raise_value(ExcValue(EXCEPTIONS["AssertionError"], (self.eval(s.msg, scope),)),
                          self.printer.str)

    def _global(self, s: P.Global, scope: dict, top: bool) -> None:
        return None  # the function's globals were read when it was defined

    def _import(self, s: P.Import, scope: dict, top: bool) -> None:
        for dotted, alias in s.names:
            if alias is not None:
                self.bind(alias, self.module(dotted), scope, top)
            else:
                first = dotted.split(".")[0]
                self.module(dotted)
                self.bind(first, self.module(first), scope, top)

    def module(self, dotted: str) -> Any:
        """The module ``import dotted`` binds; the run's own of one made per run (``sys``)."""
        make = PER_RUN.get(dotted)
        if make is None:
            return module_named(dotted)
        module = self.module_state.get(dotted)
        if module is None:
            module = self.module_state[dotted] = Module(dotted, make(self))
        return module

    def _import_from(self, s: P.ImportFrom, scope: dict, top: bool) -> None:
        module = self.module(s.module)
        for name, alias in s.names:
            if name == "*":
                for key in module.members:
                    self.bind(key, module.get(key), scope, top)
                continue
            dotted = f"{s.module}.{name}"  # a submodule: from matplotlib import pyplot
            sub = self.module(dotted) if import_module(dotted) is not None else None
            self.bind(alias or name, sub if sub is not None else module.get(name), scope, top)

    # -- calls ----------------------------------------------------------------------------------
    def call_function(self, fn: Function, args: list, kwargs: dict) -> Any:
        """Call a script's function."""
        scope = bind_arguments(fn, args, kwargs)
        scope[FUNCTION_KEY] = fn
        if self.recorder is not None:  # listings name what a function's parameters hold
            for name, value in scope.items():
                if value.__class__ is Tensor:
                    self.recorder.bind_local(fn, name, value)
        if self.depth >= MAX_CALL_DEPTH:
            raise ScriptError("maximum recursion depth exceeded", kind="RecursionError",
                              hint=f"gradcli allows {MAX_CALL_DEPTH} nested calls; is there a "
                              "recursion without a base case?")
        caller = self.span
        site, self.call_at = self.call_at or caller, None  # the call expression, as Python marks
        # A warning is reported where it was raised, as Python's warnings module does: the
        # caller's so far at its line, the function's last statement's (a return) at its own.
        if self.ctx.warnings:
            self.drain()
        self.calls.append(site)
        self.fns.append(fn.name)
        if not self.depth:  # called by the top level (main()): its names outlive the call
            self.result.last_call = scope
        self.depth += 1
        frame, self.frame = self.frame, scope
        try:
            if fn.node.__class__ is P.Lambda:
                return self._lambda_body(fn.node.body, scope)
            body = fn.node.body
            code = self._bodies.get(id(body))
            if code is not None:
                code(scope)
            elif id(body) in self._called:  # its second call: compiled (closures.py)
                code = self._bodies[id(body)] = block(self, body, False)
                code(scope)
            else:
                self._called.add(id(body))
                self.exec_block(body, scope)
        except Return as r:
            return r.value
        finally:
            if self.ctx.warnings:
                self.drain()
            self.depth -= 1
            self.frame = frame
            self.calls.pop()
            self.fns.pop()
            self.span = caller
            self.ctx.free_tag = caller
        return None

    def _lambda_body(self, body: Any, scope: dict) -> Any:
        self.span = body.span  # where its warnings are reported
        try:
            return self.eval(body, scope)
        except GradcliError as err:  # reported where the lambda is written, as Python does
            if err.span is None:
                err.span = body.span
            if getattr(err, "calls", None) is None:
                err.calls = tuple(self.calls)  # type: ignore[attr-defined]
            raise

    def call_value(self, fn: Any, args: list, kwargs: dict, where: Any = None) -> Any:
        """Call anything a script can call: its functions, built-ins, classes, methods."""
        cls = fn.__class__
        if cls is _BUILTIN_METHOD or cls is _BUILTIN_FUNCTION:  # the api's: x.sum, torch.tanh
            return call_builtin(fn, args, kwargs, self, where)
        if cls is Function:
            return self.call_function(fn, args, kwargs)
        if cls is BoundMethod:
            return self.call_value(fn.function, [fn.self, *args], kwargs, where)
        if isinstance(fn, TypeObject):
            if fn.make is None:
                raise ScriptError(f"cannot create '{fn.qualname}' instances", kind="TypeError")
            if cls is ScriptClass:
                return fn.construct(*args, **kwargs)
            fn = fn.make
        elif not callable(fn) or isinstance(fn, (Tensor, ExcValue)):
            raise ScriptError(f"'{type_name(fn)}' object is not callable", kind="TypeError")
        # (a script's object too: its __call__, or its PyTorch base's, through Python's)
        return call_builtin(fn, args, kwargs, self, where)

    def _rerun_binding(self, name: str, value: Any, count: int) -> Any:
        """A re-run's k-th binding of a name: perturbed (check), or given a tangent."""
        perturb, tangent = self.reruns
        if perturb is not None and perturb[0] == name and isinstance(value, Tensor) \
                and count == perturb[1]:
            with no_grad():
                value = value + perturb[2]
        if tangent is not None and tangent[0] == name and isinstance(value, Tensor) \
                and count == tangent[1]:
            self.result.forward = seed_tangent(value, tangent[2])
        return value

    def type_name(self, v: Any) -> str:
        """What Python's messages call the type of ``v``."""
        return type_name(v)


Interpreter._STATEMENTS = {  # type: ignore[attr-defined]
    P.AssignTo: Interpreter._assign_to, P.AugAssignTo: Interpreter._compiled,
    P.For: Interpreter._compiled, P.While: Interpreter._compiled, P.Break: Interpreter._break,
    P.Continue: Interpreter._continue, P.Return: Interpreter._return, P.Pass: Interpreter._pass,
    P.With: Interpreter._compiled, P.Try: Interpreter._try, P.Raise: Interpreter._raise,
    P.Assert: Interpreter._assert, P.Delete: Interpreter._delete, P.Global: Interpreter._global,
    P.Import: Interpreter._import, P.ImportFrom: Interpreter._import_from,
    P.FunctionDef: Interpreter._def, P.ClassDef: Interpreter._class,
    P.Annotation: Interpreter._annotation,
}

__all__ = ["Interpreter", "Record", "RunResult", "Warning_"]
