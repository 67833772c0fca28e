"""Chain-rule paths through a recorded graph: count them, and find the largest contributions.

A gradient dL/dW is the sum, over every path of edges from L's node back to W's, of the
path's vector-Jacobian product: start from dL/dL = 1 and apply each edge's backward formula
(one input of one node) in turn.  Backward is linear, so these contributions add up to what
``autograd.grad`` computes.

* Counting is dynamic programming over the nodes in topological order (``Node.seq``): the
  number of paths into a node is the sum over its incoming edges, exact as a Python int, so a
  60-level diamond answers 2**60 at once.
* "Largest" means the largest Euclidean (Frobenius) norm of the contribution, which for a
  scalar W is its absolute value.  When the paths are few enough, every one is computed and
  the ranking is exact.  Otherwise a best-first search pops partial paths by an upper bound
  on what any completion can reach: ``|g| * B(node)``, with ``B`` the largest product of edge
  spectral norms from that node to W (a DP too).  Since ``|J^T g| <= |J|_2 |g|``, a complete
  path popped from the queue is at least as large as every path not yet listed, so the K
  popped first are the K largest (ties within a relative 1e-9).  The search is budgeted;
  when the budget ends first, the answer says so and gives the bound that every unlisted path
  stays under.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import AccumulateGrad, CopySlices, Node
from ..engine.backend import to_host
from ..engine.custom import OutputSlot, Parts
from ..engine.ops import ArrayFormulas

ENUMERATE_WORK = 200_000  # path prefixes computed when every path is enumerated
SEARCH_POPS = 200_000  # partial paths expanded by the best-first search
JACOBIAN_ROWS = 4096  # larger outputs get no Jacobian (its spectral norm bounds nothing)
JACOBIAN_ENTRIES = 1 << 20
TIE = 1e-9  # bounds equal within this relative amount count as ties (rounding)


@dataclass
class EdgeRef:
    """One edge of the backward graph: input ``index`` of ``node`` flows into ``to``."""

    node: Node
    index: int
    to: Node


@dataclass
class PathResult:
    """A path from L's node to W's, as edges, with its contribution (an array of W's shape)."""

    edges: list[EdgeRef]
    contribution: Any
    norm: float


@dataclass
class Decomposition:
    """The paths between two nodes of a backward graph, counted and ranked."""

    nodes: list[Node]  # every node on some path, root first (topological order)
    edges: list[EdgeRef]  # every edge on some path
    shapes: dict[Node, tuple]  # each node's output shape (the gradient flowing into it)
    paths_total: int
    paths: list[PathResult] = field(default_factory=list)
    exact: bool = True
    bound: float | None = None  # every unlisted path's norm is <= bound (None: none unlisted)
    examined: int = 0  # partial paths computed


class Walker:
    """The subgraph between ``root`` and ``target`` and the vector-Jacobian products on it."""

    def __init__(self, root: Node, root_shape: tuple, target: Node) -> None:
        self.root, self.target = root, target
        self.shapes: dict[Node, tuple] = {root: tuple(root_shape)}
        reach: list[Node] = []
        out: dict[Node, list[EdgeRef]] = {}
        stack, seen = [root], {root}
        while stack:
            n = stack.pop()
            reach.append(n)
            if n is target:
                continue  # the paths end here: what lies beyond W does not matter
            for i, m in enumerate(n.main.edges if n.__class__ is OutputSlot else n.edges):
                if m is None:
                    continue
                out.setdefault(n, []).append(EdgeRef(n, i, m))
                self.shapes.setdefault(m, _input_shape(n, i, self.shapes[n]))
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
        # sequence numbers are a topological order: consumers are numbered after their inputs
        reach.sort(key=lambda n: -n.seq if n is not target else math.inf)
        on_path = {target} if target in seen else set()
        for n in reversed(reach):
            if n is not target and any(e.to in on_path for e in out.get(n, ())):
                on_path.add(n)
        self.nodes = [n for n in reach if n in on_path]
        self.out = {n: [e for e in out.get(n, ()) if e.to in on_path] for n in self.nodes}
        self._fx: dict[int, Any] = {}

    @property
    def connected(self) -> bool:
        """Whether some path leads from the root to the target."""
        return bool(self.nodes)

    def count(self) -> dict[Node, int]:
        """The number of paths from the root into each node (exact integers)."""
        counts = dict.fromkeys(self.nodes, 0)
        if self.nodes:
            counts[self.root] = 1
        for n in self.nodes:
            c = counts[n]
            for e in self.out[n]:
                counts[e.to] += c
        return counts

    def vjp(self, e: EdgeRef, g: Any) -> Any:
        """The gradient ``g`` of node ``e.node``'s output carried to its input ``e.index``."""
        n = e.node
        fx = self._fx.get(id(n.backend))
        if fx is None:
            fx = n.backend.formulas or ArrayFormulas(n.backend.xp)
            self._fx[id(n.backend)] = fx
        if n.__class__ is OutputSlot:  # output i of a custom Function: its node with g as i's
            n, g = n.main, Parts({n.index: g})
        mask = [j == e.index for j in range(len(n.edges))]
        return n.apply(g, mask, fx, False)[e.index]

    def seed(self) -> Any:
        """dL/dL: ones of the root's shape."""
        be = self.root.backend
        return be.xp.ones(self.shapes[self.root], dtype=be.dtype)

    def jacobian(self, e: EdgeRef) -> Any:
        """d(output)/d(input) of one edge as a host array of shape out + in; None if too big."""
        out_shape, in_shape = self.shapes[e.node], self.shapes[e.to]
        n_out, n_in = math.prod(out_shape), math.prod(in_shape)
        if n_out > JACOBIAN_ROWS or n_out * n_in > JACOBIAN_ENTRIES:
            return None
        be = e.node.backend
        rows = []
        for k in range(n_out):
            basis = np.zeros(n_out)
            basis[k] = 1.0
            g = be.xp.asarray(basis.reshape(out_shape), dtype=be.dtype)
            rows.append(np.asarray(to_host(self.vjp(e, g)), dtype=np.float64).reshape(-1))
        jac = np.stack(rows) if rows else np.zeros((0, n_in))
        return jac.reshape(tuple(out_shape) + tuple(in_shape))


def _input_shape(n: Node, i: int, out_shape: tuple) -> tuple:
    """The shape of input ``i`` of ``n`` (the gradient it sends there has this shape)."""
    if isinstance(n, CopySlices):
        return out_shape if i == 0 else tuple(n.fn.shapes[i])
    if isinstance(n, OutputSlot):
        return tuple(n.main.shapes[i])
    if isinstance(n, AccumulateGrad):  # pragma: no cover - sinks have no inputs
        return out_shape
    return tuple(n.shapes[i])


def norm(a: Any) -> float:
    """The Euclidean norm of a host or device array (abs for a number)."""
    h = np.asarray(to_host(a), dtype=np.float64)
    return float(np.sqrt(np.sum(h * h))) if h.size != 1 else abs(float(h.reshape(())))


def spectral(jac: Any, out_shape: tuple) -> float:
    """The spectral norm of an edge's Jacobian (inf when it was too big to build)."""
    if jac is None:
        return math.inf
    m = jac.reshape(math.prod(out_shape), -1)
    if m.size == 1:
        return abs(float(m.reshape(())))
    if m.shape[0] == 1 or m.shape[1] == 1:
        return float(np.sqrt(np.sum(m * m)))
    return float(np.linalg.norm(m, 2))


def decompose(walker: Walker, top: int) -> Decomposition:
    """Count the paths and find the ``top`` largest contributions (see the module docstring)."""
    counts = walker.count()
    total = counts.get(walker.target, 0)
    dec = Decomposition(walker.nodes, [e for n in walker.nodes for e in walker.out[n]],
                        walker.shapes, total)
    if not total or top <= 0:
        dec.bound = None if not total else math.inf
        return dec
    work = sum(counts.values())
    if work <= ENUMERATE_WORK:
        _enumerate(walker, dec, top)
    else:
        _search(walker, dec, top)
    return dec


def _enumerate(walker: Walker, dec: Decomposition, top: int) -> None:
    """Every path, depth first with shared prefixes; keep the ``top`` largest exactly."""
    best: list = []  # min-heap of (norm, tiebreak, path)
    tick = itertools.count()
    stack: list = [(walker.root, walker.seed(), None)]
    while stack:
        n, g, chain = stack.pop()
        dec.examined += 1
        if n is walker.target:
            item = (norm(g), -next(tick), chain, g)
            if len(best) < top:
                heapq.heappush(best, item)
            elif item[0] > best[0][0]:
                heapq.heapreplace(best, item)
            continue
        for e in reversed(walker.out[n]):
            stack.append((e.to, walker.vjp(e, g), (e, chain)))
    ranked = sorted(best, key=lambda it: (-it[0], -it[1]))
    dec.paths = [PathResult(_unchain(c), g, v) for v, _, c, g in ranked]
    rest = dec.paths_total - len(dec.paths)
    dec.bound = dec.paths[-1].norm if rest and dec.paths else None


def _search(walker: Walker, dec: Decomposition, top: int) -> None:
    """Best-first over partial paths, by an admissible bound on their completions."""
    gains = {id(e): spectral(walker.jacobian(e), walker.shapes[e.node])
             for n in walker.nodes for e in walker.out[n]}
    reach: dict[Node, float] = {walker.target: 1.0}  # B(node): best product of gains to W
    for n in reversed(walker.nodes):
        if n is not walker.target:
            reach[n] = max((gains[id(e)] * reach[e.to] for e in walker.out[n]), default=0.0)
    tick = itertools.count()
    g0 = walker.seed()
    heap = [(-_key(norm(g0) * reach[walker.root]), 0, next(tick), walker.root, g0, None)]
    found: list[PathResult] = []
    pops = 0
    while heap and len(found) < top and pops < SEARCH_POPS:
        _, depth, _, n, g, chain = heapq.heappop(heap)
        pops += 1
        if n is walker.target:
            found.append(PathResult(_unchain(chain), g, norm(g)))
            continue
        for e in walker.out[n]:
            gi = walker.vjp(e, g)
            bound = norm(gi) * reach[e.to]
            heapq.heappush(heap, (-_key(bound), depth - 1, next(tick), e.to, gi, (e, chain)))
    dec.examined = pops
    dec.paths = found
    if len(found) < min(top, dec.paths_total):  # the budget ran out first
        dec.exact = False
    dec.bound = -heap[0][0] if heap else None


def _key(bound: float) -> float:
    """A bound rounded to ~9 significant digits, so rounding noise does not break ties."""
    if bound == 0 or not math.isfinite(bound):
        return bound
    digits = 9 - math.floor(math.log10(abs(bound)))
    return round(bound, digits)


def _unchain(chain: Any) -> list[EdgeRef]:
    out = []
    while chain is not None:
        e, chain = chain
        out.append(e)
    out.reverse()
    return out
