"""The autograd engine's recording half: Node, Saved, apply, in-place updates, grad mode.

No derivative formula lives here; they are in the op table (``ops.py``).  The engine records
one ``Node`` (PyTorch's ``grad_fn``) per differentiable op, saves exactly the tensors the op's
formulas read (freed by a backward without ``retain_graph``, run by ``autograd.py``), and
checks versions of saved tensors against in-place updates.  ``Tensor`` is in ``tensor.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .errors import ScriptError
from .tensor import Tensor, warn_once  # noqa: F401  (re-exported: the engine's public names)

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
ANOMALY_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


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


# ---------------------------------------------------------------------------------------------
# Graph nodes
# ---------------------------------------------------------------------------------------------
class Saved:
    """One tensor a node saved for its backward, by PyTorch's name (``self``, ``result``, …)."""

    __slots__ = (
        "counter",
        "freed",
        "is_output",
        "name",
        "producer",
        "shape",
        "tensor",
        "value",
        "version",
    )

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

    __slots__ = (
        "__weakref__",
        "backend",
        "freed_by",
        "name",
        "next_functions",
        "op",
        "params",
        "retained",
        "saved",
        "seq",
        "shapes",
    )

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
