"""Graphviz DOT for the forward graph and, torchviz-style, for the backward (grad_fn) graph.

Output is deterministic: node ids come from the views' numbering (``t3``, ``op3``, ``f0``),
never from ``id()``.  Labels are Graphviz HTML-like labels with every text escaped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from typing import Any

from ..errors import UsageError
from ..views import BackwardView, GraphView, SavedView, TensorView
from .plain import shape, short

FONT = "Helvetica"
LEAF = "#cfe7fb"  # light blue: leaves that require grad
OUTPUT = "#caf5b5"  # green: the output
OP = "#eeeeee"  # light grey: operations and grad_fn nodes
CONST = "#ffffff"
SAVED = "#ffc27a"  # orange: saved tensors
FREED = "#fbe3c4"
MUTED = "#777777"
RENDERED = (".svg", ".png", ".pdf")
WRITTEN = (".dot", ".gv")

SYMBOLS = {"add": "+", "sub": "−", "rsub": "−", "mul": "×", "div": "÷", "neg": "−",
           "pow": "**", "pow_tensor": "**", "pow_scalar_base": "**", "mm": "@", "mv": "@",
           "dot": "@"}


def html(text: str) -> str:
    """Escape text for a Graphviz HTML-like label."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("]", "&#93;").replace("[", "&#91;"))


def quote(text: str) -> str:
    """A DOT double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _small(text: str, color: str = MUTED, size: int = 9) -> str:
    return f'<FONT POINT-SIZE="{size}" COLOR="{color}">{html(text)}</FONT>'


def _attrs(**kw: Any) -> str:
    parts = []
    for k, v in kw.items():
        if v is None:
            continue
        v = str(v)
        parts.append(f"{k}=<{v[1:-1]}>" if v.startswith("<") and v.endswith(">") else
                     f"{k}={quote(v)}")
    return "[" + " ".join(parts) + "]"


def _header(name: str, rankdir: str = "TB") -> list[str]:
    return [
        f"digraph {name} {{",
        (f'  graph [rankdir={rankdir} fontname="{FONT}" nodesep=0.25 ranksep=0.3 '
         'bgcolor="white" pad=0.2];'),
        (f'  node [fontname="{FONT}" fontsize=11 shape=box style="rounded,filled" '
         f'fillcolor="{CONST}" color="#555555" penwidth=1 margin="0.12,0.05" height=0.3];'),
        '  edge [color="#555555" arrowsize=0.7 penwidth=1];',
    ]


class _Left(str):
    """A label line aligned left (array rows), unlike the centred title lines."""


def _label(rows: list[str]) -> str:
    """An HTML-like label from lines; ``_Left`` lines end with a left-aligned break."""
    out = []
    for k, row in enumerate(rows):
        if isinstance(row, _Left):
            out.append(row + '<BR ALIGN="LEFT"/>')
        else:
            out.append(row + ("<BR/>" if k < len(rows) - 1 else ""))
    return "<" + "".join(out) + ">"


def _array_rows(data: Any, color: str, prefix: str = "") -> list[str]:
    text = short(data, threshold=8, one_line=False, width=60).splitlines()
    pad = " " * len(prefix)
    return [_Left(f'<FONT FACE="monospace" POINT-SIZE="9" COLOR="{color}">'
                  f"{html((prefix if k == 0 else pad) + line)}</FONT>")
            for k, line in enumerate(text)]


def _value_lines(data: Any, grad: Any, show_values: bool, show_grads: bool,
                 wants_grad: bool) -> list[str]:
    rows = []
    if show_values:
        rows += _array_rows(data, "#222222")
    if show_grads and (grad is not None or wants_grad):
        rows += _array_rows(grad, "#b03a2e", "grad ") if grad is not None \
            else [_small("grad None", "#b03a2e", 10)]
    return rows


def forward(view: GraphView, *, show_values: bool = False, show_grads: bool = False) -> str:
    """The forward graph: tensors as boxes labelled by name, operations as ellipses between."""
    lines = _header("forward")
    for n in view.nodes:
        title = f"<B>{html(n.name)}</B>" if n.name else _small(f"#{n.id}", MUTED, 10)
        rows = [title]
        if n.shape or not n.name:
            rows.append(_small(shape(n.shape)))
        rows += _value_lines(n.data, n.grad, show_values, show_grads,
                             n.is_leaf and n.requires_grad)
        fill = OUTPUT if n.id == view.output else (
            LEAF if n.is_leaf and n.requires_grad else CONST)
        style = "rounded,filled" if n.requires_grad or n.id == view.output else \
            "rounded,filled,dashed"
        lines.append(f"  t{n.id} " + _attrs(label=_label(rows),
                                              fillcolor=fill, style=style) + ";")
        if n.op is None:
            continue
        op = n.op_label
        label = html(SYMBOLS.get(n.op, op) + ("=" if n.inplace and n.op in SYMBOLS else ""))
        if n.grad_fn:
            label += "<BR/>" + _small(n.grad_fn, MUTED, 8)
        lines.append(f"  op{n.id} " + _attrs(label=f"<{label}>", shape="ellipse",
                                               style="filled", fillcolor=OP, color="#999999",
                                               fontsize=12, margin="0.04,0.02") + ";")
        for j in n.inputs:
            lines.append(f"  t{j} -> op{n.id};")
        lines.append(f"  op{n.id} -> t{n.id};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _tensor_box(v: TensorView, name: str | None, fill: str, show_values: bool,
                show_grads: bool) -> str:
    rows = [f"<B>{html(name)}</B>" if name else _small("(unnamed)", MUTED, 10),
            _small(shape(v.shape), "#333333", 10)]
    rows += _value_lines(v.data, v.grad, show_values, show_grads, v.is_leaf)
    return _attrs(label=_label(rows), fillcolor=fill)


def _saved_attr(s: SavedView) -> str:
    value = "(freed)" if s.freed else (repr(s.value) if s.value is not None else "")
    return f"{s.name}: {value}"


def backward(view: BackwardView, *, show_values: bool = False, show_grads: bool = False,
             show_saved: bool = False) -> str:
    """The grad_fn graph as torchviz draws it: leaves blue, output green, saved orange."""
    lines = _header("backward")
    if view.output_tensor is not None:
        lines.append("  out " + _tensor_box(view.output_tensor, view.output, OUTPUT,
                                            show_values, show_grads) + ";")
    for n in view.nodes:
        rows = [f"<B>{html(n.name)}</B>"]
        if n.tensor:
            rows.append(_small(f"→ {n.tensor}"))
        tensors = [s for s in n.saved if s.value is None]
        if show_saved:
            rows += [_small(_saved_attr(s), "#8a4b00") for s in n.saved if s.value is not None]
        lines.append(f"  f{n.id} " + _attrs(label=_label(rows),
                                              fillcolor=OP, style="filled") + ";")
        if n.variable is not None:
            lines.append(f"  v{n.id} " + _tensor_box(n.variable, n.variable_name, LEAF,
                                                     show_values, show_grads) + ";")
            lines.append(f"  v{n.id} -> f{n.id};")
        for k, s in enumerate(tensors if show_saved else ()):
            detail = "(freed)" if s.freed else " ".join(
                x for x in (s.tensor, shape(s.shape or [])) if x)
            label = f"<<B>{html(s.name)}</B><BR/>" + _small(detail, "#333333", 10) + ">"
            lines.append(f"  s{n.id}_{k} " + _attrs(
                label=label, fillcolor=FREED if s.freed else SAVED,
                style="filled,dashed" if s.freed else "filled") + ";")
            lines.append(f"  s{n.id}_{k} -> f{n.id} [dir=none style=dashed color=\"#c77700\"];")
        for m in n.next:
            if m is not None:
                lines.append(f"  f{m} -> f{n.id};")
    if view.root is not None and view.output_tensor is not None:
        lines.append(f"  f{view.root} -> out;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def save(text: str, path: str) -> None:
    """Write DOT (``.dot``/``.gv``) or render it with Graphviz (``.svg``/``.png``/``.pdf``)."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in RENDERED + WRITTEN:
        raise UsageError(f"-o {path}: unknown file type {ext or '(none)'!r}; use one of "
                         f"{', '.join(WRITTEN + RENDERED)}")
    if ext in WRITTEN:
        _atomically(path, lambda tmp: _write(tmp, text.encode("utf-8")))
        return
    exe = shutil.which("dot")
    if exe is None:
        raise UsageError(f"cannot render {path}: Graphviz's 'dot' program is not on PATH",
                         hint="install Graphviz (e.g. apt install graphviz), or write "
                         f"{os.path.splitext(path)[0]}.dot and render it elsewhere")

    def render(tmp: str) -> None:
        try:
            proc = subprocess.run([exe, f"-T{ext[1:]}", "-o", tmp], input=text.encode("utf-8"),
                                  capture_output=True, timeout=120, check=False)
        except subprocess.TimeoutExpired:
            raise UsageError(f"cannot render {path}: Graphviz took longer than 120 s") from None
        if proc.returncode != 0:
            why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise UsageError(f"cannot render {path}: dot failed "
                             f"({why[-1] if why else 'no output'})")

    _atomically(path, render)


def _write(path: str, data: bytes) -> None:
    """All of ``data`` into ``path``, flushed to the disk (a full disk fails here, not later)."""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomically(path: str, make: Any) -> None:
    """Let ``make(tmp)`` write a temporary file beside ``path``, then rename it to ``path``:
    a failure (a full disk, dot's error, Ctrl-C) leaves no truncated file and an old file
    as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.",
                                   suffix=".tmp")
        os.close(fd)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    try:
        make(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
