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
    head = Text.assemble((f"d{ex.of}/d{ex.wrt}", "bold"), (" = ", DIM),
                         (plain.full(ex.grad, ex.dtype) if np.size(ex.grad) <= 12
                          else plain.short(ex.grad, one_line=False), "green"),
                         (f"   {ap.ranking_note(ex)}", DIM))
    tree = Tree(head)
    if ex.zero_reason:
        tree.add(Text.assemble(("zero gradient: ", "bold yellow"), (ex.zero_reason, "yellow")))
    for why in ex.none_grads:
        tree.add(Text(ap.none_grad_note(*why), "yellow"))
    for k, p in enumerate(ex.paths, 1):
        label = Text.assemble((f"path {k}", "bold"), ("  ", ""),
                              (" ← ".join(p.nodes), NAME))
        branch = tree.add(label)
        branch.add(Text(ap.factor_line(p), style="bold"))
        branch.add(Text.assemble(("contribution ", DIM),
                                 (plain.full(p.contribution, ex.dtype)
                                  if np.size(p.contribution) <= 12 else
                                  plain.short(p.contribution, one_line=False), "green")))
        head_edges, tail, skipped = ap.elide(p.edges)
        for e in head_edges:
            branch.add(_edge(e, ex))
        if skipped:
            branch.add(Text(f"… {skipped} more edges …", DIM))
        for e in tail:
            branch.add(_edge(e, ex))
    if ex.paths and len(ex.paths) == ex.paths_total:
        total = sum(np.asarray(p.contribution, dtype=np.float64) for p in ex.paths)
        tree.add(Text.assemble((f"sum of the {len(ex.paths)} contributions = ", DIM),
                               (plain.full(np.asarray(total), ex.dtype), "green")))
    out.print(tree)


def _edge(e: Any, ex: Any) -> Text:
    src = ex.sources.get(e.line, "") if e.line is not None else ""
    return Text.assemble((f"line {e.line if e.line is not None else '?'}", "cyan"), "  ",
                         (ap.derivative(e.output, e.input), "bold"), " = ",
                         (ap.local_text(e), "green"), "  ", (e.grad_fn, GRAD_FN),
                         (f"  {src}" if src else "", DIM))


KIND_STYLE = {"op": "cyan", "save": "yellow", "free": "red", "backward": "bold magenta",
              "edge": "magenta", "accumulate": "green", "hook": "blue", "version": "bold yellow",
              "none_grad": "yellow", "tangent": "blue", "error": "bold red"}


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
    """A table per line with a bar of its share of the run's time."""
    from rich import box
    from rich.table import Table

    t = Table(box=box.SIMPLE_HEAVY, header_style="bold", pad_edge=False)
    for name, kw in (("line", {"justify": "right", "style": "cyan"}),
                     ("hits", {"justify": "right"}), ("time ms", {"justify": "right"}),
                     ("share", {}), ("backward", {"justify": "right"}),
                     ("nodes", {"justify": "right"}), ("saved held", {"justify": "right"}),
                     ("source", {"overflow": "ellipsis", "style": DIM, "max_width": 36})):
        width = BAR + 5 if name == "share" else 8 if name == "source" else len(name)
        t.add_column(name, no_wrap=True, min_width=width, **kw)
    total = prof.total_seconds or 1.0
    for c in prof.lines:
        share = c.seconds / total
        bar = Text("█" * round(share * BAR) + "▏" * (0 < share * BAR < 0.5), "green")
        bar.append(f" {share:.0%}", DIM)
        t.add_row(str(c.line), f"{c.hits:,}", ap.ms(c.seconds), bar,
                  ap.ms(c.backward_seconds) if c.backward_seconds else Text("-", DIM),
                  f"{c.nodes:,}" if c.nodes else Text("-", DIM),
                  ap.size(c.saved_bytes) if c.saved_bytes else Text("-", DIM), c.source)
    out.print(t)
    out.print(Text(ap.profile_summary(prof), DIM))


BAR = 10
