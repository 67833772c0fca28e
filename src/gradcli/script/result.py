"""What a run produced: ``RunResult`` (bindings, prints, warnings, the error) and its warnings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..engine import RunContext, Tensor, grad, use
from ..engine.backend import quiet
from ..engine.graph import restored_saved
from ..errors import GradcliError, ScriptError, Span
from ..language import program as P
from .hints import NoneGrad
from .recorder import Record


class Warning_(NamedTuple):
    """A warning raised while running, with the statement that triggered it and the calls
    that led there (outermost first)."""

    message: str
    span: Span | None
    kind: str = "UserWarning"
    calls: tuple[Span, ...] = ()
    hint: str | None = None  # gradcli's, shown after PyTorch's message


class BackwardCall(NamedTuple):
    """The last backward() the script called: the tensor it started from, the statement, and
    the scope of the function that called it (the top level's bindings, or main()'s)."""

    tensor: Tensor
    span: Span | None
    scope: dict


class RunResult:
    """Everything a run produced."""

    def __init__(self, program: P.Program, backend: Any, mode: str = "grad") -> None:
        self.program = program
        self.backend = backend
        self.mode = mode  # "grad" (a grad script) or "torch" (a PyTorch program)
        self.bindings: dict[str, Any] = {}
        self.binding_counts: dict[str, int] = {}  # top-level bindings per name
        self.binding_spans: dict[str, Span | None] = {}  # each name's latest
        self.last_assigned: str | None = None
        self.prints: list[str] = []
        self.warnings: list[Warning_] = []
        self.notes: list[str] = []  # gradcli's own remarks on the run (matplotlib not drawn)
        self.error: GradcliError | None = None
        self.records: list[Record] | None = None
        # recording only: name → (label, id(tensor)) per tensor bound, in binding order (views)
        self.bound: dict[str, list[tuple[str, int]]] | None = None
        self.local: dict[str, list[tuple[str, int]]] | None = None  # functions' (f:name)
        self.history: Any = None  # RunContext.history: what optimizer steps overwrote
        self.backward_call: BackwardCall | None = None  # the last backward() (targets.py)
        self.last_call: dict | None = None  # the scope of the last call made by the top level
        self.wrt: tuple[str, ...] = ()  # the names the run was given (--wrt, run(wrt=...))
        self.forward: Any = None  # the dual level a seeded tangent started (engine.forward)
        # .grad reads that gave None (recording runs: trace, explain, graph)
        self.none_grads: list[NoneGrad] = []

    def grad(self, of: str, wrt: list[str]) -> list[Tensor]:
        """d(of)/d(w) for top-level names (``gradients`` of the tensors bound to them)."""
        return self.gradients(self.bindings[of], [self.bindings[w] for w in wrt])

    def gradients(self, out: Tensor, inputs: list[Tensor], tracer: Any = None) -> list[Tensor]:
        """d(out)/d(w) for each input, as torch.autograd.grad with retain_graph, through the
        graph as autograd recorded it: what the script's own backward() freed is put back, and
        what an optimizer's step overwrote since (engine/history.py); an input the output does
        not depend on gets zeros (docs/commands.md).  An output that does not require grad is PyTorch's
        error, never zeros.  ``tracer``: an EventSink told the backward's events (the html
        stepper's)."""
        if not out.requires_grad:
            raise ScriptError("element 0 of tensors does not require grad and does not have a "
                              "grad_fn")
        live = [t for t in inputs if t.requires_grad]
        grads = iter(())
        if live:
            ctx = RunContext(self.backend, tracer=tracer)
            if tracer is not None:
                tracer.ctx = ctx  # the statement its events name (none: after the run)
            # inf/nan as PyTorch, no NumPy warnings
            with restored_saved(self.history, (out.grad_fn,)), use(ctx), quiet():
                grads = iter(grad(out, live, retain_graph=True, materialize_grads=True))
        return [next(grads) if t.requires_grad else
                Tensor(self.backend.xp.zeros_like(t.data), self.backend) for t in inputs]

    def jacobian(self, out: Tensor, inputs: list[Tensor],
                 progress: Callable[[int], None] | None = None) -> list[Tensor]:
        """d(out)/d(w) for each input, shaped (*out.shape, *w.shape), as
        torch.autograd.functional.jacobian computes it: one backward per element of ``out``
        (retain_graph), seeded with that element's one-hot, as its ``out.reshape(-1)[j]`` gives
        the backward; an input the output does not depend on gets zeros.  ``progress(k)``: k
        backwards done."""
        if not out.requires_grad:
            raise ScriptError("element 0 of tensors does not require grad and does not have a "
                              "grad_fn")
        be, n = self.backend, out.numel()
        rows: list[list[Any]] = [[] for _ in inputs]
        live = [t for t in inputs if t.requires_grad]
        with restored_saved(self.history, (out.grad_fn,)), \
                use(RunContext(be)), quiet():
            for j in range(n if live else 0):
                got = iter(grad(out, live, grad_outputs=_one_hot(out, j), retain_graph=True,
                                materialize_grads=True))
                for k, t in enumerate(inputs):
                    if t.requires_grad:
                        rows[k].append(be.xp.asarray(next(got).data))
                if progress is not None:
                    progress(j + 1)
        return [_stacked(be, rows[k], out, t) for k, t in enumerate(inputs)]

    def hessian(self, out: Tensor, inputs: list[Tensor],
                progress: Callable[[int], None] | None = None) -> list[Tensor]:
        """d²(out)/d(w)² for each input, shaped (*w.shape, *w.shape), as
        torch.autograd.functional.hessian computes it (reverse over reverse): the gradient
        with create_graph=True, then one backward of it per element of w.  ``progress(k)``: k
        second backwards done."""
        if not out.requires_grad:
            raise ScriptError("element 0 of tensors does not require grad and does not have a "
                              "grad_fn")
        be = self.backend
        found = []
        done = 0
        ctx = RunContext(be)
        with restored_saved(self.history, (out.grad_fn,)), use(ctx), quiet():
            for t in inputs:
                rows = []
                if t.requires_grad:
                    (g,) = grad(out, [t], retain_graph=True, create_graph=True,
                                materialize_grads=True)
                    for j in range(t.numel() if g.requires_grad else 0):
                        (h,) = grad(g, [t], grad_outputs=_one_hot(g, j), retain_graph=True,
                                    materialize_grads=True)
                        rows.append(be.xp.asarray(h.data))
                        done += 1
                        if progress is not None:
                            progress(done)
                found.append(_stacked(be, rows, t, t))
        return found


def _one_hot(t: Tensor, j: int) -> Tensor:
    """A tensor of ``t``'s shape and dtype, 1 at flat index ``j`` and 0 elsewhere."""
    xp = t.backend.xp
    flat = xp.zeros(t.numel(), dtype=t.data.dtype)
    flat[j] = 1
    return Tensor(t.backend.writable(flat.reshape(tuple(t.shape))), t.backend)


def _stacked(be: Any, rows: list, out: Tensor, w: Tensor) -> Tensor:
    """Rows d(out[j])/dw, one per element of ``out``, as one (*out.shape, *w.shape) tensor;
    zeros when there are none (w does not reach ``out``)."""
    shape = (*out.shape, *w.shape)
    if not rows:
        return Tensor(be.writable(be.xp.zeros(shape, dtype=w.data.dtype)), be)
    return Tensor(be.writable(be.xp.stack(rows).reshape(shape)), be)

__all__ = ["RunResult", "Warning_"]
