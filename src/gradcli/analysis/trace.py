"""``trace``: what a run did, event by event, with the root cause of an autograd error.

A ``Tracer`` is the engine's ``EventSink`` (``RunContext.tracer``) and sees each recorded op
through the graph recorder.  During the run it only appends small tuples (and copies of
``.grad`` around accumulations); names and texts are made once at the end (``finish``), when
every binding is known.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import Tensor
from ..engine.backend import to_host
from ..engine.context import EventSink, current
from .names import Names

VALUE_ELEMENTS = 64  # gradients up to this size are kept in full in events; larger: shape, norm


@dataclass
class Event:
    """One thing the run did (SPEC §8 ``trace``)."""

    seq: int
    phase: str  # "forward" | "backward"
    kind: str  # op, save, free, backward, edge, accumulate, hook, version, error
    line: int | None  # the statement that did it
    text: str  # one line for people
    node: str | None = None  # the tensor (label) or backward node concerned
    grad_fn: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # kind-specific details (JSON)


@dataclass
class Trace:
    """A run's events in order, and the error's root cause."""

    events: list[Event]
    sources: dict[int, str]
    error: Any = None
    root_cause: str | None = None


class Tracer(EventSink):
    """Collects the engine's reports during a run; ``finish`` turns them into ``Event``s."""

    def __init__(self) -> None:
        self.raw: list[tuple] = []  # (kind, phase, span, payload...)
        self.phase = "forward"
        self.recorder: Any = None

    def attach(self, interp: Any) -> None:
        """Called by the interpreter: hear every recorded op through its graph recorder."""
        self.recorder = interp.recorder
        record = interp.ctx.recorder

        def on_op(out: Any, op: Any, args: tuple, inplace: bool) -> None:
            record(out, op, args, inplace)
            rec = self.recorder.records[-1]
            saved = ()
            if rec.node is not None and rec.node.saved and not rec.node.freed:
                ids = self.recorder.ids
                saved = tuple((s.name, s.shape, int(getattr(s.value, "nbytes", 8)),
                               ids.get(id(s.tensor)) if s.tensor is not None else None,
                               s.is_output, s.value if s.tensor is None else None)
                              for s in rec.node.saved_tensors())
            self.raw.append(("op", self.phase, current().free_tag,
                             len(self.recorder.records) - 1, inplace, saved))

        interp.ctx.recorder = on_op

    # -- the engine's reports -------------------------------------------------------------------
    def version(self, tensor: Any) -> None:
        self.raw.append(("version", self.phase, current().free_tag, tensor, tensor.version))

    def backward_begin(self, roots: list, retain_graph: bool, create_graph: bool,
                       targets: list | None) -> None:
        self.phase = "backward"
        self.raw.append(("backward", "backward", current().free_tag, list(roots), retain_graph,
                         create_graph, targets is not None))

    def backward_end(self) -> None:
        self.phase = "forward"

    def edge(self, node: Any, index: int, to: Any, grad: Any) -> None:
        self.raw.append(("edge", "backward", current().free_tag, node, index, to, grad))

    def free(self, node: Any) -> None:
        self.raw.append(("free", "backward", current().free_tag, node, list(node.saved)))

    def accumulate(self, tensor: Any, before: Any, after: Any, retained: bool) -> None:
        self.raw.append(("accumulate", "backward", current().free_tag, tensor, before, after,
                         retained))

    def hook(self, tensor: Any, grad: Any, result: Any) -> None:
        self.raw.append(("hook", self.phase, current().free_tag, tensor, grad, result))

    # -- after the run ----------------------------------------------------------------------------
    def finish(self, result: Any) -> Trace:
        """The events with names and texts, and the error with its root cause."""
        names = Names(result)
        events: list[Event] = []

        def add(kind: str, phase: str, span: Any, text: str, **kw: Any) -> None:
            events.append(Event(len(events), phase, kind, span.line if span else None, text,
                                **kw))

        for item in self.raw:
            kind, phase, span = item[0], item[1], item[2]
            if kind == "op":
                self._op(add, names, phase, span, item[3], item[4], item[5])
            elif kind == "version":
                t, v = item[3], item[4]
                label = names.tensor_label(t)
                add("version", phase, span, f"{label}: version {v - 1} -> {v} (in-place update)",
                    node=label, fields={"version": v, "node_id": names.latest.get(id(t))})
            elif kind == "backward":
                roots, retain, create, is_grad = item[3:]
                what = "grad()" if is_grad else "backward()"
                start = ", ".join(names.label(r) for r in roots)
                add("backward", phase, span, f"{what} from {start} (retain_graph={retain}"
                    + (", create_graph=True" if create else "") + ")",
                    node=start, fields={"retain_graph": retain, "create_graph": create,
                                        "call": what,
                                        "node_id": names.record(roots[0]) if roots else None})
            elif kind == "edge":
                n, i, m, g = item[3:]
                src, dst = names.label(n), names.label(m)
                add("edge", phase, span, f"{n.fn_name} -> {m.fn_name} ({src} -> {dst}): grad "
                    f"{_short(g)}", node=src, grad_fn=n.fn_name,
                    fields={"to": dst, "to_grad_fn": m.fn_name, "input": i,
                            "node_line": names.line(n), "grad": _value(g),
                            "node_id": names.record(n), "to_id": names.record(m)})
            elif kind == "free":
                n, saved = item[3], item[4]
                label = names.label(n)
                add("free", phase, span, f"{n.fn_name} ({label}) frees its saved "
                    f"{', '.join(saved)}", node=label, grad_fn=n.fn_name,
                    fields={"saved": saved, "node_line": names.line(n),
                            "node_id": names.record(n)})
            elif kind == "accumulate":
                t, before, after, retained = item[3:]
                label = names.tensor_label(t)
                what = "retained grad" if retained else "AccumulateGrad"
                add("accumulate", phase, span, f"{what}: {label}.grad {_short(before)} -> "
                    f"{_short(after)}", node=label,
                    grad_fn=None if retained else "AccumulateGrad",
                    fields={"before": _value(before), "after": _value(after),
                            "retained": retained, "node_id": names.latest.get(id(t))})
            elif kind == "hook":
                t, g, r = item[3:]
                label = names.tensor_label(t)
                add("hook", phase, span, f"hook on {label}: grad {_short(g)} -> {_short(r)}",
                    node=label, fields={"grad": _value(g), "result": _value(r),
                                        "node_id": names.latest.get(id(t))})
        err = result.error
        cause = root_cause(err, result.program.source) if err is not None else None
        if err is not None:
            phase = "backward" if _in_backward(err) else "forward"
            text = err.message.split(". ")[0] + ("." if ". " in err.message else "")
            add("error", phase, err.span, f"{err.kind}: {text}"
                + (f" -- root cause: {cause}" if cause else ""),
                fields={"type": err.kind, "message": err.message, "root_cause": cause})
        lines = result.program.source.splitlines()
        used = {e.line for e in events if e.line is not None}
        sources = {ln: lines[ln - 1].strip() for ln in sorted(used) if 0 < ln <= len(lines)}
        return Trace(events, sources, err, cause)

    def _op(self, add: Any, names: Names, phase: str, span: Any, rid: int, inplace: bool,
            saved: tuple) -> None:
        r = names.records[rid]
        label = names.rec_label(rid, 2)
        fn = r.grad_fn
        named = f"{label} = " if rid in names.names else ""
        add("op", phase, span, ("in-place " if inplace else "") + f"{r.op}: {named}"
            f"{names.expr(rid)}" + (f"  -> {fn}" if fn else "  (not recorded: no grad)"),
            node=label, grad_fn=fn,
            fields={"op": r.op, "id": rid, "inputs": [i for i in r.inputs if i is not None],
                    "inplace": inplace})
        for name, shape, nbytes, source, is_output, value in saved:
            of = label if is_output else (names.rec_label(source, 2) if source is not None
                                          else _num(value))
            add("save", phase, span, f"{fn} saves {name} = {of}"
                + (f" {list(shape)}" if shape else ""), node=label, grad_fn=fn,
                fields={"saved": name, "tensor": of, "shape": list(shape), "bytes": nbytes,
                        "node_id": rid})


def root_cause(err: Any, source: str) -> str | None:
    """The statement behind an autograd error: who freed the buffers, who bumped the version."""
    lines = source.splitlines()

    def text(span: Any) -> str:
        if not 0 < span.line <= len(lines):
            return ""
        return f" ({lines[span.line - 1].strip()})"

    freed_by = getattr(err, "freed_by", None)
    if freed_by is not None:
        return (f"the backward on line {freed_by.line}{text(freed_by)} freed the saved tensors "
                "without retain_graph=True")
    bumped = getattr(err, "bumped_by", None)
    if bumped is not None:
        return (f"line {bumped.line}{text(bumped)} modified in place a tensor that "
                f"{getattr(err, 'saved_by', 'a node')} had saved")
    return None


def _in_backward(err: Any) -> bool:
    return getattr(err, "freed_by", None) is not None or hasattr(err, "bumped_by")


def _num(v: Any) -> str:
    try:
        return f"{float(v):g}"
    except (TypeError, ValueError):
        return "?"


def _value(a: Any) -> Any:
    """An array as a host array (small) or ``{"shape", "norm"}`` (large); None stays None."""
    if a is None:
        return None
    if isinstance(a, Tensor):
        a = a.data
    h = np.asarray(to_host(a))
    if h.size <= VALUE_ELEMENTS:
        return h
    return {"shape": list(h.shape), "norm": float(np.sqrt(np.sum(h.astype(float) ** 2)))}


def _short(a: Any) -> str:
    v = _value(a)
    if v is None:
        return "None"
    if isinstance(v, dict):
        return f"<{'x'.join(map(str, v['shape']))} tensor, norm {v['norm']:.4g}>"
    if v.size == 1:
        return f"{float(v.reshape(())):.6g}"
    return np.array2string(v, precision=4, separator=", ", threshold=8, edgeitems=2,
                           max_line_width=10**6, suppress_small=True)
