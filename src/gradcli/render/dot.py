"""Graphviz DOT for the forward graph and, torchviz-style, for the backward (grad_fn) graph.

Output is deterministic: node ids come from the views' numbering (``t3``, ``op3``, ``f0``),
never from ``id()``.  Labels are Graphviz HTML-like labels with every text escaped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..rolling import Folds
from ..views import BackwardView, GraphView, SavedView, TensorView
from .plain import shape, short

FONT = "Helvetica"
LEAF = "#cfe7fb"  # light blue: leaves that require grad
OUTPUT = "#caf5b5"  # green: the output
OP = "#eeeeee"  # light grey: operations and grad_fn nodes
CONST = "#ffffff"
SAVED = "#ffc27a"  # orange: saved tensors
SAVED_EDGE = "#c77700"
FREED = "#fbe3c4"
MUTED = "#777777"
TANGENT = "#1f5fa8"  # blue: a forward-mode run's tangents, beside the values
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
                 wants_grad: bool, d_output: Any = None, label: str = "",
                 tangent: Any = None) -> list[str]:
    """Value and grad rows; ``d_output`` (``--wrt``: d(output)/d(this tensor), as ``grad``
    computes it, ``label`` ``dL/dw1``) is drawn where ``.grad`` is None.  A forward-mode
    run's ``tangent`` is drawn under the value, which is then drawn too."""
    rows = []
    if show_values or tangent is not None:
        rows += _array_rows(data, "#222222")
    if tangent is not None:
        rows += _array_rows(tangent, TANGENT, "tangent ")
    if show_grads and grad is None and d_output is not None:
        rows += _array_rows(d_output, "#b03a2e", f"{label} = ")
    elif show_grads and (grad is not None or wants_grad):
        rows += _array_rows(grad, "#b03a2e", "grad ") if grad is not None \
            else [_small("grad None", "#b03a2e", 10)]
    return rows


@dataclass
class Element:
    """One Graphviz node of a drawing, as the HTML viewer needs to know it."""

    dot_id: str
    kind: str  # tensor, op, context, ref (forward); grad_fn, variable, saved, output (backward)
    node: int | None  # the view's node id it shows (None for the backward output box)
    classes: list[str] = field(default_factory=list)
    name: str | None = None  # the text a reference tag repeats (the node's short name)


@dataclass
class Drawing:
    """A graph as Graphviz statements plus what each drawn element stands for."""

    name: str
    statements: list[tuple] = field(default_factory=list)  # ("node", id) or ("edge", i)
    attrs: dict[str, str] = field(default_factory=dict)  # node id → its attribute list
    elements: dict[str, Element] = field(default_factory=dict)
    edges: list[tuple[str, str, str, list[str]]] = field(default_factory=list)

    def node(self, dot_id: str, attrs: str, kind: str, node: int | None,
             classes: list[str] | None = None, name: str | None = None) -> None:
        """Add a Graphviz node."""
        self.statements.append(("node", dot_id))
        self.attrs[dot_id] = attrs
        self.elements[dot_id] = Element(dot_id, kind, node, classes or [], name)

    def edge(self, src: str, dst: str, attrs: str = "", classes: list[str] | None = None) -> None:
        """Add an edge ``src -> dst``."""
        self.statements.append(("edge", len(self.edges)))
        self.edges.append((src, dst, attrs, classes or []))

    def text(self, ids: bool = False) -> str:
        """The DOT text; ``ids`` names every SVG element (``id=``) for the HTML viewer.

        In a big drawing a node read by many others is drawn once and repeated as a small
        reference tag beside each later reader: edges spanning hundreds of ranks are what make
        Graphviz's layout take minutes (the 200 reads of ``x`` in a training loop).
        """
        refs = self._references()
        lines = _header(self.name)
        if self._components(refs) > PACK_COMPONENTS:
            # many separate pieces (--lines over a loop: one per iteration) in rows, not one
            # row thousands of nodes wide
            lines.insert(2, '  graph [pack=true packmode="array_u"];')
        for kind, key in self.statements:
            if kind == "node":
                attrs = self.attrs[key]
                if ids:
                    attrs = attrs[:-1] + f" id={quote(key)}]"
                lines.append(f"  {key} {attrs};")
                continue
            src, dst, attrs, _ = self.edges[key]
            ref = refs.get(key)
            if ref is not None:
                original = self.elements[src]
                tag = _attrs(label=f"<{html(original.name or src)}>", shape="box",
                             style="rounded,dashed", color=MUTED, fontcolor=MUTED,
                             fontsize=9, height=0.2, margin="0.06,0.02")
                lines.append(f"  {ref} " + (tag[:-1] + f" id={quote(ref)}]" if ids else tag)
                             + ";")
                src = ref
            edge_attrs = attrs
            if ids:
                edge_attrs = (attrs[:-1] + " " if attrs else "[") + f"id={quote(edge_id(key))}]"
            lines.append(f"  {src} -> {dst}" + (f" {edge_attrs}" if edge_attrs else "") + ";")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _components(self, refs: dict[int, str]) -> int:
        """How many separate pieces the drawing has (reference tags cut their edges)."""
        parent = {key: key for key in self.elements}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for k, (src, dst, _, _) in enumerate(self.edges):
            if k not in refs:
                parent[find(src)] = find(dst)
        return sum(1 for key in parent if find(key) == key)

    def _references(self) -> dict[int, str]:
        """Edge index → the reference tag that replaces its source (see ``text``)."""
        if len(self.elements) <= REF_MIN_NODES:
            return {}
        readers: dict[str, list[int]] = {}
        for k, (src, _, _, classes) in enumerate(self.edges):
            if "back" not in classes and self.elements[src].kind in REF_SOURCES:
                readers.setdefault(src, []).append(k)
        out = {}
        for src, ks in readers.items():
            if len(ks) > REF_FANOUT:
                for n, k in enumerate(ks[1:], 1):
                    out[k] = f"r{src}_{n}"
        return out

    def references(self) -> dict[str, Element]:
        """The reference tags ``text`` adds, as elements (for the HTML viewer)."""
        out = {}
        for k, ref in self._references().items():
            src = self.elements[self.edges[k][0]]
            out[ref] = Element(ref, "ref", src.node, ["ref"], src.dot_id)
        return out


def edge_id(k: int) -> str:
    """The SVG id of the k-th edge of a drawing."""
    return f"e{k}"


REF_MIN_NODES = 150  # drawings up to this many nodes keep every edge
REF_FANOUT = 3  # in bigger ones, a node read more often than this gets reference tags
REF_SOURCES = ("tensor", "context", "grad_fn")
PACK_COMPONENTS = 8  # drawings in more pieces than this are packed in rows
BACK = "#8e44ad"  # purple: a rolled loop's edges from one iteration into the next


def _fold_name(folds: Folds | None, nid: int, name: str | None) -> str | None:
    """A fold's name without its iteration (``pred#3`` → ``pred``); others as they are."""
    if folds is None or folds.count(nid) == 1 or not name:
        return name
    return name.split("#", 1)[0]


def _count(folds: Folds | None, nid: int) -> int:
    return folds.count(nid) if folds is not None else 1


def _times(count: int) -> str:
    return f'<FONT POINT-SIZE="10" COLOR="{BACK}">&#160;×{count}</FONT>' if count > 1 else ""


def _edge_attrs(folds: Folds | None, src: int, dst: int) -> tuple[str, list[str]]:
    if folds is not None and (src, dst) in folds.back:
        return (f'[style=dashed color="{BACK}" constraint=false penwidth=1.2]', ["back"])
    return "", []


def forward(view: GraphView, *, show_values: bool = False, show_grads: bool = False,
            show_saved: bool = False, folds: Folds | None = None) -> str:
    """The forward graph: tensors as boxes labelled by name, operations as ellipses between."""
    return draw_forward(view, show_values=show_values, show_grads=show_grads,
                        show_saved=show_saved, folds=folds).text()


def draw_forward(view: GraphView, *, show_values: bool = False, show_grads: bool = False,
                 show_saved: bool = False, folds: Folds | None = None) -> Drawing:
    """The forward drawing; ``folds`` (``--rolled``) marks counts and back edges.

    ``show_saved`` outlines in orange each op whose backward node holds saved tensors (dashed
    once a backward freed them).  Nodes a scope left out but a drawn node reads (the view's
    ``context``) are drawn dashed, with the line that made them.
    """
    d = Drawing("forward")
    for n in view.context:
        rows = [f"<B>{html(_fold_name(folds, n.id, n.name))}</B>" if n.name
                else _small(f"#{n.id}", MUTED, 10)]
        rows.append(_small(f"line {n.line}" if n.line else "outside the scope")
                    + _times(_count(folds, n.id)))
        d.node(f"t{n.id}", _attrs(label=_label(rows), style="rounded,dashed", color=MUTED,
                                   fontcolor=MUTED), "context", n.id, ["context"],
               _fold_name(folds, n.id, n.name) or f"#{n.id}")
    for n in view.nodes:
        count = _count(folds, n.id)
        name = _fold_name(folds, n.id, n.name)
        title = f"<B>{html(name)}</B>" if name else _small(f"#{n.id}", MUTED, 10)
        rows = [title + _times(count)]
        if n.shape or not n.name:
            rows.append(_small(shape(n.shape)))
        rows += _value_lines(n.data, n.grad, show_values, show_grads,
                             n.is_leaf and n.requires_grad, n.d_output,
                             _d_label(view.output_name, n.name), n.tangent)
        kind = "output" if n.id == view.output else (
            "leaf" if n.is_leaf and n.requires_grad else "const" if n.is_leaf else "result")
        fill = OUTPUT if kind == "output" else LEAF if kind == "leaf" else CONST
        style = "rounded,filled" if n.requires_grad or n.id == view.output else \
            "rounded,filled,dashed"
        classes = [kind] + (["no-grad"] if "dashed" in style else []) + \
            (["rolled"] if count > 1 else [])
        d.node(f"t{n.id}", _attrs(label=_label(rows), fillcolor=fill, style=style), "tensor",
               n.id, classes, name or f"#{n.id}")
        if n.op is None:
            continue
        op = n.op_label
        label = html(SYMBOLS.get(n.op, op) + ("=" if n.inplace and n.op in SYMBOLS else ""))
        layer = folds.layers.get(n.id) if folds is not None else None
        if layer is not None:  # a recurrent layer's time steps, rolled into one
            label = "<B>" + html(layer.module) + "</B><BR/>" + _small(html(_layer_text(layer)),
                                                                      MUTED, 9)
        if n.grad_fn:
            label += "<BR/>" + _small(n.grad_fn, MUTED, 8)
        saved = show_saved and bool(n.saved)
        freed = saved and all(s.freed for s in n.saved)
        outline = {"color": SAVED_EDGE, "penwidth": 1.6} if saved else {"color": "#999999"}
        d.node(f"op{n.id}", _attrs(label=f"<{label}>", shape="ellipse",
                                   style="filled,dashed" if freed else "filled", fillcolor=OP,
                                   **outline, fontsize=12, margin="0.04,0.02"), "op", n.id,
               ["op"] + (["freed" if freed else "saves"] if saved else []))
        for j in n.inputs:
            attrs, classes = _edge_attrs(folds, j, n.id)
            d.edge(f"t{j}", f"op{n.id}", attrs, classes)
        d.edge(f"op{n.id}", f"t{n.id}")
    return d


def _layer_text(layer: Any) -> str:
    """``model.lstm layer 0, 5 steps`` (the module's class is the title)."""
    return " ".join(x for x in (layer.path, f"{layer.where()},",
                                f"{layer.steps} step{'s' if layer.steps != 1 else ''}") if x)


def _d_label(of: str | None, name: str | None) -> str:
    """``dL/dw1``: what a box's --wrt gradient is the derivative of."""
    return f"d{of or 'output'}/d{name or '·'}"


def _tensor_box(v: TensorView, name: str | None, fill: str, show_values: bool,
                show_grads: bool, count: int = 1, d_output: Any = None,
                of: str | None = None) -> str:
    rows = [(f"<B>{html(name)}</B>" if name else _small("(unnamed)", MUTED, 10)) + _times(count),
            _small(shape(v.shape), "#333333", 10)]
    rows += _value_lines(v.data, v.grad, show_values, show_grads, v.is_leaf, d_output,
                         _d_label(of, name))
    return _attrs(label=_label(rows), fillcolor=fill)


def _saved_attr(s: SavedView) -> str:
    value = "(freed)" if s.freed else (repr(s.value) if s.value is not None else "")
    return f"{s.name}: {value}"


def backward(view: BackwardView, *, show_values: bool = False, show_grads: bool = False,
             show_saved: bool = False, folds: Folds | None = None) -> str:
    """The grad_fn graph as torchviz draws it: leaves blue, output green, saved orange."""
    return draw_backward(view, show_values=show_values, show_grads=show_grads,
                         show_saved=show_saved, folds=folds).text()


def draw_backward(view: BackwardView, *, show_values: bool = False, show_grads: bool = False,
                  show_saved: bool = False, folds: Folds | None = None) -> Drawing:
    """The backward drawing; ``folds`` (``--rolled``) marks counts and back edges."""
    d = Drawing("backward")
    if view.output_tensor is not None:
        d.node("out", _tensor_box(view.output_tensor, view.output, OUTPUT, show_values,
                                  show_grads), "output", view.root, ["output"], view.output)
    for n in view.context:
        rows = [f"<B>{html(n.name)}</B>" + _times(_count(folds, n.id)),
                _small(" ".join(x for x in (_fold_name(folds, n.id, n.tensor or n.variable_name),
                                            f"line {n.line}" if n.line else None) if x))]
        d.node(f"f{n.id}", _attrs(label=_label(rows), style="dashed", color=MUTED,
                                  fontcolor=MUTED), "context", n.id, ["context"], n.name)
    for n in view.nodes:
        count = _count(folds, n.id)
        rows = [f"<B>{html(n.name)}</B>" + _times(count)]
        layer = folds.layers.get(n.id) if folds is not None else None
        if layer is not None:
            rows.append(_small(html(_layer_text(layer))))
        if n.tensor:
            rows.append(_small(f"→ {_fold_name(folds, n.id, n.tensor)}"))
        tensors = [s for s in n.saved if s.value is None]
        if show_saved:
            rows += [_small(_saved_attr(s), "#8a4b00") for s in n.saved if s.value is not None]
        short_name = n.name if n.variable is None else f"{n.name} {n.variable_name or ''}"
        d.node(f"f{n.id}", _attrs(label=_label(rows), fillcolor=OP, style="filled"), "grad_fn",
               n.id, ["grad-fn"] + (["rolled"] if count > 1 else []), short_name.strip())
        if n.variable is not None:
            d.node(f"v{n.id}", _tensor_box(n.variable, n.variable_name, LEAF, show_values,
                                           show_grads, 1, n.d_output, view.output),
                   "variable", n.id, ["leaf"],
                   n.variable_name)
            d.edge(f"v{n.id}", f"f{n.id}")
        for k, s in enumerate(tensors if show_saved else ()):
            detail = "(freed)" if s.freed else " ".join(
                x for x in (s.tensor, shape(s.shape or [])) if x)
            label = f"<<B>{html(s.name)}</B><BR/>" + _small(detail, "#333333", 10) + ">"
            d.node(f"s{n.id}_{k}", _attrs(
                label=label, fillcolor=FREED if s.freed else SAVED,
                style="filled,dashed" if s.freed else "filled"), "saved", n.id,
                ["saved"] + (["freed"] if s.freed else []), s.name)
            d.edge(f"s{n.id}_{k}", f"f{n.id}", f'[dir=none style=dashed color="{SAVED_EDGE}"]',
                   ["saved"])
        for m in n.next:
            if m is not None:
                attrs, classes = _edge_attrs(folds, m, n.id)
                d.edge(f"f{m}", f"f{n.id}", attrs, classes)
    if "out" in d.elements and view.root is not None:
        d.edge(f"f{view.root}", "out")
    return d


def save(text: str, path: str) -> None:
    """Write DOT (``.dot``/``.gv``) or render it with Graphviz (``.svg``/``.png``/``.pdf``)."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in RENDERED + WRITTEN:
        raise UsageError(f"-o {path}: unknown file type {ext or '(none)'!r}; use one of "
                         f"{', '.join(WRITTEN + RENDERED)}")
    if ext in WRITTEN:
        _atomically(path, lambda tmp: _write(tmp, text.encode("utf-8")))
        return
    what = f"cannot render {path}"
    require_graphviz(what, path)  # before a temporary file is made
    _atomically(path, lambda tmp: _run_dot(text, ext[1:], what, tmp))


LAYOUT_TIMEOUT = 120.0  # seconds Graphviz may take to lay a graph out
INSTALL_HINT = ("install Graphviz: apt install graphviz (Debian, Ubuntu), brew install graphviz "
                "(macOS), conda install graphviz, or see https://graphviz.org/download/")


def require_graphviz(what: str, path: str | None = None) -> str:
    """The path of Graphviz's ``dot``, or a UsageError (exit 2) that says how to install it
    (and, for a picture ``path``, that its DOT can be written instead)."""
    exe = shutil.which("dot")
    if exe is None:
        hint = INSTALL_HINT if path is None else (
            f"{INSTALL_HINT}; or write {os.path.splitext(path)[0]}.dot and render it elsewhere")
        raise UsageError(f"{what}: Graphviz's 'dot' program is not on PATH", hint=hint)
    return exe


def svg(text: str, timeout: float = LAYOUT_TIMEOUT) -> str:
    """DOT laid out by Graphviz as SVG text."""
    return _run_dot(text, "svg", "cannot lay the graph out", None, timeout)


def _run_dot(text: str, fmt: str, what: str, out: str | None,
             timeout: float = LAYOUT_TIMEOUT) -> str:
    """Run ``dot -T<fmt>``: into the file ``out``, or return its output."""
    exe = require_graphviz(what)
    args = [exe, f"-T{fmt}"] + (["-o", out] if out is not None else [])
    try:
        proc = subprocess.run(args, input=text.encode("utf-8"), capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise UsageError(f"{what}: Graphviz took longer than {timeout:g} s",
                         hint="draw less of the graph: --rolled folds loops, --lines A-B keeps "
                         "the nodes of some lines, --of NAME what NAME depends on") from None
    except OSError as exc:
        raise UsageError(f"{what}: cannot run Graphviz's dot ({exc.strerror})") from None
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"{what}: dot failed ({why[-1] if why else 'no output'})")
    return proc.stdout.decode("utf-8", "replace")


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
