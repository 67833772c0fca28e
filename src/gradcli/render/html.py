"""``gradcli html``: one self-contained page with the graph drawn by Graphviz and a viewer.

The page holds everything it needs and fetches nothing (its Content-Security-Policy forbids
any fetch): the SVG that ``dot -Tsvg`` lays out, the viewer's CSS and plain JavaScript (in
``assets/``), and one JSON document with what each drawn element stands for, the stepper's
events and the script's text.  DOM contract (SPEC §8): each node is an SVG ``g`` with
``class="node"`` and ``data-name`` (its script name, or its id); the details panel is
``#details``; the stepper's buttons are ``#step-prev``/``#step-next`` and its text
``#step-text``; the highlighted node has class ``active``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..rolling import Folds
from ..views import BackwardNode, BackwardView, GraphNode, GraphView, SavedView, TensorView
from . import dot
from .plain import shape, short

ASSETS = Path(__file__).with_name("assets")
VALUE_THRESHOLD = 64  # elements shown in the details panel before NumPy's "..." summary
MEMBER_THRESHOLD = 6  # elements of each iteration's value in a rolled node's list


def render(view: GraphView | BackwardView, *, folds: Folds | None = None,
           events: list[dict] | None = None, source: str = "", filename: str = "<script>",
           output: str | None = None, error: dict | None = None,
           timeout: float = dot.LAYOUT_TIMEOUT) -> str:
    """The whole page: lay the view out with Graphviz, then wrap it in the viewer."""
    backward = isinstance(view, BackwardView)
    drawing = (dot.draw_backward(view, show_saved=True, folds=folds) if backward
               else dot.draw_forward(view, show_saved=True, folds=folds))
    svg = dot.svg(drawing.text(ids=True), timeout=timeout)
    return page(view, drawing, svg, folds=folds, events=events or [], source=source,
                filename=filename, output=output, error=error)


def page(view: GraphView | BackwardView, drawing: dot.Drawing, svg: str, *,
         folds: Folds | None, events: list[dict], source: str, filename: str,
         output: str | None, error: dict | None = None) -> str:
    """The page around an SVG that Graphviz made from ``drawing.text(ids=True)``."""
    backward = isinstance(view, BackwardView)
    elements = {**drawing.elements, **drawing.references()}
    data = {
        "file": filename, "view": "backward" if backward else "forward", "output": output,
        "rolled": folds is not None,
        "nodes": _nodes(view, folds),
        "elements": {k: [e.kind, e.node, e.name] for k, e in elements.items()},
        "edges": [[dot.edge_id(k), src, dst, classes]
                  for k, (src, dst, _, classes) in enumerate(drawing.edges)],
        "refs": {k: e.name for k, e in elements.items() if e.kind == "ref"},
        "events": _targets(events, view, drawing, folds),
        "source": source.splitlines(),
        "error": error,
    }
    svg = _svg(svg, view, elements, drawing)
    count = len(view.nodes)
    what = ("backward (grad_fn) graph" if backward else "forward graph") + \
        (f" of {output}" if output else "") + (", loops rolled" if folds is not None else "")
    seeded = getattr(view, "seeded", None)
    if seeded is not None:  # --mode forward
        what += f", forward mode: tangents d·/d{seeded}"
    elif not backward and any(n.tangent is not None for n in view.nodes):
        what += ", with forward-mode tangents"
    title = f"{filename} — {what}"
    return TEMPLATE.format(
        title=_esc(title), file=_esc(filename), what=_esc(what),
        count=f"{count:,} node{'s' if count != 1 else ''}",
        css=_asset("viewer.css"), js=_asset("viewer.js"), svg=svg,
        data=json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/"),
        legend=_legend(backward, folds is not None))


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def _esc(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


# -- what each node shows in the details panel ----------------------------------------------------
def _text(data: Any) -> str | None:
    return None if data is None else short(data, threshold=VALUE_THRESHOLD, one_line=False)


def _saved(saved: list[SavedView]) -> list[dict]:
    return [{"name": s.name, "freed": s.freed, "shape": s.shape,
             "tensor": s.tensor, "value": None if s.value is None else repr(s.value)}
            for s in saved]


def _tensor(v: TensorView | None) -> dict | None:
    if v is None:
        return None
    return {"shape": shape(v.shape), "dtype": v.dtype, "value": _text(v.data),
            "grad": _text(v.grad), "requires_grad": v.requires_grad, "is_leaf": v.is_leaf,
            "grad_fn": v.grad_fn, "retains_grad": v.retains_grad}


def _nodes(view: GraphView | BackwardView, folds: Folds | None) -> dict[str, dict]:
    out: dict[str, dict] = {}
    if isinstance(view, BackwardView):
        for n in [*view.nodes, *view.context]:
            out[str(n.id)] = _backward_node(n, folds)
        if view.output_tensor is not None:
            root = out.get(str(view.root), {})
            out["out"] = {"name": view.output, "tensor": _tensor(view.output_tensor),
                          "kind": "output", "line": root.get("line"), "birth": root.get("birth")}
        return out
    for n in [*view.nodes, *view.context]:
        out[str(n.id)] = _forward_node(n, folds, n.id == view.output)
    return out


def _members(folds: Folds | None, nid: int) -> list[list] | None:
    if folds is None or nid not in folds.members:
        return None
    ids = folds.members[nid]
    if nid in folds.layers:  # a recurrent layer: its output at each call, not each step's ops
        ids = list({folds.member_nodes[m].step: m for m in ids}.values())
    rows = []
    for m in ids:
        node = folds.member_nodes[m]
        value = getattr(node, "data", None)
        rows.append([m, node.name if isinstance(node, GraphNode) else node.tensor,
                     node.line, short(value, threshold=MEMBER_THRESHOLD)
                     if value is not None else None])
    return rows


def _birth(folds: Folds | None, nid: int, record: int | None) -> int | None:
    """The record that made the node (a fold's first member's), for the stepper."""
    if folds is not None and nid in folds.members:
        first = folds.member_nodes[folds.members[nid][0]]
        return first.id if isinstance(first, GraphNode) else first.record
    return record


def _forward_node(n: GraphNode, folds: Folds | None, is_output: bool) -> dict:
    return {"birth": _birth(folds, n.id, n.id),
        "kind": "tensor", "id": n.id, "name": n.name, "op": n.op, "inplace": n.inplace,
        "grad_fn": n.grad_fn, "shape": shape(n.shape), "dtype": n.dtype,
        "value": _text(n.data), "grad": _text(n.grad), "d_output": _text(n.d_output),
        "tangent": _text(n.tangent), "requires_grad": n.requires_grad,
        "is_leaf": n.is_leaf, "retains_grad": n.retains_grad, "output": is_output,
        "saved": _saved(n.saved), "line": n.line, "inputs": list(n.inputs),
        "members": _members(folds, n.id), "layer": _layer(folds, n.id)}


def _backward_node(n: BackwardNode, folds: Folds | None) -> dict:
    return {"birth": _birth(folds, n.id, n.record),
        "kind": "grad_fn", "id": n.id, "name": n.name, "tensor": n.tensor,
        "variable_name": n.variable_name, "variable": _tensor(n.variable),
        "d_output": _text(n.d_output),
        "saved": _saved(n.saved), "line": n.line, "next": [m for m in n.next if m is not None],
        "members": _members(folds, n.id), "layer": _layer(folds, n.id)}


def _layer(folds: Folds | None, nid: int) -> str | None:
    """A recurrent layer's rolled node: ``model.lstm (LSTM) layer 0: 5 steps``."""
    layer = folds.layers.get(nid) if folds is not None else None
    return layer.label() if layer is not None else None


# -- the stepper: which elements each event lights up ---------------------------------------------
def _targets(events: list[dict], view: GraphView | BackwardView, drawing: dot.Drawing,
             folds: Folds | None) -> list[dict]:
    """Each event with ``els`` (element ids to highlight) and ``edges``; events of nodes the
    drawing leaves out (scoped away) are dropped.  Events name records by ``id`` (an op),
    ``node_id`` and ``to_id`` (an edge's target), as ``trace`` and ``steps`` write them."""
    rep: dict[int, int] = {}
    if folds is not None:
        rep = {m: r for r, ms in folds.members.items() for m in ms}
    if isinstance(view, BackwardView):
        by_record = {}
        for n in [*view.nodes, *view.context]:
            if n.record is not None:
                by_record.setdefault(n.record, n.id)
        for r, ms in (folds.members.items() if folds is not None else ()):
            for m in ms:
                rec = folds.member_nodes[m].record
                if rec is not None:
                    by_record.setdefault(rec, r)
        prefix = "f"
    else:
        by_record = None
        prefix = "t"

    def element(rid: Any) -> str | None:
        if rid is None:
            return None
        nid = by_record.get(rid) if by_record is not None else rep.get(rid, rid)
        if nid is None:
            return None
        key = f"{prefix}{nid}"
        return key if drawing.elements.get(key) and \
            drawing.elements[key].kind != "context" else None

    edge_index = {(src, dst): dot.edge_id(k) for k, (src, dst, _, _) in enumerate(drawing.edges)}
    out = []
    for ev in events:
        rid = ev.get("id") if ev.get("kind") == "op" else ev.get("node_id")
        main = element(rid)
        if main is None and rid is not None:
            continue  # a node the drawing leaves out (--lines, --of)
        els = [main] if main else []
        edges = []
        op = f"op{main[1:]}" if main and prefix == "t" else None
        if ev.get("kind") in ("op", "save", "free") and op in drawing.elements:
            els.append(op)
        if ev.get("kind") == "edge":
            to = element(ev.get("to_id"))
            if to:
                els.append(to)
                e = edge_index.get((to, op if op in drawing.elements else main))
                if e:
                    edges.append(e)
        out.append({**ev, "els": els, "edges": edges})
    return out


# -- the SVG: classes and data-name on the elements ----------------------------------------------
_G = re.compile(r'<g id="([^"]+)" class="(node|edge)">')
_DROP = re.compile(r"<\?xml[^>]*>\s*|<!DOCTYPE[^>]*>\s*|<!--.*?-->\s*|<title>.*?</title>\s*",
                   re.DOTALL)
_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


def _svg(svg: str, view: GraphView | BackwardView, elements: dict[str, dot.Element],
         drawing: dot.Drawing) -> str:
    """Graphviz's SVG with the DOM contract's classes and ``data-name`` on every element."""
    names = {n.id: n for n in [*view.nodes, *view.context]}
    edge_classes = {dot.edge_id(k): classes for k, (_, _, _, classes) in
                    enumerate(drawing.edges)}

    def label(node_id: int | None) -> str:
        n = names.get(node_id)
        if isinstance(n, GraphNode):
            return n.name or str(n.id)
        if isinstance(n, BackwardNode):
            return n.tensor or n.variable_name or str(n.id)
        return str(node_id)

    def sub(m: re.Match) -> str:
        key, kind = m.group(1), m.group(2)
        if kind == "edge":
            return f'<g id="{key}" class="{" ".join(["edge", *edge_classes.get(key, [])])}">'
        e = elements.get(key)
        if e is None:
            return m.group(0)
        main = e.kind in ("tensor", "grad_fn")
        classes = (["node"] if main else [e.kind]) + e.classes + ["el"]
        extra = f' data-name="{_esc(label(e.node))}"' if main else ""
        if e.node is not None:
            extra += f' data-node="{e.node}"'
        return f'<g id="{key}" class="{" ".join(dict.fromkeys(classes))}"{extra}>'

    svg = _DROP.sub("", svg)
    svg = _SIZE.sub(lambda m: f'<svg id="graph" width="{float(m.group(1)) * 4 / 3:.0f}" '
                    f'height="{float(m.group(2)) * 4 / 3:.0f}"', svg, count=1)
    return _G.sub(sub, svg)


def _legend(backward: bool, rolled: bool) -> str:
    items = [("leaf", "leaf that requires grad"), ("output", "output")]
    items.append(("op", "grad_fn" if backward else "operation"))
    items.append(("saved-box", "saved tensor") if backward else ("saved", "op that saves tensors"))
    if rolled:
        items.append(("back", "next iteration"))
    return "".join(f'<span class="key"><i class="sw {k}"></i>{_esc(t)}</span>' for k, t in items)


TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="gradcli">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body>
<header id="bar">
  <div class="brand"><b>gradcli</b> <span class="file">{file}</span>
    <span class="what">{what} · {count}</span></div>
  <div class="tools">
    <label class="search"><input id="search" type="search" placeholder="Search names"
      autocomplete="off" spellcheck="false" aria-label="Search nodes by name">
      <span id="search-count" aria-live="polite"></span></label>
    <button id="zoom-out" title="Zoom out (-)" aria-label="Zoom out">−</button>
    <button id="zoom-in" title="Zoom in (+)" aria-label="Zoom in">+</button>
    <button id="zoom-fit" title="Fit the graph (0)">Fit</button>
    <button id="zoom-reset" title="Actual size (1)">100%</button>
    <button id="theme" title="Light or dark" aria-label="Switch light or dark">◐</button>
  </div>
</header>
<main>
  <div id="viewport" tabindex="0" aria-label="Graph: drag to pan, wheel to zoom">
    <div id="canvas">
{svg}
    </div>
    <div id="legend">{legend}</div>
    <div id="zoom-level" aria-hidden="true"></div>
  </div>
  <aside id="side">
    <section id="error" role="alert" hidden></section>
    <section id="stepper" aria-label="Stepper">
      <div class="row">
        <button id="step-prev" title="Previous event (←)" aria-label="Previous event">◀</button>
        <input id="step-range" type="range" min="0" max="0" value="0" aria-label="Event">
        <button id="step-next" title="Next event (→)" aria-label="Next event">▶</button>
      </div>
      <div id="step-text" aria-live="polite"></div>
    </section>
    <section id="details" aria-live="polite"></section>
    <section id="source-panel"><h2>Script</h2><ol id="source"></ol></section>
  </aside>
</main>
<script type="application/json" id="gradcli-data">{data}</script>
<script>
{js}
</script>
</body>
</html>
"""
