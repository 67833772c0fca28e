"""Rich output of ``explain``, ``trace`` and ``profile``: a tree of paths, a timeline, bars.

The phrases come from ``analysis_plain`` so the plain and the rich forms never disagree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.console import Console
from rich.segment import Segment, Segments
from rich.text import Text
from rich.tree import Tree

from . import analysis_plain as ap
from . import plain
from .rich import DIM, GRAD_FN, NAME


def explain(out: Console, ex: Any) -> None:
    """The gradient as a tree: each path, its factors written out, and its edges by line."""
    width = out.width
    lead = f"d{ex.of}/d{ex.wrt} = "
    value = plain.block(ex.grad, ex.dtype, len(lead), width)
    head = Text.assemble((f"d{ex.of}/d{ex.wrt}", "bold"), (" = ", DIM), (value, "green"),
                         ("\n" if "\n" in value else "   ", ""),
                         (f"{ap.ranking_note(ex)}", DIM))
    tree = Tree(head)
    if ex.zero_reason:
        tree.add(Text.assemble(("zero gradient: ", "bold yellow"), (ex.zero_reason, "yellow")))
    for why in ex.none_grads:
        tree.add(Text(ap.none_grad_note(*why), "yellow"))
    inner = max(width - 8, 40)  # a path's branches sit two guides in
    for k, p in enumerate(ex.paths, 1):
        label = Text.assemble((f"path {k}", "bold"), ("  ", ""),
                              (" ← ".join(p.nodes), NAME))
        branch = tree.add(label)
        branch.add(Text(ap.factor_line(p), style="bold"))
        branch.add(Text.assemble(("contribution ", DIM),
                                 (plain.block(p.contribution, ex.dtype, 13, inner), "green")))
        head_edges, tail, skipped = ap.elide(p.edges)
        for e in head_edges:
            branch.add(_edge(e, ex, inner))
        if skipped:
            branch.add(Text(f"… {skipped} more edges …", DIM))
        for e in tail:
            branch.add(_edge(e, ex, inner))
    if ex.paths and len(ex.paths) == ex.paths_total:
        total = sum(np.asarray(p.contribution, dtype=np.float64) for p in ex.paths)
        lead = f"sum of the {len(ex.paths)} contributions = "
        tree.add(Text.assemble((lead, DIM), (plain.block(np.asarray(total), ex.dtype, len(lead),
                                                         width - 4), "green")))
    out.print(tree)


def _edge(e: Any, ex: Any, width: int) -> Text:
    src = ex.sources.get(e.line, "") if e.line is not None else ""
    where = f"line {e.line if e.line is not None else '?'}"
    room = width - len(where) - len(e.grad_fn) - 4
    if len(src) > room:
        src = src[:max(room - 1, 10)] + "…"
    name = ap.derivative(e.output, e.input)
    return Text.assemble((where, "cyan"), "  ", (e.grad_fn, GRAD_FN), (f"  {src}" if src else "",
                                                                      DIM), "\n",
                         (name, "bold"), " = ",
                         (ap.local_text(e, width - len(name) - 3), "green"))


KIND_STYLE = {"op": "cyan", "save": "yellow", "free": "red", "backward": "bold magenta",
              "edge": "magenta", "accumulate": "green", "hook": "blue", "version": "bold yellow",
              "none_grad": "yellow", "print": "bold", "tangent": "blue",
              "pack": "yellow", "unpack": "yellow",
              "error": "bold red"}


CHUNK = 2000  # events per printed piece: output starts at once and memory stays flat
MIN_EVENT_WIDTH = 24


def trace(out: Console, tr: Any) -> None:
    """A timeline, one section per run of events from the same script line.

    Laid out by hand and printed as styled segments: a Rich ``Table`` measures every cell (31 s
    for a 50,000-event trace) and ``Text`` wraps and divides every line again (1.2 s); this is
    linear and cheap.  Long event texts wrap under the event column.
    """
    events = tr.events
    w = len(str(max(len(events) - 1, 0)))
    indent = w + 2 + 8 + 2 + 10 + 2
    width = max(out.width - indent, MIN_EVENT_WIDTH)
    pad = " " * indent
    style = out.get_style
    dim, where_style, source_style = style(DIM), style("bold cyan"), style("bold")
    kinds = {k: style(v) for k, v in KIND_STYLE.items()}
    nl = Segment.line()
    last: Any = object()
    for start in range(0, max(len(events), 1), CHUNK):
        chunk = events[start:start + CHUNK]
        texts = [plain.printable(ap.event_text(tr, e)) for e in chunk]
        if start == 0:  # the header, its rule as wide as the first events need
            widest = max(map(len, texts), default=5)
            out.print(Text.assemble((f"{'#':>{w}}  {'phase':<8}  {'kind':<10}  event", "bold"),
                                    "\n", ("━" * min(out.width, indent + widest), DIM)))
        segments: list[Segment] = []
        add = segments.append
        for e, words in zip(chunk, texts):
            if e.line != last:
                last = e.line
                where = f"line {e.line}" if e.line is not None else "-"
                src = plain.printable(tr.source(e.line))
                folded = _fold(f"{where}  {src}" if src else where, width)
                add(Segment(pad))
                add(Segment(where, where_style))
                add(Segment(folded[0][len(where):], source_style))
                add(nl)
                for more in folded[1:]:
                    add(Segment(pad + more, source_style))
                    add(nl)
            add(Segment(f"{e.seq:>{w}}  {e.phase:<8}  ", dim))
            add(Segment(f"{e.kind:<10}", kinds.get(e.kind)))
            lines = _fold(words, width)
            add(Segment("  " + lines[0]))
            add(nl)
            for more in lines[1:]:
                add(Segment(pad + more))
                add(nl)
        out.print(Segments(segments), end="")
    if tr.root_cause:
        out.print(Text.assemble(("root cause: ", "bold red"), tr.root_cause))


def _fold(text: str, width: int) -> list[str]:
    """``text`` as lines of at most ``width`` characters, broken between words if possible."""
    if len(text) <= width:
        return [text]
    import textwrap

    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


def profile(out: Console, prof: Any) -> None:
    """A table per line (plain's columns; the share with a bar when there is room), then the
    totals; within the terminal's width, the source cut to fit."""
    from rich import box
    from rich.table import Table

    bars = out.width >= WIDE
    rows = [ap.profile_cells(prof, c) for c in prof.lines]
    t = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, padding=(0, 1),
              collapse_padding=True)
    for k, name in enumerate(ap.profile_columns(prof)):
        head = name.replace(" ", "\n")  # two-line headers: narrow columns
        if name == "source":
            t.add_column(head, no_wrap=True, overflow="ellipsis", style=DIM, min_width=12)
        elif name == "share" and bars:
            t.add_column(head, no_wrap=True, min_width=BAR + 5)
        else:  # numbers never cut: as wide as their widest cell
            least = max([len(r[k]) for r in rows] + [len(w) for w in name.split()])
            t.add_column(head, no_wrap=True, justify="right", min_width=least,
                         style="cyan" if name == "line" else None)
    total = prof.total_seconds or 1.0
    for c, row in zip(prof.lines, rows):
        cells: list[Any] = [Text(x, DIM) if x == "-" else x for x in row]
        if bars:
            share = c.seconds / total
            bar = Text("█" * round(share * BAR) + "▏" * (0 < share * BAR < 0.5), "green")
            bar.append(f" {share:.0%}", DIM)
            cells[3] = bar
        t.add_row(*cells)
    out.print(t)
    out.print(Text(ap.profile_summary(prof), DIM))
    out.print(Text(ap.profile_note(prof), DIM))



WIDE = 120  # columns from which profile draws its share bars
BAR = 10


def explain_forward(out: Console, fx: Any) -> None:
    """``explain --mode forward``: L's tangent, a table (or a tree, for tensors) of the tangent
    node by node, and the paths from W's side."""
    width = out.width
    lead, how = ap.forward_head(fx)
    value = plain.block(fx.grad, fx.dtype, len(lead), width)
    out.print(Text.assemble((lead.rstrip(" ="), "bold"), (" = ", DIM), (value, "green")))
    out.print(Text(how, DIM))
    out.print(Text(ap.forward_agreement(fx), "green" if fx.agrees else "bold red"))
    if fx.reverse.zero_reason:
        out.print(Text.assemble(("zero derivative: ", "bold yellow"),
                                (fx.reverse.zero_reason, "yellow")))
    if fx.steps:
        out.print()
        title = "the tangent, node by node (tangent out = Σ local derivative × tangent in)"
        if fx.scalar:
            out.print(Text(title, "bold"))
            out.print(_forward_table(fx))
        else:
            tree = Tree(Text(title, "bold"))
            tree.add(Text(f"each tangent is d(node)/d{fx.wrt} as a matrix: a row per element of "
                          f"{fx.wrt}, a column per element of the node", DIM))
            inner = max(width - 8, 40)
            for s in fx.steps:
                _forward_node(tree, s, fx, inner)
            out.print(tree)
    if fx.reverse.paths:
        out.print()
        tree = Tree(Text(ap.forward_paths_title(fx), "bold"))
        for k, p in enumerate(fx.reverse.paths, 1):
            branch = tree.add(Text.assemble((f"path {k}", "bold"), "  ",
                                            (" → ".join(reversed(p.nodes)), NAME)))
            branch.add(Text(ap.forward_factor_line(p), "bold"))
            if np.size(p.contribution) != 1:
                branch.add(Text.assemble(("contribution ", DIM), (plain.block(
                    p.contribution, fx.dtype, 13, max(width - 8, 40)), "green")))
        total = ap.forward_sum_line(fx)
        if total:
            tree.add(Text(total, "green"))
        out.print(tree)


def _forward_table(fx: Any) -> Any:
    from rich import box
    from rich.table import Table

    rows = ap.forward_rows(fx)
    t = Table(box=box.SIMPLE_HEAVY, show_edge=False, header_style="bold", pad_edge=False,
              collapse_padding=True)
    for h in rows[0]:
        t.add_column(h, justify="right" if h in ("line", "local", "tangent in", "tangent out")
                     else "left", style=NAME if h in ("node", "input") else None)
    for r in rows[1:]:
        t.add_row(*r)
    return t


def _forward_node(tree: Tree, s: Any, fx: Any, width: int) -> None:
    where = f"line {s.line}" if s.line is not None else "line ?"
    src = fx.reverse.sources.get(s.line, "") if s.line is not None else ""
    node = tree.add(Text.assemble((s.node, NAME), "  ", (where, "cyan"), "  ",
                                  (s.grad_fn or "seeded", GRAD_FN), (f"  {src}", DIM)))
    if s.op is None:
        node.add(Text(f"tangent: e_i, one per element of {fx.wrt} (the identity)", "blue"))
        return
    for t in s.terms:
        name = ap.derivative(s.node, t.input)
        local = plain.jacobian(t.local, width - len(name) - 8) if t.local is not None \
            else "(too large to show)"
        node.add(Text.assemble((f"from {t.input}: ", DIM), (name, "bold"), " = ",
                               (local, "green"), ("\ntangent in: ", DIM),
                               (f"{t.input}'s tangent " + ("(the seed)" if t.input == fx.wrt
                                                           else "out, above"), "blue")))
    a = np.asarray(s.tangent, dtype=np.float64).reshape(max(fx.seeds, 1), -1)
    head = f"tangent out {plain.shape(list(np.shape(s.tangent)))}, one row per element of {fx.wrt}"
    node.add(Text.assemble((head + "\n", DIM),
                           (plain.block(a.astype(fx.dtype) if fx.dtype in ("float32", "float64")
                                        else a, fx.dtype, 0, width), "blue")))
    if s.consistent is False:
        node.add(Text(f"not the sum of local derivative × tangent in: {ap.fmt(s.residual)} off",
                      "bold red"))
