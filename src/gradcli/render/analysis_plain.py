"""Plain text for ``explain``, ``trace`` and ``profile`` (greppable, no colour, stable).

The rich renderer reuses the phrases built here (``factor_line``, ``fmt``), so the two forms
say the same thing.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..analysis.trace import host_value
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


def local_text(e: Any, width: int = plain.WIDTH) -> str:
    """An edge's local derivative: the number, a small Jacobian in full, a large one as its
    shape, norm and largest entries (``width`` columns to fill)."""
    if e.local is None:
        return f"Jacobian {plain.shape(e.local_shape)} (too large to show)"
    return plain.jacobian(e.local, width)


def none_grad_note(line: int, text: str, reason: str) -> str:
    """A read of ``.grad`` in the script that gave None, and why."""
    return f"line {line}: {text}.grad was None: {reason}"


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


def explain(ex: Any, width: int = plain.WIDTH) -> str:
    """The gradient, then each listed path with its factors and edges, in ``width`` columns."""
    head = f"d{ex.of}/d{ex.wrt} = "
    value = plain.block(ex.grad, ex.dtype, len(head), width)
    note = f"({ranking_note(ex)})"
    if "\n" in value or len(head + value) + 3 + len(note) > width:
        lines = [head + value, note]
    else:
        lines = [f"{head}{value}   {note}"]
    if ex.zero_reason:
        lines.append(plain.wrap(f"zero gradient: {ex.zero_reason}", 2, width))
    lines.extend(plain.wrap(none_grad_note(*why), 2, width) for why in ex.none_grads)
    for k, p in enumerate(ex.paths, 1):
        lines.append("")
        lines.append(plain.wrap(f"path {k}: {' <- '.join(p.nodes)}", 4, width))
        lines.append(plain.wrap(f"  {factor_line(p)}", 4, width))
        lines.append("  contribution: " + plain.block(p.contribution, ex.dtype, 16, width))
        head_edges, tail, skipped = elide(p.edges)
        for e in head_edges:
            lines.extend(_edge(e, ex, width))
        if skipped:
            lines.append(f"  … {skipped} more edges …")
        for e in tail:
            lines.extend(_edge(e, ex, width))
    if ex.paths and len(ex.paths) == ex.paths_total:
        lines.append("")
        total = sum(np.asarray(p.contribution, dtype=np.float64) for p in ex.paths)
        head = f"sum of the {len(ex.paths)} contributions = "
        lines.append(head + plain.block(np.asarray(total), ex.dtype, len(head), width))
    return "\n".join(lines) + "\n"


def _edge(e: Any, ex: Any, width: int) -> list[str]:
    """``line 9   [rsub, RsubBackward1]  L = 1 - x5`` (the source cut to fit), then the
    factor: ``dL/dx5 = -1``, or a Jacobian wrapped under it."""
    where = f"line {e.line}" if e.line is not None else "line ?"
    src = ex.sources.get(e.line, "") if e.line is not None else ""
    first = f"  {where:<8} [{e.op}, {e.grad_fn}]"
    if src:
        room = width - len(first) - 3
        first += "  " + (src if len(src) <= room else src[:max(room - 1, 10)] + "…")
    factor = f"    {derivative(e.output, e.input)} = "
    return [first, plain.wrap(factor + local_text(e, width - len(factor)), 6, width)]


_NUMPY = (np.ndarray, np.generic)


def value(a: Any) -> str:
    """A gradient in an event: a number to 6 digits, a small tensor as PyTorch prints it, a
    large one by its shape and norm."""
    if a is None:
        return "None"
    if isinstance(a, _NUMPY) and a.ndim == 0:  # the common case: fast
        return f"{float(a):.6g}"
    v = host_value(a)
    if isinstance(v, dict):
        return f"<{'x'.join(map(str, v['shape']))} tensor, norm {v['norm']:.4g}>"
    if v.size == 1:
        return f"{float(v.reshape(())):.6g}"
    return plain.short(v)


# Each takes the trace and one event, unpacked at once (a trace has up to 10^5 events).
def _says_op(tr: Any, e: Any) -> str:
    _, _, _, _, node, fn, (op, rid, _, inplace, named) = e
    if named:
        what = f"{node} = {tr.names.expr(rid)}"
    else:  # an unnamed result's label is its expression (parenthesised when it has spaces)
        what = node[1:-1] if " " in node else node
    return (("in-place " if inplace else "") + f"{op}: {what}"
            + (f"  -> {fn}" if fn else "  (not recorded: no grad)"))


def _says_save(tr: Any, e: Any) -> str:
    _, _, _, _, _, fn, (name, of, shape, _, _) = e
    return f"{fn} saves {name} = {of} {shape}" if shape else f"{fn} saves {name} = {of}"


def _says_version(tr: Any, e: Any) -> str:
    v = e.info[0]
    return f"{e.node}: version {v - 1} -> {v} (in-place update)"


def _says_backward(tr: Any, e: Any) -> str:
    call, retain, create, _ = e.info
    return (f"{call} from {e.node} (retain_graph={retain}"
            + (", create_graph=True" if create else "") + ")")


def _says_edge(tr: Any, e: Any) -> str:
    _, _, _, _, node, fn, (to, to_fn, _, _, grad, _, _) = e
    return f"{fn} -> {to_fn} ({node} -> {to}): grad {value(grad)}"


def _says_free(tr: Any, e: Any) -> str:
    _, _, _, _, node, fn, (saved, _, _) = e
    return f"{fn} ({node}) frees its saved {', '.join(saved)}"


def _says_accumulate(tr: Any, e: Any) -> str:
    before, after, retained, _ = e.info
    what = "retained grad" if retained else "AccumulateGrad"
    return f"{what}: {e.node}.grad {value(before)} -> {value(after)}"


def _says_hook(tr: Any, e: Any) -> str:
    grad, result, _ = e.info
    return f"hook on {e.node}: grad {value(grad)} -> {value(result)}"


def _says_none_grad(tr: Any, e: Any) -> str:
    text, _, reason, _ = e.info
    return f"{text}.grad is None: {reason}"


def _says_tangent(tr: Any, e: Any) -> str:
    return f"tangent of {e.node}: {value(e.info[0])}"


def _hook(name: str, line: int | None) -> str:
    return f"{name} (line {line})" if line is not None else name


def _says_pack(tr: Any, e: Any) -> str:
    _, _, _, _, node, fn, (saved, of, hook, hook_line, kept, copied, _) = e
    keeps = f"keeps {size(kept)}" + (f" ({size(copied)} new)" if copied else "")
    return f"{fn} ({node}) packs its saved {saved} = {of} with {_hook(hook, hook_line)}: {keeps}"


def _says_unpack(tr: Any, e: Any) -> str:
    _, _, _, _, node, fn, (saved, hook, hook_line, _) = e
    return f"{fn} ({node}) unpacks its saved {saved} with {_hook(hook, hook_line)}"


def _says_error(tr: Any, e: Any) -> str:
    kind, message, cause = e.info
    text = message.split(". ")[0] + ("." if ". " in message else "")
    return f"{kind}: {text}" + (f" -- root cause: {cause}" if cause else "")


def _says_print(tr: Any, e: Any) -> str:
    text = e.info[0]
    return "prints: " + text.removesuffix("\n")


EVENT_TEXT = {"op": _says_op, "save": _says_save, "version": _says_version,
              "backward": _says_backward, "edge": _says_edge, "free": _says_free,
              "accumulate": _says_accumulate, "hook": _says_hook, "none_grad": _says_none_grad,
              "print": _says_print, "tangent": _says_tangent, "pack": _says_pack,
              "unpack": _says_unpack, "error": _says_error}


def event_text(tr: Any, e: Any) -> str:
    """What an event of the trace ``tr`` says, in one line for people."""
    return EVENT_TEXT[e.kind](tr, e)


def trace(tr: Any) -> str:
    """One line per event: number, phase, kind, line, what happened."""
    out = []
    append, text = out.append, EVENT_TEXT
    columns: dict[tuple, str] = {}  # (phase, kind, line) -> the padded middle columns
    for e in tr:
        seq, phase, kind, line, _, _, _ = e
        middle = columns.get((phase, kind, line))
        if middle is None:
            where = f"line {line}" if line is not None else "-"
            middle = columns[phase, kind, line] = f"  {phase:<8}  {kind:<10}  {where:<8}  "
        append(str(seq).rjust(4) + middle + text[kind](tr, e))
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


def ms_short(seconds: float) -> str:
    """Milliseconds to three significant digits (``0.284``, ``56.7``, ``149``): a column."""
    v = seconds * 1000
    return f"{v:.0f}" if v >= 99.95 else f"{v:.1f}" if v >= 9.995 else \
        f"{v:.2f}" if v >= 0.9995 else f"{v:.3f}"


def profile_summary(prof: Any) -> str:
    """The totals line."""
    warm = f"; one-time warm-up {ms(prof.warmup_seconds)} ms" if prof.warmup_seconds else ""
    return (f"total {ms(prof.total_seconds)} ms{warm}; recording the graph "
            f"{ms(prof.record_seconds)} ms ({prof.record_share:.1%}); backward "
            f"{ms(prof.backward_seconds)} ms; {prof.nodes:,} graph nodes created; "
            f"{size(prof.saved_bytes)} of saved tensors still held"
            + (f"; pack hooks kept {size(prof.packed_bytes)} of copies"
               if prof.packed_bytes else ""))


# the columns of profile, in every format (rich draws the share as a bar too)
PROFILE_COLUMNS = ("line", "hits", "time ms", "share", "warm ms", "bwd ms", "rec ms", "nodes",
                   "saved", "source")
PROFILE_NOTE = ("time: the line's own, its first run's one-time warm-up (MKL's set-up, a first "
                "call) apart in warm; share: of the total; bwd: backward; rec: recording the "
                "graph; saved: saved tensors its nodes still hold")


PACKED_NOTE = "; packed: new memory its pack hooks kept (copies of saved tensors)"


def profile_columns(prof: Any) -> tuple[str, ...]:
    """The columns of this profile: ``packed`` too when a pack hook kept a copy."""
    if not prof.packed_bytes:
        return PROFILE_COLUMNS
    return (*PROFILE_COLUMNS[:-1], "packed", PROFILE_COLUMNS[-1])


def profile_note(prof: Any) -> str:
    """What the columns mean."""
    return PROFILE_NOTE + (PACKED_NOTE if prof.packed_bytes else "")


def profile_cells(prof: Any, c: Any) -> tuple[str, ...]:
    """One line's cells, in profile_columns' order ("-" for none)."""
    total = prof.total_seconds or 1.0
    cells = (str(c.line), f"{c.hits:,}", ms_short(c.seconds), f"{c.seconds / total:.0%}",
             ms_short(c.warmup_seconds) if c.warmup_seconds else "-",
             ms_short(c.backward_seconds) if c.backward_seconds else "-",
             ms_short(c.record_seconds) if c.record_seconds else "-",
             f"{c.nodes:,}" if c.nodes else "-",
             size(c.saved_bytes) if c.saved_bytes else "-")
    if prof.packed_bytes:
        cells += (size(c.packed_bytes) if c.packed_bytes else "-",)
    return (*cells, c.source)


def profile(prof: Any) -> str:
    """One row per script line that ran, then the totals and what the times mean."""
    columns = profile_columns(prof)
    rows = [columns] + [profile_cells(prof, c) for c in prof.lines]
    n = len(columns) - 1
    widths = [max(len(r[i]) for r in rows) for i in range(n)]
    out = ["  ".join(r[i].rjust(widths[i]) for i in range(n)) + "  " + r[n] for r in rows]
    out.append(profile_summary(prof))
    out.append(profile_note(prof))
    return "\n".join(out) + "\n"


# -- explain --mode forward -----------------------------------------------------------------------
FORWARD_TITLE = "the tangent node by node (tangent out = sum of local derivative x tangent in):"


def forward_head(fx: Any) -> tuple[str, str]:
    """``dL/dw1 = -8.0`` by forward mode, and what was seeded (and how many re-runs)."""
    how = (f"{fx.wrt}'s tangent 1 carried forward to {fx.of}" if fx.seeds == 1 else
           f"{fx.seeds:,} re-runs, {fx.wrt}'s tangent e_i for each of its elements, carried "
           f"forward to {fx.of}")
    return f"d{fx.of}/d{fx.wrt} = ", f"by forward mode: {how}"


def forward_agreement(fx: Any) -> str:
    """Reverse mode's answer beside forward mode's."""
    if fx.agrees:
        return f"reverse mode gives the same: {_value_text(fx.reverse.grad, fx.dtype)}"
    return f"reverse mode gives {_value_text(fx.reverse.grad, fx.dtype)}: they DIFFER"


def _value_text(a: Any, dtype: str) -> str:
    a = np.asarray(a)
    if dtype in ("float16", "float32", "float64"):
        a = a.astype(dtype)
    return plain.short(a) if a.size != 1 else plain.block(a.reshape(()), dtype, 0, 10**6)


def forward_rows(fx: Any) -> list[list[str]]:
    """The node-by-node table of a scalar forward explanation: line, node, op, input, local
    derivative, tangent in, tangent out (one row per input the tangent arrives by)."""
    rows = [["line", "node", "op", "input", "local", "tangent in", "tangent out"]]
    for s in fx.steps:
        line = str(s.line) if s.line is not None else "-"
        if s.op is None:
            rows.append([line, s.node, "-", "-", "-", "-", f"{fmt(s.tangent)} (seed)"])
            continue
        for k, t in enumerate(s.terms):
            rows.append([line if k == 0 else "", s.node if k == 0 else "",
                         s.op if k == 0 else "", t.input,
                         fmt(t.local) if t.local is not None else "?",
                         fmt(t.tangent) if t.tangent is not None else "?",
                         _tangent_out(s) if k == 0 else ""])
    return rows


def _tangent_out(s: Any) -> str:
    text = fmt(s.tangent) if s.tangent is not None else "?"
    return text if s.consistent is not False else f"{text} (not the sum: {fmt(s.residual)} off)"


def forward_paths_title(fx: Any) -> str:
    n = len(fx.reverse.paths)
    total = fx.reverse.paths_total
    which = ("the same path" if n == 1 else f"the same {n} paths") if n == total else \
        f"{n} of the {total:,} paths"
    return f"{which}, seen from {fx.wrt}'s side (each path's product of local derivatives):"


def forward_path_line(p: Any) -> str:
    """``w1 -> x4 -> w3*x4 -> x5 -> L``."""
    return " -> ".join(reversed(p.nodes))


def forward_factor_line(p: Any) -> str:
    """``dx4/dw1 * d(w3*x4)/dx4 * ... = 2 * 3 * 1 * -1 = -6`` (W's side first)."""
    edges = list(reversed(p.edges))
    names = " * ".join(derivative(e.output, e.input) for e in edges)
    if not edges:
        return f"d{dname(p.nodes[0])}/d{dname(p.nodes[0])} = 1"
    if all(e.local is not None and np.size(e.local) == 1 for e in edges) \
            and np.size(p.contribution) == 1:
        return f"{names} = {' * '.join(fmt(e.local) for e in edges)} = {fmt(p.contribution)}"
    return names


def forward_sum_line(fx: Any) -> str | None:
    """The paths' sum beside L's tangent, when every path is listed."""
    ex = fx.reverse
    if not ex.paths or len(ex.paths) != ex.paths_total:
        return None
    total = sum(np.asarray(p.contribution, dtype=np.float64) for p in ex.paths)
    same = np.allclose(total, np.asarray(fx.grad, dtype=np.float64), rtol=1e-6, atol=1e-12)
    what = "the path's contribution" if len(ex.paths) == 1 else \
        f"sum of the {len(ex.paths)} paths"
    return (f"{what} = {_value_text(total, fx.dtype)}"
            + (f" = {fx.of}'s tangent" if same else f", but {fx.of}'s tangent is "
               f"{_value_text(fx.grad, fx.dtype)}"))


def explain_forward(fx: Any, width: int = plain.WIDTH) -> str:
    """``explain --mode forward``: L's tangent, the tangent node by node, the paths from W."""
    lead, how = forward_head(fx)
    value = plain.block(fx.grad, fx.dtype, len(lead), width)
    lines = [lead + value, plain.wrap(how, 2, width), plain.wrap(forward_agreement(fx), 2, width)]
    if fx.reverse.zero_reason:
        lines.append(plain.wrap(f"zero derivative: {fx.reverse.zero_reason}", 2, width))
    if fx.steps:
        lines += ["", FORWARD_TITLE]
        if fx.scalar:
            lines.append(plain.columns(forward_rows(fx)).rstrip("\n"))
        else:
            lines.append(plain.wrap(f"(each tangent is d(node)/d{fx.wrt} as a matrix: a row per "
                                    f"element of {fx.wrt}, a column per element of the node)",
                                    2, width))
            for s in fx.steps:
                lines.extend(_forward_step(s, fx, width))
    if fx.reverse.paths:
        lines += ["", forward_paths_title(fx)]
        for k, p in enumerate(fx.reverse.paths, 1):
            lines.append(plain.wrap(f"path {k}: {forward_path_line(p)}", 4, width))
            lines.append(plain.wrap(f"  {forward_factor_line(p)}", 4, width))
            if np.size(p.contribution) != 1:
                lines.append("  contribution: " + plain.block(p.contribution, fx.dtype, 16,
                                                               width))
        total = forward_sum_line(fx)
        if total:
            lines += ["", plain.wrap(total, 2, width)]
    return "\n".join(lines) + "\n"


def _forward_step(s: Any, fx: Any, width: int) -> list[str]:
    """One node of a tensor forward explanation: where, each input's local derivative and
    tangent (an earlier node's tangent out, named), and the node's tangent as a matrix."""
    where = f"line {s.line}" if s.line is not None else "line ?"
    src = fx.reverse.sources.get(s.line, "") if s.line is not None else ""
    what = f"[{s.op}, {s.grad_fn}]" if s.op is not None else "(seeded)"
    first = f"{s.node}  {where}  {what}"
    if src:
        room = width - len(first) - 2
        first += "  " + (src if len(src) <= room else src[:max(room - 1, 10)] + "…")
    lines = ["", first]
    for t in s.terms:
        name = derivative(s.node, t.input)
        local = plain.jacobian(t.local, width - len(name) - 8) if t.local is not None \
            else "(too large to show)"
        lines.append(plain.wrap(f"  from {t.input}: {name} = {local}", 6, width))
        lines.append(f"    tangent in: {t.input}'s tangent " +
                     ("(the seed)" if t.input == fx.wrt else "out, above"))
    if s.op is None:
        lines.append(f"  tangent: e_i, one per element of {fx.wrt} (the identity)")
        return lines
    lines.append(f"  tangent out {plain.shape(list(np.shape(s.tangent)))}, one row per element "
                 f"of {fx.wrt}:")
    lines.append("    " + _tangent_block(s.tangent, fx, 4, width))
    if s.consistent is False:
        lines.append(f"  (not the sum of local derivative x tangent in: {fmt(s.residual)} off)")
    return lines


def _tangent_block(t: Any, fx: Any, indent: int, width: int) -> str:
    """d(node)/dW as a matrix: a row per element of W, a column per element of the node."""
    if t is None:
        return "?"
    a = np.asarray(t, dtype=np.float64).reshape(max(fx.seeds, 1), -1)
    if fx.dtype in ("float16", "float32"):
        a = a.astype(fx.dtype)
    return plain.block(a, fx.dtype, indent, width)
