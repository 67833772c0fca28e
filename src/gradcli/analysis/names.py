"""Names, readable labels and script lines of a run's graph nodes (explain, trace, profile)."""

from __future__ import annotations

from typing import Any

from ..engine import AccumulateGrad, Node
from ..views import record_names

LABEL_CHARS = 32  # the longest label shown inside another one

SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**", "pow_tensor": "**",
           "mm": "@", "mv": "@", "dot": "@", "add_scalar": "+", "sub_scalar": "-",
           "mul_scalar": "*", "div_scalar": "/"}


# -- names of nodes -----------------------------------------------------------------------------
class Names:
    """Script names, readable labels and lines of the backward graph's nodes."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.records = result.records or []
        self.names = record_names(result)
        self.by_node: dict[int, int] = {}
        self.by_leaf: dict[int, int] = {}
        self.latest: dict[int, int] = {}
        by_node, by_leaf, latest = self.by_node, self.by_leaf, self.latest
        for i, r in enumerate(self.records):  # one pass: a trace names 10^4 records
            if r.node is not None:
                if id(r.node) not in by_node:
                    by_node[id(r.node)] = i
            elif r.op is None and id(r.tensor) not in by_leaf:
                by_leaf[id(r.tensor)] = i
            latest[id(r.tensor)] = i
        self._labels: dict[int, str] = {}
        self._node_labels: dict[int, str] = {}
        # node -> (label, line, grad_fn name, record id), worked out on first use (a trace asks
        # 10^4 times)
        self.about = _About(self)

    def record(self, n: Node) -> int | None:
        """The record id of the tensor state a node belongs to (None for an unrecorded node)."""
        if isinstance(n, AccumulateGrad):
            return self.by_leaf.get(id(n.variable))
        return self.by_node.get(id(n))

    def line(self, n: Node) -> int | None:
        """The script line that created the node."""
        rid = self.record(n)
        span = self.records[rid].span if rid is not None else None
        return span.line if span is not None else None

    def ident(self, n: Node) -> str | int:
        """The script name, else the record id (as ``graph`` numbers nodes), else grad_fn."""
        rid = self.record(n)
        if rid is None:
            return n.fn_name
        return self.names.get(rid, rid)

    def label(self, n: Node) -> str:
        """A readable name: the script name, or the expression that made it (``w2*x3``)."""
        text = self._node_labels.get(id(n))
        if text is None:
            rid = self.record(n)
            text = f"<{n.fn_name}>" if rid is None else self.rec_label(rid, 2)
            self._node_labels[id(n)] = text
        return text

    def rec_label(self, rid: int, depth: int) -> str:
        """The label of a record; unnamed ones as their op over their inputs' labels."""
        name = self.names.get(rid)
        if name is not None:
            return name
        text = self._labels.get(rid)
        if text is not None:
            # NOTE: a label nests its inputs' labels; an input's past LABEL_CHARS is its record
            # id, or a tensor updated in place 10^4 times would get a 10^4-deep label
            return text if depth >= 2 or len(text) <= LABEL_CHARS else f"#{rid}"
        r = self.records[rid]
        if r.op is None or depth == 0:
            return f"#{rid}"
        text = self.expr(rid, depth)
        self._labels[rid] = text = f"({text})" if " " in text else text
        return text

    def expr(self, rid: int, depth: int = 1) -> str:
        """The op over its inputs' labels: ``w2*x3``, ``1 - x5``, ``tanh(h)``."""
        r = self.records[rid]
        if r.op is None:
            return "leaf"
        args = [self.rec_label(i, depth - 1) if i is not None else _num(v)
                for i, v in zip(r.inputs, r.numbers or (None,) * len(r.inputs))]
        params = getattr(r.node, "params", None) or {}
        if r.op == "pow" and "exponent" in params and args:
            return f"{args[0]}**{_num(params['exponent'])}"
        sym = SYMBOLS.get(r.op)
        if r.op == "rsub" and len(args) == 2:
            return f"{args[1]} - {args[0]}"
        if sym is not None and len(args) == 2:
            return f"{args[0]}{sym}{args[1]}" if sym in "*/" else f"{args[0]} {sym} {args[1]}"
        if r.op == "neg" and args:
            return f"-{args[0]}"
        return f"{r.op}({', '.join(args)})"

    def tensor_label(self, t: Any) -> str:
        """The label of a tensor's latest recorded state."""
        rid = self.latest.get(id(t))
        return self.rec_label(rid, 2) if rid is not None else "?"

    def rec_line(self, rid: int) -> int | None:
        span = self.records[rid].span
        return span.line if span is not None else None


class _About(dict):
    """``Names.about``: a backward node's (label, line, grad_fn name, record id), made once per
    node."""

    def __init__(self, names: Names) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, n: Node) -> tuple[str, int | None, str, int | None]:
        names = self.names
        rid = names.record(n)
        if rid is None:
            got = self[n] = (names.label(n), None, n.fn_name, None)
            return got
        span = names.records[rid].span
        got = self[n] = (names.rec_label(rid, 2), span.line if span is not None else None,
                         n.fn_name, rid)
        return got


def _num(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return "?" if v is None else str(v)
