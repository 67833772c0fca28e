"""The autograd graph: nodes (PyTorch's ``grad_fn``), saved tensors, and undoing broadcasts.

No derivative formula lives here; they are in the op table (``ops.py``).  A ``Node`` holds the
op, its input edges and exactly the tensors the op's formulas read (freed by a backward without
``retain_graph``), and checks saved tensors' versions against in-place updates.  Recording
nodes is ``record.py``'s business, running them ``autograd.py``'s.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from ..errors import ScriptError
from . import kernels
from .context import current
from .dtypes import BOOL, FLOAT64, INT64
from .ops import GRAD_ONLY
from .saved_hooks import Packed
from .tensor import Tensor, vmap_from_node

_EMPTY: dict = {}
# PyTorch's C++-only node classes, whose name() is namespaced
_NAMESPACED = frozenset({"AccumulateGrad", "CopySlices", "CopyBackwards"})

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

ANOMALY_ON_HINT = (
    "Hint: the backtrace further above shows the operation that failed to compute its "
    "gradient. The variable in question was changed in there or anywhere later. Good luck!"
)


# ---------------------------------------------------------------------------------------------
# Graph nodes
# ---------------------------------------------------------------------------------------------
def _sizes(i: int) -> Any:
    return lambda n: tuple(n.shapes[i])


def _matrix_strides(i: int, which: int) -> Any:
    """An mm or addmm operand's strides as its node saved them (only for an operand that
    needs its gradient, () else): column-major where the call recorded it so
    (``layouts[which]``), else row-major."""
    def strides(n: Node) -> tuple:
        if n.edges[i] is None:
            return ()
        rows, cols = n.shapes[i]
        if n.params.get("layouts", n.op.defaults.get("layouts"))[which]:
            return (1, rows)
        return (cols, 1)

    return strides


def _numel(n: Node) -> int:
    total = 1
    for d in n.shapes[0]:
        total *= d
    return total


def _param(name: str, convert: Any = None) -> Any:
    def get(n: Node) -> Any:
        value = n.params.get(name)
        if convert is not None:
            return convert(value)
        return tuple(value) if isinstance(value, list) else value

    return get


def _dims(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _argsize(i: int, d: int) -> Any:
    """The size of dim ``d`` of input ``i`` (PyTorch's ``_saved_<arg>_sym_argsize_<d>``)."""
    return lambda n: n.shapes[i][d]


def _one(n: Node) -> int:
    return 1


# PyTorch's non-tensor saved fields (``_saved_alpha``, ``_saved_self_sym_sizes`` …) by node
# class, where they differ from the op's own parameters; tensors come from ``Node.saved``.
SAVED_FIELDS: dict[str, dict[str, Any]] = {
    "AddBackward0": {"alpha": _one}, "SubBackward0": {"alpha": _one},
    "RsubBackward1": {"alpha": _one},
    "SumBackward0": {"self_sym_sizes": _sizes(0)},
    "SumBackward1": {"dim": _param("dim", _dims), "keepdim": _param("keepdim"),
                     "self_sym_sizes": _sizes(0)},
    "MeanBackward0": {"self_sym_numel": _numel, "self_sym_sizes": _sizes(0)},
    "MeanBackward1": {"dim": _param("dim", _dims), "keepdim": _param("keepdim"),
                      "self_sym_numel": _numel, "self_sym_sizes": _sizes(0)},
    "MmBackward0": {"mat2_sym_sizes": _sizes(1), "mat2_sym_strides": _matrix_strides(1, 1),
                    "self_sym_sizes": _sizes(0), "self_sym_strides": _matrix_strides(0, 0)},
    "AddmmBackward0": {"alpha": _one, "beta": _one, "mat1": None, "mat2": None,
                       "mat1_sym_sizes": _sizes(1), "mat1_sym_strides": _matrix_strides(1, 0),
                       "mat2_sym_sizes": _sizes(2), "mat2_sym_strides": _matrix_strides(2, 1)},
    "TBackward0": {}, "CloneBackward0": {}, "NegBackward0": {},
    "PermuteBackward0": {"dims": _param("dims")},
    "SelectBackward0": {"dim": _param("dim"), "index": _param("index"),
                        "self_sym_sizes": _sizes(0)},
    "SliceBackward0": {"dim": _param("dim"), "start": _param("start"), "end": _param("stop"),
                       "step": _param("step"), "self_sym_sizes": _sizes(0)},
    "ViewBackward0": {"self_sym_sizes": _sizes(0)},
    "TraceBackward0": {"self_sym_sizes": _sizes(0)},
    "UnsqueezeBackward0": {"dim": _param("dim")},
    "ExpandBackward0": {"self_sym_sizes": _sizes(0)},
    "SqueezeBackward0": {"self_sym_sizes": _sizes(0)},
    "SqueezeBackward1": {"dim": _param("dim"), "self_sym_sizes": _sizes(0)},
    "SqueezeBackward4": {"dim": _param("dim"), "self_sym_sizes": _sizes(0)},
    "EmbeddingBackward0": {"indices": None, "padding_idx": _param("padding_idx"),
                           "scale_grad_by_freq": _param("scale_grad_by_freq"),
                           "sparse": _param("sparse"), "weight_sym_argsize_0": _argsize(0, 0)},
    "ConvolutionBackward0": {
        "input": None, "weight": None, "bias_sym_sizes_opt": lambda n: (
            (0,) if n.shapes[2] is None else tuple(n.shapes[2])),
        **{nm: _param(nm) for nm in ("stride", "padding", "dilation", "transposed",
                                     "output_padding", "groups")}},
    "AsStridedBackward0": {"size": _param("size"), "stride": _param("stride"),
                           "storage_offset": _param("storage_offset")},
    # `number ** x`: PyTorch saves the number as `self` and the tensor as `exponent`
    "PowBackward2": {"self": _param("base"), "exponent": None, "result": None},
}


def install_saved_properties(ops: Any) -> None:
    """Give Node PyTorch's ``_saved_<name>`` attributes for every name some op saves.

    NOTE: properties, not ``__getattr__``: a class with ``__getattr__`` makes every attribute
    read of its instances slower, and a backward reads node slots in its inner loop.
    """
    names = {"self_sym_sizes"}
    for op in ops:
        names |= op.readable | op.params_saved
    for fields in SAVED_FIELDS.values():
        names |= set(fields)
    for nm in names:
        attr = f"_saved_{nm}"
        if not hasattr(Node, attr):
            setattr(Node, attr, property(lambda self, nm=nm: self.saved_value(nm),
                                         doc=f"PyTorch's ``grad_fn.{attr}``."))


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

    ``edges`` are the nodes each input's gradient flows into (None for an input that needs no
    grad); PyTorch's ``next_functions`` shows them as ``(node, 0)`` pairs.  ``saved`` maps
    PyTorch's names to tuples (value, tensor, version counter, version at save, producer
    grad_fn, is output); a backward without ``retain_graph`` frees them all at once.  ``hooks``
    is None until a hook is registered (``hooks.NodeHooks``).
    """

    __slots__ = (
        "__weakref__",
        "backend",
        "dtypes",
        "edges",
        "freed",
        "freed_by",
        "hooks",
        "mask",
        "op",
        "params",
        "prio",
        "retained",
        "saved",
        "seq",
        "shapes",
        "unfreed",
    )

    def __init__(self, op: Any, edges: tuple, saved: dict, params: dict,
                 shapes: tuple, backend: Any, mask: tuple | None = None,
                 ctx: Any = None) -> None:  # ctx: the run's context, when the caller has it
        self.op = op
        self.edges = edges
        self.saved = saved
        self.params = params
        self.shapes = shapes
        self.backend = backend
        self.retained: Tensor | None = None
        self.dtypes: tuple | None = None  # the inputs' dtypes, when they differ from the result's
        self.hooks: Any = None
        self.freed = False
        self.freed_by: Any = None
        self.unfreed: dict | None = None  # what a freed node saved, when the run keeps it
        c = current() if ctx is None else ctx
        self.seq = seq = next(c.seq)
        if c.anomaly and c.anomaly_frames is not None:  # detect_anomaly: where it was made
            c.anomaly_traces[seq] = c.anomaly_frames()
        self.prio = -seq  # the backward runs the newest ready node first, as PyTorch
        self.mask = mask if mask is not None else tuple(m is not None for m in edges)

    @property
    def fn_name(self) -> str:
        """The node's class name as listings show it (``MulBackward0``, ``AccumulateGrad``)."""
        return self.op.grad_fn

    # -- what a PyTorch program sees of a grad_fn --------------------------------------------
    def name(self) -> str:
        """PyTorch's ``grad_fn.name()`` (``torch::autograd::`` for its C++-only nodes)."""
        fn_name = self.fn_name
        return f"torch::autograd::{fn_name}" if fn_name in _NAMESPACED else fn_name

    @property
    def next_functions(self) -> tuple:
        """PyTorch's ``((node, input_nr), ...)``, ``(None, 0)`` for an input needing no grad;
        inputs that are never differentiated (indices, a where's condition) have no entry."""
        op = self.op
        if op is None:
            return tuple((None, 0) if e is None else e.output_ref() for e in self.edges)
        diff = op.differentiable
        return tuple((None, 0) if e is None else e.output_ref()
                     for i, e in enumerate(self.edges) if diff[i])

    def repr_name(self) -> str:
        """The class name ``repr(grad_fn)`` shows."""
        return self.fn_name

    def op_name(self) -> str:
        """The op that made the node, as explanations name it (``mul``; the node's own name
        for a node no op of the table made)."""
        return self.op.name if self.op is not None else self.fn_name

    def output_ref(self) -> tuple[Node, int]:
        """``(node, output_nr)``, as ``next_functions`` shows an edge to this node."""
        return self, 0

    @property
    def requires_grad(self) -> bool:
        """Always True for a node in the graph, as PyTorch's ``grad_fn.requires_grad``."""
        return True

    def __repr__(self) -> str:
        return f"<{self.repr_name()} object at {id(self):#x}>"

    def __dir__(self) -> list[str]:
        # the class has every op's _saved_* property: list only this node's
        own = [a for a in super().__dir__() if not a.startswith("_saved_")]
        return sorted({*own, *(f"_saved_{nm}" for nm in self.saved_field_names())})

    def saved_field_names(self) -> list[str]:
        """The names PyTorch's node of this class shows as ``_saved_<name>``."""
        op = self.op
        if op is None:
            return []
        fields = SAVED_FIELDS.get(op.grad_fn)
        names = set(op.readable)
        if fields is not None:
            return sorted(names | {nm for nm, get in fields.items() if get is not None} |
                          {nm for nm, get in fields.items() if get is None and nm in names})
        names |= op.params_saved
        if "self_shape" in op.reads_special:
            names.add("self_sym_sizes")
        return sorted(names)

    def saved_value(self, name: str) -> Any:
        """``grad_fn._saved_<name>`` as PyTorch gives it: a tensor, a number, a shape or None."""
        op = self.op
        if op is None or name not in self.saved_field_names():
            raise AttributeError(f"'{self.fn_name}' object has no attribute '_saved_{name}'")
        fields = SAVED_FIELDS.get(op.grad_fn)
        if fields is not None and fields.get(name) is not None:
            return fields[name](self)
        if name in op.params_saved:
            value = self.params.get(name, dict(op.params).get(name))
            return tuple(value) if isinstance(value, list) else value
        if name == "self_sym_sizes":
            return tuple(self.shapes[0])
        if self.freed:
            if name not in self.saved:
                return None
            raise ScriptError(RETAIN_MSG)
        if name not in self.saved:
            return None  # PyTorch saves it only when the input it serves needs grad
        value, tensor, _, _, _, is_output = self.saved[name]
        if not is_output and tensor is None and self.saved[name].__class__ is not Packed:  # a wrapped number: PyTorch shows a 0-d tensor
            # of the number's kind: bool, int64, or float64 (whatever the default dtype)
            kind = BOOL if isinstance(value, bool) else INT64 if isinstance(value, int) else FLOAT64
            return Tensor(self.backend.leaf_data(self.backend.asarray(value, kind)), self.backend)
        return self.unpack(name, True)

    def saved_tensors(self) -> list[SavedInfo]:
        """What this node saved, by PyTorch's names, with freed/stale flags."""
        if self.freed:  # entries are shapes now (None for an absent optional input)
            return [SavedInfo(nm, True, False, tuple(shape), None, None, nm == self.op.result)
                    for nm, shape in self.saved.items() if shape is not None]
        out = []
        for nm, entry in self.saved.items():
            value, tensor, counter, version, _, is_output = entry
            if value is None:  # an optional input left out (``weight=None``): nothing saved
                continue
            stale = entry.__class__ is not Packed and counter is not None and \
                counter[0] != version
            shape = tuple(value.shape) if hasattr(value, "shape") else ()
            out.append(SavedInfo(nm, False, stale, shape, value, tensor, is_output))
        return out

    def unpack(self, name: str, tensor_mode: bool) -> Any:
        """A saved value, checked for freeing and in-place modification."""
        if self.freed:
            err = ScriptError(RETAIN_MSG)
            err.freed_by = self.freed_by  # type: ignore[attr-defined]
            raise err
        entry = self.saved[name]
        if entry.__class__ is Packed:  # taken by a pack hook: the unpack hook gives it back
            return entry.value(tensor_mode)
        value, tensor, counter, version, producer, is_output = entry
        if counter is not None and counter[0] != version:
            # NOTE: PyTorch names a saved output's own node, but a saved input's grad_fn as it
            # is now (the in-place op that bumped it), or nothing for a leaf
            now = self if is_output else tensor.grad_fn if tensor is not None else producer
            err = ScriptError(_version_message(value, counter[0], version, now, self.backend))
            # the root cause, for the hint: which node saved it, which statement bumped it
            err.saved_by = self.fn_name  # type: ignore[attr-defined]
            bump = current().inplace_at.get(id(counter))
            err.bumped_by = bump[1] if bump is not None else None  # type: ignore[attr-defined]
            raise err
        if not tensor_mode:
            return value
        if is_output:
            out = Tensor(value, self.backend, True, self)
            return out if current().vmap is None else vmap_from_node(out, self)
        return tensor if tensor is not None else value

    def apply(self, grad: Any, needed: Sequence[bool], xp: Any, tensor_mode: bool) -> list:
        """Gradients for each input edge that is needed (None elsewhere).

        ``xp`` is the formulas' namespace: arrays for a plain backward, recorded tensor ops
        under ``create_graph=True`` (``tensor_mode``); the caller chooses it.
        """
        out: list = [None] * len(needed)
        plans = self.op.plans
        shapes = self.shapes
        i = -1
        for use in needed:
            i += 1
            if not use:
                continue
            formula, plan = plans[i]
            if plan is GRAD_ONLY:  # add's, sub's, a view's: no arguments to gather
                g = formula(grad)
            else:
                args = []
                for kind, nm in plan:  # kinds precomputed per op (ops.plans): no string compares
                    if kind == 0:
                        args.append(grad)
                    elif kind == 2:
                        s = self.saved[nm]
                        if tensor_mode or self.freed or (s[2] is not None and s[2][0] != s[3]):
                            args.append(self.unpack(nm, tensor_mode))  # the checked path
                        else:
                            args.append(s[0])
                    elif kind == 1:
                        args.append(xp)
                    elif kind == 3:
                        args.append(shapes[0])
                    elif kind == 4:  # a param, else its default (a call that did not pass it)
                        params = self.params
                        args.append(params[nm] if nm in params else self.op.defaults[nm])
                    else:  # a variadic op's formula: which of its inputs this gradient is for
                        args.append(i)
                g = formula(*args)
            if g.shape != shapes[i]:
                g = sum_to(xp, g, shapes[i], not tensor_mode)
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
            if ctx.keep_freed:
                self.unfreed = self.saved
                if ctx.history is not None:
                    ctx.history.freed += 1
            self.saved = {nm: None if v[0] is None else getattr(v[0], "shape", ())
                          for nm, v in self.saved.items()}


_FIRST = float("-inf")


class AccumulateGrad(Node):
    """The sink node of a leaf that requires grad: adds incoming gradients into ``.grad``."""

    __slots__ = ("variable",)
    fn_name = "AccumulateGrad"  # type: ignore[assignment]

    def __init__(self, variable: Tensor) -> None:
        super().__init__(None, (), _EMPTY, _EMPTY, (), variable.backend, ())
        self.prio = _FIRST  # NOTE: PyTorch runs AccumulateGrad as soon as it is ready
        self.variable = variable


@contextlib.contextmanager
def restored_saved(history: Any = None, roots: Any = ()) -> Iterator[None]:
    """The nodes reached from ``roots`` as they were recorded, for gradcli's after-the-run
    gradients (``grad``, ``check``, ``explain``): what the script's own backward freed put back
    (``Node.unfreed``, kept when the run's RunContext.keep_freed), and with a ``history`` the
    saved values an optimizer's step overwrote since; freed and patched again afterwards, so
    listings still say freed.  A node keeps its own freed values: a training loop's old
    graphs go away with their nodes.  Without a ``history`` (a run that kept neither), or
    with one that kept no value and saw no node freed, nothing differs: no walk."""
    if history is None or (not history.values and not history.freed):
        yield
        return
    changed = []  # (node, freed, saved) as they were
    seen: set[int] = set()
    stack = [n for n in roots if n is not None]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.extend(m for m in n.edges if m is not None)
        inner = getattr(n, "fn", None)  # a CopySlices: the wrapped op holds the saved tensors
        for m in (n,) if inner is None else (n, inner):
            if m.freed and m.unfreed is not None:
                changed.append((m, m.freed, m.saved))
                m.freed, m.saved = False, m.unfreed
            if not m.freed and m.saved:
                saved = _as_recorded(m, history)
                if saved is not None:
                    changed.append((m, m.freed, m.saved))
                    m.saved = saved
    try:
        yield
    finally:
        for n, freed, saved in reversed(changed):
            n.freed, n.saved = freed, saved


def _as_recorded(n: Node, history: Any) -> dict | None:
    """``n``'s saved tensors with the values they were saved with where an optimizer's step
    overwrote them since (``engine/history.py``); None when none was."""
    new = None
    for nm, entry in n.saved.items():
        value, tensor, counter, version, producer, is_output = entry
        if counter is None or counter[0] == version:
            continue
        old = history.value(counter, version, tensor)
        if old is None or getattr(old, "shape", ()) != getattr(value, "shape", ()):
            continue
        if new is None:
            new = dict(n.saved)
        new[nm] = (old, Tensor(old, n.backend), counter, counter[0], producer, is_output)
    return new


def _version_message(value: Any, now: int, expected: int, producer: Node | None,
                     backend: Any) -> str:
    kind = backend.dtype_of(value).legacy if hasattr(value, "dtype") else "DoubleTensor"
    shape = list(getattr(value, "shape", ()))
    where = f", which is output 0 of {_strip_backward(producer.fn_name)}," if producer else ""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.{kind} {shape}]{where} is at version {now}; "
        f"expected version {expected} instead. "
        f"{ANOMALY_ON_HINT if current().anomaly else ANOMALY_HINT}"
    )


def _strip_backward(name: str) -> str:
    i = name.find("Backward")
    return name[:i] if i > 0 else name


def edge(t: Tensor) -> Node:
    """The node a gradient for ``t`` flows into: its grad_fn, or its leaf's AccumulateGrad."""
    fn = t.grad_fn
    if fn is None:
        fn = accumulator(t)
        if fn is None:
            fn = AccumulateGrad(t)
            t._accumulator = weakref.ref(fn)
    return fn


def accumulator(t: Tensor) -> AccumulateGrad | None:
    """The leaf's AccumulateGrad while something holds it (None before an op used the leaf).

    NOTE: as in PyTorch, the node holds its leaf and the leaf only a weak reference to the node
    (the graph's edges keep it alive), so a leaf made at each step of a loop is freed with its
    graph by reference counting, with the collector paused during the run.  A leaf with tensor
    hooks holds its node: the hooks live there (PyTorch keeps them on the tensor)."""
    fn = t._accumulator
    if fn is not None and fn.__class__ is weakref.ref:
        return fn()
    return fn


class CopySlices(Node):
    """PyTorch's node for an in-place op on a view: rewrites the base's history.

    Its gradient for the base is the incoming gradient with the view's region replaced by the
    in-place op's gradient for its ``self``; its other edges are the op's other inputs.
    """

    __slots__ = ("fn", "index", "inverse")
    fn_name = "CopySlices"  # type: ignore[assignment]

    def __init__(self, fn: Node, base_edge: Node | None, index: Any, inverse: Any) -> None:
        # NOTE: like PyTorch's, it lists no saved tensors itself; the wrapped op keeps them.
        super().__init__(None, (base_edge, *fn.edges[1:]), _EMPTY, _EMPTY, (),
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



def sum_to(xp: Any, g: Any, shape: tuple, arrays: bool = False) -> Any:
    """Undo broadcasting: sum ``g`` down to ``shape`` (PyTorch's ``sum_to``: a sum keeping the
    dims, then a view; of ``arrays``, a bias's gradient by one sum without the view)."""
    gshape = tuple(g.shape)
    lead = len(gshape) - len(shape)
    if arrays and lead == 1 and gshape[1:] == shape:
        return kernels.sum(xp, g, (0,), False)
    axes = tuple(range(lead))
    if 1 in shape:  # a broadcast size-1 dim is summed too, kept
        axes += tuple(i + lead for i, d in enumerate(shape) if d == 1 and gshape[i + lead] != 1)
    if axes:
        g = kernels.sum(xp, g, axes, True)
    if lead:
        g = xp.reshape(g, shape)
    return g


