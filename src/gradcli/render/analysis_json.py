"""``--format json`` documents of ``explain``, ``trace`` and ``profile`` (SPEC §8, schema "1")."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..analysis.trace import ARRAYS, FIELDS, host_value
from .analysis_plain import event_text
from .json import SCHEMA, data, number
from .json import error as error_obj


def explain_doc(ex: Any, of: str | None, wrt: str | None, err: Any) -> dict[str, Any]:
    """``{"gradcli", "of", "wrt", "grad", "paths_total", "paths", "zero_reason", "error"}``.

    Beyond SPEC §8: ``ranking`` says what the list guarantees (``exact``: the listed paths are
    the largest; ``bound``: no unlisted path's contribution has a larger norm); ``none_grads``
    the script's reads of W's ``.grad`` that gave None, with why.
    """
    if ex is None:
        return {"gradcli": SCHEMA, "of": of, "wrt": wrt, "grad": None, "paths_total": 0,
                "paths": [], "zero_reason": None, "ranking": None, "none_grads": [],
                "error": error_obj(err)}
    dt = ex.dtype
    paths = [{"nodes": list(p.ids),
              "edges": [{"op": e.op, "grad_fn": e.grad_fn, "line": e.line,
                         "local": data(e.local, dt) if e.local is not None else None,
                         "local_shape": list(e.local_shape)} for e in p.edges],
              "contribution": data(p.contribution, dt), "norm": number(p.norm)}
             for p in ex.paths]
    ranking = {"by": "abs" if ex.scalar else "norm", "exact": ex.exact,
               "bound": number(ex.bound) if ex.bound is not None else None}
    return {"gradcli": SCHEMA, "of": ex.of, "wrt": ex.wrt, "grad": data(ex.grad, dt),
            "paths_total": int(ex.paths_total), "paths": paths, "zero_reason": ex.zero_reason,
            "ranking": ranking,
            "none_grads": [{"line": line, "tensor": text, "reason": reason}
                           for line, text, reason in ex.none_grads],
            "error": error_obj(err)}


def explain_forward_doc(fx: Any, of: str | None, wrt: str | None, err: Any) -> dict[str, Any]:
    """``explain --mode forward``: ``explain``'s document with ``"mode": "forward"``, ``grad``
    being L's tangent, and beyond it ``reverse_grad``, ``seeds`` (re-runs, one per element of
    W) and ``nodes``: from W to L, each node's ``inputs`` (``local`` derivative, ``tangent_in``)
    and ``tangent_out``, a tangent being d(node)/dW shaped W's shape + the node's; the paths'
    ``nodes`` and ``edges`` run from W to L.
    """
    if fx is None:
        doc = explain_doc(None, of, wrt, err)
        doc.update(mode="forward", reverse_grad=None, seeds=0, nodes=[])
        return doc
    doc = explain_doc(fx.reverse, of, wrt, err)
    dt = fx.dtype
    for p in doc["paths"]:
        p["nodes"].reverse()
        p["edges"].reverse()
    nodes = [{"node": s.node, "id": s.ident, "op": s.op, "grad_fn": s.grad_fn, "line": s.line,
              "inputs": [{"input": t.input, "id": t.ident,
                          "local": data(t.local, dt) if t.local is not None else None,
                          "tangent_in": data(t.tangent, dt) if t.tangent is not None else None}
                         for t in s.terms],
              "tangent_out": data(s.tangent, dt) if s.tangent is not None else None,
              "consistent": s.consistent}
             for s in fx.steps]
    doc.update(mode="forward", grad=data(fx.grad, dt), reverse_grad=data(fx.reverse.grad, dt),
               agrees=fx.agrees, seeds=fx.seeds, nodes=nodes)
    return doc


def _field(v: Any, dtype: str) -> Any:
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return data(v, dtype)
    if isinstance(v, dict):
        return {k: _field(x, dtype) for k, x in v.items()}
    if isinstance(v, float):
        return number(v)
    return v


_NUMPY = (np.ndarray, np.generic)


def _array(a: Any, dtype: str) -> Any:
    """A gradient in an event: a number, nested lists, ``{"shape", "norm"}`` or None."""
    if isinstance(a, _NUMPY) and a.ndim == 0 and dtype == "float64":
        f = float(a)  # the common case (scalar graphs), fast
        return f if f - f == 0 else number(f)
    return _field(host_value(a), dtype)


_COMMON = ("seq", "phase", "kind", "line", "node", "grad_fn")  # an Event's first six items
_KEYS = {kind: _COMMON + fields for kind, fields in FIELDS.items()}
_TEXT_KEYS = {kind: (*_COMMON, "text", *fields) for kind, fields in FIELDS.items()}


def trace_doc(tr: Any, dtype: str, err: Any, text: bool = False) -> dict[str, Any]:
    """``{"gradcli", "events": [{"seq", "phase", "kind", "line", "node", "grad_fn",
    …kind-specific fields}], "root_cause", "error"}`` (``render.json.dumps`` writes the events
    one per line).  ``text``: each event also says what it did in words (the html stepper
    shows it; ``trace --format json`` leaves it out, a consumer has the fields)."""
    events = []
    keys = _TEXT_KEYS if text else _KEYS
    for e in (tr if tr is not None else ()):
        kind = e[2]
        if text:
            doc = dict(zip(keys[kind], (*e[:6], event_text(tr, e), *e[6])))
        else:
            doc = dict(zip(keys[kind], (*e[:6], *e[6])))
        if kind in ARRAYS:
            for k in ARRAYS[kind]:
                doc[k] = _array(doc[k], dtype)
        events.append(doc)
    return {"gradcli": SCHEMA, "events": events,
            "root_cause": tr.root_cause if tr is not None else None, "error": error_obj(err)}


def profile_doc(prof: Any, err: Any) -> dict[str, Any]:
    """``{"gradcli", "lines": [{"line", "source", "hits", "seconds", "backward_seconds",
    "record_seconds", "warmup_seconds", "nodes", "saved_bytes", "packed_bytes"}],
    "total_seconds", "record_seconds", "record_share", "backward_seconds", "warmup_seconds",
    "nodes", "saved_bytes", "packed_bytes", "error"}`` (a line's ``seconds`` leave its
    one-time warm-up out; ``packed_bytes``: new memory pack hooks kept)."""
    if prof is None:
        return {"gradcli": SCHEMA, "lines": [], "total_seconds": None, "record_seconds": None,
                "record_share": None, "backward_seconds": None, "warmup_seconds": None,
                "nodes": 0, "saved_bytes": 0, "packed_bytes": 0,
                "error": error_obj(err)}
    lines = [{"line": c.line, "source": c.source, "hits": c.hits, "seconds": c.seconds,
              "backward_seconds": c.backward_seconds, "record_seconds": c.record_seconds,
              "warmup_seconds": c.warmup_seconds, "nodes": c.nodes, "saved_bytes": c.saved_bytes,
              "packed_bytes": c.packed_bytes} for c in prof.lines]
    return {"gradcli": SCHEMA, "lines": lines, "total_seconds": prof.total_seconds,
            "record_seconds": prof.record_seconds, "record_share": prof.record_share,
            "backward_seconds": prof.backward_seconds,
            "warmup_seconds": prof.warmup_seconds, "nodes": prof.nodes,
            "saved_bytes": prof.saved_bytes, "packed_bytes": prof.packed_bytes,
            "error": error_obj(err)}
