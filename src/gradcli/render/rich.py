"""Rich output for a terminal: tables of values and gradients, the backward tree, diagnostics.

Only this module (and ``cli.py``) imports Rich.  The texts of cells come from ``plain`` so the
two forms never disagree; Rich adds colour, boxes and the diagnostic panel.
"""

from __future__ import annotations

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
FLAGS: dict = {}
VALUES: dict = {}
RUN_VALUES: dict = {}
CELL_WIDTH = 34  # NumPy wraps rows of a value cell at this width, so Rich never has to


class _Console(Console):
    """Rich's console, except that a closed pipe is not an exit: the session decides (it goes
    on quietly and exits with the command's own code)."""

    def on_broken_pipe(self) -> None:
        """Stop writing; the caller learns of it through the BrokenPipeError."""
        self.quiet = True
        raise BrokenPipeError


def console(stderr: bool = False, color: bool | None = None) -> Console:
    """A console on stdout or stderr (Rich honours NO_COLOR and FORCE_COLOR itself)."""
    return _Console(stderr=stderr, highlight=False,
                    no_color=None if color is None else not color, soft_wrap=False)


def _flags(requires_grad: bool, is_leaf: bool, retains_grad: bool = False) -> Text:
    t = Text()
    for word, on, style in (("leaf", is_leaf, "green"), ("req_grad", requires_grad, "yellow"),
                            ("retains", retains_grad, "blue")):
        if on:
            t.append(("  " if t else "") + word, style=style)
    return t or Text("-", style=DIM)


def _cell(data: Any) -> Text:
    if data is None:
        return Text("None", DIM)
    return Text(plain.short(data, one_line=False, width=CELL_WIDTH))


def _brief(data: Any, budget: int = 30) -> Text:
    """One line for the crowded graph table: all of it if short, else leading elements and …."""
    import numpy as np

    a = np.asarray(data)
    text = plain.short(a)
    if len(text) <= budget:
        return Text(text)
    parts: list[str] = []
    for v in a.reshape(-1):
        item = plain.short(v)
        if len(", ".join([*parts, item])) + 2 * a.ndim + 3 > budget and parts:
            break
        parts.append(item)
    return Text("[" * a.ndim + ", ".join(parts) + ", …" + "]" * a.ndim)


def _table(title: str | None, *cols: tuple[str, dict]) -> Table:
    t = Table(title=title, box=box.SIMPLE_HEAVY, title_style="bold", title_justify="left",
              header_style="bold", pad_edge=False)
    for name, kw in cols:
        t.add_column(name, **{"no_wrap": True, **kw})
    return t


def run(out: Console, bindings: dict[str, Any]) -> None:
    """The final bindings as a table."""
    t = _table("bindings", ("name", {"style": NAME}), ("shape", {"style": DIM}),
               ("value", RUN_VALUES), ("grad_fn", {"style": GRAD_FN}), ("flags", FLAGS),
               ("grad", RUN_VALUES))
    for name, v in bindings.items():
        if isinstance(v, TensorView):
            t.add_row(Text(name), plain.shape(v.shape), _cell(v.data), v.grad_fn or Text("-", DIM),
                      _flags(v.requires_grad, v.is_leaf, v.retains_grad),
                      _cell(v.grad) if v.grad is not None else Text("-", DIM))
        else:
            t.add_row(Text(name), Text(plain.type_text(v), DIM), Text(plain.value_text(v)),
                      Text("-", DIM),
                      Text("-", DIM), Text("-", DIM))
    out.print(t)


def grad(out: Console, of: str, grads: dict[str, TensorView]) -> None:
    """``dL/dw = value`` per --wrt name, as the plain form, with colour and the shape."""
    width = max(len(f"d{of}/d{name}") for name in grads)
    for name, g in grads.items():
        size = 1
        for d in g.shape:
            size *= d
        value = plain.full(g.data, g.dtype) if size <= plain.SUMMARY_THRESHOLD else \
            plain.short(g.data, one_line=False)
        pad = " " * (width + 3)
        line = Text.assemble((f"d{of}/d{name}".ljust(width), "bold"), (" = ", DIM),
                             (value.replace("\n", "\n" + pad), "green"))
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


def graph(out: Console, view: GraphView) -> None:
    """Every recorded node, in topological order; the output's row is highlighted."""
    t = _table("graph (forward, topological order)", ("id", {"justify": "right"}),
               ("name", {"style": NAME}), ("grad_fn / op", {}), ("inputs", {}),
               ("shape", {"style": DIM}), ("flags", FLAGS), ("value / grad", VALUES),
               ("saved", FLAGS))
    freed = False
    for n in view.nodes:
        saved = Text()
        for s in n.saved:
            saved.append((" " if saved else "") + s.name,
                         style="red strike" if s.freed else "dark_orange")
            freed = freed or s.freed
        value = _brief(n.data)
        if n.grad is not None:
            value.append_text(Text("\ngrad ", "bold yellow") + _brief(n.grad))
        t.add_row(f"{n.id}", Text(n.name) if n.name else Text("-", DIM), _op(n),
                  ",".join(map(str, n.inputs)) or Text("-", DIM), plain.shape(n.shape),
                  _flags(n.requires_grad, n.is_leaf, n.retains_grad), value,
                  saved or Text("-", DIM), style="bold" if n.id == view.output else None)
    out.print(t)
    notes = []
    if view.output is not None:
        notes.append(Text.assemble(("output: ", DIM), (f"node {view.output}", "bold")))
    if freed:
        notes.append(Text.assemble(("saved ", DIM), ("struck through", "red strike"),
                                   (": freed by a backward() without retain_graph=True", DIM)))
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
        from rich.syntax import Syntax  # pygments: only when there is a line to highlight

        code = Syntax(excerpt[0][4:], "python", theme="ansi_dark", line_numbers=True,
                      start_line=span.line, background_color="default")
        gutter = len(str(span.line)) + 3
        parts += [Text(""), code, Text(" " * gutter + excerpt[1][4:], style=f"bold {color}")]
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

