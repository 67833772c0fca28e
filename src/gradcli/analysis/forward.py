"""``explain --mode forward``: a derivative as the tangent carried forward from W, node by node,
and the same chain-rule paths read from W's side.

W's binding is given the tangent e_i, one re-run per element i (as ``grad --mode forward``),
and each re-run's graph records keep the tangent its dual level computed at every tensor
state (``Record.tangent``).  For each node between W and L, in the order the run made them:
the tangent of each input that depends on W (tangent in), the op's local derivative
d(node)/d(input) (the edge's Jacobian, as ``explain`` computes it), and the node's own tangent
(tangent out), which is the sum over its inputs of local derivative times tangent in.  The
paths are ``explain``'s, read from W to L; their contributions add up to L's tangent, which is
the gradient reverse mode gives.

A tangent here is d(node)/dW: one row per element of W (the re-runs' tangents stacked), shaped
``W.shape + node.shape``; a number when W and the node are single numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import RunContext, use
from ..engine.backend import quiet
from ..engine.graph import restored_saved
from ..views import output_record
from .explain import DEFAULT_TOP, Explanation, _target, explain
from .names import Names
from .paths import Walker

# relative, by dtype: tangent out agrees with the sum of local x tangent in (the sum is
# formed in float64 from the run's values, the tangent in the run's dtype)
RESIDUAL = {"float64": 1e-9, "float32": 1e-5}


@dataclass
class TermView:
    """One input of a node through which W's tangent arrives."""

    input: str  # its label
    ident: str | int  # its name, or record id (JSON)
    local: Any  # d(node)/d(input): shape node + input (a number for scalars); None if too big
    tangent: Any  # the input's tangent, d(input)/dW


@dataclass
class StepView:
    """One node the tangent passes through, with what flows in and what comes out."""

    node: str
    ident: str | int
    op: str | None  # None: W itself, whose tangent is seeded
    grad_fn: str | None
    line: int | None
    shape: list[int]
    terms: list[TermView]
    tangent: Any  # the node's tangent as the dual level computed it, d(node)/dW
    residual: float | None = None  # max |sum of local x tangent in - tangent out| (None: unknown)
    tolerance: float = RESIDUAL["float64"]  # relative, for ``consistent``

    @property
    def consistent(self) -> bool | None:
        """Whether tangent out is the sum of local derivative x tangent in (None: unknown)."""
        if self.residual is None:
            return None
        scale = max(1.0, float(np.max(np.abs(self.tangent)))) if np.size(self.tangent) else 1.0
        return self.residual <= self.tolerance * scale


@dataclass
class ForwardExplanation:
    """dL/dW by forward mode, node by node, with reverse mode's paths seen from W."""

    reverse: Explanation  # the paths, reverse mode's gradient, the zero reason
    grad: Any  # L's tangent arranged as W (W.shape)
    seeds: int  # re-runs: one per element of W
    wrt_shape: list[int]
    steps: list[StepView] = field(default_factory=list)

    @property
    def of(self) -> str:
        return self.reverse.of

    @property
    def wrt(self) -> str:
        return self.reverse.wrt

    @property
    def dtype(self) -> str:
        return self.reverse.dtype

    @property
    def scalar(self) -> bool:
        """W, every node and every local derivative on the way are single numbers."""
        return self.seeds == 1 and not self.wrt_shape and all(
            np.size(s.tangent) == 1 and all(t.local is not None and np.size(t.local) == 1
                                            for t in s.terms) for s in self.steps)

    @property
    def agrees(self) -> bool:
        """L's tangent equals reverse mode's gradient (to rounding)."""
        a = np.asarray(self.grad, dtype=np.float64)
        b = np.asarray(self.reverse.grad, dtype=np.float64)
        return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-6, atol=1e-12))


def explain_forward(runs: list[Any], output: Any, target: Any,
                    top: int = DEFAULT_TOP) -> ForwardExplanation:
    """d(output)/d(target) of ``runs`` (recorded re-runs, run i seeded with e_i; ``runs[0]``
    has the ``targets.Target``s) by forward mode, with ``explain``'s paths."""
    result = runs[0]
    ex = explain(result, output, target, top)
    w, out = target.tensor, output.tensor
    shape = list(w.shape)
    n = math.prod(shape)
    lid = output_record(result, output)
    at_l = _stacked(runs, lid, shape, [])
    fx = ForwardExplanation(ex, np.zeros(shape) if at_l is None else at_l.reshape(shape), n,
                            shape)
    node = _target(w)
    if out.grad_fn is None or node is None:
        return fx
    names = Names(result, parameters=True)
    with restored_saved(result.history, (out.grad_fn,)), \
            use(RunContext(result.backend)), quiet():
        walker = Walker(out.grad_fn, out.shape, node)
        if not walker.connected:
            return fx
        seed = np.eye(n, dtype=np.float64).reshape(shape + shape)
        tangents: dict[int, Any] = {id(node): seed}
        order = sorted(walker.nodes, key=lambda m: (m is not node, names.record(m) or 0, m.seq))
        for m in order:
            rid = names.record(m)
            node_shape = list(walker.shapes[m])
            if m is node:
                fx.steps.append(StepView(names.label(m), names.ident(m), None, None,
                                         names.line(m), node_shape, [], _shown(seed, shape)))
                continue
            tangent = _stacked(runs, rid, shape, node_shape)
            tangents[id(m)] = tangent
            terms, total = [], np.zeros(shape + node_shape)
            for e in walker.out[m]:
                jac = walker.jacobian(e)
                tin = tangents.get(id(e.to))
                terms.append(TermView(names.label(e.to), names.ident(e.to),
                                      jac.reshape(()) if jac is not None and jac.size == 1
                                      else jac, _shown(tin, shape)))
                if jac is None or tin is None or total is None:
                    total = None
                    continue
                k = len(walker.shapes[e.to])
                # d(node)/dW = d(node)/d(input) . d(input)/dW, W's axes first
                total = total + np.tensordot(tin, jac, axes=(
                    list(range(len(shape), len(shape) + k)),
                    list(range(len(node_shape), len(node_shape) + k))))
            residual = None if total is None or tangent is None else \
                float(np.max(np.abs(total - tangent), initial=0.0))
            fx.steps.append(StepView(names.label(m), names.ident(m), m.op_name(), m.fn_name,
                                     names.line(m), node_shape, terms, _shown(tangent, shape),
                                     residual, RESIDUAL.get(ex.dtype, 1e-2)))
    return fx


def _stacked(runs: list[Any], rid: int | None, shape: list[int], node_shape: list[int]) -> Any:
    """A record's tangents over the re-runs, as d(node)/dW (W's axes first); zeros where a run
    carried none to it (it does not depend on W), None for an unknown record."""
    if rid is None:
        return None
    rows = []
    for r in runs:
        records = r.records or []
        t = records[rid].tangent if rid < len(records) else None
        rows.append(np.zeros(node_shape) if t is None else
                    np.asarray(t, dtype=np.float64).reshape(node_shape))
    return np.stack(rows).reshape(shape + node_shape)


def _shown(t: Any, shape: list[int]) -> Any:
    """A tangent as the views show it: a number when W is one."""
    if t is None:
        return None
    return t.reshape(t.shape[len(shape):]) if not shape else t


__all__ = ["ForwardExplanation", "StepView", "TermView", "explain_forward"]
