"""Running the backward graph: ``backward`` and ``grad`` with PyTorch's order and errors."""

from __future__ import annotations

import heapq
import importlib
import itertools
import operator
import os
from collections.abc import Sequence
from typing import Any

from ..errors import GradcliError, ScriptError
from . import ops as O
from .context import current
from .formulas import TENSOR_FORMULAS
from .graph import AccumulateGrad, Node, edge, sum_to
from .hooks import run_accumulated_hooks, run_post_hooks, run_pre_hooks, run_tensor_hooks
from .ops import ArrayFormulas
from .record import apply
from .tensor import Tensor

try:  # the backward's loop compiled (_backward.c), where the install could build it
    if os.environ.get("GRADCLI_PURE"):
        raise ImportError("GRADCLI_PURE is set")
    _loop: Any = importlib.import_module(f"{__package__}._backward")  # optional: by name
except ImportError:
    _loop = None

CREATE_GRAPH_MSG = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)


def backward_all(tensors: Sequence[Tensor], grad_tensors: Sequence[Any] | None = None,
                 retain_graph: bool | None = None, create_graph: bool = False,
                 inputs: Sequence[Tensor] | None = None) -> None:
    """As ``torch.autograd.backward``: accumulate into ``.grad`` of leaves and retained tensors.

    With ``inputs``, only those tensors' ``.grad`` are accumulated (a non-leaf among them is
    made to retain its grad first, as PyTorch does).
    """
    roots, grads = _roots(tensors, grad_tensors, create_graph)
    ctx = current()
    if ctx.on_backward is not None:
        ctx.on_backward(tensors)
    if create_graph:
        ctx.warn_once(CREATE_GRAPH_MSG)
    targets = None
    if inputs is not None:
        for t in inputs:
            if t.grad_fn is not None or not t.requires_grad:
                t.retain_grad()
        targets = [edge(t) for t in inputs]
    _run(roots, grads, retain_graph if retain_graph is not None else create_graph, create_graph,
         targets, accumulate=True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool = False,
         materialize_grads: bool = False) -> list:
    """As ``torch.autograd.grad``: gradients of ``outputs`` w.r.t. ``inputs``, nothing accumulated."""
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if grad_outputs is not None and isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    for t in inputs:
        if not isinstance(t, Tensor):
            raise ScriptError("grad(): inputs must be tensors", kind="TypeError")
        if not t.requires_grad:
            raise ScriptError("One of the differentiated Tensors does not require grad")
    roots, grads = _roots(outputs, grad_outputs, create_graph)
    targets = [edge(t) for t in inputs]
    got = _run(roots, grads, retain_graph if retain_graph is not None else create_graph,
               create_graph, targets, accumulate=False)
    result = []
    for i, (t, cap) in enumerate(zip(inputs, got)):
        g, version = cap if cap is not None else (None, 0)
        if g is None:
            if not (allow_unused or materialize_grads):
                raise ScriptError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                result.append(Tensor(t.backend.xp.zeros_like(t.data), t.backend))
            else:
                result.append(None)
        elif isinstance(g, Tensor):
            result.append(g)
        else:
            out = Tensor(t.backend.writable(g), t.backend)
            out._vc[0] = version
            result.append(out)
    return result


def _roots(tensors: Sequence[Tensor], grads: Sequence[Any] | None,
           create_graph: bool) -> tuple[list[Node], list]:
    roots, out = [], []
    for i, t in enumerate(tensors):
        if not t.requires_grad:
            raise ScriptError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        g = grads[i] if grads is not None and i < len(grads) else None
        if g is None:
            if t.numel() != 1:
                raise ScriptError("grad can be implicitly created only for scalar outputs")
            g = _one(t)
        else:
            if not isinstance(g, Tensor):
                raise ScriptError("gradients can be either Tensors or None, but got "
                                  f"{type(g).__name__}", kind="TypeError")
            if g.shape != t.shape:
                raise ScriptError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size({list(g.shape)}) "
                    f"and output[{i}] has a shape of torch.Size({list(t.shape)})."
                )
            g = g if create_graph else g.data
        if create_graph and not isinstance(g, Tensor):
            g = Tensor(g, t.backend)
        roots.append(edge(t))
        out.append(g)
    return roots, out


_ONES: dict = {}  # NumPy dtype -> a 0-d output's implicit gradient, 1 (an immutable scalar)


def _one(t: Tensor) -> Any:
    """The implicit gradient of a one-element output: ones like it; a 0-d NumPy one (a NumPy
    scalar, which nothing can write) made once per dtype."""
    data, backend = t.data, t.backend
    if data.shape or backend.name != "numpy":
        return backend.leaf_data(backend.xp.ones_like(data))
    one = _ONES.get(data.dtype)
    if one is None:
        one = _ONES[data.dtype] = backend.leaf_data(backend.xp.ones_like(data))
    return one


def _run(roots: list[Node], grads: list, retain_graph: bool, create_graph: bool,
         targets: list[Node] | None, accumulate: bool) -> list:
    """Execute the backward graph from ``roots`` in PyTorch's order (newest ready node first).

    Without ``targets`` every reachable node runs; with them only the nodes that lead to one.
    ``accumulate`` adds into ``.grad`` (``backward``) instead of capturing (``grad``).
    """
    # Dependencies: how many edges (among executed nodes) point into each node (_counts).
    # With targets: a node's mask when it differs from its own (no gradient for an input that
    # leads to no target), None for a node that sends none (a root that leads to no target)
    masks: dict[Node, Any] | None = None
    if targets is None:
        deps: dict[Node, int] = _counts(roots)
        will_run: Any = deps
        order = [n for n in deps if n.__class__ is not AccumulateGrad]
        order.sort(key=_SEQ, reverse=True)
    else:  # every reachable node, then which lead to a target and their dependencies
        will_run, deps, masks, order = _plan(_reach(roots), set(targets), set(roots))
    captured: dict[Node, Any] = {}
    buffers: dict[Node, Any] = {}
    adds: dict[Node, int] = {}  # in-place sums into a buffer (PyTorch bumps its version)
    # NOTE: PyTorch runs the newest ready node first (its sequence number), an AccumulateGrad
    # as soon as it is ready.  Every node is numbered after its inputs' nodes, so the newest
    # node not yet run is always ready: the nodes run in decreasing sequence numbers (``order``),
    # and only AccumulateGrads count their dependencies, to run at once when they are ready
    # (``ready``: by sequence number, as PyTorch's queue orders them).
    ready: list = []
    for n, g in zip(roots, grads):
        if n in buffers:
            buffers[n] = buffers[n] + g
        else:
            buffers[n] = g
            if n.__class__ is AccumulateGrad and deps.get(n, 0) == 0:
                heapq.heappush(ready, (n.seq, n))
    target_set = set(targets) if targets is not None else ()
    capture = targets is not None and not accumulate
    ctx = current()
    tracer = ctx.tracer  # NOTE: None unless `gradcli trace` runs: one test per event point

    def special(n: Node, g: Any) -> tuple | None:
        """A node the plain path below does not cover (a None gradient, hooks, a retained
        grad, a capture, a mask of its own; every node under create_graph or a trace): its
        gradients and mask, or None when it sends none on."""
        if g is None:  # a post-hook's None reached n by every path: it sends None on
            mask = n.mask if masks is None else masks.get(n, n.mask)
            return None if mask is None else ([None] * len(mask), mask)
        hooks = n.hooks
        if hooks is not None:
            g = run_tensor_hooks(n, g, create_graph)
        if n.retained is not None:  # retain_grad() fires in autograd.grad() too
            before = _grad_array(n.retained) if tracer is not None else None
            _retain(n.retained, g, create_graph)
            if tracer is not None:
                tracer.accumulate(n.retained, before, _grad_array(n.retained), True)
        if capture and n in target_set:
            captured[n] = (g, adds.get(n, 0))
        if n.__class__ is AccumulateGrad:
            if accumulate:
                before = _grad_array(n.variable) if tracer is not None else None
                _accumulate(n.variable, g, create_graph, adds.get(n, 0))
                if tracer is not None:
                    tracer.accumulate(n.variable, before, _grad_array(n.variable), False)
                if hooks is not None and hooks.accumulated:
                    run_accumulated_hooks(n)
            return None
        mask = n.mask
        if masks is not None and n in masks:
            mask = masks[n]
            if mask is None:
                if accumulate and not retain_graph:
                    # NOTE: an input of backward(inputs=) runs, with no output
                    if tracer is None:
                        n.free()
                    else:
                        _free_traced(n, tracer)
                return None
        if hooks is None:
            return _apply(ctx, n, g, mask, create_graph), mask
        g = run_pre_hooks(n, g, create_graph)
        return run_post_hooks(n, _apply(ctx, n, g, mask, create_graph), g, create_graph), mask

    # the nodes special() takes whatever their hooks: every node when the plain path is off
    slow = tracer is not None or create_graph
    marked = (set(masks) if masks is not None else set()) | (target_set if capture else set())
    if tracer is not None:
        tracer.backward_begin(roots, retain_graph, create_graph, targets)
    prev_mode, ctx.grad_enabled = ctx.grad_enabled, create_graph  # GradMode, inline
    prev_task, ctx.graph_task = ctx.graph_task, GraphTask(will_run, target_set if capture else ())
    at: list = [None]  # the node running, for anomaly mode's report of a failure
    try:
        if _loop is not None and not slow:  # the same loop compiled (engine/_backward.c)
            _loop.run(order, ready, buffers, adds, deps, marked, special, ctx, accumulate,
                      retain_graph, at)
        else:
            _plain(order, ready, buffers, adds, deps, marked, special, ctx, accumulate,
                   retain_graph, at, slow)
    except GradcliError:
        if ctx.anomaly and at[0] is not None:
            _anomaly_warning(ctx, at[0])
        raise
    finally:
        ctx.grad_enabled = prev_mode
        ctx.graph_task = prev_task
        if tracer is not None:
            tracer.backward_end()
    if not capture:
        return []
    return [captured.get(t) for t in targets]


def _plain(order: list, ready: list, buffers: dict, adds: dict, deps: dict, marked: set,
           special: Any, ctx: Any, accumulate: bool, retain_graph: bool, at: list,
           slow: bool) -> None:
    """The loop of ``_run``: its nodes in order (an AccumulateGrad as soon as it is ready),
    each one's gradient sent along its edges into the buffers of the next.  A node without
    hooks, retained grad, capture or mask of its own takes the plain path here (the formulas on
    arrays; an AccumulateGrad's sum into ``.grad``); the rest, and every node when ``slow``
    (create_graph, a trace), go through ``special``.  engine/_backward.c is this loop for
    ``slow`` False, step for step."""
    tracer = ctx.tracer
    fx_backend = fx = None  # the formulas on arrays of the last node's backend
    heappush, heappop = heapq.heappush, heapq.heappop
    k, count = 0, len(order)
    while True:
        if ready:
            n = heappop(ready)[1]
        elif k < count:
            n = order[k]
            k += 1
        else:
            return
        at[0] = n
        g = buffers.pop(n, _NONE)
        if g is _NONE:  # sent no gradient (not reached through a needed edge): never ready
            continue
        if slow or g is None or n.hooks is not None or n.retained is not None or n in marked:
            done = special(n, g)
            if done is None:
                continue
            grads_in, mask = done
        elif n.__class__ is AccumulateGrad:
            if accumulate:
                _accumulate(n.variable, g, False, adds.get(n, 0))
            continue
        else:
            mask = n.mask
            backend = n.backend
            if backend is not fx_backend:
                fx_backend, fx = backend, _array_formulas(backend)
            grads_in = n.apply(g, mask, fx, False)
        if ctx.anomaly and ctx.anomaly_nan:
            _check_nan(n, grads_in)
        if not retain_graph:
            if tracer is None:
                n.free()
            else:
                _free_traced(n, tracer)
        i = -1
        for m, gi, use in zip(n.edges, grads_in, mask):
            i += 1
            if not use:
                continue
            if tracer is not None:
                tracer.edge(n, i, m, gi)
            prev = buffers.get(m, _NONE)
            if prev is _NONE or prev is None:
                buffers[m] = gi
            elif gi is not None:
                buffers[m] = prev + gi
                adds[m] = adds.get(m, 0) + 1
            if m.__class__ is AccumulateGrad:
                left = deps[m] - 1
                deps[m] = left
                if left == 0:
                    heappush(ready, (m.seq, m))


class GraphTask:
    """One backward run, as hooks see it (PyTorch's ``_current_graph_task_id`` and
    ``_will_engine_execute_node``): an id, and the nodes it will execute (with ``inputs`` or
    ``autograd.grad``, those that lead to one; else every reachable node)."""

    __slots__ = ("capture", "id", "nodes")

    def __init__(self, nodes: Any, capture: bool) -> None:
        self.id = next(_TASK_IDS)
        self.nodes, self.capture = nodes, capture  # an autograd.grad's inputs' nodes

    def will_execute(self, node: Node) -> bool:
        """Whether the backward will run ``node`` (its tensor hooks among it)."""
        if node in self.capture and node.__class__ is AccumulateGrad:
            raise ScriptError("A leaf node was passed to _will_engine_execute_node but we are "
                              "currently running autograd.grad(). This is currently not "
                              "supported.")
        return node in self.nodes


_TASK_IDS = itertools.count()


def _check_nan(n: Node, grads_in: Sequence[Any]) -> None:
    """Anomaly mode's check of a node's gradients: PyTorch's error for a NaN in one."""
    xp = n.backend.xp
    for i, g in enumerate(grads_in):
        data = g.data if isinstance(g, Tensor) else g
        if data is not None and hasattr(data, "dtype") and xp.any(xp.isnan(data)):
            raise ScriptError(f"Function '{n.fn_name}' returned nan values in its {i}th output.")


def _anomaly_warning(ctx: Any, n: Node) -> None:
    """Anomaly mode's warning for the node whose backward failed: the forward frames that
    made it (recorded while anomaly mode was on), as Python's traceback shows them."""
    frames = ctx.anomaly_traces.get(n.seq)
    if not frames:
        ctx.warn(f"Error detected in {n.fn_name}. No forward pass information available. "
                 "Enable detect anomaly during forward pass for more information.")
        return
    ctx.warn(f"Error detected in {n.fn_name}. Traceback of forward call that caused the error:\n"
             + "".join(frames).rstrip("\n"))


def _free_traced(n: Node, tracer: Any) -> None:
    """Free a node's saved tensors, telling the tracer when it had any."""
    if not n.freed:
        n.free()
        if n.freed:
            tracer.free(n)


def _grad_array(t: Tensor) -> Any:
    """A copy of ``t.grad``'s values (accumulation later writes into the array in place)."""
    g = t._grad
    return None if g is None else t.backend.xp.asarray(g.data, copy=True)


def _apply(ctx: Any, n: Node, g: Any, mask: Sequence[bool], create_graph: bool) -> list:
    """Run one node's formulas: on arrays, or as recorded ops under create_graph=True."""
    if not create_graph:
        return n.apply(g, mask, _array_formulas(n.backend), False)
    prev, ctx.formula_mode = ctx.formula_mode, True
    try:
        return n.apply(g, mask, TENSOR_FORMULAS, True)
    finally:
        ctx.formula_mode = prev


def _array_formulas(backend: Any) -> ArrayFormulas:
    """The op table's formulas on ``backend``'s arrays, made once per backend."""
    fx = backend.formulas
    if fx is None:
        fx = backend.formulas = ArrayFormulas(backend.xp)
    return fx


def backward(self: Tensor, gradient: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """``Tensor.backward``: accumulate d(self)/d(leaf) into the ``.grad`` of every leaf."""
    grads = None if gradient is None else _tensors(gradient)
    if grads is not None:
        g = grads[0] if grads else None
        if g is not None and not isinstance(g, Tensor):  # checked before the count, as PyTorch
            raise ScriptError("gradients can be either Tensors or None, but got "
                              f"{type(g).__name__}", kind="TypeError")
        if not grads:
            raise ScriptError("got 1 tensors and 0 gradients")
        grads = grads[:1]  # NOTE: PyTorch zips gradients with outputs: extra ones are ignored
    backward_all([self], grads, retain_graph, create_graph,
                 None if inputs is None else input_list(inputs, "backward"))


def _tensors(value: Any) -> list:
    """PyTorch's ``_tensor_or_tensors_to_tuple``: a tensor, or an iterable of them."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple, str)):  # tuple(value): a string is iterable too
        return list(value)
    raise ScriptError(f"'{type(value).__name__}' object is not iterable", kind="TypeError")


def input_list(inputs: Any, caller: str) -> list[Tensor]:
    """The ``inputs=`` of ``backward``/``grad`` as a list, with PyTorch's errors."""
    items = _tensors(inputs)
    if not items:
        raise ScriptError(f"`inputs` argument to `{caller}()` cannot be empty.")
    for t in items:
        if not isinstance(t, Tensor):
            raise ScriptError("all inputs have to be Tensors or GradientEdges, but got "
                              f"{type(t).__name__}")
    return items


def _counts(roots: list) -> dict:
    """How many edges (among the nodes reachable from ``roots``) point into each node; the
    roots start at 0, so a root also reached from another root is counted, not walked again."""
    if _loop is not None:  # the same walk compiled (engine/_backward.c)
        return _loop.counts(roots)
    stack = list(dict.fromkeys(roots))
    deps = dict.fromkeys(stack, 0)
    while stack:
        n = stack.pop()
        for m in n.edges:
            if m is not None:
                if m in deps:
                    deps[m] += 1
                else:
                    deps[m] = 1
                    stack.append(m)
    return deps


def _reach(roots: list) -> dict:
    """Every node reachable from ``roots`` (keys of a dict, in the order a walk meets them)."""
    if _loop is not None:  # the same walk compiled (engine/_backward.c)
        return _loop.reach(roots)
    stack = list(dict.fromkeys(roots))
    seen = dict.fromkeys(stack)
    pop, push = stack.pop, stack.append
    while stack:
        for m in pop().edges:
            if m is not None and m not in seen:
                seen[m] = None
                push(m)
    return seen


def _plan(nodes: Any, targets: set, roots: set) -> tuple[set, dict, dict, list]:
    """For a backward to ``targets`` over the reachable ``nodes``: (the nodes from which some
    target is reachable, targets included; how many edges among them point into each
    AccumulateGrad (the only nodes that count them); the masks that differ from a node's
    own, None for a node that sends no gradient; the nodes that run but AccumulateGrads, the
    roots and those leading to a target, newest first).

    Sequence numbers are a topological order (a node is numbered after its inputs' nodes), so
    one pass in increasing order decides every node after all of its successors.
    """
    needed = set(targets)
    if _loop is not None:  # the same pass compiled (engine/_backward.c)
        return (needed, *_loop.plan(nodes, needed, roots))  # (sorted there by seq)
    deps: dict[Node, int] = {}
    masks: dict[Node, Any] = {}
    run = []
    for n in sorted(nodes, key=_SEQ):
        found = n in needed
        mask = None
        i = -1
        for m in n.edges:
            i += 1
            if m is not None:  # n.mask[i] is True
                if m in needed:  # then n leads to a target too: count the edge
                    found = True
                    if m.__class__ is AccumulateGrad:
                        deps[m] = deps.get(m, 0) + 1
                else:
                    if mask is None:
                        mask = list(n.mask)
                    mask[i] = False
        if found:
            needed.add(n)
            if n.__class__ is not AccumulateGrad:
                run.append(n)
            if mask is None:
                if True in n.mask:
                    continue
            elif True in mask:
                masks[n] = mask
                continue
        elif n in roots and n.__class__ is not AccumulateGrad:
            run.append(n)
        masks[n] = None
    run.reverse()
    return needed, deps, masks, run


_SEQ = operator.attrgetter("seq")
_NONE = object()  # no gradient buffered for a node yet


def _copy(g: Tensor) -> Tensor:
    return Tensor(g.backend.writable(g.backend.xp.asarray(g.data, copy=True)), g.backend)


def _retain(t: Tensor, g: Any, create_graph: bool) -> None:
    """``retain_grad()``'s hook: a copy of ``g``, then out-of-place sums (a new tensor each time).

    NOTE: PyTorch 2.13 accumulates here too, but never in place: a ``.grad`` read before a
    second backward keeps its value.
    """
    if create_graph:
        g = g if isinstance(g, Tensor) else Tensor(g, t.backend)
        if t._grad is not None:
            t._grad = t._grad + g
        else:
            t._grad = apply(O.CLONE, (g,)) if g.requires_grad else _copy(g)
        return
    if isinstance(g, Tensor):
        g = g.data
    xp = t.backend.xp
    new = xp.asarray(g, copy=True) if t._grad is None else t._grad.data + g
    t._grad = Tensor(t.backend.writable(new), t.backend)


def _accumulate(t: Tensor, g: Any, create_graph: bool, adds: int = 0) -> None:
    """Add ``g`` into ``t.grad`` in place, as AccumulateGrad does (bumping its version)."""
    if create_graph:
        g = g if isinstance(g, Tensor) else Tensor(g, t.backend)
        if t._grad is not None:
            t._grad = t._grad + g
        elif g.requires_grad:
            out = apply(O.COPY, (Tensor(g.data, g.backend), g))
            out.data = g.backend.writable(g.backend.xp.asarray(out.data, copy=True))
            t._grad = out
        else:
            t._grad = _copy(g)
        return
    if isinstance(g, Tensor):
        g = g.data
    if t._grad is None:
        t._grad = Tensor(t.backend.xp.asarray(g, copy=True), t.backend)
        t._grad.data = t.backend.writable(t._grad.data)
        t._grad._vc[0] = adds
    else:
        t._grad.data[...] = t._grad.data + g
        t._grad._vc[0] += 1


if _loop is not None:  # what the compiled loop calls: the same as _plain's
    # (and for a Node of the class exactly, its apply and free in C: the slots they read; the
    # loop and the walks read a Node's or an AccumulateGrad's fields from their slots too)
    _node_slots = ("op", "saved", "shapes", "freed", "freed_by", "dtypes", "params", "backend",
                   "edges", "hooks", "mask", "retained", "seq")
    _loop.setup(AccumulateGrad, _accumulate, _array_formulas, _check_nan, heapq.heappush,
                heapq.heappop, (Node, tuple(getattr(Node, n) for n in _node_slots), O.GRAD_ONLY,
                                sum_to, Tensor))
