"""Engine graph → plain host-side records with stable numbering, for every renderer.

Nothing here imports Rich or Typer, and nothing keeps a reference to a device array: values are
NumPy arrays (through ``backend.to_host``), so renderers only format.

Naming (docs/language.md): every tensor *state* the run recorded gets the name of the top-level
binding it belongs to.  The states of one name are its bindings in order, and within a binding
the tensor's in-place updates in order; the last state is ``y``, earlier ones ``y#1``, ``y#2`` …
(so ``h = x * 2; h += 1`` lists ``h#1`` for ``MulBackward0`` and ``h`` for ``AddBackward0``).
Tensors inside a bound list (``g = grad(L, [a, b])``) are named ``g[0]``, ``g[1]``.  A state
bound to several names takes a final name over an older one, then the first bound.

The backward view numbers grad_fn nodes in depth-first preorder from the output's node (0),
following ``next_functions`` in order, so ``--tree`` reads #0, #1, #2 … top to bottom and the
numbers are the same on every run.
"""

from __future__ import annotations

from typing import Any

from .engine import AccumulateGrad, Node, Tensor
from .engine.backend import to_host
from .engine.tensor import Size
from .errors import GradcliError
from .script.printing import Printer, node_name, type_name


# The records are plain classes, not dataclasses: ``dataclass`` compiles each class's
# ``__init__`` from source at every start of the process (about 5 ms for these seven, on every
# command, listing or not). ``changed`` is ``dataclasses.replace``'s.
class TensorView:
    """A tensor's host-side state, as docs/commands.md describes it."""

    def __init__(self, shape: list[int], dtype: str, data: Any, requires_grad: bool,
                 is_leaf: bool, grad_fn: str | None, grad: Any, version: int,
                 retains_grad: bool = False) -> None:
        self.shape = shape
        self.dtype = dtype
        self.data = data  # numpy array
        self.requires_grad = requires_grad
        self.is_leaf = is_leaf
        self.grad_fn = grad_fn
        self.grad = grad  # numpy array or None
        self.version = version
        self.retains_grad = retains_grad


class PlainView:
    """A binding that is not a tensor: a number, a bool, a function, a list, None."""

    def __init__(self, type: str, value: Any) -> None:
        self.type = type
        self.value = value


class SavedView:
    """One tensor (or wrapped number) a backward node saved."""

    def __init__(self, name: str, freed: bool, shape: list[int] | None = None,
                 value: Any = None, tensor: str | None = None, stale: bool = False) -> None:
        self.name = name
        self.freed = freed
        self.shape = shape
        self.value = value  # a Python number for a wrapped scalar, else None
        self.tensor = tensor  # the script name of the saved tensor, while it is kept
        self.stale = stale  # modified in place since it was saved: a backward through it fails


class GraphNode:
    """One recorded tensor state (docs/commands.md ``graph`` node)."""

    def __init__(self, id: int, name: str | None, op: str | None, grad_fn: str | None,
                 inputs: list[int], shape: list[int], requires_grad: bool, is_leaf: bool,
                 data: Any, grad: Any, saved: list[SavedView], inplace: bool = False,
                 retains_grad: bool = False, line: int | None = None,
                 column: int | None = None, step: int = 0, dtype: str = "float64",
                 d_output: Any = None, rnn_step: tuple | None = None, count: int = 1,
                 layer: str | None = None, tangent: Any = None) -> None:
        self.id = id
        self.name = name
        self.op = op
        self.grad_fn = grad_fn
        self.inputs = inputs
        self.shape = shape
        self.requires_grad = requires_grad
        self.is_leaf = is_leaf
        self.data = data
        self.grad = grad
        self.saved = saved
        self.inplace = inplace
        self.retains_grad = retains_grad
        self.line = line  # where the script created this state (its statement)
        self.column = column
        self.step = step  # which execution of that statement (the run's statement count then)
        self.dtype = dtype  # its own (an int64 index, a bool mask), not the run's default
        self.d_output = d_output  # --wrt: d(output)/d(this tensor), as `grad` computes it
        # (mode, layer, direction, step, weights): an RNN layer's
        self.rnn_step = rnn_step
        self.count = count  # --rolled: how many nodes (a recurrent layer: calls) it stands for
        self.layer = layer  # --rolled: the recurrent layer it stands for
        self.tangent = tangent  # forward-mode AD: the tangent a dual level carried here (host)

    @property
    def op_label(self) -> str | None:
        """The op as listings name it: ``sub_`` for an in-place ``sub``, ``zero_`` as is."""
        if self.op is None or not self.inplace or self.op.endswith("_"):
            return self.op
        return self.op + "_"


class GraphView:
    """Every recorded tensor state in topological order, and the output's id."""

    def __init__(self, nodes: list[GraphNode], output: int | None, dtype: str,
                 context: list[GraphNode] | None = None, output_name: str | None = None,
                 seeded: str | None = None) -> None:
        self.nodes = nodes
        self.output = output
        self.dtype = dtype
        self.context = [] if context is None else context  # inputs a scope left out
        self.output_name = output_name  # what d_output is the derivative of
        # --mode forward: the --wrt whose tangent was seeded (a label)
        self.seeded = seeded


class BackwardNode:
    """One grad_fn node reached from the output (AccumulateGrad nodes carry the leaf)."""

    def __init__(self, id: int, name: str, next: list[int | None], saved: list[SavedView],
                 tensor: str | None = None, variable: TensorView | None = None,
                 variable_name: str | None = None, record: int | None = None,
                 line: int | None = None, column: int | None = None, step: int = 0,
                 d_output: Any = None, rnn_step: tuple | None = None) -> None:
        self.id = id
        self.name = name
        self.next = next
        self.saved = saved
        self.tensor = tensor  # the script name of the tensor whose grad_fn this is
        self.variable = variable  # AccumulateGrad: the leaf
        self.variable_name = variable_name
        self.record = record  # the graph record of its tensor (AccumulateGrad: the leaf's)
        self.line = line  # where the script created that tensor
        self.column = column
        self.step = step
        # --wrt: d(output)/d(its tensor, or its leaf), as `grad` computes it
        self.d_output = d_output
        # (mode, layer, direction, step, weights): an RNN layer's
        self.rnn_step = rnn_step


class BackwardView:
    """The grad_fn graph of the output, numbered from the output's node."""

    def __init__(self, nodes: list[BackwardNode], output: str | None,
                 output_tensor: TensorView | None, root: int | None,
                 extra: dict[str, Any] | None = None,
                 context: list[BackwardNode] | None = None) -> None:
        self.nodes = nodes
        self.output = output
        self.output_tensor = output_tensor
        self.root = root
        self.extra = {} if extra is None else extra
        self.context = [] if context is None else context  # next nodes a scope left out


def changed(record: Any, **fields: Any) -> Any:
    """A copy of a view record with ``fields`` replaced (``dataclasses.replace`` for these
    plain classes); an unknown field is a TypeError, as there."""
    unknown = fields.keys() - record.__dict__.keys()
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {min(unknown)!r}")
    new = object.__new__(type(record))
    new.__dict__.update(record.__dict__)
    new.__dict__.update(fields)
    return new


def tensor_view(t: Tensor) -> TensorView:
    """A tensor's values and flags on the host."""
    g = t.stored_grad
    return TensorView(
        shape=list(t.data.shape), dtype=t.dtype.name, data=to_host(t.data),
        requires_grad=bool(t.requires_grad), is_leaf=t.is_leaf,
        grad_fn=t.grad_fn.fn_name if t.grad_fn is not None else None,
        grad=to_host(g.data) if g is not None else None, version=t.version,
        retains_grad=t.retains_grad)


MAX_VIEW_DEPTH = 100  # lists in lists shown; deeper ones as [...] (renderers recurse)


def value_view(value: Any, _inside: frozenset[int] = frozenset()) -> TensorView | PlainView | list:
    """Any binding value as a view: tensors, numbers, lists of them, and the rest by type."""
    if isinstance(value, Tensor):
        return tensor_view(value)
    if isinstance(value, bool):
        return PlainView("bool", value)
    if isinstance(value, int):
        return PlainView("int", value)
    if isinstance(value, float):
        return PlainView("float", value)
    if value is None:
        return PlainView("NoneType", None)
    if isinstance(value, Node):
        return PlainView("grad_fn", node_name(value))
    if isinstance(value, Size):  # x.shape
        return PlainView("Size", [int(v) for v in value])
    if isinstance(value, (list, tuple)):  # x.max(dim), torch.where(condition), a, b = ...
        if id(value) in _inside or len(_inside) >= MAX_VIEW_DEPTH:  # contains itself, or deep
            return PlainView(type(value).__name__, "[...]")
        inside = _inside | {id(value)}
        return [value_view(v, inside) for v in value]
    if isinstance(value, str):
        return PlainView("str", value)
    name = getattr(value, "name", None)  # the runtime's user function: a def's name
    if isinstance(name, str) and getattr(type(value), "script_type", None) == "function":
        return PlainView("function", name)
    try:
        text = Printer().repr(value)
    except GradcliError:  # nested past the printer's depth: a view never fails
        text = f"<{type_name(value)}>"
    return PlainView(type_name(value), text)


def bindings_view(result: Any) -> dict[str, Any]:
    """The final top-level bindings, in first-binding order."""
    return {name: value_view(v) for name, v in result.bindings.items()}


def _saved(node: Any, names: dict[int, str] | None = None,
           own: str | None = None) -> list[SavedView]:
    """What a node saved; ``names`` maps id(tensor) to a script name, ``own`` names its output."""
    out = []
    for s in (node.saved_tensors() if node is not None else ()):
        number = s.value if s.tensor is None and not s.is_output and not s.freed \
            and isinstance(s.value, (int, float)) else None
        label = own if s.is_output else (names or {}).get(id(s.tensor)) \
            if s.tensor is not None else None
        out.append(SavedView(s.name, bool(s.freed), list(s.shape), number, label,
                             bool(s.stale)))
    return out


def _tensor_names(result: Any, names: dict[int, str]) -> dict[int, str]:
    """id(tensor) → the name of its latest named state."""
    out: dict[int, str] = {}
    for rid in sorted(names):
        out[id(result.records[rid].tensor)] = names[rid]
    return out


def record_names(result: Any) -> dict[int, str]:
    """Record id → script name (``y``, ``y#1``, ``g[0]``), per the module docstring.

    Top-level names come first, then the modules' parameters (``model.0.weight``, as
    ``named_parameters()`` and ``--wrt`` say them), then items of top-level containers
    (``params[0]``), then the names functions bound
    (``f:x``; plain ``x`` in the function the output was made in, main() of a script that
    works there).  Linear in records and bindings: a tensor bound again under the same name
    adds no state (all of its states were taken the first time), so each (name, tensor) pair
    is walked once.
    """
    from . import targets

    records = result.records or []
    states: dict[int, list[int]] = {}  # id(tensor) → its record ids, in order
    for i, r in enumerate(records):
        states.setdefault(id(r.tensor), []).append(i)
    params: dict[str, list[tuple[str, int]]] = {
        label: [(label, key)] for key, label in targets.parameter_names(result).items()}
    home = targets.home(result)
    local: dict[str, list[tuple[str, int]]] = {}
    for label, entries in (result.local or {}).items():
        fn, _, name = label.partition(":")
        shown = name if fn == home else label
        local.setdefault(shown, []).extend((shown, key) for _, key in entries)
    # a name the script bound (``w``) first, then a parameter's module path
    # (``net.conv1.weight``), then an item of a bound container (``params[0]``)
    top = list((result.bound or {}).values())
    named = [[e for e in b if e[0].isidentifier()] for b in top]
    items = [[e for e in b if not e[0].isidentifier()] for b in top]
    best: dict[int, tuple] = {}
    order = 0
    for bound in [*named, *params.values(), *items, *local.values()]:
        walked: set[int] = set()
        per_label: dict[str, list[int]] = {}
        for label, key in bound:
            if key in walked:
                continue
            walked.add(key)
            rids = states.get(key)
            if rids:
                per_label.setdefault(label, []).extend(rids)
        for label, rids in per_label.items():
            last = len(rids) - 1
            for k, rid in enumerate(rids):
                shown = label if k == last else f"{label}#{k + 1}"
                key = (k != last, order, shown)
                order += 1
                if rid not in best or key < best[rid]:
                    best[rid] = key
    return {rid: key[2] for rid, key in best.items()}


def output_record(result: Any, out: Any) -> int | None:
    """The record id of the output's tensor (``targets.Target``; its latest state)."""
    if out is None or not result.records:
        return None
    t = out.tensor
    for i in range(len(result.records) - 1, -1, -1):
        if result.records[i].tensor is t:
            return i
    return None


def state_data(result: Any, r: Any) -> Any:
    """The values of a recorded tensor state: kept when an in-place update overwrote them
    (the record's copy, or engine/history.py's for an optimizer's step), else the tensor's."""
    if r.data is not None:
        return r.data
    t = r.tensor
    if r.version != t._vc[0] and result.history is not None:
        old = result.history.value(t._vc, r.version, t)
        if old is not None:
            return old
    return t.data


def graph_view(result: Any, out: Any) -> GraphView:
    """Every recorded tensor state as a numbered node (docs/commands.md ``graph``)."""
    records = result.records or []
    names = record_names(result)
    by_tensor = _tensor_names(result, names)
    latest: dict[int, int] = {}
    for i, r in enumerate(records):
        latest[id(r.tensor)] = i
    nodes = []
    for i, r in enumerate(records):
        t = r.tensor
        current = latest[id(t)] == i
        inputs = [j for j in r.inputs if j is not None]
        inplace = bool(r.inputs) and r.inputs[0] is not None and \
            records[r.inputs[0]].tensor is t
        data = state_data(result, r)
        dtype = t.backend.dtype_of(data).name
        data = to_host(data)
        is_leaf = r.grad_fn is None
        requires_grad = r.node is not None or (is_leaf and t.is_leaf and t.requires_grad)
        grad = t.stored_grad if current else None
        nodes.append(GraphNode(
            id=i, name=names.get(i), op=r.op, grad_fn=r.grad_fn, inputs=inputs,
            shape=list(data.shape), requires_grad=requires_grad, is_leaf=is_leaf, data=data,
            grad=to_host(grad.data) if grad is not None else None,
            saved=_saved(r.node, by_tensor, names.get(i)),
            inplace=inplace, retains_grad=current and t.retains_grad,
            line=r.span.line if r.span else None, column=r.span.column if r.span else None,
            step=r.step, dtype=dtype, rnn_step=r.rnn_step, tangent=r.tangent))
    dtype = result.backend.dtype_name if result.backend is not None else "float64"
    return GraphView(nodes, output_record(result, out), dtype)


def backward_view(result: Any, target: Any) -> BackwardView:
    """The output's (``targets.Target``) grad_fn graph: nodes reached through
    ``next_functions``, numbered."""
    if target is None:
        return BackwardView([], None, None, None)
    of, out = target.name, target.tensor
    names = record_names(result)
    by_tensor = _tensor_names(result, names)
    node_names: dict[int, str] = {}
    for rid, label in names.items():
        r = result.records[rid]
        if r.node is not None:
            node_names.setdefault(id(r.node), label)
    # AccumulateGrad adds into the leaf tensor itself, whatever in-place updates it had since:
    # it is named as the tensor is now (``w``), not by the state first recorded (``w#1``)
    leaf_names = by_tensor
    node_records: dict[int, int] = {}  # id(grad_fn or leaf tensor) → its first record
    for rid, r in enumerate(result.records or ()):
        node_records.setdefault(id(r.node) if r.node is not None else id(r.tensor), rid)
    root = out.grad_fn
    if root is None:
        return BackwardView([], of, tensor_view(out), None)
    reached = _reached(root)  # depth-first preorder along next_functions (the tree's order)
    number = {id(n): i for i, n in enumerate(reached)}
    nodes = []
    for i, n in enumerate(reached):
        bn = BackwardNode(
            id=i, name=n.fn_name, saved=_saved(n, by_tensor, node_names.get(id(n))),
            tensor=node_names.get(id(n)),
            next=[number[id(m)] if m is not None else None for m in n.edges])
        if isinstance(n, AccumulateGrad):
            bn.variable = tensor_view(n.variable)
            bn.variable_name = leaf_names.get(id(n.variable))
        rid = node_records.get(id(n.variable) if isinstance(n, AccumulateGrad) else id(n))
        if rid is not None:
            span = result.records[rid].span
            bn.record, bn.step = rid, result.records[rid].step
            if not isinstance(n, AccumulateGrad):
                bn.rnn_step = result.records[rid].rnn_step
            bn.line, bn.column = (span.line, span.column) if span else (None, None)
        nodes.append(bn)
    return BackwardView(nodes, of, tensor_view(out), 0)


def with_gradients(view: Any, result: Any, out: Any, grads: list[tuple[Any, Any]]) -> Any:
    """``view`` with d(out)/dW on the nodes of each (target, gradient) of ``grads`` (``--wrt``
    on graph, dot and html): a tensor's latest state, a leaf's AccumulateGrad, a non-leaf's
    grad_fn."""
    latest: dict[int, int] = {}
    for i, r in enumerate(result.records or ()):
        latest[id(r.tensor)] = i
    by_record = {latest[id(t.tensor)]: to_host(g.data) for t, g in grads
                 if id(t.tensor) in latest}
    by_node = {id(t.tensor.grad_fn): to_host(g.data) for t, g in grads
               if t.tensor.grad_fn is not None}
    if isinstance(view, GraphView):
        view.output_name = out.name
        for n in view.nodes:
            if n.id in by_record:
                n.d_output = by_record[n.id]
        return view
    leaves = {id(t.tensor): to_host(g.data) for t, g in grads}
    for n, node in zip(view.nodes, _reached(out.tensor.grad_fn)):
        if isinstance(node, AccumulateGrad):
            n.d_output = leaves.get(id(node.variable))
        else:
            n.d_output = by_node.get(id(node))
    return view


def _reached(root: Any) -> list[Node]:
    """The grad_fn nodes from ``root`` in ``backward_view``'s numbering (depth-first
    preorder along next_functions)."""
    reached: list[Node] = []
    seen: set[int] = set()
    stack = [root] if root is not None else []
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        reached.append(n)
        stack.extend(m for m in reversed(n.edges) if m is not None)
    return reached


def span_dict(span: Any) -> dict[str, int | None]:
    """Line and column of a span (None when unknown)."""
    return {"line": span.line if span else None, "column": span.column if span else None}
