"""``trace``: what a run did, event by event, with the root cause of an autograd error.

A ``Tracer`` is the engine's ``EventSink`` (``RunContext.tracer``).  During the run it only
appends plain tuples: the engine's reports as they come, and for the ops, the range of graph
records made since the last report (the interpreter's recorder keeps them anyway), with what
each op's node saved before a backward can free it.  Nothing is named or formatted then.

``Trace`` (``Tracer.finish``) hands out ``Event``s one by one, naming their nodes on the way
(labels are cached per record); the renderers build text or JSON only for what they print.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from ..engine import Tensor
from ..engine.backend import to_host
from ..engine.context import EventSink
from ..engine.saved_hooks import Packed
from ..script.hints import none_grad_reason
from .names import Names

VALUE_ELEMENTS = 64  # gradients up to this size are kept in full in events; larger: shape, norm
_OPS = "ops"  # a raw entry standing for graph records lo..hi (op and save events)


class Event(NamedTuple):
    """One thing the run did (docs/commands.md ``trace``): the common fields and kind-specific ``info``.

    ``info`` is a tuple that starts with the entries ``FIELDS`` names per kind (an op's also
    says whether a script name is bound to it, for its text); ``fields`` is that start as a
    dict (JSON, library users), arrays as host arrays or ``{"shape", "norm"}``.
    A trace makes tens of thousands: they are made by ``_new``, without NamedTuple's
    Python-level ``__new__``.
    """

    seq: int
    phase: str  # "forward" | "backward"
    kind: str  # op, save, free, backward, edge, accumulate, hook, version, none_grad, print,
    # tangent, pack, unpack,
    # error
    line: int | None  # the statement that did it
    node: str | None  # the label of the tensor or backward node concerned
    grad_fn: str | None
    info: tuple

    @property
    def fields(self) -> dict[str, Any]:
        """The kind-specific details by name (arrays on the host, large ones summarised)."""
        out = dict(zip(FIELDS[self.kind], self.info))
        for key in ARRAYS.get(self.kind, ()):
            out[key] = host_value(out[key])
        return out


_new = tuple.__new__  # _new(Event, (...)): a NamedTuple without its Python-level __new__


# the names of each kind's ``info`` entries (JSON field names, docs/commands.md "…"); ``id``, ``node_id``
# and ``to_id`` are graph record ids (the html stepper lights those nodes up)
FIELDS: dict[str, tuple[str, ...]] = {
    "op": ("op", "id", "inputs", "inplace"),
    "save": ("saved", "tensor", "shape", "bytes", "node_id"),
    "version": ("version", "node_id"),
    "backward": ("call", "retain_graph", "create_graph", "node_id"),
    "edge": ("to", "to_grad_fn", "input", "node_line", "grad", "node_id", "to_id"),
    "free": ("saved", "node_line", "node_id"),
    "accumulate": ("before", "after", "retained", "node_id"),
    "hook": ("grad", "result", "node_id"),
    "error": ("type", "message", "root_cause"),
    "none_grad": ("tensor", "warned", "reason", "node_id"),
    "print": ("printed",),  # what the script's print() wrote, end included
    "tangent": ("tangent", "node_id"),
    # a saved tensor through a pack / unpack hook: the hook's name and the line of its def
    # (None for a context manager's own: save_on_cpu), the bytes of the tensors the pack
    # hook returned and how many of them are new memory (a copy, not the saved tensor's)
    "pack": ("saved", "tensor", "hook", "hook_line", "bytes", "copied", "node_id"),
    "unpack": ("saved", "hook", "hook_line", "node_id"),
}
ARRAYS = {"edge": ("grad",), "accumulate": ("before", "after"), "hook": ("grad", "result"),
          "tangent": ("tangent",)}


class Trace:
    """A run's events in order (iterate it, or ``events`` for a list), and the error's root cause."""

    def __init__(self, raw: list[tuple], saved: dict[int, dict], result: Any) -> None:
        self.raw = raw
        self.saved = saved
        self.names = Names(result)
        self.error = result.error
        self.root_cause = root_cause(self.error, result.program.source) \
            if self.error is not None else None
        self._lines = result.program.source.splitlines()
        self._events: list[Event] | None = None
        self._updated: dict[int, int] = {}

    @property
    def events(self) -> list[Event]:
        """Every event, made once."""
        if self._events is None:
            self._events = list(self)
        return self._events

    def source(self, line: int | None) -> str:
        """The text of a script line, stripped ("" for none)."""
        if line is None or not 0 < line <= len(self._lines):
            return ""
        return self._lines[line - 1].strip()

    def __iter__(self) -> Iterator[Event]:
        names = self.names
        about, label, tensor = names.about, names.label, self._tensor
        new, E = _new, Event
        updated = self._updated = {}  # id(tensor) -> its record after its last in-place update
        seq = 0
        for item in self.raw:
            kind, phase = item[0], item[1]
            if kind is _OPS:
                seq = yield from self._ops(phase, item[2], item[3], seq)
                continue
            span = item[2]
            line = span.line if span is not None else None
            if kind == "edge":
                src, at, fn, rid = about[item[3]]
                dst, _, to_fn, to = about[item[5]]
                if to_fn == "AccumulateGrad" and id(item[5].variable) in updated:
                    to = updated[id(item[5].variable)]  # the leaf as it is now, as accumulate
                    dst = names.rec_label(to, 2)
                yield new(E, (seq, phase, kind, line, src, fn,
                              (dst, to_fn, item[4], at, item[6], rid, to)))
            elif kind == "accumulate":
                t, rid, before, after, retained = item[3:]
                yield new(E, (seq, phase, kind, line, tensor(t, rid),
                              None if retained else "AccumulateGrad",
                              (before, after, retained, rid)))
            elif kind == "free":
                src, at, fn, rid = about[item[3]]
                yield new(E, (seq, phase, kind, line, src, fn, (list(item[4]), at, rid)))
            elif kind == "version":
                t, rid, v = item[3:]
                yield new(E, (seq, phase, kind, line, tensor(t, rid), None, (v, rid)))
            elif kind == "backward":
                roots, retain, create, is_grad = item[3:]
                yield new(E, (seq, phase, kind, line, ", ".join(label(r) for r in roots), None,
                              ("grad()" if is_grad else "backward()", retain, create,
                               about[roots[0]][3] if roots else None)))
            elif kind == "hook":
                t, rid, g, r = item[3:]
                yield new(E, (seq, phase, kind, line, tensor(t, rid), None, (g, r, rid)))
            elif kind == "print":
                yield new(E, (seq, phase, kind, line, None, None, (item[3],)))
            elif kind == "pack":
                node, nm, t, rid, hook, hook_line, size, copied = item[3:]
                src, _, fn, nid = self._node(node)
                of = "a copy of self" if rid is None and nm == "self" else tensor(t, rid)
                yield new(E, (seq, phase, kind, line, src, fn,
                              (nm, of, hook, hook_line, size, copied, nid)))
            elif kind == "unpack":
                node, nm, hook, hook_line = item[3:]
                src, _, fn, nid = self._node(node)
                yield new(E, (seq, phase, kind, line, src, fn, (nm, hook, hook_line, nid)))
            elif kind == "tangent":
                t, rid, tan = item[3:]
                yield new(E, (seq, phase, kind, line, tensor(t, rid), None, (tan, rid)))
            elif kind == "none_grad":
                read, rid = item[3:]
                yield new(E, (seq, phase, kind, line, tensor(read.tensor, rid), None,
                              (read.text, read.warned, none_grad_reason(read), rid)))
            seq += 1
        err = self.error
        if err is not None:
            phase = "backward" if _in_backward(err) else "forward"
            yield new(E, (seq, phase, "error", err.span.line if err.span else None, None, None,
                          (err.kind, err.message, self.root_cause)))

    def _ops(self, phase: str, lo: int, hi: int, seq: int) -> Iterator[Event]:
        """The op (and save) events of graph records lo..hi (leaves are none); returns the
        next event number."""
        names = self.names
        records, named, saved_by, rec_label, about = names.records, names.names, self.saved, \
            names.rec_label, names.about
        new, E = _new, Event
        for rid in range(lo, hi):
            r = records[rid]
            if r.op is None:
                continue
            span = r.span
            line = span.line if span is not None else None
            label = named.get(rid)
            is_named = label is not None
            if not is_named:
                label = rec_label(rid, 2)
            inputs = r.inputs
            first = inputs[0] if inputs else None
            inplace = first is not None and records[first].tensor is r.tensor
            if inplace:
                self._updated[id(r.tensor)] = rid
            fn = r.grad_fn
            node = r.node
            if node is not None and node not in about:  # what its edges and frees will ask
                about[node] = (label, line, fn, rid)
            yield new(E, (seq, phase, "op", line, label, fn,
                          (r.op, rid, [i for i in inputs if i is not None] if None in inputs
                           else list(inputs), inplace, is_named)))
            seq += 1
            saved = saved_by.get(rid)
            if saved is None:
                continue
            for nm, entry in saved.items():
                value, t, _, _, _, is_output = entry
                if entry.__class__ is Packed and not is_output and any(
                        j is not None and records[j].tensor is entry.source for j in inputs):
                    t = entry.source  # the input the pack hook took (else a copy of self)
                if is_output:
                    of = label
                elif t is not None:
                    of = "?"
                    for j in inputs:
                        if j is not None and records[j].tensor is t:
                            of = rec_label(j, 2)
                            break
                elif hasattr(value, "shape"):  # a copy of ``self`` (mul_, div_ save one)
                    of = f"a copy of {rec_label(first, 2)}" if first is not None else "?"
                else:
                    of = _num(value)
                yield new(E, (seq, phase, "save", line, label, fn,
                              (nm, of, list(getattr(value, "shape", ())),
                               int(getattr(value, "nbytes", 8)), rid)))
                seq += 1
        return seq

    def _node(self, node: Any) -> tuple:
        """(label, line, grad_fn name, record id) of a backward node."""
        found = self.names.about.get(node)
        if found is None:
            main = getattr(node, "main", None)  # an output slot of a custom Function
            found = self.names.about.get(main) if main is not None else None
        return found if found is not None else (node.fn_name, None, node.fn_name, None)

    def _tensor(self, t: Any, rid: int | None) -> str:
        """A tensor's label: its state when the event happened (else its latest)."""
        if rid is not None:
            return self.names.rec_label(rid, 2)
        return self.names.tensor_label(t)


class Tracer(EventSink):
    """Collects the engine's reports during a run; ``finish`` returns the ``Trace``."""

    def __init__(self) -> None:
        self.raw: list[tuple] = []  # (kind, phase, span, payload...)
        self.phase = "forward"
        self.records: list = []  # the interpreter's graph records (Recorder.records)
        self.ids: dict[int, int] = {}  # id(tensor) -> its latest record (Recorder.ids)
        self.saved: dict[int, dict] = {}  # record id -> its node's saved dict, before any free
        self.taken = 0  # records already covered by an _OPS entry
        self.ctx: Any = None

    def attach(self, interp: Any) -> None:
        """Called by the interpreter: read its graph records (a trace runs with records)."""
        self.records = interp.recorder.records
        self.ids = interp.recorder.ids
        self.ctx = interp.ctx

    def _take_ops(self) -> None:
        """Cover the records made since the last report, keeping what their nodes saved.

        NOTE: called before every other report, so ops keep their place among the events, and
        a backward cannot have freed these nodes yet.
        """
        records, saved = self.records, self.saved
        lo, hi = self.taken, len(records)
        for rid in range(lo, hi):
            node = records[rid].node
            if node is not None and node.saved and not node.freed:
                saved[rid] = node.saved
        self.raw.append((_OPS, self.phase, lo, hi))
        self.taken = hi

    # -- the engine's reports -------------------------------------------------------------------
    def version(self, tensor: Any) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        self.raw.append(("version", self.phase, self.ctx.free_tag, tensor,
                         self.ids.get(id(tensor)), tensor.version))

    def backward_begin(self, roots: list, retain_graph: bool, create_graph: bool,
                       targets: list | None) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        self.phase = "backward"
        self.raw.append(("backward", "backward", self.ctx.free_tag, list(roots), retain_graph,
                         create_graph, targets is not None))

    def backward_end(self) -> None:
        if len(self.records) != self.taken:  # ops recorded by create_graph=True formulas
            self._take_ops()
        self.phase = "forward"

    def edge(self, node: Any, index: int, to: Any, grad: Any) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        self.raw.append(("edge", "backward", self.ctx.free_tag, node, index, to, grad))

    def free(self, node: Any) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        self.raw.append(("free", "backward", self.ctx.free_tag, node, node.saved))

    def accumulate(self, tensor: Any, before: Any, after: Any, retained: bool) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        self.raw.append(("accumulate", "backward", self.ctx.free_tag, tensor,
                         self.ids.get(id(tensor)), before, after, retained))

    def hook(self, tensor: Any, grad: Any, result: Any) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        self.raw.append(("hook", self.phase, self.ctx.free_tag, tensor,
                         self.ids.get(id(tensor)), grad, result))

    def none_grad(self, read: Any) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        self.raw.append(("none_grad", self.phase, self.ctx.free_tag, read,
                         self.ids.get(id(read.tensor))))

    def printed(self, text: str) -> None:
        """The script's print() wrote ``text`` (told by the command, not by the engine): an
        event per line written, its newline included (joined, they are the output)."""
        if len(self.records) != self.taken:
            self._take_ops()
        span = self.ctx.free_tag if self.ctx is not None else None
        for line in text.splitlines(keepends=True):
            self.raw.append(("print", self.phase, span, line))
    def pack(self, node: Any, name: str, tensor: Any, hook: Any, packed: Any) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        size, copied = kept_bytes(packed, tensor)
        self.raw.append(("pack", self.phase, self.ctx.free_tag, node, name, tensor,
                         self.ids.get(id(tensor)), *hook_place(hook), size, copied))

    def unpack(self, node: Any, name: str, hook: Any, result: Any) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        self.raw.append(("unpack", self.phase, self.ctx.free_tag, node, name,
                         *hook_place(hook)))

    def tangent(self, tensor: Any, tangent: Any) -> None:
        if len(self.records) != self.taken:
            self._take_ops()
        self.raw.append(("tangent", self.phase, self.ctx.free_tag, tensor,
                         self.ids.get(id(tensor)), tangent))

    def finish(self, result: Any) -> Trace:
        """The run's events (named as they are read) and the error with its root cause."""
        if len(self.records) != self.taken:
            self._take_ops()
        return Trace(self.raw, self.saved, result)


def hook_place(hook: Any) -> tuple[str, int | None]:
    """A saved-tensor hook's name and the line of its ``def`` (a script's function), or the
    context manager's name that gave it (``save_on_cpu``) and None."""
    if isinstance(hook, str):
        return hook, None
    name = getattr(hook, "name", None) or getattr(hook, "__name__", "?")
    span = getattr(getattr(hook, "node", None), "span", None)
    return name, span.line if span is not None else None


def kept_bytes(packed: Any, saved: Any, depth: int = 0) -> tuple[int, int]:
    """(bytes of the tensors in what a pack hook returned, those of them that are new memory
    rather than the saved tensor's): a tensor, or tensors in tuples, lists and dicts."""
    if isinstance(packed, Tensor):
        size = int(packed.data.nbytes)
        same = isinstance(saved, Tensor) and np.may_share_memory(
            np.asarray(to_host(packed.data)), np.asarray(to_host(saved.data))) \
            if packed.backend.name == "numpy" else packed.data is saved.data
        return size, 0 if same else size
    if depth < 4 and isinstance(packed, (tuple, list, dict)):
        items = packed.values() if isinstance(packed, dict) else packed
        parts = [kept_bytes(p, saved, depth + 1) for p in items]
        return sum(p[0] for p in parts), sum(p[1] for p in parts)
    return 0, 0


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


def host_value(a: Any) -> Any:
    """An array as a host array (small) or ``{"shape", "norm"}`` (large); None stays None."""
    if a is None:
        return None
    if isinstance(a, dict):  # a custom Function's gradients by output (custom.Parts)
        parts = [host_value(v) for _, v in sorted(a.items())]
        if len(parts) == 1:
            return parts[0]
        arrays = [np.asarray(p, dtype=float) for p in parts if isinstance(p, np.ndarray)]
        norm = float(np.sqrt(sum(np.sum(x ** 2) for x in arrays)))
        return {"shape": [len(parts)], "norm": norm}
    if isinstance(a, Tensor):
        a = a.data
    h = np.asarray(to_host(a))
    if h.size <= VALUE_ELEMENTS:
        return h
    return {"shape": list(h.shape), "norm": float(np.sqrt(np.sum(h.astype(float) ** 2)))}
