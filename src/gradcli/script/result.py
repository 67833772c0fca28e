"""What a run produced: ``RunResult`` (bindings, prints, warnings, the error) and its warnings."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..engine import RunContext, Tensor, grad, use
from ..engine.backend import quiet
from ..engine.graph import restored_saved
from ..errors import GradcliError, Span
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
        self.kept: Any = None  # RunContext.kept of the run: what its backward() calls freed
        # .grad reads that gave None (recording runs: trace, explain, graph)
        self.none_grads: list[NoneGrad] = []

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


__all__ = ["RunResult", "Warning_"]
