"""The autograd engine's recording half: Node, apply, in-place updates, grad mode.

No derivative formula lives here; they are in the op table (``ops.py``).  The engine records
one ``Node`` (PyTorch's ``grad_fn``) per differentiable op, saves exactly the tensors the op's
formulas read (freed by a backward without ``retain_graph``, run by ``autograd.py``), and
checks versions of saved tensors against in-place updates.  ``Tensor`` is in ``tensor.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

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
class SavedInfo(NamedTuple):
    """What a node saved, as listings show it (built on demand; the engine stores tuples)."""

    name: str
    freed: bool
    stale: bool  # modified in place since it was saved: a backward through it fails
    shape: tuple
    value: Any  # the array or wrapped number, None once freed
    tensor: Tensor | None  # the saved input tensor (None for an output or a number)
    is_output: bool


class Node:
    """A backward function (PyTorch's ``grad_fn``): an op applied to inputs, with saved tensors.

    ``saved`` maps PyTorch's names to tuples (value, tensor, version counter, version at save,
    producer grad_fn, is output); a backward without ``retain_graph`` frees them all at once.
    """

    __slots__ = (
        "__weakref__",
        "backend",
        "freed",
        "freed_by",
        "mask",
        "next_functions",
        "op",
        "params",
        "prio",
        "retained",
        "saved",
        "seq",
        "shapes",
    )

    def __init__(self, op: Any, next_functions: tuple, saved: dict, params: dict,
                 shapes: tuple, backend: Any, mask: tuple | None = None) -> None:
        global _next_seq
        self.op = op
        self.next_functions = next_functions
        self.saved = saved
        self.params = params
        self.shapes = shapes
        self.backend = backend
        self.retained: Tensor | None = None
        self.freed = False
        self.freed_by: Any = None
        self.seq = _next_seq
        self.prio = -_next_seq  # the backward runs the newest ready node first, as PyTorch
        self.mask = mask if mask is not None else tuple(m is not None for m in next_functions)
        _next_seq += 1

    @property
    def name(self) -> str:
        """PyTorch's name of this backward function (``MulBackward0``)."""
        return self.op.grad_fn

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def saved_tensors(self) -> list[SavedInfo]:
        """What this node saved, by PyTorch's names, with freed/stale flags."""
        if self.freed:  # entries are shapes now
            return [SavedInfo(nm, True, False, tuple(shape), None, None, nm == "result")
                    for nm, shape in self.saved.items()]
        out = []
        for nm, (value, tensor, counter, version, _, is_output) in self.saved.items():
            stale = counter is not None and counter[0] != version
            shape = tuple(value.shape) if hasattr(value, "shape") else ()
            out.append(SavedInfo(nm, False, stale, shape, value, tensor, is_output))
        return out

    def unpack(self, name: str, tensor_mode: bool) -> Any:
        """A saved value, checked for freeing and in-place modification."""
        if self.freed:
            err = ScriptError(RETAIN_MSG)
            err.freed_by = self.freed_by  # type: ignore[attr-defined]
            raise err
        value, tensor, counter, version, producer, is_output = self.saved[name]
        if counter is not None and counter[0] != version:
            raise ScriptError(_version_message(value, counter[0], version,
                                               self if is_output else producer, self.backend))
        if not tensor_mode:
            return value
        if is_output:
            return Tensor(value, self.backend, True, self)
        return tensor if tensor is not None else value

    def apply(self, grad: Any, needed: Sequence[bool], tensor_mode: bool) -> list:
        """Gradients for each input edge that is needed (None elsewhere)."""
        global formula_mode
        if tensor_mode:
            prev, formula_mode = formula_mode, True
            try:
                return self._apply(grad, needed, _TensorNamespace(self.backend), True)
            finally:
                formula_mode = prev
        return self._apply(grad, needed, self.backend.formulas or _formulas(self.backend), False)

    def _apply(self, grad: Any, needed: Sequence[bool], xp: Any, tensor_mode: bool) -> list:
        out: list = [None] * len(needed)
        saved = self.saved
        checked = tensor_mode or self.freed
        for i, use in enumerate(needed):
            if not use:
                continue
            formula, plan = self.op.plans[i]
            args = []
            for kind, nm in plan:  # kinds precomputed per op (ops.Op.plans): no string compares
                if kind == 0:
                    args.append(grad)
                elif kind == 1:
                    args.append(xp)
                elif kind == 2:
                    s = saved[nm]
                    if checked or (s[2] is not None and s[2][0] != s[3]):
                        args.append(self.unpack(nm, tensor_mode))  # the checked path
                    else:
                        args.append(s[0])
                elif kind == 3:
                    args.append(self.shapes[0])
                else:
                    args.append(self.params[nm])
            g = formula(*args)
            shape = self.shapes[i]
            if g.shape != shape:
                g = sum_to(xp, g, shape)
            out[i] = g
        return out

    def free(self) -> None:
        """Release every saved tensor; only names and shapes stay, for listings."""
        if self.saved and not self.freed:
            self.freed = True
            self.freed_by = free_tag
            self.saved = {nm: getattr(v[0], "shape", ()) for nm, v in self.saved.items()}


class AccumulateGrad(Node):
    """The sink node of a leaf that requires grad: adds incoming gradients into ``.grad``."""

    __slots__ = ("variable",)
    name = "AccumulateGrad"  # type: ignore[assignment]

    def __init__(self, variable: Tensor) -> None:
        super().__init__(None, (), _EMPTY, _EMPTY, (), variable.backend)
        self.prio = float("-inf")  # NOTE: PyTorch runs AccumulateGrad as soon as it is ready
        self.variable = variable


def _version_message(value: Any, now: int, expected: int, producer: Node | None,
                     backend: Any) -> str:
    kind = "DoubleTensor" if backend.dtype_name == "float64" else "FloatTensor"
    shape = list(getattr(value, "shape", ()))
    where = f", which is output 0 of {_strip_backward(producer.name)}," if producer else ""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.{kind} {shape}]{where} is at version {now}; "
        f"expected version {expected} instead. {ANOMALY_HINT}"
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
def apply(op: Any, args: tuple, params: dict = _EMPTY, record: bool = True) -> Tensor:
    """Run ``op`` forward on tensors/numbers ``args`` and record a Node when grad is needed."""
    if not params and recorder is None:  # the common shapes of call, without loops or lists
        if len(args) == 2:
            a, b = args
            if a.__class__ is Tensor and b.__class__ is Tensor:
                return _apply_binary(op, a, b)
        elif len(args) == 1 and args[0].__class__ is Tensor:
            return _apply_unary(op, args[0])
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
            if r:
                any_needs = True
        else:
            arrays.append(a)
            needs.append(False)
    data = op.forward(backend.xp, *arrays, **params) if params else op.forward(backend.xp, *arrays)
    out = Tensor(data, backend)
    if any_needs:
        key = tuple(needs)
        saves = op.saves.get(key)
        if saves is None:
            saves = op.saved_names(key)
        saved = _EMPTY
        if saves:
            saved = {nm: _saved_entry(nm, idx, args, out, data) for nm, idx in saves}
        nexts = []
        shapes = []
        for a, n in zip(args, needs):
            if a.__class__ is Tensor:
                shapes.append(a.data.shape)
                nexts.append(edge(a) if n else None)
            else:
                shapes.append(None)
                nexts.append(None)
        out.grad_fn = Node(op, tuple(nexts), saved, params, tuple(shapes), backend, key)
        out.requires_grad = True
    if record and recorder is not None:
        recorder(out, op, args, False)
    return out


def _saved_entry(nm: str, idx: int, args: tuple, out: Tensor, data: Any) -> tuple:
    """What a node keeps for one saved name (see ``Node``)."""
    if idx < 0:
        return (data, None, out._version, 0, None, True)
    a = args[idx]
    if a.__class__ is Tensor:
        return (a.data, a, a._version, a._version[0], a.grad_fn, False)
    return (a, None, None, 0, None, False)


def _apply_binary(op: Any, a: Tensor, b: Tensor) -> Tensor:
    """``apply`` for two tensors and no params, the most common op, without loops or lists."""
    backend = a.backend
    data = op.forward(backend.xp, a.data, b.data)
    out = Tensor(data, backend)
    ra = a.requires_grad and _grad_enabled
    rb = b.requires_grad and _grad_enabled
    if ra or rb:
        key = (ra, rb)
        saves = op.saves.get(key)
        if saves is None:
            saves = op.saved_names(key)
        saved = _EMPTY
        if saves:
            saved = {nm: _saved_entry(nm, idx, (a, b), out, data) for nm, idx in saves}
        out.grad_fn = Node(op, (edge(a) if ra else None, edge(b) if rb else None), saved, _EMPTY,
                           (a.data.shape, b.data.shape), backend, key)
        out.requires_grad = True
    return out


def _apply_unary(op: Any, a: Tensor) -> Tensor:
    """``apply`` for one tensor and no params."""
    backend = a.backend
    data = op.forward(backend.xp, a.data)
    out = Tensor(data, backend)
    if a.requires_grad and _grad_enabled:
        key = (True,)
        saves = op.saves.get(key)
        if saves is None:
            saves = op.saved_names(key)
        saved = _EMPTY
        if saves:
            saved = {nm: _saved_entry(nm, idx, (a,), out, data) for nm, idx in saves}
        out.grad_fn = Node(op, (edge(a),), saved, _EMPTY, (a.data.shape,), backend, key)
        out.requires_grad = True
    return out


def apply_inplace(op: Any, target: Tensor, args: tuple, params: dict = _EMPTY) -> Tensor:
    """Update ``target`` in place with ``op(target, *args)`` (``add_``, ``mul_``, …)."""
    if _grad_enabled and target.requires_grad and target.grad_fn is None:
        raise ScriptError("a leaf Variable that requires grad is being used in an in-place operation.")
    flags = getattr(target.data, "flags", None)
    if flags is not None and not flags.writeable and target.data.ndim:
        # NumPy's broadcast views (PyTorch's expanded tensors, e.g. the gradient of a sum that
        # grad() returns) are read-only: several elements share one memory location
        raise ScriptError("unsupported operation: more than one element of the written-to tensor "
                          "refers to a single memory location. Please clone() the tensor before "
                          "performing the operation.")
    base = target._base
    if _grad_enabled and base is not None and (
        target.requires_grad or any(a.__class__ is Tensor and a.requires_grad for a in args)
    ):
        if base.requires_grad and base.grad_fn is None:
            raise ScriptError("a view of a leaf Variable that requires grad is being used in an "
                              "in-place operation.")
        return _inplace_on_view(op, target, base, args, params)
    result = apply(op, (target, *args), params, record=False)
    target.data = target.backend.writable(target.data)
    if tuple(result.data.shape) != tuple(target.data.shape):
        raise ScriptError(
            f"output with shape {list(target.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )
    node = result.grad_fn
    if node is not None:
        _save_original_self(node, target)
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
    name = "CopySlices"  # type: ignore[assignment]

    def __init__(self, fn: Node, base_edge: Node | None, index: Any, inverse: Any) -> None:
        # NOTE: like PyTorch's, it lists no saved tensors itself; the wrapped op keeps them.
        super().__init__(None, (base_edge, *fn.next_functions[1:]), _EMPTY, _EMPTY, (),
                         fn.backend)
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
        self.freed, self.freed_by = True, self.fn.freed_by


def _save_original_self(node: Node, target: Tensor) -> None:
    """NOTE: for mul_/div_ PyTorch saves a clone of the original ``self``, not ``self``."""
    s = node.saved.get("self")
    if s is not None:
        node.saved["self"] = (target.backend.xp.asarray(s[0], copy=True), None, None, 0, None,
                              False)


def _inplace_on_view(op: Any, target: Tensor, base: Tensor, args: tuple,
                     params: dict) -> Tensor:
    from .backend import view_maps

    result = apply(op, (target, *args), params, record=False)
    if tuple(result.data.shape) != tuple(target.data.shape):
        raise ScriptError(
            f"output with shape {list(target.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )
    fn = result.grad_fn
    _save_original_self(fn, target)
    index, inverse = view_maps(base.backend, base.shape, target._view_fn)
    cs = CopySlices(fn, edge(base) if base.requires_grad else None, index, inverse)
    if base._retains_grad and base.grad_fn is not None:
        base.grad_fn.retained, cs.retained = None, base
    base.grad_fn, base.requires_grad = cs, True
    view_node = Node(_AS_STRIDED, (cs,), _EMPTY,
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
    grad_fn = "AsStridedBackward0"
    formulas = ((lambda xp, grad, inverse, base_shape: xp.reshape(
        xp.where(inverse >= 0, xp.take(xp.reshape(grad, (-1,)), xp.clip(inverse, 0, None)), 0.0),
        base_shape), ("xp", "grad", "inverse", "base_shape")),)
    plans = ((formulas[0][0], ((1, "xp"), (0, "grad"), (4, "inverse"), (4, "base_shape"))),)


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
