"""Plain text for ``explain``, ``trace`` and ``profile`` (greppable, no colour, stable).

The rich renderer reuses the phrases built here (``factor_line``, ``fmt``), so the two forms
say the same thing.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from . import plain

LONG_PATH = 14  # edges of a path listed one by one; longer paths show their ends around "…"
_SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(#\d+)?(\[\d+\])?$")


def fmt(v: Any) -> str:
    """A factor as the walk-throughs write it: ``-1``, ``2``, ``0.5``, ``2.30259``."""
    a = np.asarray(v, dtype=np.float64)
    if a.size == 1:
        return f"{float(a.reshape(())):.6g}"
    return plain.short(a)


def dname(label: str) -> str:
    """A label as it stands after ``d`` in a derivative: ``x5``, ``(w3*x4)``."""
    return label if _SIMPLE.match(label) else f"({label})"


def derivative(out: str, inp: str) -> str:
    """``dx5/dx3``."""
    return f"d{dname(out)}/d{dname(inp)}"


def factor_line(path: Any) -> str:
    """``dL/dx5 * dx5/dx3 * dx3/dw1 = -1 * 2 * 1 = -2`` (scalars; the factors' names for tensors)."""
    names = " * ".join(derivative(e.output, e.input) for e in path.edges)
    if not path.edges:
        return f"d{dname(path.nodes[0])}/d{dname(path.nodes[0])} = 1"
    if all(e.local is not None and np.size(e.local) == 1 for e in path.edges) \
            and np.size(path.contribution) == 1:
        values = " * ".join(fmt(e.local) for e in path.edges)
        return f"{names} = {values} = {fmt(path.contribution)}"
    return names


def elide(items: list, keep: int = LONG_PATH) -> tuple[list, list, int]:
    """The first and last items of a long list and how many lie between."""
    if len(items) <= keep:
        return items, [], 0
    half = keep // 2
    return items[:half], items[-half:], len(items) - 2 * half


def local_text(e: Any) -> str:
    """An edge's local derivative: the number, or the Jacobian's shape and values."""
    if e.local is None:
        return f"Jacobian {plain.shape(e.local_shape)} (too large to show)"
    if np.size(e.local) == 1:
        return fmt(e.local)
    return f"Jacobian {plain.shape(e.local_shape)} {plain.short(e.local)}"


def ranking_note(ex: Any) -> str:
    """What the list of paths guarantees."""
    shown = len(ex.paths)
    total = ex.paths_total
    if total == 0:
        return "no path"
    if shown >= total:
        return f"{total:,} path{'s' if total != 1 else ''}, all listed"
    size = "|contribution|" if ex.scalar else "norm of the contribution"
    if ex.exact:
        return (f"{total:,} paths; the {shown} largest by {size} listed, every other one "
                f"<= {fmt(ex.bound)}")
    return (f"{total:,} paths; {shown} listed, the largest by {size} found before the search "
            f"budget ran out; every unlisted path <= {fmt(ex.bound)}")


def explain(ex: Any) -> str:
    """The gradient, then each listed path with its factors and edges."""
    lines = [f"d{ex.of}/d{ex.wrt} = {plain.full(ex.grad, ex.dtype)}   ({ranking_note(ex)})"]
    if ex.zero_reason:
        lines.append(f"zero gradient: {ex.zero_reason}")
    for k, p in enumerate(ex.paths, 1):
        lines.append("")
        lines.append(f"path {k}: {' <- '.join(p.nodes)}")
        lines.append(f"  {factor_line(p)}")
        lines.append(f"  contribution: {plain.full(p.contribution, ex.dtype)}")
        head, tail, skipped = elide(p.edges)
        for e in head:
            lines.append("  " + _edge(e, ex))
        if skipped:
            lines.append(f"  … {skipped} more edges …")
        for e in tail:
            lines.append("  " + _edge(e, ex))
    if ex.paths and len(ex.paths) == ex.paths_total:
        lines.append("")
        total = sum(np.asarray(p.contribution, dtype=np.float64) for p in ex.paths)
        lines.append(f"sum of the {len(ex.paths)} contributions = "
                     f"{plain.full(np.asarray(total), ex.dtype)}")
    return "\n".join(lines) + "\n"


def _edge(e: Any, ex: Any) -> str:
    where = f"line {e.line}" if e.line is not None else "line ?"
    src = ex.sources.get(e.line, "") if e.line is not None else ""
    return (f"{where:<8} {derivative(e.output, e.input)} = {local_text(e)}   "
            f"[{e.op}, {e.grad_fn}]" + (f"   {src}" if src else ""))


def trace(tr: Any) -> str:
    """One line per event: number, phase, kind, line, what happened."""
    out = []
    for e in tr.events:
        where = f"line {e.line}" if e.line is not None else "-"
        out.append(f"{e.seq:>4}  {e.phase:<8}  {e.kind:<10}  {where:<8}  {e.text}")
    if tr.root_cause:
        out.append(f"root cause: {tr.root_cause}")
    return "\n".join(out) + "\n"


def size(n: int) -> str:
    """Bytes in B, KiB, MiB."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 / 1024:.1f} MiB"


def ms(seconds: float) -> str:
    """Milliseconds with three decimals."""
    return f"{seconds * 1000:.3f}"


def profile_summary(prof: Any) -> str:
    """The totals line."""
    return (f"total {ms(prof.total_seconds)} ms; recording the graph {ms(prof.record_seconds)} "
            f"ms ({prof.record_share:.1%}); backward {ms(prof.backward_seconds)} ms; "
            f"{prof.nodes:,} graph nodes created; {size(prof.saved_bytes)} of saved tensors "
            "still held")


def profile(prof: Any) -> str:
    """One row per script line that ran."""
    rows = [("line", "hits", "time ms", "backward ms", "record ms", "nodes", "saved held",
             "source")]
    for c in prof.lines:
        rows.append((str(c.line), f"{c.hits:,}", ms(c.seconds),
                     ms(c.backward_seconds) if c.backward_seconds else "-",
                     ms(c.record_seconds) if c.record_seconds else "-",
                     f"{c.nodes:,}" if c.nodes else "-",
                     size(c.saved_bytes) if c.saved_bytes else "-", c.source))
    widths = [max(len(r[i]) for r in rows) for i in range(7)]
    out = ["  ".join(r[i].rjust(widths[i]) for i in range(7)) + "  " + r[7] for r in rows]
    out.append(profile_summary(prof))
    return "\n".join(out) + "\n"
