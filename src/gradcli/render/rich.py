"""Rich output for a terminal: tables of values and gradients, the backward tree, diagnostics.

Only this module (and ``cli.py``) imports Rich.  The texts of cells come from ``plain`` so the
two forms never disagree; Rich adds colour, boxes and the diagnostic panel.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from ..views import BackwardView, GraphView, TensorView
from . import plain

NAME = "bold cyan"
GRAD_FN = "magenta"
DIM = "dim"
# Saved tensors: live ones in torchviz's orange (as `dot --show-saved` draws them); freed ones
# dim and struck through (gone, harmless until a backward needs them); stale ones, modified in
# place since they were saved, red: a backward through them fails.
SAVED_LIVE = "dark_orange"
SAVED_FREED = "dim strike"
SAVED_STALE = "bold red"
SAVED_STALE_NOTE = ": changed in place since it was saved; a backward through it fails"


class _Console(Console):
    """Rich's console, except that a closed pipe is not an exit: the session decides (it goes
    on quietly and exits with the command's own code)."""

    def on_broken_pipe(self) -> None:
        """Stop writing; the caller learns of it through the BrokenPipeError."""
        self.quiet = True
        raise BrokenPipeError


def console(stderr: bool = False, color: bool | None = None) -> Console:
    """A console on stdout or stderr.

    NO_COLOR (any non-empty value, no-color.org) turns off every style, bold and dim too:
    Rich alone drops only the colours. FORCE_COLOR is Rich's own.
    """
    plain_text = color is False or (color is None and bool(os.environ.get("NO_COLOR")))
    extra: dict[str, Any] = {"color_system": None} if plain_text else {}
    return _Console(stderr=stderr, highlight=False, soft_wrap=False, **extra)


def _flags(requires_grad: bool, is_leaf: bool, retains_grad: bool = False) -> Text:
    t = Text()
    for word, on, style in (("leaf", is_leaf, "green"), ("req_grad", requires_grad, "yellow"),
                            ("retains", retains_grad, "blue")):
        if on:
            t.append(("  " if t else "") + word, style=style)
    return t or Text("-", style=DIM)


CELL_LINES = 6  # lines of a value cell: a large tensor's head, then "…" (the shape column)


def _values(data: Any, width: int) -> Text:
    """A value cell: PyTorch's form of the contents, rows wrapped at the cell's width, its
    first ``CELL_LINES`` lines (the blank ones between blocks left out)."""
    if data is None:
        return Text("-", DIM)
    lines = [ln for ln in plain.short(data, one_line=False, width=max(width, 8)).splitlines()
             if ln.strip()]
    if len(lines) > CELL_LINES:
        lines = [*lines[:CELL_LINES - 1], "…"]
    return Text("\n".join(lines), overflow="fold")


def _table(title: str | None, *cols: tuple[str, dict]) -> Table:
    t = Table(title=title, box=box.SIMPLE_HEAVY, title_style="bold", title_justify="left",
              header_style="bold", pad_edge=False, show_edge=False, collapse_padding=True)
    for name, kw in cols:  # a header is never wrapped: its cells wrap first
        t.add_column(name, **{"no_wrap": True, "min_width": len(name), **kw})
    return t


MIN_VALUE_WIDTH = 14  # narrower than this, value cells would show one number per line
# Word lists: they wrap at spaces before anything is cut ("leaf req_grad", a --rolled layer's
# description). Rich shrinks every wrapping column alike, below its longest word if it must:
# never an op name.
WRAPS = {"flags", "saved", "rolled"}


def _width(cell: Any) -> int:
    return cell.cell_len if isinstance(cell, Text) else len(cell)


def _word_width(cell: Any) -> int:
    return max((len(w) for w in str(cell).split()), default=1)


def _natural(pairs: list[tuple[Any, Any]]) -> tuple[int, int]:
    """The value column's width when nothing wraps (one line for a value, one for a grad),
    and the least width at which each row of every value still fits (one element a line)."""
    width = least = 8
    for data, grad in pairs:
        for prefix, v in (("", data), ("grad ", grad)):
            if v is not None:
                width = max(width, len(prefix) + len(plain.short(v)))
                narrow = plain.short(v, one_line=False, width=MIN_VALUE_WIDTH)
                least = max(least, *map(len, narrow.splitlines()))
    return width, least


def _fit(out: Console, headers: list[str], columns: list[list[Any]],
         natural: tuple[int, int] = (10**9, MIN_VALUE_WIDTH)) -> int:
    """The width of the value column when the other columns keep their text whole: names,
    shapes, grad_fn and inputs are never cut, flags and saved wrap at spaces first, the value
    previews take what is left (0: too narrow to show them next to the rest)."""
    full = [max(_width(Text(h)), *map(_width, col)) for h, col in zip(headers, columns)]
    least = [max(len(h), *map(_word_width, col)) if h in WRAPS else f
             for h, col, f in zip(headers, columns, full)]
    n = len(headers) + 1
    # no edges (show_edge=False); between two columns a one-space divider and one space of
    # padding (collapse_padding=True merges the two sides' padding)
    overhead = 2 * (n - 1)
    want, need = natural[0], max(natural[1], MIN_VALUE_WIDTH)
    left = out.width - overhead - sum(full)
    if left >= need:
        return min(left, max(want, need))
    return need if out.width - overhead - sum(least) >= need else 0


MIN_NAME_WIDTH = 12  # a name cut shorter than this would no longer say which tensor it is


def _shorten(text: Text, width: int) -> Text:
    """``text`` in at most ``width`` cells, its middle replaced by "…" (a name's head says
    where it lives, its tail which parameter and version: ``model.lstm…_hh_l0#44``)."""
    if text.cell_len <= width:
        return text
    tail = (width - 1) // 2
    head = width - 1 - tail
    return Text(text.plain[:head] + "…" + text.plain[len(text.plain) - tail:], text.style)


def _squeeze(out: Console, headers: list[str], rows: list[tuple], name: int,
             optional: tuple[str, ...] = ()) -> tuple[list[str], list[tuple], list[str],
                                                      dict[str, int]]:
    """Make a table too wide for the terminal even without its values fit: the ``optional``
    columns are left out whole, in that order, while the table would not fit with its names
    (column ``name``) cut to MIN_NAME_WIDTH; then the names are cut in the middle to the width
    left, and the word lists (WRAPS) wrap at their longest word. Else Rich would squeeze
    every column alike, cutting ids, op names and words. Returns the headers and rows kept,
    what was given up for the note (the columns left out, and "" when names were cut) and
    the widths the word lists must take."""
    given_up: list[str] = []

    def measure() -> tuple[int, list[int], list[int]]:
        """The dividers' width (as _fit counts them, plus the last column's right padding),
        and each column's width unwrapped and at its longest word."""
        columns = [[r[k] for r in rows] for k in range(len(headers))]
        full = [max(len(h), *map(_width, c)) for h, c in zip(headers, columns)]
        least = [max(len(h), *map(_word_width, c)) if h in WRAPS else f
                 for h, c, f in zip(headers, columns, full)]
        return 2 * (len(headers) - 1) + 1, full, least

    dividers, full, least = measure()
    if dividers + sum(full) <= out.width:
        return headers, rows, given_up, {}
    shortest = max(MIN_NAME_WIDTH, len(headers[name]))
    for h in (h for h in optional if h in headers):
        if dividers + sum(least) - least[name] + min(shortest, least[name]) <= out.width:
            break
        k = headers.index(h)
        headers = headers[:k] + headers[k + 1:]
        rows = [r[:k] + r[k + 1:] for r in rows]
        given_up.append(h)
        dividers, full, least = measure()
    excess = dividers + sum(least) - out.width
    if excess > 0 and least[name] > shortest:
        width = max(shortest, least[name] - excess)
        rows = [(*r[:name], _shorten(r[name], width), *r[name + 1:]) for r in rows]
        given_up.append("")
    return headers, rows, given_up, {h: w for h, w in zip(headers, least) if h in WRAPS}


def _value_and_grad(data: Any, grad: Any, width: int, d_output: Any = None,
                    d_label: str = "", tangent: Any = None) -> Text:
    """The value, (forward mode) its tangent, ``.grad`` and (--wrt) ``dL/dw``, each under its
    label."""
    value = _values(data, width)
    for label, v in (("tangent", tangent), ("grad", grad), (d_label, d_output)):
        if v is not None:
            text = _values(v, width)
            sep = " " if "\n" not in text.plain and text.cell_len + len(label) + 1 <= width \
                else "\n"
            value.append_text(Text("\n" + label + sep, "bold yellow") + text)
    return value


def run(out: Console, bindings: dict[str, Any]) -> None:
    """The final bindings as a table; the value (and grad) previews take the width left."""
    rows = []
    for name, v in bindings.items():
        if isinstance(v, TensorView):
            rows.append((Text(name, NAME), Text(plain.shape(v.shape), DIM),
                         Text(v.grad_fn or "-", GRAD_FN if v.grad_fn else DIM),
                         _flags(v.requires_grad, v.is_leaf, v.retains_grad), v))
        else:
            rows.append((Text(name, NAME), Text(plain.type_text(v), DIM), Text("-", DIM),
                         Text("-", DIM), v))
    values = [v for *_, v in rows]
    headers, cells, given_up, wraps = _squeeze(out, ["name", "shape", "grad_fn", "flags"],
                                               [r[:4] for r in rows], 0, ("flags",))
    width = 0 if wraps else _fit(
        out, headers, [[r[k] for r in cells] for k in range(len(headers))],
        _natural([(v.data, v.grad) if isinstance(v, TensorView) else (None, None)
                  for v in values]))
    cols: list[tuple[str, dict]] = [(h, {"no_wrap": h not in WRAPS, "width": wraps.get(h)})
                                    for h in headers]
    if width:
        title = "value / grad" if any(isinstance(v, TensorView) and v.grad is not None
                                      for v in values) else "value"
        cols.insert(2, (title, {"width": width, "no_wrap": False}))
    t = _table("bindings", *cols)
    for row, v in zip(cells, values):
        row = list(row)
        if width:
            row.insert(2, _value_and_grad(v.data, v.grad, width) if isinstance(v, TensorView)
                       else Text(plain.value_text(v), overflow="fold"))
        t.add_row(*row)
    out.print(t)
    if not width:
        _narrow(out, given_up)


def _narrow(out: Console, given_up: list[str]) -> None:
    """The note under a table that had to leave its values out (and what else it gave up)."""
    left_out = ", ".join(["values", *filter(None, given_up)])
    cut = "; long names cut in the middle" if "" in given_up else ""
    out.print(Text(f"left out at {out.width} columns: {left_out}{cut}. Widen the terminal or "
                   "use --format plain to see everything", DIM))


def grad(out: Console, of: str, grads: dict[str, TensorView], kind: str = "gradient") -> None:
    """``dL/dw = value`` per --wrt name, as the plain form (PyTorch's format of the contents,
    rows continued under the first, within the terminal's width), with colour and the
    shape."""
    labels = {name: plain.derivative_label(of, name, kind) for name in grads}
    width = max(len(label) for label in labels.values())
    for name, g in grads.items():
        lead = width + 3
        value = plain.block(g.data, g.dtype, lead, max(out.width, lead + 20))
        line = Text.assemble((labels[name].ljust(width), "bold"), (" = ", DIM),
                             (value, "green"))
        if g.shape:
            line.append(f"  shape {plain.shape(g.shape)}", style=DIM)
        out.print(line)


def _op(n: Any) -> Text:
    """grad_fn when the op was recorded (it names the op), else the op name, dim."""
    if n.op is None:
        return Text("leaf", DIM)
    if n.grad_fn is None:
        return Text(n.op_label, DIM)
    return Text.assemble((n.grad_fn, GRAD_FN), (" (in-place)" if n.inplace else "", DIM))


def _inputs_text(inputs: list) -> Text:
    """The input nodes' ids; past four (a recurrent layer's node reads dozens), the first three
    and how many more (--format plain and json list them all)."""
    if len(inputs) <= 4:
        return Text(",".join(map(str, inputs)) or "-")
    return Text.assemble(",".join(map(str, inputs[:3])), (f",… +{len(inputs) - 3}", DIM))


def _saved_text(saved: list) -> Text:
    """Saved tensors by PyTorch's names: live orange, freed dim and struck, stale red."""
    t = Text()
    for s in saved:
        style = SAVED_FREED if s.freed else SAVED_STALE if s.stale else SAVED_LIVE
        t.append((" " if t else "") + s.name, style=style)
    return t or Text("-", DIM)


def graph(out: Console, view: GraphView) -> None:
    """Every recorded node, in topological order; the output's row is highlighted."""
    rows = []
    rolled = any(n.count > 1 or n.layer for n in view.nodes)  # --rolled folded some
    for n in view.nodes:
        rows.append((Text(str(n.id), justify="right"),
                     Text(n.name, NAME) if n.name else Text("-", DIM),
                     *([Text(plain.rolled_text(n), "#8e44ad")] if rolled else []), _op(n),
                     _inputs_text(n.inputs), Text(plain.shape(n.shape), DIM),
                     _flags(n.requires_grad, n.is_leaf, n.retains_grad), _saved_text(n.saved)))
    headers, rows, given_up, wraps = _squeeze(
        out, ["id", "name", *(["rolled"] if rolled else []), "grad_fn / op", "inputs", "shape",
              "flags", "saved"], rows, 1, ("saved", "flags", "rolled"))
    width = 0 if wraps else _fit(
        out, headers, [[r[k] for r in rows] for k in range(len(headers))],
        _natural([(n.data, n.grad if n.d_output is None else n.d_output) for n in view.nodes] +
                 [(n.tangent, None) for n in view.nodes if n.tangent is not None]))
    cols: list[tuple[str, dict]] = [(h, {"justify": "right"} if h == "id" else
                                     {"no_wrap": h not in WRAPS, "width": wraps.get(h)})
                                    for h in headers]
    fwd = any(n.tangent is not None for n in view.nodes)
    if width:
        cols.insert(len(headers) - 1, ("value / grad", {"width": width, "no_wrap": False}))
    t = _table("graph (forward, topological order)", *cols)
    for n, row in zip(view.nodes, rows):
        cells = list(row)
        if width:
            cells.insert(len(headers) - 1, _value_and_grad(
                n.data, n.grad, width, n.d_output, f"d{view.output_name}/d{n.name or '·'}",
                n.tangent))
        t.add_row(*cells, style="bold" if n.id == view.output else None)
    out.print(t)
    if not width:
        _narrow(out, given_up)
    notes = []
    if view.output is not None:
        notes.append(Text.assemble(("output: ", DIM), (f"node {view.output}", "bold")))
    if fwd:
        notes.append(Text(plain.tangent_note(view), DIM))
    states = {(s.freed, s.stale) for n in view.nodes for s in n.saved if "saved" in headers}
    if any(freed for freed, _ in states):
        notes.append(Text.assemble(("saved ", DIM), ("struck through", SAVED_FREED),
                                   (": freed by a backward() without retain_graph=True", DIM)))
    if any(stale for _, stale in states):
        notes.append(Text.assemble(("saved ", DIM), ("in red", SAVED_STALE),
                                   (SAVED_STALE_NOTE, DIM)))
    for note in notes:
        out.print(note)


def tree(out: Console, view: BackwardView) -> None:
    """The backward graph as Rich trees: rooted at the output, then any continued blocks."""
    if view.root is None:
        out.print(Text(plain.tree(view).rstrip(), DIM))
        return
    head = Text.assemble((str(view.output), NAME), (" ", ""),
                         (plain.shape(view.output_tensor.shape), DIM))
    out.print(head)
    for k, block in enumerate(plain.tree_blocks(view)):
        if k:
            out.print()
        drawn: list[Tree] = []
        for entry in block:
            label = _tree_label(view, entry)
            if entry.parent < 0:
                drawn.append(Tree(label, guide_style="bright_black"))
            else:
                drawn.append(drawn[entry.parent].add(label))
        out.print(drawn[0])


def _tree_label(view: BackwardView, entry: Any) -> Text:
    i = entry.node
    n = view.nodes[i]
    label = Text.assemble((f"#{i} ", DIM), (n.name, GRAD_FN))
    if entry.how != "node":
        return label + Text(" (see above)" if entry.how == "seen" else " (continued below)", DIM)
    if n.variable is not None:
        label.append_text(Text.assemble(("  → ", DIM), (n.variable_name or "leaf", NAME),
                                        (" " + plain.shape(n.variable.shape), DIM)))
    if n.d_output is not None:
        label.append_text(Text.assemble(
            (f"  d{view.output}/d{n.variable_name or n.tensor or '·'} = ", "bold yellow"),
            plain.short(n.d_output)))
    elif n.tensor:
        label.append_text(Text.assemble(("  [", DIM), (n.tensor, NAME), ("]", DIM)))
    for s in n.saved:
        label.append(f"  {s.name}", style=SAVED_FREED if s.freed else SAVED_LIVE)
    return label


def check(out: Console, report: Any) -> None:
    """Errors per --wrt name and the verdict."""
    t = _table(None, ("wrt", {"style": NAME}), ("elements", {"justify": "right"}),
               ("max abs err", {"justify": "right"}), ("max rel err", {"justify": "right"}),
               ("", {}))
    for w in report.wrt.values():
        t.add_row(Text(w.name), str(w.checked) if w.checked == w.total else f"{w.checked}/{w.total}",
                  f"{w.max_abs_err:.3e}", f"{w.max_rel_err:.3e}",
                  Text("✓ ok", "bold green") if w.ok else Text("✗ mismatch", "bold red"))
    out.print(t)
    worst = [(w.name, e) for w in report.wrt.values() for e in w.worst]
    if worst:
        t = _table("worst elements", ("wrt", {"style": NAME}), ("index", {}),
                   ("analytic", {"justify": "right"}), ("numeric", {"justify": "right"}),
                   ("abs err", {"justify": "right", "style": "red"}))
        for name, e in worst:
            t.add_row(Text(name), Text("[" + ", ".join(map(str, e.index)) + "]"),
                      f"{e.analytic:.6e}",
                      f"{e.numeric:.6e}", f"{e.abs_err:.3e}")
        out.print(t)
    if report.ok:
        out.print(Text("gradients match finite differences", "green"))
    else:
        out.print(Text("gradients DO NOT match finite differences", "bold red"))


def diagnostic(out: Console, err: Any, source: str | None, filename: str,
               warning: bool = False) -> None:
    """A diagnostic in a panel: the message, the highlighted source line with a caret, the hint."""
    span = getattr(err, "span", None)
    kind = getattr(err, "kind", "error")
    color = "yellow" if warning else "red"
    parts: list[Any] = [Text.assemble((f"{kind}: ", f"bold {color}"),
                                      (plain.printable(getattr(err, "message", str(err))), ""))]
    excerpt = plain.source_excerpt(source, span)
    if excerpt:
        # the line with the span in bold: no Pygments lexer (its regular expressions cost
        # 0.13 s to compile, more than the rest of a small run)
        text, caret = excerpt[0][4:], excerpt[1][4:]
        start = len(caret) - len(caret.lstrip())
        end = start + len(caret.strip())
        number = f"{span.line} "
        line = Text.assemble((number, DIM), ("│ ", DIM), text[:start], (text[start:end], "bold"),
                             text[end:])
        parts += [Text(""), line, Text(" " * (len(number) + 2) + caret, style=f"bold {color}")]
    for call in reversed(getattr(err, "calls", None) or ()):  # the callers, innermost first
        lines = plain.source_excerpt(source, call)
        if lines:
            parts += [Text(f"called from line {call.line}:", style=DIM),
                      Text(plain.printable(lines[0][4:])), Text(lines[1][4:], style=DIM)]
    hint = getattr(err, "hint", None)
    if hint:
        parts += [Text(""), Text.assemble(("hint: ", "bold cyan"), (plain.printable(hint), ""))]
    where = plain.printable(filename) + (f":{span.line}:{span.column}" if span is not None else "")
    if span is None and kind == "UsageError":
        where = "gradcli"
    out.print(Panel(Group(*parts), title=Text(where, "bold"), title_align="left",
                    border_style=color, box=box.ROUNDED, expand=False))


@contextmanager
def progress(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A transient progress bar on stderr; yields ``update(completed)``."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done: bar.update(task, completed=done)


class RunStatus:
    """A spinner with the statement count, on stderr, cleared when stopped."""

    def __init__(self, max_steps: int) -> None:
        from rich.progress import Progress, SpinnerColumn, TextColumn

        self.progress = Progress(SpinnerColumn(), TextColumn("running: {task.completed:,} "
                                                             "statements"),
                                 console=console(stderr=True), transient=True,
                                 redirect_stdout=False, redirect_stderr=False)
        self.task = self.progress.add_task("run", total=max_steps)
        self.progress.start()

    def update(self, steps: int) -> None:
        """Show the current count."""
        self.progress.update(self.task, completed=steps)

    def stop(self) -> None:
        """Remove the line."""
        self.progress.stop()



def doctor(out: Console, title: str, rows: list[tuple[str, str]]) -> None:
    """``gradcli doctor``: the machine gradcli reproduces, one fact per row."""
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_header=False,
              padding=(0, 1))
    t.add_column(style="bold", no_wrap=True)
    t.add_column(overflow="fold")
    for label, text in rows:
        t.add_row(label, text)
    out.print(t)
