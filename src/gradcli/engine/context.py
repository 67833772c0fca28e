"""Per-run state: one ``RunContext`` per run, held in a ``ContextVar``.

Everything that PyTorch keeps per process and a run may change lives here, never in module
globals: grad mode, the backend (array namespace, default dtype, random generator), the node
sequence counter, the element limit, the warnings raised and the warn-once memory, the graph
recorder hook and the backward's bookkeeping for error hints.  Each thread (and each
``use()``) sees its own context, so runs in several threads at once do not share anything.

Two things really are process-wide in CPython, the recursion limit and the cyclic garbage
collector; ``process_guard`` handles both safely for concurrent runs.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from ..errors import ScriptError
from ..limits import MAX_ELEMENTS
from . import machine as machines
from .backend import Backend, FloatingPointLog, get_backend
from .printing import DEFAULT_OPTIONS, PrintOptions

RECURSION_LIMIT = 20_000  # deep graphs and deep expressions recurse in Python


_SEQUENCE = itertools.count()


class RunContext:
    """The mutable state of one run (see the module docstring).

    ``RunContext(backend, **fields)``: the fields below, by keyword, each one's default where
    not given (the ones marked "per run" made new for each context).  A plain class rather
    than a dataclass, whose ``__init__`` would be compiled from source at every start of the
    process.
    """

    backend: Backend
    max_elements: int = MAX_ELEMENTS
    grad_enabled: bool = True
    # PyTorch makes int64 tensors from integer data (``torch.tensor([1, 2])``, ``arange(3)``);
    # a grad script makes every constructed tensor floating (docs/language.md).
    integer_tensors: bool = True
    # True while derivative formulas run under create_graph=True: ``tensor * number`` there is
    # PyTorch's C++ Scalar overload (MulBackward1), not Python's wrapped number (MulBackward0).
    formula_mode: bool = False
    # Called as recorder(output, op, args, inplace, params) for every recorded op (graph
    # listings, a dual level's tangents).
    recorder: Callable | None = None
    # While a recurrent layer runs (engine/recurrent.py): (mode, layer, direction, step,
    # id(w_ih)), the step -1 for the input's projection; the recorder tags the records with
    # it, so --rolled can fold a layer's time steps into one node. None elsewhere.
    rnn_step: tuple | None = None
    # The entered forward-AD level (engine.forward.DualLevel), None outside one.
    forward: Any = None
    # Told each tangent a dual level gives a tensor, as on_tangent(tensor, tangent): the graph
    # records keep it for the views (graph, dot, html, explain --mode forward). None: not told.
    on_tangent: Callable | None = None
    # How many torch.func transforms are running (the outermost one unwraps its results).
    func_depth: int = 0
    # The innermost running vmap (engine.batching.VmapLevel), None outside one.
    vmap: Any = None
    # The running backward (engine.autograd.GraphTask: its id and the nodes it will execute,
    # for register_multi_grad_hook), None outside one.
    graph_task: Any = None
    # The entered allow_mutation_on_saved_tensors context (api.graph_hooks), None outside one.
    allow_mutation: Any = None
    # What a backward stamps on the nodes it frees (the statement's span), for error hints.
    free_tag: Any = None
    # Warnings raised during the run, as (message, category name); None outside a run, where
    # they go to Python's warnings module as PyTorch's do.
    warnings: list[tuple[str, str]] | None = None
    warned_once: set[str]  # per run: empty
    # Node sequence numbers, one counter for the process as PyTorch's sequence_nr: the backward
    # reads them as a topological order, so a context made after a run (a Hessian, explain's
    # replays) numbers its nodes after the run's.
    seq: Iterator[int]  # per run: the process's counter
    # Where each version counter was last bumped by an in-place op: id(counter) -> (counter,
    # the statement's span), so a version error can name the in-place line.
    inplace_at: dict[int, tuple[list, Any]]  # per run: empty
    # grad, check, explain: each node a backward frees keeps what it saved (Node.unfreed; the
    # script still sees the node freed and fails as PyTorch; graph.restored_saved puts the
    # values back for gradcli's after-the-run gradient).
    keep_freed: bool = False
    # grad, check, explain and recording runs: the values no_grad in-place updates of leaves
    # overwrote (an optimizer's step), so those gradients see the graph as it was recorded
    # (engine/history.py). None: not kept.
    history: Any = None
    # Told the tensors each backward() starts from (Tensor.backward, torch.autograd.backward):
    # the interpreter notes the last one, the output the commands differentiate by default.
    on_backward: Callable | None = None
    # torch.autograd.detect_anomaly / set_detect_anomaly: nodes keep the forward frames that
    # made them (node seq -> frames, from anomaly_frames: the interpreter's call stack), a
    # failing backward node warns with them, and with anomaly_nan a NaN gradient is an error.
    anomaly: bool = False
    anomaly_nan: bool = True
    anomaly_frames: Callable | None = None
    anomaly_traces: dict  # per run: empty
    # An EventSink told what the engine does (``trace``, ``profile``); None costs nothing.
    tracer: EventSink | None = None
    # torch.set_printoptions's: how the run's tensors print (PyTorch keeps them per process)
    print_options: PrintOptions = DEFAULT_OPTIONS
    # the CPU whose PyTorch the run reproduces (capability, threads: torch.set_num_threads)
    machine: machines.Machine  # per run: machines.process()
    # the script's NumPy (api/numpy_values.NumpyState: np.random's state, print options),
    # made when the run first uses NumPy; and where NumPy writes its floating-point warnings
    numpy: Any = None
    fp_log: FloatingPointLog  # per run: a new one

    def __init__(self, backend: Backend, **fields: Any) -> None:
        values = self.__dict__
        values.update(_DEFAULTS)
        for name, value in fields.items():
            if name not in _FIELDS:
                raise TypeError(f"RunContext() got an unexpected keyword argument {name!r}")
            values[name] = value
        self.backend = backend
        for name, make in _PER_RUN.items():
            if name not in fields:
                values[name] = make()

    def set_num_threads(self, threads: int) -> None:
        """``torch.set_num_threads(threads)`` for the rest of the run."""
        self.machine = self.machine.with_threads(threads)
        if _CURRENT.get(None) is self:
            machines.activate(self.machine)

    def warn(self, message: str, category: str = "UserWarning") -> None:
        """Raise a warning the way PyTorch does (collected by the run that is going on)."""
        if self.warnings is not None:
            self.warnings.append((message, category))
        else:
            warnings.warn(message, UserWarning if category == "UserWarning" else RuntimeWarning,
                          stacklevel=3)

    def warn_once(self, message: str) -> None:
        """A warning PyTorch gives once per process (TORCH_WARN_ONCE); once per run here."""
        if message not in self.warned_once:
            self.warned_once.add(message)
            self.warn(message)


_FIELDS = frozenset(RunContext.__annotations__)
_DEFAULTS = {k: v for k, v in vars(RunContext).items() if k in _FIELDS}
_PER_RUN: dict[str, Callable[[], Any]] = {
    "warned_once": set, "seq": lambda: _SEQUENCE, "inplace_at": dict, "anomaly_traces": dict,
    "machine": machines.process, "fp_log": FloatingPointLog}


class EventSink:
    """What the engine reports to ``RunContext.tracer`` (every method is optional: a no-op here).

    Ops reach the tracer through ``RunContext.recorder`` (the graph records); the rest is
    called by ``record.py`` and ``autograd.py`` only while a tracer is set.  A hook runner (a
    tensor's ``register_hook``) calls ``hook(tensor, grad, result)`` after each hook it runs.
    """

    # True: ``recorded`` wants the time of each node's recording (profile), so ``record.apply``
    # takes its general, timed path for every op
    timed = False

    def recorded(self, seconds: float) -> None:
        """Time spent creating one graph node and saving its tensors."""

    def version(self, tensor: Any) -> None:
        """``tensor`` was updated in place; its version counter went up."""

    def backward_begin(self, roots: list, retain_graph: bool, create_graph: bool,
                       targets: list | None) -> None:
        """A backward (or ``grad()``) starts from ``roots``."""

    def backward_end(self) -> None:
        """The backward started last has finished (or failed)."""

    def edge(self, node: Any, index: int, to: Any, grad: Any) -> None:
        """``node`` sent gradient ``grad`` along its input ``index`` to ``to``."""

    def free(self, node: Any) -> None:
        """The backward freed what ``node`` saved."""

    def accumulate(self, tensor: Any, before: Any, after: Any, retained: bool) -> None:
        """``tensor.grad`` went from ``before`` (None or an array) to ``after``."""

    def hook(self, tensor: Any, grad: Any, result: Any) -> None:
        """A hook registered on ``tensor`` ran on ``grad`` and returned ``result``."""

    def none_grad(self, read: Any) -> None:
        """The script read a ``.grad`` that is None (the interpreter's ``hints.NoneGrad``)."""

    def tangent(self, tensor: Any, tangent: Any) -> None:
        """A dual level carried a tangent to ``tensor`` (forward-mode AD)."""

    def pack(self, node: Any, name: str, tensor: Any, hook: Any, packed: Any) -> None:
        """A pack hook (``hook``: the function, or the context manager's name) took what
        ``node`` saved as ``name`` (``tensor``) and returned ``packed``."""

    def unpack(self, node: Any, name: str, hook: Any, result: Any) -> None:
        """An unpack hook gave back what ``node`` saved as ``name``."""


_CURRENT: ContextVar[RunContext] = ContextVar("gradcli_run_context")


def current() -> RunContext:
    """This thread's (or this ``use()`` block's) context; a NumPy float64 one by default."""
    ctx = _CURRENT.get(None)
    if ctx is None:
        ctx = RunContext(get_backend("numpy"))
        _CURRENT.set(ctx)
    return ctx


@contextlib.contextmanager
def use(ctx: RunContext) -> Iterator[RunContext]:
    """Make ``ctx`` the current context inside the block."""
    token = _CURRENT.set(ctx)
    machine_token = machines.activate(ctx.machine)
    try:
        yield ctx
    finally:
        machines.deactivate(machine_token)
        _CURRENT.reset(token)


class GradMode:
    """Sets grad mode inside a block and restores the previous one (``torch.no_grad()``).

    Also a decorator, as PyTorch's: ``no_grad()(f)`` (or ``@no_grad()``) returns a function that
    runs ``f`` in that mode.
    """

    __slots__ = ("mode", "prev")

    def __init__(self, mode: bool) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        ctx = current()
        self.prev, ctx.grad_enabled = ctx.grad_enabled, self.mode

    def __exit__(self, *exc: object) -> None:
        current().grad_enabled = self.prev

    def clone(self) -> GradMode:
        """A fresh manager in the same mode (each decorated call enters its own)."""
        return GradMode(self.mode)

    def __call__(self, fn: Any) -> Callable:
        """Decorate ``fn``: each call runs inside a fresh copy of this manager."""
        if not callable(fn):
            raise ScriptError(f"'{type(fn).__name__}' object is not callable", kind="TypeError")
        manager = self

        def decorated(*args: Any, **kwargs: Any) -> Any:
            with manager.clone():
                return fn(*args, **kwargs)

        decorated.__name__ = getattr(fn, "__name__", "decorated")
        decorated.__wrapped__ = fn  # type: ignore[attr-defined]
        return decorated


class SetGradEnabled(GradMode):
    """``torch.set_grad_enabled(b)``: sets the mode at once; as a block or decorator, restores it.

    NOTE: as PyTorch's, using it as a decorator first undoes the call's own effect.
    """

    __slots__ = ()

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise ScriptError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                              f"not {type(mode).__name__}", kind="TypeError")
        ctx = current()
        self.mode, self.prev = mode, ctx.grad_enabled
        ctx.grad_enabled = mode

    def __enter__(self) -> None:
        current().grad_enabled = self.mode

    def clone(self) -> GradMode:
        """A fresh manager in the same mode."""
        return SetGradEnabled(self.mode)

    def __call__(self, fn: Any) -> Callable:
        """Undo the constructor's effect, then decorate ``fn``."""
        current().grad_enabled = self.prev
        return super().__call__(fn)


def is_grad_enabled() -> bool:
    """Whether ops are being recorded (False inside ``no_grad``)."""
    return current().grad_enabled


def no_grad(orig_func: Any = None) -> Any:
    """As ``torch.no_grad()``; ``no_grad(f)`` decorates ``f`` (PyTorch's ``@torch.no_grad``)."""
    return GradMode(False) if orig_func is None else GradMode(False)(orig_func)


def enable_grad(orig_func: Any = None) -> Any:
    """As ``torch.enable_grad()``; ``enable_grad(f)`` decorates ``f``."""
    return GradMode(True) if orig_func is None else GradMode(True)(orig_func)


def set_grad_enabled(mode: bool) -> SetGradEnabled:
    """As ``torch.set_grad_enabled(mode)``: a call, a ``with`` block or a decorator."""
    return SetGradEnabled(mode)


def inference_mode(mode: Any = True) -> Any:
    """As ``torch.inference_mode(mode)``, treated as ``no_grad`` (no inference tensors here).

    NOTE: ``inference_mode(False)`` turns grad mode on, even inside ``no_grad``, as PyTorch's.
    """
    if callable(mode):  # the bare decorator @torch.inference_mode
        return GradMode(False)(mode)
    return GradMode(not mode)


def promote_to_oldest() -> None:
    """Hand every object the collector tracks to its oldest generation, without a traversal.

    After a pause the young generation holds everything made during it (a parsed program, a
    run's graph: 10^6 objects for a 20,000-line script); the first young collection after
    ``gc.enable()`` would walk them all (about 0.25 s each time), and again on their way to the
    oldest generation.  ``gc.freeze()`` then ``gc.unfreeze()`` moves them there at once, where
    only the rare full collections look at them.  Skipped when the program froze objects
    itself: unfreezing would release them.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


class _ProcessGuard:
    """What a run needs from the process: a high recursion limit and a paused collector.

    NOTE: a run builds a graph of many small objects that stay alive until backward and die by
    reference counting (the engine makes no cycles but a hooked leaf<->its AccumulateGrad).
    CPython's cyclic collector would traverse the growing graph again and again: pausing it
    makes a 20,000-statement script run about 3x faster (and still 1.5-2x with the start-up's
    objects out of its way: a run's own graph is what it walks).  The pause is counted, so
    concurrent runs keep it paused until the last one ends, which hands what they made to the
    oldest generation (``promote_to_oldest``).  The recursion limit is only ever raised, never
    lowered while another run may rely on it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._gc_was_enabled = False

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if sys.getrecursionlimit() < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
            if self._active == 0:
                self._gc_was_enabled = gc.isenabled()
                gc.disable()
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if self._active == 0 and self._gc_was_enabled:
                    promote_to_oldest()
                    gc.enable()


process_guard = _ProcessGuard()
