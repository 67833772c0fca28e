"""The autograd engine: Tensor, Node, apply, backward and grad, with PyTorch's semantics.

No derivative formula lives here; they are in the op table (``ops.py``).  The engine records
one ``Node`` (PyTorch's ``grad_fn``) per differentiable op, saves exactly the tensors the op's
formulas read, frees them after a backward without ``retain_graph``, and checks versions of
saved tensors against in-place updates.
"""

from __future__ import annotations

import heapq
import warnings
from typing import Any, Callable, Iterable, Sequence

from .errors import ScriptError

_grad_enabled = True
_next_seq = 0
_EMPTY: dict = {}
# Set by the runtime: called as recorder(output, op, args, inplace) for every recorded op, and
# the tag (statement line, text) a backward stamps on the nodes it frees, for error hints.
recorder: Callable | None = None
free_tag: Any = None
# True while formulas run under create_graph=True: `tensor * number` there is PyTorch's C++
# Scalar overload (MulBackward1), not Python's wrapped number (MulBackward0).
formula_mode = False

RETAIN_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
NONLEAF_GRAD_MSG = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
SCALAR_CONVERSION_MSG = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)
ANOMALY_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


_warned_once: set[str] = set()


def warn_once(message: str) -> None:
    """A UserWarning PyTorch gives once per process (TORCH_WARN_ONCE); runs reset the memory."""
    if message not in _warned_once:
        _warned_once.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def is_grad_enabled() -> bool:
    """Whether ops are being recorded (False inside ``no_grad``)."""
    return _grad_enabled


class _GradMode:
    """Context manager that sets grad mode and restores the previous one (``no_grad``)."""

    __slots__ = ("mode", "prev")

    def __init__(self, mode: bool) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        global _grad_enabled
        self.prev, _grad_enabled = _grad_enabled, self.mode

    def __exit__(self, *exc: object) -> None:
        global _grad_enabled
        _grad_enabled = self.prev


def no_grad() -> _GradMode:
    """As ``torch.no_grad()``."""
    return _GradMode(False)


def enable_grad() -> _GradMode:
    """As ``torch.enable_grad()``."""
    return _GradMode(True)


class Tensor:
    """A float array with PyTorch's autograd attributes.

    ``_version`` is a one-element list shared by a tensor, its views and its ``detach()``-es, as
    PyTorch's version counter is.  ``_strides`` are PyTorch's strides in elements, or None for a
    contiguous tensor; they decide whether ``reshape`` can be a view, as in PyTorch.
    """

    __slots__ = (
        "data", "backend", "requires_grad", "grad_fn", "_grad", "_version", "_retains_grad",
        "_strides", "_base", "_view_fn", "_accumulator", "__weakref__",
    )

    def __init__(self, data: Any, backend: Any, requires_grad: bool = False,
                 grad_fn: Node | None = None) -> None:
        self.data = data
        self.backend = backend
        self.requires_grad = requires_grad
        self.grad_fn = grad_fn
        self._grad: Tensor | None = None
        self._version = [0]
        self._retains_grad = False
        self._strides: tuple[int, ...] | None = None
        self._base: Tensor | None = None
        self._view_fn: Callable | None = None  # replays this view from its base's array
        self._accumulator: AccumulateGrad | None = None

    # -- attributes -------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The shape as a tuple of ints."""
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.data.shape)

    def numel(self) -> int:
        """Number of elements."""
        n = 1
        for d in self.data.shape:
            n *= d
        return n

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user or not requiring grad (no ``grad_fn``)."""
        return self.grad_fn is None

    @property
    def version(self) -> int:
        """The in-place version counter (PyTorch's ``_version``)."""
        return self._version[0]

    @property
    def retains_grad(self) -> bool:
        """Whether ``retain_grad()`` was called on this non-leaf."""
        return self._retains_grad

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient; reading it on a non-leaf warns as PyTorch does."""
        if self.grad_fn is not None and not self._retains_grad:
            warnings.warn(NONLEAF_GRAD_MSG, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        self._grad = value

    def __len__(self) -> int:
        if not self.data.shape:
            raise ScriptError("len() of a 0-d tensor", kind="TypeError")
        return self.data.shape[0]

    def __repr__(self) -> str:
        from .reprs import format_tensor
        from .backend import to_host

        name = self.grad_fn.name if self.grad_fn is not None else None
        return format_tensor(to_host(self.data), grad_fn=name,
                             requires_grad=self.requires_grad and name is None,
                             dtype=self.backend.dtype_name, default_dtype=self.backend.dtype_name)

    # -- autograd methods -------------------------------------------------------------------
    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf after backward (no-op on leaves)."""
        if not self.requires_grad:
            raise ScriptError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None:
            self._retains_grad = True
            self.grad_fn.retained = self

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` on a leaf, as PyTorch's ``requires_grad_``."""
        if self.grad_fn is not None:
            if not requires_grad:
                raise ScriptError(
                    "you can only change requires_grad flags of leaf variables. If you want to use"
                    " a computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach()."
                )
            return self
        self.requires_grad = bool(requires_grad)
        return self

    def detach(self) -> Tensor:
        """A new leaf sharing data and version counter, cut from the graph."""
        self.data = self.backend.writable(self.data)
        out = Tensor(self.data, self.backend)
        out._version = self._version
        out._strides = self._strides
        return out

    def item(self) -> float:
        """The single value as a Python float."""
        n = self.numel()
        if n != 1:
            raise ScriptError(f"a Tensor with {n} elements cannot be converted to Scalar")
        from .backend import to_host

        return float(to_host(self.data).reshape(()))

    def __bool__(self) -> bool:
        n = self.numel()
        if n != 1:
            raise ScriptError(
                f"Boolean value of Tensor with more than one value is ambiguous"
                if n > 1 else "Boolean value of Tensor with no values is ambiguous"
            )
        return self.item() != 0

    def __float__(self) -> float:
        if self.requires_grad:
            warn_once(SCALAR_CONVERSION_MSG)
        return self.item()

    def __int__(self) -> int:
        return int(self.item())  # NOTE: PyTorch warns for float(), not for int()

    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into the ``.grad`` of every leaf, as ``Tensor.backward``."""
        backward([self], None if gradient is None else [gradient], retain_graph, create_graph)


def _contiguous(t: Tensor) -> bool:
    return t._strides is None


# ---------------------------------------------------------------------------------------------
# Graph nodes
# ---------------------------------------------------------------------------------------------
class Saved:
    """One tensor a node saved for its backward, by PyTorch's name (``self``, ``result``, …)."""

    __slots__ = ("name", "value", "tensor", "counter", "version", "is_output", "freed",
                 "producer", "shape")

    def __init__(self, name: str, value: Any, tensor: Tensor | None, is_output: bool,
                 producer: str | None = None) -> None:
        self.name = name
        self.value = value  # array, or a Python number for a wrapped scalar
        self.tensor = None if is_output else tensor  # an output is rebuilt on unpack (no cycle)
        self.counter = tensor._version if tensor is not None else None
        self.version = self.counter[0] if self.counter is not None else 0
        self.is_output = is_output
        self.freed = False
        # name of the grad_fn that produced the saved tensor, for the in-place error message
        self.producer = producer if is_output else (
            tensor.grad_fn.name if tensor is not None and tensor.grad_fn is not None else None
        )
        self.shape = tuple(tensor.data.shape) if tensor is not None else ()

    def free(self) -> None:
        """Release the saved data (backward without ``retain_graph``)."""
        self.freed = True
        self.value = None
        self.tensor = None


class Node:
    """A backward function (PyTorch's ``grad_fn``): an op applied to inputs, with saved tensors."""

    __slots__ = ("op", "name", "next_functions", "saved", "params", "shapes", "seq", "retained",
                 "backend", "freed_by", "__weakref__")

    def __init__(self, op: Any, name: str, next_functions: tuple, saved: dict, params: dict,
                 shapes: tuple, backend: Any) -> None:
        global _next_seq
        self.op = op
        self.name = name
        self.next_functions = next_functions
        self.saved = saved
        self.params = params
        self.shapes = shapes
        self.backend = backend
        self.retained: Tensor | None = None
        self.freed_by: Any = None
        self.seq = _next_seq
        _next_seq += 1

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def unpack(self, name: str, tensor_mode: bool) -> Any:
        """A saved value, checked for freeing and in-place modification."""
        s = self.saved[name]
        if s.freed:
            err = ScriptError(RETAIN_MSG)
            err.freed_by = self.freed_by  # type: ignore[attr-defined]
            raise err
        if s.counter is not None and s.counter[0] != s.version:
            raise ScriptError(_version_message(s, self))
        if not tensor_mode:
            return s.value
        if s.is_output:
            return Tensor(s.value, self.backend, True, self)
        return s.tensor if s.tensor is not None else s.value

    def apply(self, grad: Any, needed: Sequence[bool], tensor_mode: bool) -> list:
        """Gradients for each input edge that is needed (None elsewhere)."""
        global formula_mode
        if tensor_mode:
            prev, formula_mode = formula_mode, True
            try:
                return self._apply(grad, needed, _TensorNamespace(self.backend), True)
            finally:
                formula_mode = prev
        return self._apply(grad, needed, _formulas(self.backend), False)

    def _apply(self, grad: Any, needed: Sequence[bool], xp: Any, tensor_mode: bool) -> list:
        out: list = [None] * len(self.next_functions)
        for i, fn in enumerate(self.next_functions):
            if fn is None or not needed[i]:
                continue
            formula, argnames = self.op.formulas[i]
            args = []
            for nm in argnames:
                if nm == "grad":
                    args.append(grad)
                elif nm == "xp":
                    args.append(xp)
                elif nm in self.saved:
                    args.append(self.unpack(nm, tensor_mode))
                elif nm == "self_shape":
                    args.append(self.shapes[0])
                else:
                    args.append(self.params[nm])
            g = formula(*args)
            shape = self.shapes[i]
            if tuple(g.shape) != shape:
                g = sum_to(xp, g, shape)
            out[i] = g
        return out

    def free(self) -> None:
        """Release every saved tensor."""
        if self.saved:
            self.freed_by = free_tag
            for s in self.saved.values():
                s.free()


class AccumulateGrad(Node):
    """The sink node of a leaf that requires grad: adds incoming gradients into ``.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        super().__init__(None, "AccumulateGrad", (), _EMPTY, _EMPTY, (), variable.backend)
        self.variable = variable


def _version_message(s: Saved, node: Node) -> str:
    kind = "DoubleTensor" if node.backend.dtype_name == "float64" else "FloatTensor"
    where = f", which is output 0 of {_strip_backward(s.producer)}," if s.producer else ""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.{kind} {list(s.shape)}]{where} is at version {s.counter[0]}; "
        f"expected version {s.version} instead. {ANOMALY_HINT}"
    )


def _strip_backward(name: str) -> str:
    i = name.find("Backward")
    return name[:i] if i > 0 else name


def edge(t: Tensor) -> Node:
    """The node a gradient for ``t`` flows into: its grad_fn, or its leaf's AccumulateGrad."""
    fn = t.grad_fn
    if fn is None:
        fn = t._accumulator
        if fn is None:
            fn = t._accumulator = AccumulateGrad(t)
    return fn


# ---------------------------------------------------------------------------------------------
# Recording ops
# ---------------------------------------------------------------------------------------------
def apply(op: Any, args: tuple, params: dict = _EMPTY, name: str | None = None) -> Tensor:
    """Run ``op`` forward on tensors/numbers ``args`` and record a Node when grad is needed."""
    out = _apply(op, args, params, name)
    if recorder is not None:
        recorder(out, op, args, False)
    return out


def _apply(op: Any, args: tuple, params: dict, name: str | None) -> Tensor:
    backend = None
    arrays = []
    needs = []
    any_needs = False
    for a in args:
        if a.__class__ is Tensor:
            if backend is None:
                backend = a.backend
            arrays.append(a.data)
            r = a.requires_grad and _grad_enabled
            needs.append(r)
            any_needs = any_needs or r
        else:
            arrays.append(a)
            needs.append(False)
    data = op.forward(backend.xp, *arrays, **params)
    out = Tensor(data, backend)
    if any_needs:
        key = tuple(needs)
        saves = op.saves.get(key)
        if saves is None:
            saves = op.saved_names(key)
        saved = _EMPTY
        if saves:
            saved = {}
            for nm, idx in saves:
                if idx < 0:
                    saved[nm] = Saved(nm, data, out, True, name or op.grad_fn)
                else:
                    a = args[idx]
                    saved[nm] = (Saved(nm, a.data, a, False) if a.__class__ is Tensor
                                 else Saved(nm, a, None, False))
        nexts = tuple(edge(a) if n else None for a, n in zip(args, needs))
        shapes = tuple(tuple(a.data.shape) if a.__class__ is Tensor else None for a in args)
        out.grad_fn = Node(op, name or op.grad_fn, nexts, saved, params, shapes, backend)
        out.requires_grad = True
    return out


def apply_inplace(op: Any, target: Tensor, args: tuple, params: dict = _EMPTY,
                  name: str | None = None) -> Tensor:
    """Update ``target`` in place with ``op(target, *args)`` (``add_``, ``mul_``, …)."""
    if _grad_enabled and target.requires_grad and target.grad_fn is None:
        raise ScriptError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = target._base
    if _grad_enabled and base is not None and (
        target.requires_grad or any(a.__class__ is Tensor and a.requires_grad for a in args)
    ):
        if base.requires_grad and base.grad_fn is None:
            raise ScriptError("a view of a leaf Variable that requires grad is being used in an "
                              "in-place operation.")
        return _inplace_on_view(op, target, base, args, params, name)
    result = _apply(op, (target, *args), params, name)
    target.data = target.backend.writable(target.data)
    if tuple(result.data.shape) != tuple(target.data.shape):
        raise ScriptError(
            f"output with shape {list(target.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )
    node = result.grad_fn
    if node is not None:
        # NOTE: PyTorch saves the original value of `self` (a clone) for mul_/div_.
        s = node.saved.get("self")
        if s is not None:
            s.value = target.backend.xp.asarray(s.value, copy=True)
            s.counter = None
        target.requires_grad = True
        if target._retains_grad and target.grad_fn is not None:
            target.grad_fn.retained = None
            node.retained = target
        target.grad_fn = node
    if recorder is not None:
        recorder(target, op, (target, *args), True)
    target.data[...] = result.data
    target._version[0] += 1
    return target


class CopySlices(Node):
    """PyTorch's node for an in-place op on a view: rewrites the base's history.

    Its gradient for the base is the incoming gradient with the view's region replaced by the
    in-place op's gradient for its ``self``; its other edges are the op's other inputs.
    """

    __slots__ = ("fn", "index", "inverse")

    def __init__(self, fn: Node, base_edge: Node | None, index: Any, inverse: Any) -> None:
        # NOTE: like PyTorch's, it lists no saved tensors itself; the wrapped op keeps them.
        super().__init__(None, "CopySlices", (base_edge, *fn.next_functions[1:]), _EMPTY,
                         _EMPTY, (), fn.backend)
        self.fn, self.index, self.inverse = fn, index, inverse

    def apply(self, grad: Any, needed: Sequence[bool], tensor_mode: bool) -> list:
        """Gradients for the base and the op's other inputs."""
        if tensor_mode:
            raise ScriptError("create_graph=True through an in-place update of a view is not "
                              "supported by gradcli")
        xp = self.backend.xp
        flat = xp.reshape(grad, (-1,))
        region = xp.reshape(xp.take(flat, xp.reshape(self.index, (-1,))), self.index.shape)
        res = self.fn.apply(region, [True, *needed[1:]], False)
        out = list(res)
        if needed[0]:
            new = res[0] if res[0] is not None else xp.zeros_like(region)
            picked = xp.take(xp.reshape(new, (-1,)), xp.clip(self.inverse, 0, None))
            out[0] = xp.reshape(xp.where(self.inverse >= 0, picked, flat), tuple(grad.shape))
        return out

    def free(self) -> None:
        """Release what the wrapped op saved."""
        self.fn.free()
        self.freed_by = self.fn.freed_by


def _inplace_on_view(op: Any, target: Tensor, base: Tensor, args: tuple, params: dict,
                     name: str | None) -> Tensor:
    from .backend import view_maps

    result = _apply(op, (target, *args), params, name)
    fn = result.grad_fn
    s = fn.saved.get("self")
    if s is not None:  # the original value of self, as for any in-place op
        s.value = target.backend.xp.asarray(s.value, copy=True)
        s.counter = None
    index, inverse = view_maps(base.backend, base.shape, target._view_fn)
    cs = CopySlices(fn, edge(base) if base.requires_grad else None, index, inverse)
    if base._retains_grad and base.grad_fn is not None:
        base.grad_fn.retained, cs.retained = None, base
    base.grad_fn, base.requires_grad = cs, True
    view_node = Node(_AS_STRIDED, "AsStridedBackward0", (cs,), _EMPTY,
                     {"inverse": inverse, "base_shape": base.shape}, (base.shape,), base.backend)
    if target._retains_grad and target.grad_fn is not None:
        target.grad_fn.retained, view_node.retained = None, target
    target.grad_fn, target.requires_grad = view_node, True
    if recorder is not None:
        recorder(target, op, (target, *args), True)
        recorder(base, _COPY_SLICES, (base, target), True)
    target.data[...] = result.data
    target._version[0] += 1
    return target


class _CopySlicesOp:
    """The op name listings show for a base rewritten through its view."""

    name = "copy_slices"


_COPY_SLICES = _CopySlicesOp()


class _AsStrided:
    """The op of a view's grad_fn after an in-place update: its gradient lands in the base."""

    name = "as_strided"
    formulas = ((lambda xp, grad, inverse, base_shape: xp.reshape(
        xp.where(inverse >= 0, xp.take(xp.reshape(grad, (-1,)), xp.clip(inverse, 0, None)), 0.0),
        base_shape), ("xp", "grad", "inverse", "base_shape")),)


_AS_STRIDED = _AsStrided()


# ---------------------------------------------------------------------------------------------
# Backward
# ---------------------------------------------------------------------------------------------
def backward(tensors: Sequence[Tensor], grad_tensors: Sequence[Any] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False) -> None:
    """As ``torch.autograd.backward``: accumulate into ``.grad`` of leaves and retained tensors."""
    roots, grads = _roots(tensors, grad_tensors, create_graph)
    _run(roots, grads, retain_graph if retain_graph is not None else create_graph, create_graph,
         None)


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
               create_graph, targets)
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
            out._version[0] = version
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
            g = t.backend.xp.ones_like(t.data)
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


def _run(roots: list[Node], grads: list, retain_graph: bool, create_graph: bool,
         targets: list[Node] | None) -> list:
    """Execute the backward graph from ``roots`` in PyTorch's order (highest sequence first)."""
    # Dependencies: how many edges (among executed nodes) point into each node.
    deps: dict[Node, int] = {}
    order: list[Node] = []  # discovery order, used to compute which nodes lead to targets
    stack = list(dict.fromkeys(roots))
    seen = set(stack)
    while stack:
        n = stack.pop()
        order.append(n)
        for m in n.next_functions:
            if m is not None:
                deps[m] = deps.get(m, 0) + 1
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
    needed: set | None = None
    if targets is not None:
        needed = _leads_to(order, set(targets))
        deps = {}
        for n in order:
            if n in needed:
                for m in n.next_functions:
                    if m is not None and m in needed:
                        deps[m] = deps.get(m, 0) + 1
    captured: dict[Node, Any] = {}
    buffers: dict[Node, Any] = {}
    adds: dict[Node, int] = {}  # in-place sums into a buffer (PyTorch bumps its version)
    heap: list = []
    for n, g in zip(roots, grads):
        if n in buffers:
            buffers[n] = buffers[n] + g
        else:
            buffers[n] = g
            if deps.get(n, 0) == 0:
                heapq.heappush(heap, (_priority(n), n.seq, n))
    target_set = set(targets) if targets is not None else None
    with _GradMode(create_graph):
        while heap:
            n = heapq.heappop(heap)[2]
            g = buffers.pop(n)
            if target_set is not None and n in target_set:
                captured[n] = (g, adds.get(n, 0))
            if n.retained is not None:  # retain_grad() fires in autograd.grad() too
                _accumulate(n.retained, g, create_graph)
            if n.__class__ is AccumulateGrad:
                if targets is None:
                    _accumulate(n.variable, g, create_graph, adds.get(n, 0))
                continue
            if needed is not None:
                mask = [m is not None and m in needed for m in n.next_functions]
            else:
                mask = [m is not None for m in n.next_functions]
            if not any(mask):
                continue
            grads_in = n.apply(g, mask, create_graph)
            if not retain_graph:
                n.free()
            for m, gi, use in zip(n.next_functions, grads_in, mask):
                if not use:
                    continue
                if m in buffers:
                    buffers[m] = buffers[m] + gi
                    adds[m] = adds.get(m, 0) + 1
                else:
                    buffers[m] = gi
                left = deps[m] - 1
                deps[m] = left
                if left == 0:
                    heapq.heappush(heap, (_priority(m), m.seq, m))
    if targets is None:
        return []
    return [captured.get(t) for t in targets]


def _leads_to(order: list[Node], targets: set) -> set:
    """Nodes from which some target is reachable (targets included).

    Sequence numbers are a topological order (a node is numbered after its inputs' nodes), so
    one pass in increasing order decides every node after all of its successors.
    """
    needed = set(targets)
    for n in sorted(order, key=_seq):
        if n not in needed and any(m in needed for m in n.next_functions if m is not None):
            needed.add(n)
    return needed


def _seq(n: Node) -> int:
    return n.seq


def _priority(n: Node) -> float:
    # NOTE: PyTorch runs AccumulateGrad as soon as it is ready, then the newest node first.
    return float("-inf") if n.__class__ is AccumulateGrad else -n.seq


def _accumulate(t: Tensor, g: Any, create_graph: bool, adds: int = 0) -> None:
    """Add ``g`` into ``t.grad`` in place, as AccumulateGrad does (bumping its version)."""
    if create_graph:
        g = g if isinstance(g, Tensor) else Tensor(g, t.backend)
        t._grad = g if t._grad is None else t._grad + g
        return
    if isinstance(g, Tensor):
        g = g.data
    if t._grad is None:
        t._grad = Tensor(t.backend.xp.asarray(g, copy=True), t.backend)
        t._grad.data = t.backend.writable(t._grad.data)
        t._grad._version[0] = adds
    else:
        t._grad.data[...] = t._grad.data + g
        t._grad._version[0] += 1


def sum_to(xp: Any, g: Any, shape: tuple) -> Any:
    """Undo broadcasting: sum ``g`` down to ``shape`` (PyTorch's ``sum_to``)."""
    gshape = tuple(g.shape)
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, d in enumerate(shape) if d == 1 and gshape[i + lead] != 1
    )
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    if lead:
        g = xp.reshape(g, shape)
    return g


def _formulas(backend: Any) -> Any:
    """The formulas' ``xp`` for a plain backward, built once per backend."""
    fx = backend.formulas
    if fx is None:
        from .ops import ArrayFormulas

        fx = backend.formulas = ArrayFormulas(backend.xp)
    return fx


class _TensorNamespace:
    """The formulas' ``xp`` when ``create_graph=True``: the same names, as recorded ops."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend

    def __getattr__(self, name: str) -> Callable:
        from . import functions

        fn = getattr(functions, "formula_" + name, None)
        if fn is None:
            raise ScriptError(f"create_graph=True is not supported through '{name}' in gradcli")
        return fn


def iter_graph(roots: Iterable[Node]) -> list[Node]:
    """Every node reachable from ``roots``, in reverse topological (execution) order."""
    seen: set = set()
    out: list[Node] = []
    stack = [r for r in roots if r is not None]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        out.append(n)
        stack.extend(m for m in n.next_functions if m is not None)
    out.sort(key=lambda n: -n.seq)
    return out
