"""The autograd graph: nodes (PyTorch's ``grad_fn``), saved tensors, and undoing broadcasts.

No derivative formula lives here; they are in the op table (``ops.py``).  A ``Node`` holds the
op, its input edges and exactly the tensors the op's formulas read (freed by a backward without
``retain_graph``), and checks saved tensors' versions against in-place updates.  Recording
nodes is ``record.py``'s business, running them ``autograd.py``'s.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from ..errors import ScriptError
from .context import current
from .tensor import Tensor

_EMPTY: dict = {}

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
        "dtypes",
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
        self.op = op
        self.next_functions = next_functions
        self.saved = saved
        self.params = params
        self.shapes = shapes
        self.backend = backend
        self.retained: Tensor | None = None
        self.dtypes: tuple | None = None  # the inputs' dtypes, when they differ from the result's
        self.freed = False
        self.freed_by: Any = None
        self.seq = seq = next(current().seq)
        self.prio = -seq  # the backward runs the newest ready node first, as PyTorch
        self.mask = mask if mask is not None else tuple(m is not None for m in next_functions)

    @property
    def name(self) -> str:
        """PyTorch's name of this backward function (``MulBackward0``)."""
        return self.op.grad_fn

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def saved_tensors(self) -> list[SavedInfo]:
        """What this node saved, by PyTorch's names, with freed/stale flags."""
        if self.freed:  # entries are shapes now (None for an absent optional input)
            return [SavedInfo(nm, True, False, tuple(shape), None, None, nm == "result")
                    for nm, shape in self.saved.items() if shape is not None]
        out = []
        for nm, (value, tensor, counter, version, _, is_output) in self.saved.items():
            if value is None:  # an optional input left out (``weight=None``): nothing saved
                continue
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
            err = ScriptError(_version_message(value, counter[0], version,
                                               self if is_output else producer, self.backend))
            # the root cause, for the hint: which node saved it, which statement bumped it
            err.saved_by = self.name  # type: ignore[attr-defined]
            bump = current().inplace_at.get(id(counter))
            err.bumped_by = bump[1] if bump is not None else None  # type: ignore[attr-defined]
            raise err
        if not tensor_mode:
            return value
        if is_output:
            return Tensor(value, self.backend, True, self)
        return tensor if tensor is not None else value

    def apply(self, grad: Any, needed: Sequence[bool], xp: Any, tensor_mode: bool) -> list:
        """Gradients for each input edge that is needed (None elsewhere).

        ``xp`` is the formulas' namespace: arrays for a plain backward, recorded tensor ops
        under ``create_graph=True`` (``tensor_mode``); the caller chooses it.
        """
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
                elif kind == 4:
                    args.append(self.params[nm])
                else:  # a variadic op's formula: which of its inputs this gradient is for
                    args.append(i)
            g = formula(*args)
            shape = self.shapes[i]
            if g.shape != shape:
                g = sum_to(xp, g, shape)
            if self.dtypes is not None:  # the gradient takes its input's dtype
                want = self.dtypes[i]
                if (g.data if g.__class__ is Tensor else g).dtype is not want:
                    g = xp.astype(g, want)
            out[i] = g
        return out

    def free(self) -> None:
        """Release every saved tensor; only names and shapes stay, for listings."""
        if self.saved and not self.freed:
            ctx = current()
            self.freed = True
            self.freed_by = ctx.free_tag
            if ctx.kept is not None:
                ctx.kept[self] = self.saved
            self.saved = {nm: None if v[0] is None else getattr(v[0], "shape", ())
                          for nm, v in self.saved.items()}


class AccumulateGrad(Node):
    """The sink node of a leaf that requires grad: adds incoming gradients into ``.grad``."""

    __slots__ = ("variable",)
    name = "AccumulateGrad"  # type: ignore[assignment]

    def __init__(self, variable: Tensor) -> None:
        super().__init__(None, (), _EMPTY, _EMPTY, (), variable.backend)
        self.prio = float("-inf")  # NOTE: PyTorch runs AccumulateGrad as soon as it is ready
        self.variable = variable


@contextlib.contextmanager
def restored_saved(kept: Any) -> Iterator[None]:
    """The nodes of ``kept`` (RunContext.kept: node -> what it saved) as they were before the
    script's own backward freed them, for gradcli's after-the-run gradients (``grad``,
    ``check``, ``explain``); freed again afterwards, so listings still say freed."""
    state = [(n, n.freed, n.saved, saved) for n, saved in list((kept or {}).items())]
    for n, _, _, saved in state:
        n.freed, n.saved = False, saved
    try:
        yield
    finally:
        for n, freed, now, _ in state:
            n.freed, n.saved = freed, now


def _version_message(value: Any, now: int, expected: int, producer: Node | None,
                     backend: Any) -> str:
    kind = backend.dtype_of(value).legacy if hasattr(value, "dtype") else "DoubleTensor"
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

    def apply(self, grad: Any, needed: Sequence[bool], xp: Any, tensor_mode: bool) -> list:
        """Gradients for the base and the op's other inputs."""
        if tensor_mode:
            raise ScriptError("create_graph=True through an in-place update of a view is not "
                              "supported by gradcli")
        fx, xp = xp, self.backend.xp
        flat = xp.reshape(grad, (-1,))
        region = xp.reshape(xp.take(flat, xp.reshape(self.index, (-1,))), self.index.shape)
        res = self.fn.apply(region, [True, *needed[1:]], fx, False)
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


