"""``explain``: a gradient as the sum of its chain-rule paths, and why a gradient is zero.

Builds on ``paths`` (counting and ranking on the engine's backward graph) and on the run's
graph records (script names, lines, and the forward dependencies a ``detach``/``no_grad`` cut
leaves behind).  Everything returned is host-side (NumPy arrays, strings), for the renderers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import Node, RunContext, Tensor, use
from ..engine.backend import quiet, to_host
from ..engine.graph import accumulator, restored_saved
from ..script.hints import none_grad_reason
from ..views import output_record
from .names import Names as _Names
from .paths import Decomposition, EdgeRef, Walker, decompose

DEFAULT_TOP = 10


@dataclass
class EdgeView:
    """One factor of a path: d(output)/d(input) of one op."""

    op: str
    grad_fn: str
    line: int | None
    output: str  # label of the op's result
    input: str  # label of the input the gradient flows to
    local: Any  # the Jacobian, shape output + input (a number for scalars); None if too big
    local_shape: list[int]


@dataclass
class PathView:
    """One path from L back to W and what it contributes to dL/dW."""

    nodes: list[str]  # labels, L first
    ids: list[str | int]  # names, or record ids for unnamed intermediates (JSON)
    edges: list[EdgeView]
    contribution: Any  # host array of W's shape
    norm: float


@dataclass
class Explanation:
    """dL/dW decomposed over the paths of the graph (docs/commands.md)."""

    of: str
    wrt: str
    grad: Any  # host array of W's shape
    dtype: str
    paths_total: int = 0
    paths: list[PathView] = field(default_factory=list)
    zero_reason: str | None = None
    exact: bool = True  # the listed paths are the largest (see paths.py)
    bound: float | None = None  # every unlisted path's contribution has norm <= bound
    top: int = DEFAULT_TOP
    scalar: bool = True  # W and every listed factor are single numbers
    sources: dict[int, str] = field(default_factory=dict)  # script text of the lines named
    # the script's reads of W's .grad that gave None: (line, the expression read, why)
    none_grads: list[tuple[int, str, str]] = field(default_factory=list)


def explain(result: Any, output: Any, target: Any, top: int = DEFAULT_TOP) -> Explanation:
    """Decompose d(output)/d(target) (``targets.Target``s) of a recorded run
    (``record=True``) over its paths.  A run made with ``keep_freed`` is
    explained after its script's own backward() too.
    """
    with restored_saved(result.history, (output.tensor.grad_fn,)):
        return _explain(result, output, target, top)


def _explain(result: Any, output: Any, target: Any, top: int) -> Explanation:
    of, wrt = output.name, target.name
    out, w = output.tensor, target.tensor
    grad = result.gradients(out, [w])[0]
    ex = Explanation(of, wrt, to_host(grad.data), grad.dtype.name, top=top)
    for read in result.none_grads:
        why = (read.span.line, read.text, none_grad_reason(read))
        if (read.tensor is w or read.text == wrt) and why not in ex.none_grads:
            ex.none_grads.append(why)  # a loop reads it again and again: once per reason
    names = _Names(result, parameters=True)
    node = _target(w)
    if out.grad_fn is None or node is None:
        ex.zero_reason = _cut_reason(result, names, output, target)
        return ex
    with use(RunContext(result.backend)), quiet():
        walker = Walker(out.grad_fn, out.shape, node)
        if not walker.connected:
            ex.zero_reason = _cut_reason(result, names, output, target)
            return ex
        dec = decompose(walker, top)
        ex.paths_total, ex.exact, ex.bound = dec.paths_total, dec.exact, dec.bound
        ex.paths = _paths(walker, dec, names, w)
        ex.scalar = math.prod(w.shape) == 1 and all(
            e.local is not None and np.size(e.local) == 1 for p in ex.paths for e in p.edges)
        if not np.any(ex.grad):
            ex.zero_reason = _zero_reason(walker, names, ex.paths_total)
    text = result.program.source.splitlines()
    for line in sorted({e.line for p in ex.paths for e in p.edges if e.line is not None}):
        if 0 < line <= len(text):
            ex.sources[line] = text[line - 1].strip()
    return ex


def _target(w: Tensor) -> Node | None:
    """The node W's gradient arrives at, as ``autograd.grad`` captures it."""
    if not w.requires_grad:
        return None
    if w.grad_fn is not None:
        return w.grad_fn
    return accumulator(w)  # None: W was never used by a recorded op


def _paths(walker: Walker, dec: Decomposition, names: _Names, w: Tensor) -> list[PathView]:
    jacobians: dict[tuple[int, int], Any] = {}
    out = []
    for p in dec.paths:
        edges = []
        for e in p.edges:
            key = (id(e.node), e.index)
            if key not in jacobians:
                jacobians[key] = walker.jacobian(e)
            edges.append(_edge_view(e, jacobians[key], walker, names))
        nodes = [walker.root] + [e.to for e in p.edges]
        contribution = np.asarray(to_host(p.contribution)).reshape(w.shape)
        out.append(PathView([names.label(n) for n in nodes], [names.ident(n) for n in nodes],
                            edges, contribution, p.norm))
    return out


def _edge_view(e: EdgeRef, jac: Any, walker: Walker, names: _Names) -> EdgeView:
    n = e.node
    op = n.op_name()
    shape = list(walker.shapes[n]) + list(walker.shapes[e.to])
    local = jac
    if jac is not None and jac.size == 1:
        local = jac.reshape(())
    return EdgeView(op, n.fn_name, names.line(n), names.label(n), names.label(e.to), local, shape)


# -- why a gradient is zero ---------------------------------------------------------------------
ZERO_WORDS = {
    "relu": "relu of an input below zero",
    "clamp": "a saturated clamp (its input is outside [min, max])",
    "hardtanh": "a saturated hardtanh (its input is outside [min_val, max_val])",
    "maximum": "a maximum that picked the other input",
    "minimum": "a minimum that picked the other input",
    "max": "a max that picked another element",
    "min": "a min that picked another element",
    "abs": "abs at 0 (PyTorch's derivative there is 0)",
    "mul": "a multiplication by zero",
    "mul_scalar": "a multiplication by zero",
    "where": "a where() that picked the other input",
    "sign": "sign(), whose derivative is 0",
}


def _zero_reason(walker: Walker, names: _Names, total: int) -> str:
    """Every path crosses a zero local derivative (naming it), or the paths cancel out."""
    zero: set[int] = set()
    for n in walker.nodes:
        for e in walker.out[n]:
            jac = walker.jacobian(e)
            if jac is not None and not np.any(jac):
                zero.add(id(e))
    reached, stack = {walker.root}, [walker.root]
    cuts: list[EdgeRef] = []
    while stack:
        n = stack.pop()
        for e in walker.out.get(n, ()):
            if id(e) in zero:
                cuts.append(e)
            elif e.to not in reached:
                reached.add(e.to)
                stack.append(e.to)
    if walker.target in reached:
        return (f"the {_paths_word(total)} contributions cancel out: they add up to 0, but not "
                "every path crosses a zero local derivative")
    parts = []
    for e in sorted(cuts, key=lambda e: (names.line(e.node) or 0, e.node.seq)):
        op = e.node.op_name()
        what = ZERO_WORDS.get(op, f"{op} with a zero local derivative")
        line = names.line(e.node)
        at = f" on line {line}" if line is not None else ""
        parts.append(f"{what}{at}: d{names.label(e.node)}/d{names.label(e.to)} = 0")
    return "every path crosses a zero local derivative: " + "; ".join(dict.fromkeys(parts))


def _paths_word(total: int) -> str:
    return f"{total:,} paths'" if total != 1 else "path's"


def _cut_reason(result: Any, names: _Names, output: Any, target: Any) -> str:
    """Why no path leads from L back to W: W unused, or the dependency cut (a detach, no_grad,
    a non-differentiable op), naming the line."""
    of, wrt, w = output.name, target.name, target.tensor
    records = names.records
    lid = output_record(result, output)
    if lid is None or not records:
        return f"{of} does not depend on {wrt}"
    dep = [False] * len(records)  # the record depends on W (forward, ignoring grad)
    via_detach = [False] * len(records)
    counters: dict[int, int] = {}  # id(version counter) -> a record depending on W
    for i, r in enumerate(records):
        if r.tensor is w:
            dep[i] = True
        elif r.op is None and id(r.tensor._vc) in counters:
            dep[i] = via_detach[i] = True  # a detach() of a tensor that depends on W
        else:
            dep[i] = any(j is not None and dep[j] for j in r.inputs)
        if dep[i] and not via_detach[i]:
            counters.setdefault(id(r.tensor._vc), i)
    if not dep[lid]:
        return f"{wrt} is not on any path: {of} does not depend on {wrt}"
    cuts: list[str] = []
    opaque: list[str] = []  # non-differentiable ops on the way (argmax on line 28)
    seen, stack = {lid}, [lid]
    while stack and len(cuts) + len(opaque) < 3:
        i = stack.pop()
        r = records[i]
        line = names.rec_line(i)
        where = f"on line {line}" if line is not None else "in the script"
        label = names.rec_label(i, 2)
        if r.tensor is w:
            cuts.append(f"{wrt} does not require grad")
            continue
        if via_detach[i]:
            origin = names.rec_label(counters[id(r.tensor._vc)], 2)
            cuts.append(f"cut by detach() {where}: {names.operand(origin)}.detach() is a "
                        "constant")
            continue
        if r.op is not None and r.node is None and not r.grad_enabled:
            cuts.append(f"cut by no_grad {where}: {label} was computed without recording the "
                        "graph")
            continue
        if r.op is not None and r.node is None and any(
                j is not None and dep[j] and _requires_grad(records[j]) for j in r.inputs):
            if r.op == "detach":
                cuts.append(f"cut by detach() {where}: {label} is a constant")
            else:
                opaque.append(f"{r.op} {where}")
            continue
        for k, j in enumerate(r.inputs):
            if j is None or not dep[j] or j in seen:
                continue
            if records[j].tensor is w and (r.node is None or r.node.edges[k] is None):
                cuts.append(f"cut {where}: {wrt} did not require grad yet when {label} used it "
                            "(requires_grad=False then)")
                continue
            seen.add(j)
            stack.append(j)
    through = ", ".join(dict.fromkeys(opaque))
    if opaque and not cuts:
        return (f"{wrt} is on a path to {of} only through a non-differentiable op ({through}), "
                "which passes no gradient")
    if opaque:
        cuts.append(f"through a non-differentiable op ({through})")
    if not cuts:
        return f"{wrt} is not on any path from {of}"
    return f"{wrt} is not on any path from {of}: " + "; ".join(dict.fromkeys(cuts))


def _requires_grad(r: Any) -> bool:
    """Whether a recorded state required grad when it was made."""
    return r.node is not None or (r.op is None and r.tensor.requires_grad)


def nondifferentiable(result: Any, output: Any, wrt: list) -> str | None:
    """Why an output that does not require grad depends on ``wrt`` only through ops that pass
    no gradient (``argmax on line 28``), from the graph records; None when it does not."""
    names = _Names(result)
    for target in wrt:
        why = _cut_reason(result, names, output, target)
        if "non-differentiable" in why:
            return why
    return None


def check_sum(ex: Explanation) -> bool:
    """Whether the listed contributions add up to the gradient (all paths listed)."""
    if not ex.paths:
        return not np.any(ex.grad)
    total = sum(np.asarray(p.contribution, dtype=np.float64) for p in ex.paths)
    return bool(np.allclose(total, ex.grad, rtol=1e-9, atol=1e-12))


__all__ = ["DEFAULT_TOP", "EdgeView", "Explanation", "PathView", "check_sum", "explain"]
