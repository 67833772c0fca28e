"""Plain text: what gradcli prints when stdout is not a terminal (or with ``--format plain``).

Every function returns text; nothing here writes.  Lines are stable and greppable: no colour,
no box drawing in listings, one record per line.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, NamedTuple

import numpy as np

from ..engine.printing import format_values
from ..views import BackwardView, GraphView, PlainView, TensorView

SUMMARY_THRESHOLD = 12  # elements shown in full in a listing cell; longer arrays are abbreviated


# -- numbers and arrays ---------------------------------------------------------------------------
def number(v: Any, dtype: str = "float64") -> str:
    """One element as Python writes it (``-8.0``, ``nan``, ``inf``); float32 by its shortest form;
    an integer or bool element as ``3`` or ``True``."""
    kind = np.asarray(v).dtype.kind
    if kind in "biu":
        return repr(np.asarray(v).item())
    if dtype == "float32":
        return str(np.float32(v))
    return repr(float(v))


def full(data: Any, dtype: str = "float64") -> str:
    """Every element on one line: ``-8.0`` or ``[[1.0, 2.0], [3.0, 4.0]]``, each as ``number``
    writes it (Python's list repr does the nesting: a 1024x1024 float64 array in 0.3 s, where
    NumPy's array2string takes 5 s)."""
    a = np.asarray(data)
    if a.dtype.kind in "biu" or a.size == 0:
        return repr(a.tolist())
    if dtype != "float32":
        return repr(a.astype(np.float64).tolist())
    a = a.astype(np.float32)  # each element by float32's shortest form
    if a.ndim == 0:
        return str(a[()])
    text = list(map(str, a.reshape(-1)))
    for n in reversed(a.shape):
        text = ["[" + ", ".join(text[i:i + n]) + "]" for i in range(0, len(text), n)]
    return text[0]


def compact(data: Any, threshold: int = SUMMARY_THRESHOLD, dtype: str = "float64") -> str:
    """One line for listings: every element up to ``threshold``, else the first and last three
    of each long dimension around ``...`` (as NumPy and PyTorch abbreviate)."""
    a = np.asarray(data)
    if a.size <= threshold:
        return full(a, dtype)
    return _summary(a, dtype)


def _summary(a: Any, dtype: str) -> str:
    if a.ndim == 0:
        return number(a, dtype)
    if len(a) > 6:
        parts = [*(_summary(r, dtype) for r in a[:3]), "...",
                 *(_summary(r, dtype) for r in a[-3:])]
    else:
        parts = [_summary(r, dtype) for r in a]
    return "[" + ", ".join(parts) + "]"


def short(data: Any, threshold: int = SUMMARY_THRESHOLD, one_line: bool = True,
          width: int = 10**9) -> str:
    """A listing's preview of a tensor as PyTorch prints its contents (``-8.``, ``[0.5000,
    1.2500]``, ``1.3713e-07``; rows wrapped at ``width``), summarised past ``threshold``
    elements; ``one_line`` joins the rows and drops the alignment padding."""
    a = np.asarray(data)
    if a.dtype.name in ("float16", "float32", "float64"):
        text = format_values(a, a.dtype.name, threshold=threshold,
                             linewidth=10**9 if one_line else width)
    else:  # bool or integer tensors: NumPy's form
        with np.errstate(all="ignore"):
            text = np.array2string(a, threshold=threshold, separator=", ",
                                   max_line_width=width)
    return _one_line(text) if one_line else text


CELL_WIDTH = 48  # characters of a tensor's preview in a listing's cell (json keeps them all)


def cell(data: Any) -> str:
    """A tensor in a listing's cell: ``short``'s preview when it fits in ``CELL_WIDTH``, else
    its head, cut after an element and ended by ``…`` (the shape column gives the rest), so a
    large tensor cannot widen every line of the listing."""
    text = short(data)
    if len(text) <= CELL_WIDTH:
        return text
    cut = text.rfind(", ", 0, CELL_WIDTH - 1)
    return (text[:cut + 1] if cut > 0 else text[:CELL_WIDTH - 2]) + " …"


WIDTH = 80  # columns of the plain form (PyTorch's own linewidth)


def block(data: Any, dtype: str = "float64", indent: int = 0, width: int = WIDTH) -> str:
    """A value after a label ``indent`` columns wide: a single number as Python writes it
    (``-8.0``), a tensor as PyTorch prints its contents (its precision and summarisation),
    rows wrapped within ``width`` and continued under the first."""
    a = np.asarray(data)
    if a.ndim == 0:
        return number(a, dtype)
    if a.dtype.name not in ("float16", "float32", "float64"):
        return short(a, one_line=False, width=max(width - indent, 20)).replace(
            "\n", "\n" + " " * indent)
    return format_values(a, a.dtype.name, linewidth=max(width, indent + 20), indent=indent)


def jacobian(local: Any, width: int = WIDTH) -> str:
    """A local derivative in ``width`` columns: the number, a small Jacobian in PyTorch's form
    on one line, else its shape, norm, non-zero count and largest entries."""
    a = np.asarray(local, dtype=np.float64)
    if a.size == 1:
        return f"{float(a.reshape(())):.6g}"
    text = short(a)
    if len(text) + 20 <= width:
        return f"Jacobian {shape(list(a.shape))} {text}"
    flat = np.abs(a).reshape(-1)
    with np.errstate(all="ignore"):
        norm = float(np.sqrt(np.sum(a * a)))
    nonzero = int(np.count_nonzero(a))
    top = [int(i) for i in np.argsort(-flat, kind="stable")[:3] if flat[i] > 0]
    largest = ", ".join(f"{a.reshape(-1)[i]:.4g} at "
                        f"[{','.join(str(int(k)) for k in np.unravel_index(i, a.shape))}]"
                        for i in top)
    return (f"Jacobian {shape(list(a.shape))}: {nonzero:,} of {a.size:,} entries non-zero, "
            f"norm {norm:.4g}" + (f"; largest {largest}" if largest else ""))


def wrap(text: str, indent: int, width: int = WIDTH) -> str:
    """``text`` broken at spaces into lines of ``width``, continued ``indent`` columns in."""
    return "\n".join(textwrap.wrap(text, width=width, subsequent_indent=" " * indent,
                                    break_long_words=False, break_on_hyphens=False)) or text


def _one_line(text: str) -> str:
    return _PADDING.sub("[", _SPACES.sub(" ", text))


_SPACES = re.compile(r"\s+")
_PADDING = re.compile(r"\[ +")


def shape(s: list[int]) -> str:
    """A shape as PyTorch prints a Size's contents: ``()``, ``(3,)``, ``(2, 3)``."""
    return "(" + ", ".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"


def flags(requires_grad: bool, is_leaf: bool, retains_grad: bool = False) -> str:
    """``leaf``, ``requires_grad``, ``retains_grad`` as space-separated words (or ``-``)."""
    words = [w for w, on in (("leaf", is_leaf), ("requires_grad", requires_grad),
                             ("retains_grad", retains_grad)) if on]
    return " ".join(words) or "-"


def value_text(v: Any, *, in_full: bool = False) -> str:
    """A binding's value for a listing."""
    if isinstance(v, TensorView):
        return full(v.data, v.dtype) if in_full else short(v.data)
    if isinstance(v, list):
        return "[" + ", ".join(value_text(x, in_full=in_full) for x in v) + "]"
    if v.type == "float":
        return repr(v.value)
    if v.type == "function":
        return f"<function {v.value}>"
    if v.type == "grad_fn":
        return f"<{v.value}>"
    if v.type == "Size":
        return f"torch.Size({v.value})"
    return str(v.value)


def type_text(v: Any) -> str:
    """What a binding is: ``tensor (2, 3)`` or ``int``."""
    if isinstance(v, TensorView):
        return "tensor " + shape(v.shape)
    if isinstance(v, list):
        return "list"
    return v.type


# -- diagnostics ----------------------------------------------------------------------------------
EXCERPT_WIDTH = 100  # characters of a source line shown around the error
# C0 controls, DEL and C1 controls: one visible character each (U+2400 "control pictures"),
# so a script's ESC bytes cannot drive the terminal and carets stay aligned
_CONTROLS = {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)}
_CONTROLS.update({0x7F: "\u2421", **{c: "\ufffd" for c in range(0x80, 0xA0)}})


def printable(text: str) -> str:
    """``text`` with control characters shown, never sent to the terminal (tabs and newlines
    kept)."""
    return text.translate(_CONTROLS)


def source_excerpt(source: str | None, span: Any) -> list[str]:
    """The span's source line, indented by four, and a caret line ``^~~~`` under the span."""
    if source is None or span is None:
        return []
    lines = source.splitlines()
    if not 1 <= span.line <= len(lines):
        return []
    text = lines[span.line - 1].expandtabs(1)
    col = max(1, span.column)
    end = span.end_column if span.end_line == span.line else len(text) + 1
    width = max(1, min(end, len(text) + 1) - col)
    if len(text) > EXCERPT_WIDTH:  # a long (generated) line: show a window around the column
        start = max(0, min(col - 1 - EXCERPT_WIDTH // 3, len(text) - EXCERPT_WIDTH))
        text = ("…" if start else "") + text[start:start + EXCERPT_WIDTH] + (
            "…" if start + EXCERPT_WIDTH < len(text) else "")
        col = col - start + (1 if start else 0)
        width = max(1, min(width, EXCERPT_WIDTH - col + 2))
    return ["    " + printable(text.rstrip()), "    " + " " * (col - 1) + "^" + "~" * (width - 1)]


def diagnostic(err: Any, source: str | None, filename: str) -> str:
    """``file:line:col: Kind: message``, the source line and caret, then ``hint: …``."""
    span = getattr(err, "span", None)
    kind = getattr(err, "kind", "error")
    message = printable(getattr(err, "message", str(err)))
    filename = printable(filename)
    if span is not None:
        head = f"{filename}:{span.line}:{span.column}: {kind}: {message}"
    elif kind == "UsageError":
        head = f"gradcli: error: {message}"
    else:
        head = f"{filename}: {kind}: {message}"
    lines = [head, *source_excerpt(source, span)]
    for call in reversed(getattr(err, "calls", None) or ()):  # the callers, innermost first
        if call is not None:
            lines += [f"note: called from line {call.line}", *source_excerpt(source, call)]
    hint = getattr(err, "hint", None)
    if hint:
        lines.append(f"hint: {printable(hint)}")
    return "\n".join(lines) + "\n"


# -- commands -------------------------------------------------------------------------------------
def run(bindings: dict[str, Any]) -> str:
    """The final bindings: ``name  type  value  grad_fn  flags  grad``, aligned."""
    rows = [["name", "type", "value", "grad_fn", "flags", "grad"]]
    for name, v in bindings.items():
        if isinstance(v, TensorView):
            rows.append([name, type_text(v), cell(v.data), v.grad_fn or "-",
                         flags(v.requires_grad, v.is_leaf, v.retains_grad),
                         cell(v.grad) if v.grad is not None else "-"])
        else:
            rows.append([name, type_text(v), value_text(v), "-", "-", "-"])
    return columns(rows)


def grad(of: str, grads: dict[str, TensorView], kind: str = "gradient") -> str:
    """One entry per --wrt name: ``dL/dw1 = -8.0`` (``d²L/dw1² =`` for --hessian); a tensor as
    PyTorch prints it, its rows continued under the first (full precision is in
    ``--format json``)."""
    out = []
    for name, g in grads.items():
        head = derivative_label(of, name, kind) + " = "
        out.append(head + block(g.data, g.dtype, len(head)) + "\n")
    return "".join(out)


def derivative_label(of: str, name: str, kind: str) -> str:
    """``dL/dw``, or ``d²L/dw²`` for a Hessian."""
    return f"d²{of}/d{name}²" if kind == "hessian" else f"d{of}/d{name}"


def saved_text(saved: list) -> str:
    """``self, other`` with ``(freed)`` after freed ones and ``(modified)`` after ones changed
    in place since they were saved, or ``-``."""
    return ", ".join(s.name + (" (freed)" if s.freed else " (modified)" if s.stale else "")
                     for s in saved) or "-"


def graph(view: GraphView) -> str:
    """Every recorded node, one per line, in topological order; the output is marked ``*``."""
    wrt = any(n.d_output is not None for n in view.nodes)  # --wrt: d(output)/dW too
    rolled = any(n.count > 1 or n.layer for n in view.nodes)  # --rolled folded some
    fwd = any(n.tangent is not None for n in view.nodes)  # forward mode: beside the value
    rows = [["id", "name", *(["rolled"] if rolled else []), "op", "grad_fn", "inputs", "shape",
             "flags", "value", *(["tangent"] if fwd else []), "grad",
             *([f"d{view.output_name}/d·"] if wrt else []), "saved"]]
    for n in view.nodes:
        rows.append([
            f"{n.id}{'*' if n.id == view.output else ''}", n.name or "-",
            *([rolled_text(n)] if rolled else []), n.op_label or "-", n.grad_fn or "-",
            ",".join(map(str, n.inputs)) or "-", shape(n.shape),
            flags(n.requires_grad, n.is_leaf, n.retains_grad), cell(n.data),
            *([cell(n.tangent) if n.tangent is not None else "-"] if fwd else []),
            cell(n.grad) if n.grad is not None else "-",
            *([cell(n.d_output) if n.d_output is not None else "-"] if wrt else []),
            saved_text(n.saved)])
    out = columns(rows)
    if view.output is not None:
        out += f"* output: node {view.output}\n"
    if fwd:
        out += tangent_note(view) + "\n"
    if wrt:
        out += f"d{view.output_name}/d·: as gradcli grad computes it (.grad is not changed)\n"
    return out


def rolled_text(n: Any) -> str:
    """``×200`` for a rolled loop's node; ``model.lstm (LSTM) layer 0: 5 steps ×62`` for a
    recurrent layer's; ``-`` for a node nothing folded into."""
    times = f"×{n.count}" if n.count > 1 else ""
    return " ".join(x for x in (n.layer, times) if x) or "-"


def tangent_note(view: GraphView) -> str:
    """What the tangent column holds: forward-mode AD's tangents (seeded by --mode forward,
    or by the program's make_dual)."""
    if view.seeded is not None:
        return (f"tangent: d·/d{view.seeded} carried forward (forward mode, {view.seeded}'s "
                "tangent seeded with ones)")
    return "tangent: forward-mode AD's tangent of each dual tensor (make_dual)"


TREE_DEPTH = 16  # levels drawn before a deeper subtree continues as a block of its own


def tree(view: BackwardView) -> str:
    """The backward graph from the output's grad_fn as an indented tree (``├──``/``└──``)."""
    if view.root is None:
        what = f"'{view.output}'" if view.output else "the output"
        return f"{what} has no grad_fn: it does not require grad, so there is no backward graph\n"
    lines = [f"{view.output}  shape={shape(view.output_tensor.shape)}" if view.output_tensor
             else str(view.output)]
    for k, block in enumerate(tree_blocks(view)):
        if k:
            lines.append("")
        for entry in block:
            lines.append(entry.prefix + entry.branch + entry_label(view, entry))
    return "\n".join(lines) + "\n"


def entry_label(view: BackwardView, entry: TreeEntry) -> str:
    """A tree line's text: the node's label, or a back-reference to where it is drawn."""
    if entry.how == "seen":
        return f"#{entry.node} {view.nodes[entry.node].name} (see above)"
    if entry.how == "continued":
        return f"#{entry.node} {view.nodes[entry.node].name} (continued below)"
    return node_label(view, entry.node)


def node_label(view: BackwardView, i: int) -> str:
    """``MulBackward0 [x3]`` or ``AccumulateGrad -> w1 (2,)``; saved tensors after ``saves``."""
    n = view.nodes[i]
    label = f"#{n.id} {n.name}"
    if n.variable is not None:
        label += f" -> {n.variable_name or 'leaf'} {shape(n.variable.shape)}"
    elif n.tensor:
        label += f" [{n.tensor}]"
    if n.d_output is not None:
        label += f"  d{view.output}/d{n.variable_name or n.tensor or '·'} = {cell(n.d_output)}"
    if n.saved:
        label += "  saves " + saved_text(n.saved)
    return label


class TreeEntry(NamedTuple):
    """One line of the tree: a node drawn (``node``), met again (``seen``) or drawn later as
    the root of its own block (``continued``), under ``parent`` (an index in the block)."""

    node: int
    how: str
    parent: int  # -1 for the block's root
    prefix: str
    branch: str


def tree_blocks(view: BackwardView, depth: int = TREE_DEPTH) -> list[list[TreeEntry]]:
    """Depth-first blocks of the backward tree; a node met again is shown once, by number.

    Indentation grows with depth, so a 20,000-node chain drawn as one tree would print
    gigabytes; past ``depth`` levels the subtree becomes a block of its own (its first line
    says "continued below"), which keeps the output linear in the number of nodes.
    """
    blocks: list[list[TreeEntry]] = []
    shown: set[int] = set()
    roots: list[int] = [view.root]  # type: ignore[list-item]
    for root in roots:  # grows while it is walked: each continued subtree is one more block
        block: list[TreeEntry] = []
        # (node, parent entry, prefix, branch, level)
        stack: list[tuple[int, int, str, str, int]] = [(root, -1, "", "", 0)]
        while stack:
            i, parent, prefix, branch, level = stack.pop()
            if i in shown and (level or not blocks):  # a continued block's root is drawn
                block.append(TreeEntry(i, "seen", parent, prefix, branch))
                continue
            if level > depth:
                block.append(TreeEntry(i, "continued", parent, prefix, branch))
                roots.append(i)
                shown.add(i)
                continue
            shown.add(i)
            block.append(TreeEntry(i, "node", parent, prefix, branch))
            me = len(block) - 1
            children = [c for c in view.nodes[i].next if c is not None]
            child_prefix = prefix + ("" if not branch else ("    " if branch == "└── " else "│   "))
            for k in range(len(children) - 1, -1, -1):
                last = k == len(children) - 1
                stack.append((children[k], me, child_prefix, "└── " if last else "├── ",
                              level + 1))
        blocks.append(block)
    return blocks


def check(report: Any) -> str:
    """One line per --wrt name: errors and ``ok``/``MISMATCH``, then a summary."""
    rows = [["wrt", "elements", "max_abs_err", "max_rel_err", "result"]]
    for w in report.wrt.values():
        rows.append([w.name, f"{w.checked}" if w.checked == w.total else
                     f"{w.checked}/{w.total}", f"{w.max_abs_err:.3e}", f"{w.max_rel_err:.3e}",
                     "ok" if w.ok else "MISMATCH"])
    verdict = "gradients match finite differences" if report.ok else \
        "gradients DO NOT match finite differences"
    return columns(rows) + worst_text(report) + \
        f"{verdict} (d{report.of}/d·, rtol=1e-05, atol=1e-07)\n"


def worst_text(report: Any) -> str:
    """On a mismatch, the elements furthest off: index, analytic and numeric values."""
    rows = [["wrt", "index", "analytic", "numeric", "abs_err"]]
    for w in report.wrt.values():
        for e in w.worst:
            rows.append([w.name, "[" + ", ".join(map(str, e.index)) + "]", f"{e.analytic:.6e}",
                         f"{e.numeric:.6e}", f"{e.abs_err:.3e}"])
    return "worst elements:\n" + columns(rows) if len(rows) > 1 else ""


def columns(rows: list[list[str]]) -> str:
    """Left-aligned columns separated by two spaces, no trailing spaces."""
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() + "\n"
                   for r in rows)


__all__ = ["PlainView", "check", "diagnostic", "grad", "graph", "run", "tree"]
