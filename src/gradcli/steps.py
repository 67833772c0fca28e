"""The events the HTML viewer's stepper walks when the run was not traced.

``gradcli html`` traces its run and steps over the ``trace`` events (docs/commands.md).  A result made
without a tracer (``gradcli.run`` in a notebook) gets events derived from its graph records
instead, in the same shape: each recorded op in order (its line, node, ``grad_fn`` and what
it saved), then one backward from the output in the order PyTorch's engine runs it (the
newest ready node first, ``AccumulateGrad`` as soon as it is ready), each gradient edge and
each accumulation.  Derived events carry no gradient values: those need the trace.

Each event is ``{"seq", "phase", "kind", "line", "node" (a label), "grad_fn", "text", ...}``
with the record ids the viewer highlights: ``id`` for an op, ``node_id`` otherwise, and
``to_id`` for the node an edge's gradient flows to.
"""

from __future__ import annotations

import heapq
from typing import Any

from .engine.backend import to_host
from .views import record_names


def events(result: Any, out: Any) -> list[dict[str, Any]]:
    """The run's forward ops in order, then a backward from the output (``targets.Target``)
    in PyTorch's order."""
    records = result.records or []
    names = record_names(result)

    def label(rid: int | None) -> str:
        return "?" if rid is None else names.get(rid) or f"#{rid}"

    evs: list[dict[str, Any]] = []
    for rid, r in enumerate(records):
        if r.op is None:
            continue
        inplace = bool(r.inputs) and r.inputs[0] is not None and \
            records[r.inputs[0]].tensor is r.tensor
        inputs = [j for j in r.inputs if j is not None]
        op = r.op if not inplace or r.op.endswith("_") else r.op + "_"
        text = f"{op}: {label(rid)} = {r.op}({', '.join(label(j) for j in inputs)})" + \
            (f"  -> {r.grad_fn}" if r.grad_fn else "  (not recorded: no grad)")
        saves = list(r.node.saved) if r.node is not None and r.node.saved else []
        if saves:
            text += f", saves {', '.join(saves)}"
        evs.append({"phase": "forward", "kind": "op", "line": _line(records, rid),
                    "node": label(rid), "grad_fn": r.grad_fn, "text": text, "op": r.op,
                    "id": rid, "inputs": inputs, "inplace": inplace})
    evs += backward_events(result, out)
    for seq, ev in enumerate(evs):
        ev["seq"] = seq
    return evs


def backward_events(result: Any, target: Any, first_seq: int = 0) -> list[dict[str, Any]]:
    """A backward from the output as PyTorch would run it (for runs that call none)."""
    from .engine import AccumulateGrad

    records = result.records or []
    names = record_names(result)

    def label(rid: int | None) -> str:
        return "?" if rid is None else names.get(rid) or f"#{rid}"

    if target is None or target.tensor.grad_fn is None:
        return []
    of, t = target.name, target.tensor
    owner: dict[int, int] = {}  # id(grad_fn node or leaf tensor) → its first record
    for rid, r in enumerate(records):
        owner.setdefault(id(r.node) if r.node is not None else id(r.tensor), rid)

    def rid_of(n: Any) -> int | None:
        return owner.get(id(n.variable) if isinstance(n, AccumulateGrad) else id(n))

    root = t.grad_fn
    out: list[dict] = [{"phase": "backward", "kind": "backward", "line": None, "node": of,
                        "grad_fn": root.fn_name, "node_id": rid_of(root),
                        "text": f"backward from {of}, in the order PyTorch runs it (derived "
                        "from the graph: no gradient values)"}]
    for n in backward_order(root):
        rid = rid_of(n)
        if isinstance(n, AccumulateGrad):
            out.append({"phase": "backward", "kind": "accumulate", "line": _line(records, rid),
                        "node": label(rid), "grad_fn": "AccumulateGrad", "node_id": rid,
                        "text": f"AccumulateGrad: {label(rid)}.grad += the gradient"})
            continue
        for m, use in zip(n.edges, n.mask):
            if m is None or not use:
                continue
            to = rid_of(m)
            out.append({"phase": "backward", "kind": "edge", "line": _line(records, rid),
                        "node": label(rid), "grad_fn": n.fn_name, "to": label(to),
                        "to_grad_fn": m.fn_name, "node_id": rid, "to_id": to,
                        "text": f"{n.fn_name} -> {m.fn_name} ({label(rid)} -> {label(to)})"})
    for seq, ev in enumerate(out, first_seq):
        ev["seq"] = seq
    return out


def gradient_events(result: Any, target: Any, grads: list, first_seq: int = 0) -> list[dict]:
    """The backward of ``--wrt``'s gradients as ``grad`` computes them, traced (each edge with
    its gradient), then each ``--wrt`` tensor with d(output)/dW at its AccumulateGrad."""
    from .analysis.trace import Tracer
    from .render import analysis_json, plain

    tracer = Tracer()
    tracer.records = records = result.records or []
    tracer.ids = {id(r.tensor): i for i, r in enumerate(records)}
    tracer.taken = len(records)
    wrt = [t for t, _ in grads]
    result.gradients(target.tensor, [t.tensor for t in wrt], tracer=tracer)
    doc = analysis_json.trace_doc(tracer.finish(result), result.backend.dtype_name, None,
                                  text=True)
    out = [e for e in doc["events"] if e["kind"] != "error"]
    names = record_names(result)
    for t, g in grads:
        rid = tracer.ids.get(id(t.tensor))
        value = plain.short(to_host(g.data))
        out.append({"phase": "backward", "kind": "accumulate", "line": _line(records, rid),
                    "node": names.get(rid, t.name) if rid is not None else t.name,
                    "grad_fn": "AccumulateGrad", "node_id": rid, "before": None,
                    "after": plain.full(to_host(g.data)) if g.numel() <= 64 else None,
                    "text": f"AccumulateGrad: d{target.name}/d{t.name} = {value} (as grad "
                    f"computes it: torch.autograd.grad, {t.name}.grad is not changed)"})
    for seq, ev in enumerate(out, first_seq):
        ev["seq"] = seq
    return out


def _line(records: list, rid: int | None) -> int | None:
    if rid is None or records[rid].span is None:
        return None
    return records[rid].span.line


def backward_order(root: Any) -> list[Any]:
    """The grad_fn nodes a backward from ``root`` runs, in the engine's order.

    The same rule as ``engine.autograd``: a node runs once every edge into it has delivered,
    and among ready nodes the one with the smallest ``(prio, seq)`` first (the newest node;
    ``AccumulateGrad`` before any).
    """
    deps: dict[Any, int] = {}
    stack = [root]
    seen = {root}
    while stack:
        n = stack.pop()
        for m, use in zip(n.edges, n.mask):
            if m is None or not use:
                continue
            deps[m] = deps.get(m, 0) + 1
            if m not in seen:
                seen.add(m)
                stack.append(m)
    order = []
    heap = [(root.prio, root.seq, 0, root)]
    tie = 1  # AccumulateGrad nodes share prio -inf; seq breaks the tie, this only guards
    while heap:
        n = heapq.heappop(heap)[3]
        order.append(n)
        for m, use in zip(n.edges, n.mask):
            if m is None or not use:
                continue
            deps[m] -= 1
            if deps[m] == 0:
                heapq.heappush(heap, (m.prio, m.seq, tie, m))
                tie += 1
    return order
