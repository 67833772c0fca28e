"""``--format json``: the documents of SPEC §3.2, schema "1".

Numbers that are not finite are written as the strings ``"nan"``, ``"inf"`` and ``"-inf"`` (so
every document is strict JSON).  Keys come out in the order the SPEC lists them.
"""

from __future__ import annotations

import json
import math
from json.encoder import c_make_encoder, encode_basestring
from typing import Any

import numpy as np

from ..views import BackwardView, GraphView, PlainView, TensorView, span_dict

SCHEMA = "1"


def number(v: Any, dtype: str = "float64") -> Any:
    """A JSON number, or "nan"/"inf"/"-inf"; float32 values by their shortest decimal form;
    the elements of integer and bool arrays as JSON integers and booleans."""
    if isinstance(v, np.ndarray):  # a 0-d array: its element, of the array's own type
        v = v[()]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    f = float(v)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return float(str(np.float32(v))) if dtype == "float32" else f


def data(a: Any, dtype: str = "float64") -> Any:
    """An array as a number or nested lists of numbers (``number``'s, element for element)."""
    a = np.asarray(a)
    if a.ndim == 0:
        return number(a, dtype)
    kind = a.dtype.kind
    if kind in "biu":  # JSON integers and booleans
        return a.tolist()
    if kind != "f":
        return [data(row, dtype) for row in a]
    if dtype == "float32":  # each by its shortest float32 decimal
        flat = [_FLOAT32_WORDS.get(s) or float(s) for s in map(str, a.astype(np.float32).ravel())]
        return _nested(flat, a.shape)
    out = a.tolist()  # Python's floats: float(v) of each element
    bad = ~np.isfinite(a)
    if bad.any():
        for where in zip(*np.nonzero(bad)):
            row = out
            for i in where[:-1]:
                row = row[i]
            v = a[where]
            row[where[-1]] = "nan" if np.isnan(v) else "inf" if v > 0 else "-inf"
    return out


_FLOAT32_WORDS = {"nan": "nan", "inf": "inf", "-inf": "-inf"}


def _nested(flat: list, shape: tuple[int, ...]) -> list:
    """A flat list of row-major elements as nested lists of ``shape``."""
    if len(shape) == 1:
        return flat
    step = math.prod(shape[1:])
    return [_nested(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def tensor(v: TensorView) -> dict[str, Any]:
    """SPEC §3.2's tensor object."""
    return {"shape": list(v.shape), "dtype": v.dtype, "data": data(v.data, v.dtype),
            "requires_grad": v.requires_grad, "is_leaf": v.is_leaf, "grad_fn": v.grad_fn,
            "grad": data(v.grad, v.dtype) if v.grad is not None else None,
            "version": v.version}


def value(v: Any) -> Any:
    """A binding: a tensor object, ``{"type", "value"}``, or a list of those."""
    if isinstance(v, TensorView):
        return tensor(v)
    if isinstance(v, list):
        return [value(x) for x in v]
    assert isinstance(v, PlainView)
    val = number(v.value) if v.type == "float" else v.value
    return {"type": v.type, "value": val}


def error(err: Any) -> dict[str, Any] | None:
    """``{"type", "message", "line", "column", "hint"}`` of a GradcliError, or None."""
    if err is None:
        return None
    where = span_dict(getattr(err, "span", None))
    return {"type": getattr(err, "kind", type(err).__name__),
            "message": getattr(err, "message", str(err)), "line": where["line"],
            "column": where["column"], "hint": getattr(err, "hint", None)}


def warning(w: Any) -> dict[str, Any]:
    """``{"line", "column", "message", "hint"}`` of a run-time warning (``hint``: gradcli's)."""
    return {**span_dict(w.span), "message": w.message, "hint": getattr(w, "hint", None)}


def run_doc(bindings: dict[str, Any], prints: list[str], warnings: list[Any],
            err: Any) -> dict[str, Any]:
    """The ``run`` document."""
    return {"gradcli": SCHEMA, "bindings": {k: value(v) for k, v in bindings.items()},
            "prints": list(prints), "warnings": [warning(w) for w in warnings],
            "error": error(err)}


def grad_doc(of: str | None, out: TensorView | None, grads: dict[str, TensorView],
             err: Any) -> dict[str, Any]:
    """The ``grad`` document."""
    return {"gradcli": SCHEMA, "of": of,
            "value": data(out.data, out.dtype) if out is not None else None,
            "wrt": {k: {"shape": list(g.shape), "data": data(g.data, g.dtype)}
                    for k, g in grads.items()},
            "error": error(err)}


def graph_doc(view: GraphView | None, err: Any) -> dict[str, Any]:
    """The ``graph`` document: every recorded node in topological order."""
    nodes = []
    for n in (view.nodes if view is not None else ()):
        nodes.append({
            "id": n.id, "name": n.name, "op": n.op, "grad_fn": n.grad_fn,
            "inputs": list(n.inputs), "shape": list(n.shape),
            "requires_grad": n.requires_grad, "is_leaf": n.is_leaf,
            "data": data(n.data, n.dtype),
            "grad": data(n.grad, n.dtype) if n.grad is not None else None,
            "d_output": data(n.d_output, n.dtype) if n.d_output is not None else None,
            "tangent": data(n.tangent, n.dtype) if n.tangent is not None else None,
            "saved": [{"name": s.name, "freed": s.freed} for s in n.saved],
            **_rolled(n)})
    return {"gradcli": SCHEMA, "output": view.output if view is not None else None,
            "nodes": nodes, "error": error(err)}


def _rolled(n: Any) -> dict[str, Any]:
    """--rolled: how many nodes it stands for and the recurrent layer it is (absent else)."""
    return {"count": n.count, "layer": n.layer} if n.count > 1 or n.layer else {}


def backward_doc(view: BackwardView | None, err: Any) -> dict[str, Any]:
    """``graph --tree`` as JSON: the grad_fn nodes numbered from the output's."""
    nodes = []
    for n in (view.nodes if view is not None else ()):
        nodes.append({"id": n.id, "name": n.name, "tensor": n.tensor, "next": list(n.next),
                      "variable": n.variable_name if n.variable is not None else None,
                      "d_output": data(n.d_output) if n.d_output is not None else None,
                      "saved": [{"name": s.name, "freed": s.freed} for s in n.saved]})
    return {"gradcli": SCHEMA, "output": view.output if view is not None else None,
            "root": view.root if view is not None else None, "nodes": nodes,
            "error": error(err)}


def check_doc(report: Any, err: Any) -> dict[str, Any]:
    """The ``check`` document."""
    wrt = {} if report is None else {
        k: {"max_abs_err": number(w.max_abs_err), "max_rel_err": number(w.max_rel_err),
            "ok": w.ok, "checked": w.checked, "elements": w.total,
            "worst": [{"index": list(e.index), "analytic": number(e.analytic),
                       "numeric": number(e.numeric)} for e in w.worst]}
        for k, w in report.wrt.items()}
    ok = report is not None and err is None and report.ok
    return {"gradcli": SCHEMA, "ok": ok, "wrt": wrt, "error": error(err)}


def dot_doc(text: str | None, err: Any) -> dict[str, Any]:
    """``dot --format json``: the DOT text in a document."""
    return {"gradcli": SCHEMA, "dot": text, "error": error(err)}


def html_doc(path: str | None, nodes: int | None, events: int | None,
             err: Any) -> dict[str, Any]:
    """``html --format json``: the file written, its node and event counts."""
    return {"gradcli": SCHEMA, "file": path, "nodes": nodes, "events": events,
            "error": error(err)}


def dumps(doc: dict[str, Any], one_per_line: str | None = None) -> str:
    """Strict JSON (no NaN literals), indented, with a final newline.

    A list of plain values (numbers, strings, booleans, nulls: a tensor's innermost rows, a
    shape) is written on one line, and the list under the key ``one_per_line`` one compact
    item per line (greppable).  Each is encoded by the C encoder: Python's ``indent`` takes its
    pure-Python path, which dominated a 50,000-event trace and a million-number gradient.
    """
    return _indented(doc, 0, one_per_line) + "\n"


_PLAIN = frozenset((str, int, float, bool, type(None)))


def _indented(v: Any, level: int, one_per_line: str | None = None) -> str:
    """``v`` as JSON at indentation ``level`` (two spaces each), as ``dumps`` lays it out."""
    if isinstance(v, dict):
        if not v:
            return "{}"
        if any(k.__class__ is not str for k in v):  # JSON's own names for other keys
            return json.dumps(v, indent=2, ensure_ascii=False, allow_nan=False).replace(
                "\n", "\n" + "  " * level)
        inner = "\n" + "  " * (level + 1)
        parts = []
        for k, x in v.items():
            if k == one_per_line and isinstance(x, list) and x:
                body = "[" + ",".join(inner + "  " + _item(i) for i in x) + inner + "]"
            else:
                body = _indented(x, level + 1)
            parts.append(inner + _item(k) + ": " + body)
        return "{" + ",".join(parts) + "\n" + "  " * level + "}"
    if isinstance(v, (list, tuple)):
        if not v:
            return "[]"
        if _PLAIN.issuperset(map(type, v)):
            return _item(v)
        inner = "\n" + "  " * (level + 1)
        return "[" + ",".join(inner + _indented(x, level + 1) for x in v) + "\n" + \
            "  " * level + "]"
    return _item(v)


_compact = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": ")).encode
if c_make_encoder is not None:  # CPython's C encoder, made once: ``_compact`` makes one per call
    _chunks = c_make_encoder(None, json.JSONEncoder().default, encode_basestring, None, ": ", ", ", False, False, False)

    def _item(item: Any) -> str:
        """``_compact(item)`` for a dict or list item (no circular-reference check: documents
        are trees)."""
        return "".join(_chunks(item, 0))
else:
    _item = _compact
