"""Execute a compiled program on the engine: scopes, bindings, limits, prints and warnings.

The runtime never formats for a terminal; it returns a ``RunResult`` that holds the final
bindings, every name's binding history, what ``print`` printed, the warnings and the error (a
``GradcliError`` with the span of the statement that raised it).
"""

from __future__ import annotations

import gc
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from . import autograd, engine
from . import functions as F
from . import program as P
from . import tensor as tensor_module
from .backend import quiet
from .builtins import BUILTINS, TENSOR_ATTRIBUTES, TENSOR_METHODS, Size, display
from .engine import Tensor
from .errors import GradcliError, ScriptError, Span

MAX_STEPS = 1_000_000
MAX_CALL_DEPTH = 200
MAX_INT_BITS = 14_000  # about 4,200 digits: Python converts at most 4,300 to text
MAX_SEQUENCE = 1_000_000  # characters of a string, elements of a (flattened) list
MAX_LIST_DEPTH = 100


@dataclass
class Warning_:
    """A warning raised while running, with the statement that triggered it."""

    message: str
    span: Span | None
    kind: str = "UserWarning"


@dataclass
class Record:
    """One tensor state the run produced: a leaf, an op's result, or an in-place update."""

    tensor: Tensor
    op: str | None  # op table name, None for a leaf
    grad_fn: str | None
    inputs: tuple[int | None, ...]  # record ids; None for a plain number argument
    span: Span | None
    node: Any = None  # the engine Node created (grad_fn), for saved-tensor listings
    data: Any = None  # the values of an older state that an in-place update overwrote


@dataclass
class RunResult:
    """Everything a run produced."""

    program: P.Program
    backend: Any
    bindings: dict[str, Any] = field(default_factory=dict)
    history: dict[str, list[Any]] = field(default_factory=dict)
    last_assigned: str | None = None
    prints: list[str] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)
    error: GradcliError | None = None
    records: list[Record] | None = None

    def grad(self, of: str, wrt: list[str]) -> list[Tensor]:
        """d(of)/d(w) for each w, as torch.autograd.grad with retain_graph; zeros if unused."""
        out = self.bindings[of]
        inputs = [self.bindings[w] for w in wrt]
        if not out.requires_grad or not any(t.requires_grad for t in inputs):
            # nothing connects them: every --wrt gets a zero gradient (SPEC §3)
            return [Tensor(self.backend.xp.zeros_like(t.data), self.backend) for t in inputs]
        live = [t for t in inputs if t.requires_grad]
        with quiet():  # inf/nan gradients, as PyTorch, without NumPy's warnings
            grads = iter(autograd.grad(out, live, retain_graph=True, materialize_grads=True))
        return [next(grads) if t.requires_grad else
                Tensor(self.backend.xp.zeros_like(t.data), self.backend) for t in inputs]


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


@dataclass
class _Function:
    """A user ``def``: its parameters, body and the names it assigns (its locals)."""

    node: P.FunctionDef
    locals: frozenset[str]

    def __repr__(self) -> str:
        return f"<function {self.node.name}>"


class Interpreter:
    """Runs one program; create one per run."""

    def __init__(self, program: P.Program, backend: Any, *, wrt: tuple[str, ...] = (),
                 overrides: dict[str, Any] | None = None, record: bool = False,
                 max_steps: int = MAX_STEPS, on_print: Callable[[str], None] | None = None,
                 base_dir: str = ".", perturb: tuple[str, int, Any] | None = None) -> None:
        self.program = program
        self.backend = backend
        self.wrt = frozenset(wrt)
        self.overrides = overrides or {}
        self.max_steps = max_steps
        self.steps = 0
        self.depth = 0
        self.on_print = on_print
        self.base_dir = base_dir
        self.perturb = perturb  # (name, k, delta): add delta to the k-th binding (finite diffs)
        self.globals: dict[str, Any] = {}
        self.result = RunResult(program, backend)
        self.span: Span | None = None
        self._record_ids: dict[int, int] = {}
        if record:
            self.result.records = []

    # -- running --------------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Execute the whole program; errors end up in ``result.error``."""
        F.set_backend(self.backend)
        tensor_module._warned_once.clear()  # a run is a fresh process for PyTorch's warn-once
        prev_recorder = engine.recorder
        engine.recorder = self._record if self.result.records is not None else None
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20_000))
        # NOTE: a run builds a graph of many small objects that stay alive until backward and
        # die by reference counting (the engine makes no cycles but leaf<->AccumulateGrad).
        # CPython's cyclic collector would traverse the growing graph again and again: pausing
        # it makes a 20,000-statement script run about 3x faster.
        gc_was = gc.isenabled()
        gc.disable()
        try:
            with warnings.catch_warnings(record=True) as caught, quiet():
                warnings.simplefilter("always")
                self._caught = caught
                try:
                    self.exec_block(self.program.body, self.globals, top=True)
                except _Return:
                    pass
                except GradcliError as err:
                    self.result.error = err.at(self.span)
                    if err.hint is None:
                        err.hint = self._hint(err)
                except RecursionError:
                    self.result.error = ScriptError(
                        "maximum recursion depth exceeded", kind="RecursionError", span=self.span)
                self._drain()
        finally:
            engine.recorder = prev_recorder
            engine.free_tag = None
            sys.setrecursionlimit(limit)
            if gc_was:
                gc.enable()
        return self.result

    def _hint(self, err: GradcliError) -> str | None:
        """A suggestion for the autograd errors learners meet most."""
        msg = err.message
        freed_by = getattr(err, "freed_by", None)
        if msg.startswith("Trying to backward through the graph a second time") and freed_by:
            line = self.program.source.splitlines()[freed_by.line - 1]
            text = line[freed_by.column - 1:freed_by.end_column - 1 if
                        freed_by.end_line == freed_by.line else None].strip()
            if text.endswith(".backward()"):
                fixed = text[:-1] + "retain_graph=True)"
                return f"call {fixed} on line {freed_by.line} to keep the saved tensors"
            return (f"pass retain_graph=True to the call on line {freed_by.line} to keep the "
                    "saved tensors")
        if msg.startswith("one of the variables needed for gradient computation"):
            return ("a tensor saved for backward was changed in place afterwards; write the "
                    "update out of place (y = y + 1) or update a clone()")
        if msg.startswith("a leaf Variable that requires grad"):
            return "update parameters inside `with no_grad():`, as optimizers do"
        if msg.startswith("grad can be implicitly created only for scalar"):
            return "reduce to a scalar first (y.sum().backward()) or pass gradient=ones_like(y)"
        if msg.startswith("element 0 of tensors does not require grad"):
            return ("nothing it depends on requires grad: use param(...), requires_grad=True, "
                    "or --wrt NAME")
        return None

    def _drain(self) -> None:
        for w in self._caught:
            if issubclass(w.category, RuntimeWarning):
                continue  # NumPy's (mean of an empty slice): PyTorch answers nan silently
            msg = str(w.message)
            cut = msg.find(" (Triggered internally")
            self.result.warnings.append(
                Warning_(msg if cut < 0 else msg[:cut], self.span, w.category.__name__))
        self._caught.clear()

    def exec_block(self, body: tuple, scope: dict, top: bool = False) -> None:
        """Run statements in order, counting steps."""
        for stmt in body:
            self.steps += 1
            if self.steps > self.max_steps:
                raise ScriptError(
                    f"the script ran more than {self.max_steps:,} statements (step limit)",
                    span=stmt.span, hint="raise the limit with --max-steps if the loop is meant "
                    "to run this long")
            self.span = stmt.span
            engine.free_tag = stmt.span
            self.exec_stmt(stmt, scope, top)
            if self._caught:
                self._drain()

    def exec_stmt(self, s: Any, scope: dict, top: bool) -> None:
        """Run one statement."""
        cls = s.__class__
        if cls is P.Assign:
            if s.literal and s.target in self.overrides:
                value = F.tensor(self.overrides[s.target])
            elif s.literal:
                value = F.tensor(_literal(s.value))
            else:
                value = self.eval(s.value, scope)
            self.bind(s.target, value, scope, top)
        elif cls is P.ExprStmt:
            self.eval(s.value, scope)
        elif cls is P.AugAssign:
            self._aug_assign(s, scope, top)
        elif cls is P.For:
            self._for(s, scope, top)
        elif cls is P.If:
            for cond, body in s.branches:
                if self.truth(self.eval(cond, scope)):
                    self.exec_block(body, scope, top)
                    break
            else:
                self.exec_block(s.orelse, scope, top)
        elif cls is P.With:
            ctx = self.eval(s.context, scope)
            if not isinstance(ctx, engine._GradMode):
                raise ScriptError("with blocks take no_grad() or enable_grad() only",
                                  kind="TypeError", span=s.span)
            with ctx:
                self.exec_block(s.body, scope, top)
        elif cls is P.FunctionDef:
            self.bind(s.name, _Function(s, _assigned(s.body) | set(s.params)), scope, top)
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
        if self.perturb is not None and self.perturb[0] == name and isinstance(value, Tensor) \
                and len(self.result.history.get(name, ())) == self.perturb[1]:
            with engine.no_grad():
                value = value + self.perturb[2]
        scope[name] = value
        if name in self.wrt and isinstance(value, Tensor) and value.is_leaf:
            value.requires_grad_(True)
        if self.result.records is not None:
            for t in iter_tensors(value):
                self._ensure_record(t)
        self.result.history.setdefault(name, []).append(value)
        self.result.bindings[name] = value
        self.result.last_assigned = name

    def _aug_assign(self, s: P.AugAssign, scope: dict, top: bool) -> None:
        current = self.lookup(s.target, scope, s.span)
        value = self.eval(s.value, scope)
        if isinstance(current, Tensor):
            method = {"+": F.add_, "-": F.sub_, "*": F.mul_, "/": F.div_}[s.op]
            try:
                method(current, value)
            except OverflowError as exc:  # a Python int beyond float range
                raise ScriptError(str(exc), kind="OverflowError") from None
            except TypeError:  # e.g. NumPy refuses - on the bool tensors comparisons make
                raise ScriptError(f"unsupported operand type(s) for {s.op}=: 'Tensor' and "
                                  f"'{_tname(value)}'", kind="TypeError") from None
            return
        self.bind(s.target, _arith(s.op, current, value), scope, top)

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
            self.exec_block(s.body, scope, top)

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
                          hint=_did_you_mean(name, [*scope, *self.globals, *BUILTINS]))

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
            return _arith(e.op, self.eval(e.left, scope), self.eval(e.right, scope))
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
            return _check_list([self.eval(i, scope) for i in e.items])
        if cls is P.Subscript:
            return self._subscript(e, scope)
        if cls is P.Compare:
            return self._compare(e, scope)
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
                result = _COMPARE[op](left, right)
            except OverflowError as exc:  # a tensor against a Python int beyond float range
                raise ScriptError(str(exc), kind="OverflowError") from None
            except TypeError:
                raise ScriptError(f"'{op}' not supported between instances of '{_tname(left)}' "
                                  f"and '{_tname(right)}'", kind="TypeError") from None
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
                return Size(value) if attr == "shape" else value
            if attr in TENSOR_METHODS:
                return getattr(obj, attr)
            raise ScriptError(f"'Tensor' object has no attribute '{attr}'", kind="AttributeError",
                              span=span, hint=_did_you_mean(attr, [*TENSOR_ATTRIBUTES,
                                                                   *TENSOR_METHODS]))
        raise ScriptError(f"'{type(obj).__name__}' object has no attribute '{attr}'",
                          kind="AttributeError", span=span)

    def _call(self, e: P.Call, scope: dict) -> Any:
        fn = self.eval(e.func, scope)
        args = [self.eval(a, scope) for a in e.args]
        kwargs = {k: self.eval(v, scope) for k, v in e.kwargs}
        if isinstance(fn, _Function):
            if kwargs:
                raise ScriptError(f"{fn.node.name}() takes positional arguments only",
                                  kind="TypeError")
            return self._call_user(fn, args)
        if not callable(fn) or isinstance(fn, Tensor):
            raise ScriptError(f"'{type(fn).__name__}' object is not callable", kind="TypeError")
        return _call_builtin(fn, args, kwargs, self)

    def _call_user(self, fn: _Function, args: list) -> Any:
        params = fn.node.params
        if len(args) != len(params):
            raise ScriptError(f"{fn.node.name}() takes {len(params)} positional argument"
                              f"{'' if len(params) == 1 else 's'} but {len(args)} "
                              f"{'was' if len(args) == 1 else 'were'} given", kind="TypeError")
        if self.depth >= MAX_CALL_DEPTH:
            raise ScriptError(f"function calls nested deeper than {MAX_CALL_DEPTH}",
                              kind="RecursionError", hint="is there a recursion without a base "
                              "case?")
        scope: dict[str, Any] = dict(zip(params, args))
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

    # -- graph records --------------------------------------------------------------------------
    def _ensure_record(self, t: Tensor) -> int:
        rid = self._record_ids.get(id(t))
        if rid is None:
            rid = self._add_record(t, None, (), None)
        return rid

    def _add_record(self, t: Tensor, op: Any, inputs: tuple, node: Any) -> int:
        records = self.result.records
        records.append(Record(t, op.name if op is not None else None,
                              node.name if node is not None else None, inputs, self.span, node))
        rid = len(records) - 1
        self._record_ids[id(t)] = rid
        return rid

    def _record(self, out: Tensor, op: Any, args: tuple, inplace: bool) -> None:
        inputs = tuple(self._ensure_record(a) if isinstance(a, Tensor) else None for a in args)
        if inplace:  # keep the values the update is about to overwrite
            old = self.result.records[inputs[0]]
            old.data = self.backend.xp.asarray(out.data, copy=True)
        self._add_record(out, op, inputs, out.grad_fn if out.requires_grad else None)


_COMPARE = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def _arith(op: str, a: Any, b: Any) -> Any:
    """A binary operator with Python/PyTorch semantics and script-level errors."""
    _check_operands(op, a, b)
    result = _arith_unchecked(op, a, b)
    if result.__class__ is int and result.bit_length() > MAX_INT_BITS:
        raise _int_too_large()
    if result.__class__ is list:
        _check_list(result)
    return result


def _check_operands(op: str, a: Any, b: Any) -> None:
    """Refuse, before computing it, an int, string or list too large to use (SPEC §6)."""
    if op == "*" and a.__class__ is int and b.__class__ is int:
        if a.bit_length() + b.bit_length() - 1 > MAX_INT_BITS:
            raise _int_too_large()
    elif op == "**" and a.__class__ is int and b.__class__ is int and b > 0:
        if (abs(a).bit_length() - 1) * b > MAX_INT_BITS:
            raise _int_too_large()
    elif op == "*" and isinstance(a, (int, str, list)) and isinstance(b, (int, str, list)):
        seq, n = (a, b) if isinstance(b, int) else (b, a)
        if isinstance(seq, (str, list)) and isinstance(n, int) and len(seq) * n > MAX_SEQUENCE:
            raise _too_long(len(seq) * n)
    elif op == "+" and isinstance(a, (str, list)) and isinstance(b, (str, list)):
        if len(a) + len(b) > MAX_SEQUENCE:
            raise _too_long(len(a) + len(b))


def _int_too_large() -> ScriptError:
    return ScriptError(f"integer too large (over {MAX_INT_BITS:,} bits, about 4,200 digits)",
                       kind="OverflowError", hint="use floats (2.0 ** 100000 is inf)")


def _too_long(n: int) -> ScriptError:
    return ScriptError(f"a string or list of {n:,} elements is over the limit of "
                       f"{MAX_SEQUENCE:,}", kind="MemoryError")


def _check_list(value: list) -> list:
    """Bound the nesting depth and the flattened size of a list built at run time (SPEC §6).

    Lists inside ``value`` were checked when they were built, so the walk recurses at most
    ``MAX_LIST_DEPTH`` deep; it visits each distinct list once, however often it is shared.
    """
    seen: dict[int, tuple[int, int]] = {}

    def measure(v: list) -> tuple[int, int]:
        known = seen.get(id(v))
        if known is not None:
            return known
        depth, size = 1, len(v)
        for item in v:
            if item.__class__ is list:
                d, n = measure(item)
                depth, size = max(depth, d + 1), size + n
        seen[id(v)] = (depth, size)
        return depth, size

    depth, size = measure(value)
    if depth > MAX_LIST_DEPTH:
        raise ScriptError(f"lists nested deeper than {MAX_LIST_DEPTH}", kind="RecursionError")
    if size > MAX_SEQUENCE:
        raise _too_long(size)
    return value


def _arith_unchecked(op: str, a: Any, b: Any) -> Any:
    try:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b
        if op == "**":
            if isinstance(a, int) and isinstance(b, int) and abs(b) > 10_000 and abs(a) > 1:
                raise ScriptError("integer power too large", kind="OverflowError")
            return a ** b
        if op == "@":
            return a @ b
    except ZeroDivisionError:
        raise ScriptError("division by zero", kind="ZeroDivisionError") from None
    except OverflowError as exc:
        raise ScriptError(str(exc.args[-1] if exc.args else exc), kind="OverflowError") from None
    except TypeError:
        raise ScriptError(f"unsupported operand type(s) for {op}: '{_tname(a)}' and "
                          f"'{_tname(b)}'", kind="TypeError") from None
    raise ScriptError(f"unknown operator {op}")  # pragma: no cover


def _literal(e: Any) -> Any:
    """The numbers of a bare literal (SPEC §2.4); a leading minus negates every element."""
    if e.__class__ is P.Number:
        return e.value
    if e.__class__ is P.Unary:
        v = _literal(e.operand)
        return _negate(v) if e.op == "-" else v
    return [_literal(i) for i in e.items]


def _negate(v: Any) -> Any:
    return [_negate(x) for x in v] if isinstance(v, list) else -v


def _tname(v: Any) -> str:
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _call_builtin(fn: Any, args: list, kwargs: dict, interp: Interpreter) -> Any:
    needs_interp = getattr(fn, "needs_interpreter", False)
    try:
        if needs_interp:
            return fn(interp, *args, **kwargs)
        return fn(*args, **kwargs)
    except TypeError as exc:
        # Only argument-binding errors reach here: built-ins raise ScriptError for bad values.
        raise ScriptError(str(exc).replace("functions.", ""), kind="TypeError") from None
    except OverflowError as exc:  # a Python int beyond float range as a scalar argument
        raise ScriptError(str(exc), kind="OverflowError") from None


def _assigned(body: tuple) -> set[str]:
    """Names a function body assigns (its locals, as Python decides at compile time)."""
    names: set[str] = set()
    for s in body:
        if isinstance(s, (P.Assign, P.AugAssign)):
            names.add(s.target)
        elif isinstance(s, P.For):
            names.add(s.var)
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


def _did_you_mean(name: str, candidates: Any) -> str | None:
    import difflib

    close = difflib.get_close_matches(name, [c for c in candidates if not c.startswith("__")],
                                      n=1)
    return f"did you mean '{close[0]}'?" if close else None


def iter_tensors(value: Any) -> Iterator[Tensor]:
    """Tensors inside a binding value (a tensor or a list from grad())."""
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from iter_tensors(v)


__all__ = ["Interpreter", "RunResult", "Record", "display"]
