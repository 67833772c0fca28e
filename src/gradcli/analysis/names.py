"""Names, readable labels and script lines of a run's graph nodes (explain, trace, profile)."""

from __future__ import annotations

import re
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

    def __init__(self, result: Any, parameters: bool = False) -> None:
        self.result = result
        # explain: a parameter (a leaf that requires grad) goes by its name in every state, so
        # a path after an optimizer's steps reads w*x <- w, not w#200*x <- w#1
        self.parameters = parameters
        self.records = result.records or []
        self.names = record_names(result)
        self.by_node: dict[int, int] = {}
        self.by_leaf: dict[int, int] = {}
        self.latest: dict[int, int] = {}
        # a leaf that shares its version counter with an op's result is its detach()
        self.detached: dict[int, int] = {}
        made: dict[int, int] = {}  # id(version counter) -> the first op result with it
        by_node, by_leaf, latest = self.by_node, self.by_leaf, self.latest
        for i, r in enumerate(self.records):  # one pass: a trace names 10^4 records
            if r.node is not None:
                if id(r.node) not in by_node:
                    by_node[id(r.node)] = i
            elif r.op is None and id(r.tensor) not in by_leaf:
                by_leaf[id(r.tensor)] = i
            latest[id(r.tensor)] = i
            if r.op is not None:
                made.setdefault(id(r.tensor._vc), i)
            elif id(r.tensor._vc) in made and r.tensor is not self.records[
                    made[id(r.tensor._vc)]].tensor:
                self.detached[i] = made[id(r.tensor._vc)]
        self._labels: dict[int, tuple[str, int]] = {}
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
            if isinstance(n, AccumulateGrad):  # the leaf as it is now: its .grad is there
                rid = self.latest.get(id(n.variable), rid)
            text = f"<{n.fn_name}>" if rid is None else self.rec_label(rid, 2)
            self._node_labels[id(n)] = text
        return text

    def rec_label(self, rid: int, depth: int) -> str:
        """The label of a record; unnamed ones as their op over their inputs' labels."""
        return self._label(rid, depth)[0]

    def _label(self, rid: int, depth: int) -> tuple[str, int]:
        """(label, precedence): names and calls bind tightest (ATOM), ``a + b`` loosest."""
        if self.parameters:
            t = self.records[rid].tensor
            if t.grad_fn is None and t.requires_grad:
                rid = self.latest.get(id(t), rid)
        name = self.names.get(rid)
        if name is not None:
            return name, ATOM
        got = self._labels.get(rid)
        if got is not None:
            # NOTE: a label nests its inputs' labels; an input's past LABEL_CHARS is its record
            # id, or a tensor updated in place 10^4 times would get a 10^4-deep label
            return got if depth >= 2 or len(got[0]) <= LABEL_CHARS else (f"#{rid}", ATOM)
        r = self.records[rid]
        if r.op is None and rid in self.detached and depth > 0:
            source = self._label(self.detached[rid], depth - 1)[0]
            got = self._labels[rid] = (f"{self.operand(source)}.detach()", ATOM)
            return got
        if r.op is None or depth == 0:
            return f"#{rid}", ATOM
        got = self._labels[rid] = self._expr(rid, depth)
        return got

    def expr(self, rid: int, depth: int = 1) -> str:
        """The op over its inputs' labels: ``w2*x3``, ``1 - x5``, ``tanh(h)``, ``(a + b)*c``."""
        if self.records[rid].op is None:
            return "leaf"
        return self._expr(rid, depth)[0]

    def _expr(self, rid: int, depth: int) -> tuple[str, int]:
        r = self.records[rid]
        if r.op == "detach" and r.inputs and r.inputs[0] is not None:  # a built-in's record
            return f"{self.operand(self._label(r.inputs[0], depth)[0])}.detach()", ATOM
        args = [self._label(i, depth - 1) if i is not None else (_num(v), ATOM)
                for i, v in zip(r.inputs, r.numbers or (None,) * len(r.inputs))]
        params = getattr(r.node, "params", None) or {}
        if r.op == "pow" and "exponent" in params and args:
            args = [args[0], (_num(params["exponent"]), ATOM)]
            return _binary("**", args, POWER)
        sym = SYMBOLS.get(r.op)
        if r.op == "rsub" and len(args) == 2:
            return _binary(" - ", args[::-1], SUM)
        if sym is not None and len(args) == 2:
            if sym == "**":
                return _binary("**", args, POWER)
            return _binary(sym, args, PRODUCT) if sym in "*/@" else \
                _binary(f" {sym} ", args, SUM)
        if r.op == "neg" and args:
            return "-" + _wrap(args[0], UNARY), UNARY
        return f"{r.op}({', '.join(a for a, _ in args)})", ATOM

    def operand(self, label: str) -> str:
        """A label as the operand of a method call (``(w*3).detach()``)."""
        return label if _ATOMIC.fullmatch(label) or _CALL.fullmatch(label) else f"({label})"

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


# precedence, as Python's: a + b < a*b < -a < a**b < names, calls
SUM, PRODUCT, UNARY, POWER, ATOM = 1, 2, 3, 4, 5
_ATOMIC = re.compile(r"[\w.:#\[\]'-]+")  # w, model.0.weight, f:x, y#2, g[0], 3, -2
_CALL = re.compile(r"\w+\((?:[^()]|\([^()]*\))*\)")  # tanh(h), sum(a*(b + c))


def _wrap(arg: tuple[str, int], need: int) -> str:
    text, prec = arg
    return text if prec >= need else f"({text})"


def _binary(sym: str, args: list[tuple[str, int]], prec: int) -> tuple[str, int]:
    """``a*b``: a left operand of lower precedence in parentheses, a right one of the same
    too (``a - (b - c)``); ``**`` groups the other way (``(a**b)**c``, ``a**-b``)."""
    left, right = args
    if prec == POWER:
        return f"{_wrap(left, POWER + 1)}**{_wrap(right, UNARY)}", POWER
    return f"{_wrap(left, prec)}{sym}{_wrap(right, prec + 1)}", prec


def _num(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return "?" if v is None else str(v)
