"""The events the HTML viewer's stepper walks, in the shape of SPEC §8 ``trace`` events.

``trace`` (SPEC §8) reports what a run did as it happened.  Until it is available here, the
events are derived from the run's graph records: each recorded op in order (its line, node,
``grad_fn`` and what it saved), then one backward from the output in the order PyTorch's
engine runs it (the newest ready node first, ``AccumulateGrad`` as soon as it is ready), each
gradient edge and each accumulation.  Derived events carry no gradient values: those need the
trace.  ``events`` is the one function to swap for the trace's own list.

Every event is ``{"seq", "phase": "forward" | "backward", "kind", "line", ...}`` with ``node``
(a graph record id) and, for an edge, ``to`` (the record whose grad_fn receives the gradient).
"""

from __future__ import annotations

import heapq
from typing import Any

from .views import record_names


def events(result: Any, of: str | None) -> list[dict[str, Any]]:
    """The run's forward ops in order, then a backward from ``of`` in PyTorch's order."""
    records = result.records or []
    names = record_names(result)
    out: list[dict[str, Any]] = []
    for rid, r in enumerate(records):
        if r.op is None:
            continue
        inplace = bool(r.inputs) and r.inputs[0] is not None and \
            records[r.inputs[0]].tensor is r.tensor
        ev: dict[str, Any] = {
            "phase": "forward", "kind": "op", "line": r.span.line if r.span else None,
            "node": rid, "name": names.get(rid), "op": r.op + ("_" if inplace else ""),
            "grad_fn": r.grad_fn, "inputs": [j for j in r.inputs if j is not None]}
        ev["input_names"] = [names.get(j) or f"#{j}" for j in ev["inputs"]]
        if r.node is not None and r.node.saved:
            ev["saves"] = list(r.node.saved)
        out.append(ev)
    out += _backward(result, of, records, names)
    for seq, ev in enumerate(out):
        ev["seq"] = seq
    return out


def _backward(result: Any, of: str | None, records: list, names: dict[int, str]) -> list[dict]:
    from .engine import AccumulateGrad, Tensor

    t = result.bindings.get(of) if of is not None else None
    if not isinstance(t, Tensor) or t.grad_fn is None:
        return []
    owner: dict[int, int] = {}  # id(grad_fn node or leaf tensor) → its first record
    for rid, r in enumerate(records):
        owner.setdefault(id(r.node) if r.node is not None else id(r.tensor), rid)

    def rid_of(n: Any) -> int | None:
        return owner.get(id(n.variable) if isinstance(n, AccumulateGrad) else id(n))

    root = t.grad_fn
    start = rid_of(root)
    out: list[dict] = [{"phase": "backward", "kind": "backward", "line": None, "node": start,
                        "name": of, "grad_fn": root.name, "derived": True}]
    for n in backward_order(root):
        rid = rid_of(n)
        line = _line(records, rid)
        if isinstance(n, AccumulateGrad):
            out.append({"phase": "backward", "kind": "accumulate", "line": line, "node": rid,
                        "name": names.get(rid) if rid is not None else None,
                        "grad_fn": "AccumulateGrad"})
            continue
        for m, use in zip(n.next_functions, n.mask):
            if m is None or not use:
                continue
            to = rid_of(m)
            out.append({"phase": "backward", "kind": "edge", "line": line, "node": rid,
                        "name": names.get(rid) if rid is not None else None,
                        "grad_fn": n.name, "to": to, "to_grad_fn": m.name,
                        "to_name": names.get(to) if to is not None else None})
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
        for m, use in zip(n.next_functions, n.mask):
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
        for m, use in zip(n.next_functions, n.mask):
            if m is None or not use:
                continue
            deps[m] -= 1
            if deps[m] == 0:
                heapq.heappush(heap, (m.prio, m.seq, tie, m))
                tie += 1
    return order
