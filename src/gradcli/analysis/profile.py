"""``profile``: per script line, wall time, graph nodes created, saved bytes still held at the
end (by the graphs the final bindings reach; through a pack hook, what it returned), the new
memory pack hooks kept (copies), backward time; the share of the run spent recording the
graph; and the one-time warm-up, apart.

Warm-up is what a line's first run costs beyond its later runs: MKL's set-up on its first
call (loading the library, starting its threads), a kernel's first use, a backward's first
formulas.  It is measured, not guessed: for a line that ran more than once, the excess of its
first run over the mean of the others, when that excess is over ``WARMUP_MIN`` seconds and
the first run took over ``WARMUP_RATIO`` times as long.  It is moved out of the line's time
into ``warmup_seconds``; a line that ran once keeps all of its time.

The profiler is an ``EventSink`` (``RunContext.tracer``) that also wraps the interpreter's
``exec_stmt`` (an instance attribute, so runs without a profiler pay nothing).  Times are
exclusive: a ``for`` line counts its own work (the range, the loop), its body's lines their
own.  Nodes are held only through weak references, so profiling keeps no saved tensor alive.
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from ..engine.context import EventSink, current
from ..engine.saved_hooks import Packed
from .trace import kept_bytes

WARMUP_MIN = 1e-3  # seconds a first run must exceed the others' mean by to count as warm-up
WARMUP_RATIO = 3.0


@dataclass
class LineCost:
    """What one script line cost."""

    line: int
    source: str
    hits: int = 0
    seconds: float = 0.0  # exclusive wall time, backward included
    nodes: int = 0  # graph nodes created
    saved_bytes: int = 0  # bytes of saved tensors its nodes still hold at the end
    packed_bytes: int = 0  # new memory its pack hooks kept (copies, over the whole run)
    backward_seconds: float = 0.0
    record_seconds: float = 0.0  # creating nodes and saving tensors
    warmup_seconds: float = 0.0  # one-time cost of its first run, not in ``seconds``


@dataclass
class Profile:
    """Every line that ran, in line order, and the totals."""

    lines: list[LineCost] = field(default_factory=list)
    total_seconds: float = 0.0
    record_seconds: float = 0.0
    backward_seconds: float = 0.0
    nodes: int = 0
    saved_bytes: int = 0
    packed_bytes: int = 0
    warmup_seconds: float = 0.0  # in total_seconds, in no line's seconds
    error: Any = None

    @property
    def record_share(self) -> float:
        """The fraction of the run spent recording the graph."""
        return self.record_seconds / self.total_seconds if self.total_seconds > 0 else 0.0


class Profiler(EventSink):
    """Collects per-line costs during a run; ``finish`` returns the ``Profile``."""

    timed = True

    def __init__(self) -> None:
        self.seconds: dict[int, float] = defaultdict(float)
        self.first: dict[int, float] = {}  # each line's first run (warm-up is its excess)
        self.hits: dict[int, int] = defaultdict(int)
        self.nodes: dict[int, int] = defaultdict(int)
        self.record: dict[int, float] = defaultdict(float)
        self.backward: dict[int, float] = defaultdict(float)
        self.packed: dict[int, int] = defaultdict(int)
        self.live: list[tuple[weakref.ref, int]] = []
        self._children: list[float] = []
        self._backward_started: list[float] = []
        self.started = perf_counter()
        self.ended: float | None = None

    def attach(self, interp: Any) -> None:
        """Time every statement and count the nodes each one creates."""
        run_stmt = interp.exec_stmt
        seconds, hits, children, first = self.seconds, self.hits, self._children, self.first

        def timed(s: Any, scope: dict, top: bool) -> None:
            t0 = perf_counter()
            children.append(0.0)
            try:
                run_stmt(s, scope, top)
            finally:
                dt = perf_counter() - t0
                line = s.span.line
                own = dt - children.pop()
                seconds[line] += own
                if line not in first:
                    first[line] = own
                hits[line] += 1
                if children:
                    children[-1] += dt

        interp.exec_stmt = timed
        record = interp.ctx.recorder

        def on_op(out: Any, op: Any, args: tuple, inplace: bool, params: Any = None) -> None:
            if record is not None:
                record(out, op, args, inplace, params)
            node = out.grad_fn
            if node is not None and out.requires_grad:
                line = _line()
                self.nodes[line] += 1
                self.live.append((weakref.ref(node), line))

        interp.ctx.recorder = on_op
        self.started = perf_counter()

    def recorded(self, seconds: float) -> None:
        self.record[_line()] += seconds

    def pack(self, node: Any, name: str, tensor: Any, hook: Any, packed: Any) -> None:
        self.packed[_line()] += kept_bytes(packed, tensor)[1]

    def backward_begin(self, roots: list, retain_graph: bool, create_graph: bool,
                       targets: list | None) -> None:
        self._backward_started.append(perf_counter())

    def backward_end(self) -> None:
        self.backward[_line()] += perf_counter() - self._backward_started.pop()

    def finish(self, result: Any) -> Profile:
        """The costs per line, with the saved bytes the surviving nodes still hold."""
        total = perf_counter() - self.started
        held: dict[int, int] = defaultdict(int)
        seen: set[int] = set()
        alive = _reachable(result.bindings.values())
        for ref, line in self.live:
            node = ref()
            if node is None or node.freed or id(node) in seen or id(node) not in alive:
                continue
            seen.add(id(node))
            held[line] += _held(node)
        text = result.program.source.splitlines()
        lines = sorted(set(self.hits) | set(self.nodes) | set(self.packed))
        prof = Profile(total_seconds=total, error=result.error)
        for ln in lines:
            hits, seconds = self.hits.get(ln, 0), self.seconds.get(ln, 0.0)
            warmup = _warmup(self.first.get(ln, 0.0), seconds, hits)
            prof.lines.append(LineCost(
                ln, text[ln - 1].strip() if 0 < ln <= len(text) else "", hits,
                seconds - warmup, self.nodes.get(ln, 0), held.get(ln, 0),
                self.packed.get(ln, 0), self.backward.get(ln, 0.0), self.record.get(ln, 0.0),
                warmup))
        prof.warmup_seconds = sum(c.warmup_seconds for c in prof.lines)
        prof.record_seconds = sum(self.record.values())
        prof.backward_seconds = sum(self.backward.values())
        prof.nodes = sum(self.nodes.values())
        prof.saved_bytes = sum(held.values())
        prof.packed_bytes = sum(self.packed.values())
        return prof


def _held(node: Any) -> int:
    """The bytes a node's saved tensors hold: through a pack hook, the tensors of what it
    returned; a saved Python number is a wrapped 0-d tensor in PyTorch: 8 bytes."""
    total = 0
    for entry in node.saved.values():
        if entry.__class__ is Packed:
            total += kept_bytes(entry.packed, entry.source)[0]
        elif entry[0] is not None:
            total += int(getattr(entry[0], "nbytes", 8))
    return total


def _warmup(first: float, total: float, hits: int) -> float:
    """The excess of a line's first run over its other runs' mean (see the module docstring)."""
    if hits < 2:
        return 0.0
    rest = (total - first) / (hits - 1)
    excess = first - rest
    return excess if excess > WARMUP_MIN and first > WARMUP_RATIO * rest else 0.0


def _reachable(values: Any) -> set[int]:
    """Nodes reachable from the final bindings' grad_fns: the graphs PyTorch keeps alive.

    NOTE: gradcli's run result also keeps every earlier binding (for naming), which would keep
    old graphs alive; the profile counts what the same program keeps in PyTorch.
    """
    stack = []
    for v in values:
        for t in (v if isinstance(v, list) else [v]):
            fn = getattr(t, "grad_fn", None)
            if fn is not None and hasattr(fn, "edges"):
                stack.append(fn)
    seen: set[int] = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.extend(m for m in n.edges if m is not None)
    return seen


def _line() -> int:
    span = current().free_tag
    return span.line if span is not None else 0
