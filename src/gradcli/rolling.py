"""Rolled loops (``--rolled``): the nodes one script line creates in successive executions are
folded into one node that carries the count, as TorchLens's ``vis_mode='rolled'`` folds the
passes of a recurrent layer and torchview's ``roll=True`` identifies a function's nodes by
where they are produced.

Two nodes fold together when the same statement (line and column) created them, with the same
op and ``grad_fn``, as the k-th such node of their statement's execution (so ``w2 * x3 + w3 *
x4`` keeps its two multiplications apart, and a loop's 2,000 passes over it give two nodes).
A line runs again in a later loop iteration or a later call of the function it belongs to.
An edge between two folded nodes whose source was first created after its target's first
member goes from a later iteration to an earlier line: it is a *back edge* (the loop's
recurrence), drawn as such.  The representative of a fold is its last member: the final
values, and the name the script's last binding gives it.

A recurrent layer (``nn.LSTM``, ``GRU``, ``RNN``) records its cell's ops once per time step
(engine/recurrent.py, as ATen composes them on the CPU); rolled, every node one layer of it
made from a call site folds into one node for the layer (a ``LayerFold``: the time steps, the
calls, the module its weights name), its recurrence a back edge onto itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .views import BackwardNode, BackwardView, GraphView, changed

MODULES = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}


@dataclass
class LayerFold:
    """One layer of a recurrent module, its time steps folded into one node."""

    module: str  # the class: LSTM, GRU, RNN
    layer: int
    steps: int  # time steps in its longest call
    calls: int  # how many times it ran
    path: str | None = None  # the module as its weights name it (``model.lstm``)
    reverse: bool = False  # a bidirectional layer's second direction

    def where(self) -> str:
        """``layer 0``, ``layer 0 reverse``."""
        return f"layer {self.layer}" + (" reverse" if self.reverse else "")

    def label(self) -> str:
        """``model.lstm (LSTM) layer 0: 5 steps``."""
        what = f"{self.path} ({self.module})" if self.path else self.module
        return f"{what} {self.where()}: {self.steps} step{'s' if self.steps != 1 else ''}"


@dataclass
class Folds:
    """Which nodes a rolled view folded: representative id → member ids, and the back edges."""

    members: dict[int, list[int]] = field(default_factory=dict)
    back: set[tuple[int, int]] = field(default_factory=set)  # (input, consumer) representatives
    member_nodes: dict[int, Any] = field(default_factory=dict)  # member id → its node
    first: dict[int, Any] = field(default_factory=dict)  # representative → its first's order
    layers: dict[int, LayerFold] = field(default_factory=dict)  # representative → its layer

    def count(self, rep: int) -> int:
        """How many nodes ``rep`` stands for (1 when nothing folded into it); for a recurrent
        layer, how many times it ran (its steps are in ``layers``)."""
        if rep in self.layers:
            return self.layers[rep].calls
        return len(self.members.get(rep, ())) or 1


def fold_ids(items: list[tuple[int, int, int, int | None, int | None, str]]) -> dict[int, int]:
    """Node id → the id of its fold's representative.

    ``items`` are (id, creation order, step, line, column, kind): ``step`` tells one execution
    of a statement from the next, ``kind`` is the op and grad_fn.  Nodes without a line stand
    alone.
    """
    groups: dict[tuple, list[int]] = {}
    seen_in_run: dict[tuple, int] = {}
    for nid, _, step, line, column, kind in sorted(items, key=lambda t: t[1]):
        if line is None:
            groups[("alone", nid)] = [nid]
            continue
        run = (step, line, column, kind)
        k = seen_in_run.get(run, 0)
        seen_in_run[run] = k + 1
        groups.setdefault((line, column, kind, k), []).append(nid)
    return {nid: ids[-1] for ids in groups.values() for nid in ids}


def _layer_groups(nodes: list) -> dict[tuple, list[int]]:
    """A recurrent layer's nodes by call site, layer, direction and weights (two modules
    called on one line stay two): (line, column, mode, layer, direction, weights) → ids."""
    groups: dict[tuple, list[int]] = {}
    for n in nodes:
        if n.rnn_step is not None:
            mode, layer, direction, _, weights = n.rnn_step
            groups.setdefault((n.line, n.column, mode, layer, direction, weights),
                              []).append(n.id)
    return groups


_WEIGHT = re.compile(r"^(.+)\.weight_ih_l\d+(?:_reverse)?(?:#\d+)?$")


def _layer_folds(folds: Folds, groups: dict[tuple, list[int]], by_id: dict[int, Any],
                 rep: dict[int, int], names: Any) -> None:
    """Each layer group's LayerFold, keyed by its representative."""
    for (_, _, mode, layer, direction, _), ids in groups.items():
        r = rep[ids[0]]
        steps: dict[int, set[int]] = {}
        path = None
        for i in ids:
            n = by_id[i]
            steps.setdefault(n.step, set()).add(n.rnn_step[3])
            for j in names(n):
                m = _WEIGHT.match(j or "")
                if m and path is None:
                    path = m.group(1)
        folds.layers[r] = LayerFold(MODULES.get(mode, mode), layer,
                                    max(len(t - {-1}) for t in steps.values()), len(steps), path,
                                    direction == 1)


def _kind(op: str | None, grad_fn: str | None, inplace: bool = False) -> str:
    return f"{op or '-'}{'_' if inplace else ''}/{grad_fn or '-'}"


def roll_graph(view: GraphView) -> tuple[GraphView, Folds]:
    """The forward view with loop iterations folded (context nodes fold among themselves)."""
    everything = [*view.nodes, *view.context]
    # the dtype too: a parameter's new state (float) and a pooling's indices (int64), leaves
    # made on one line, are not one node
    rep = fold_ids([(n.id, n.id, n.step, n.line, n.column,
                     _kind(n.op, n.grad_fn, n.inplace) + "/" + n.dtype)
                    for n in everything if n.rnn_step is None])
    groups = _layer_groups(everything)
    for ids in groups.values():
        rep.update(dict.fromkeys(ids, max(ids)))
    folds = _folds(rep, {n.id: n for n in everything}, lambda n: n.id)
    by_id = {n.id: n for n in everything}
    _layer_folds(folds, groups, by_id, rep,
                 lambda n: [by_id[j].name for j in n.inputs if j in by_id])
    kept = {n.id for n in view.nodes}
    inputs: dict[int, list[int]] = {}
    for n in everything:
        r = rep[n.id]
        ins = inputs.setdefault(r, [])
        for j in n.inputs:
            if rep.get(j, j) not in ins:
                ins.append(rep.get(j, j))
            _mark_back(folds, rep.get(j, j), r)
    out_nodes, out_context = [], []
    for r in _in_order(rep, everything):
        node = changed(by_id[r], inputs=inputs.get(r, []), count=folds.count(r))
        if r in folds.layers:  # the layer's output (its steps' stacked h): no one op made it
            node = changed(node, op=folds.layers[r].module, grad_fn=None, inplace=False,
                           saved=[], layer=folds.layers[r].label())
        (out_nodes if r in kept else out_context).append(node)
    output = rep.get(view.output) if view.output is not None else None
    return changed(view, nodes=out_nodes, context=out_context, output=output), folds


def roll_backward(view: BackwardView) -> tuple[BackwardView, Folds]:
    """The grad_fn view with loop iterations folded; the output's node stays the root."""
    everything = [*view.nodes, *view.context]
    order = {n.id: (n.record if n.record is not None else -1, n.id) for n in everything}
    rep = fold_ids([(n.id, order[n.id], n.step, n.line, n.column, n.name)
                    for n in everything if n.rnn_step is None])
    groups = _layer_groups(everything)
    for ids in groups.values():  # the representative: the one made last (the stack)
        rep.update(dict.fromkeys(ids, max(ids, key=lambda i: order[i])))
    by_id = {n.id: n for n in everything}
    folds = _folds(rep, by_id, lambda n: order[n.id])
    _layer_folds(folds, groups, by_id, rep, lambda n: [
        by_id[m].variable_name for m in n.next if m is not None and m in by_id])
    kept = {n.id for n in view.nodes}
    nexts: dict[int, list[int | None]] = {}
    for n in everything:
        r = rep[n.id]
        nxt = nexts.setdefault(r, [])
        for m in n.next:
            if m is not None and rep.get(m, m) not in nxt:
                nxt.append(rep.get(m, m))
            if m is not None:  # m's tensor is an input of n's: drawn m -> n, as forward
                _mark_back(folds, rep.get(m, m), r)
    root = rep.get(view.root) if view.root is not None else None
    nodes: list[BackwardNode] = []
    context: list[BackwardNode] = []
    for r in _in_order(rep, everything, key=lambda n: order[n.id]):
        node = changed(by_id[r], next=nexts.get(r, []))
        if r in folds.layers:
            node = changed(node, name=folds.layers[r].module, saved=[])
        (nodes if r in kept else context).append(node)
    return changed(view, nodes=nodes, context=context, root=root), folds


def _folds(rep: dict[int, int], by_id: dict[int, Any], order: Any) -> Folds:
    folds = Folds()
    members: dict[int, list[int]] = {}
    for nid in sorted(rep, key=lambda i: order(by_id[i])):
        members.setdefault(rep[nid], []).append(nid)
    folds.members = {r: ids for r, ids in members.items() if len(ids) > 1}
    folds.member_nodes = {i: by_id[i] for ids in folds.members.values() for i in ids}
    folds.first = {r: order(by_id[ids[0]]) for r, ids in members.items()}
    return folds


def _mark_back(folds: Folds, src: int, dst: int) -> None:
    """An input ``src`` of ``dst`` whose fold starts no earlier feeds a later iteration."""
    first = folds.first
    if src in first and dst in first and first[src] >= first[dst]:
        folds.back.add((src, dst))


def _in_order(rep: dict[int, int], nodes: list, key: Any = None) -> list[int]:
    """Representatives in the order of their folds' first members."""
    out: list[int] = []
    seen: set[int] = set()
    for n in sorted(nodes, key=key) if key is not None else sorted(nodes, key=lambda n: n.id):
        r = rep[n.id]
        if r not in seen:
            seen.add(r)
            out.append(r)
    return out
