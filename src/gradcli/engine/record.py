"""Recording ops: run an op of the table forward and, when grad is needed, add its Node.

``apply`` is the one entry point every function goes through (its two fast paths cover a
binary and a unary op without params, the most common calls); ``apply_inplace`` updates a
tensor in place, bumping its version, and rewrites a base's history through a view
(CopySlices), as PyTorch does.

Where the install built engine/_record.c, ``apply`` is its C copy of the fast paths (the
module's last lines), which hands every other call to the ``apply`` defined here.
"""

from __future__ import annotations

import importlib
import os
from time import perf_counter
from typing import Any

from ..errors import ScriptError
from . import ops as O
from .aliasing import refresh_views
from .aliasing import view_node as regenerated_view_node
from .backend import NDARRAY, WRITES_INTO, view_maps
from .context import current
from .dtypes import (
    BOOL,
    BOOL_KIND,
    C_NAMES,
    FLOAT_KIND,
    INT64,
    SCALAR_NAMES,
    kernel_error,
    result_type,
)
from .graph import _EMPTY, CopySlices, Node, edge
from .lazy import uninitialized_use
from .tensor import Tensor


def apply(op: Any, args: tuple, params: dict = _EMPTY, record: bool = True) -> Tensor:
    """Run ``op`` forward on tensors/numbers ``args`` and record a Node when grad is needed."""
    ctx = current()
    recorder = ctx.recorder
    grad_enabled = ctx.grad_enabled
    if not params and recorder is None:  # the common shapes of call, without loops or lists
        if len(args) == 2:
            a, b = args
            if a.__class__ is Tensor:
                if b.__class__ is Tensor:
                    dt = a.data.dtype
                    if dt is b.data.dtype and dt in a.backend.float_natives:
                        return _apply_binary(op, a, b, grad_enabled, ctx)
                elif (b.__class__ is float or b.__class__ is int and -_BIG < b < _BIG) and \
                        a.data.dtype in a.backend.float_natives and op.differentiable[0]:
                    return _apply_scalar(op, args, 0, grad_enabled, ctx)
            elif b.__class__ is Tensor and (a.__class__ is float or a.__class__ is int and
                                            -_BIG < a < _BIG) and \
                    b.data.dtype in b.backend.float_natives and op.differentiable[1]:
                return _apply_scalar(op, args, 1, grad_enabled, ctx)
        elif len(args) == 1 and args[0].__class__ is Tensor:
            a = args[0]
            if a.data.dtype in a.backend.float_natives:
                return _apply_unary(op, a, grad_enabled, ctx)
    elif recorder is None and len(args) == 1 and args[0].__class__ is Tensor and \
            _keeps_dtype(op, params) and \
            args[0].data.dtype in args[0].backend.float_natives:
        # one floating tensor and params (view, sum over dims, log_softmax, pow): every dtype
        # rule but "to" keeps its dtype when no param taking part in the promotion is more
        # than a Python float or int
        return _apply_unary(op, args[0], grad_enabled, ctx, params)
    elif not params and (ctx.tracer is None or not ctx.tracer.timed):
        # recording for listings or a trace: the fast paths above (the recorder set aside, so
        # the untraced path stays as it is), then the recorder
        ctx.recorder = None
        try:
            out = apply(op, args, params, record)
        finally:
            ctx.recorder = recorder
        if record:
            recorder(out, op, args, False, params)
        return out
    backend = None
    arrays = []
    needs = []
    any_needs = False
    for i, a in enumerate(args):
        if a.__class__ is Tensor:
            if backend is None:
                backend = a.backend
            arrays.append(a.data)
            r = a.requires_grad and grad_enabled
            needs.append(r)
            if r:
                any_needs = True
                if op.plans[i] is None:
                    raise ScriptError(f"The function '{op.aten}' is not differentiable with "
                                      f"respect to argument '{op.inputs[i]}'. This input cannot "
                                      "have requires_grad True.")
        else:
            if isinstance(a, Tensor):  # a lazy module's parameter before its first forward
                raise uninitialized_use(op.name)
            arrays.append(a)
            needs.append(False)
    out_dt, in_dts = _result_dtype(op, args, params, backend)
    if in_dts is not None:  # cast the inputs to the result's dtype, as PyTorch computes in it
        native = backend.xp_dtype(out_dt)
        arrays = [backend.astype(x, out_dt) if d is not None and d is not native else x
                  for x, d in zip(arrays, in_dts)]
    data = op.forward(backend.xp, *arrays, **params) if params else op.forward(backend.xp, *arrays)
    if data.dtype is not backend.xp_dtype(out_dt):
        data = backend.astype(data, out_dt)
    out = Tensor(data, backend)
    if any_needs and out_dt.is_floating_point:
        tracer = ctx.tracer
        if tracer is not None:
            started = perf_counter()
        key = tuple(needs)
        saves = op.saves.get(key)
        if saves is None:
            saves = op.saved_names(key)
        saved = _EMPTY
        if saves:
            saved = _saved_dict(saves, args, out, data)
        nexts = []
        shapes = []
        for a, n in zip(args, needs):
            if a.__class__ is Tensor:
                shapes.append(a.data.shape)
                nexts.append(edge(a) if n else None)
            else:
                shapes.append(None)
                nexts.append(None)
        node = Node(op, tuple(nexts), saved, params, tuple(shapes), backend, key, ctx)
        if in_dts is not None:  # gradients go back in each input's own dtype
            node.dtypes = in_dts
        out.grad_fn = node
        out.requires_grad = True
        if tracer is not None:
            tracer.recorded(perf_counter() - started)
    if record and recorder is not None:
        recorder(out, op, args, False, params)
    return out


def _result_dtype(op: Any, args: tuple, params: dict, backend: Any) -> tuple[Any, Any]:
    """(the result's DType, the inputs' native dtypes when some input must be cast to it, else
    None), by the op's dtype rule (ops.py)."""
    rule = op.dtype_rule
    typed = op.differentiable  # the others (a condition, class indices) keep their dtype
    if rule == "keep" and args[0].__class__ is Tensor and typed[0] and typed.count(True) == 1:
        out = args[0].dtype  # (index, gather, nll_loss): the one typed input's, in its dtype
        if args[0].data.dtype is backend.xp_dtype(out):
            return out, None
    tensors = [a for i, a in enumerate(args) if a.__class__ is Tensor and typed[i]]
    if rule == "to":
        out = params["dtype"]
    elif rule == "keep":  # other tensor inputs (copy_'s src) are cast to it
        out = tensors[0].dtype
    elif rule == "no_bool":
        out = tensors[0].dtype
        if out.kind == BOOL_KIND:
            raise kernel_error(op.aten, "Bool")
    elif rule == "same":
        first = tensors[0].dtype
        for t in tensors[1:]:
            if t.dtype is not first:
                raise ScriptError(_same_dtype_message(op.name, [x.dtype for x in tensors]))
        return first, None
    else:
        numbers = [a for i, a in enumerate(args)
                   if a.__class__ is not Tensor and a is not None and typed[i]]
        numbers += [params[w] for w in op.wrapped if params.get(w) is not None]
        out = result_type([(t.dtype, t.data.ndim) for t in tensors], numbers, backend.default)
        if out.kind != FLOAT_KIND:
            if rule == "float":
                out = backend.default
            elif rule == "sum":
                out = INT64
            elif rule == "float_kernel":
                raise kernel_error(op.aten, out)
            elif rule == "float_only":
                raise ScriptError(f"{op.name.split('_')[0]}(): could not infer output dtype. "
                                  "Input dtype must be either a floating point or complex dtype. "
                                  f"Got: {SCALAR_NAMES[out.name]}")
    native = backend.xp_dtype(out)
    i = -1
    for a in args:  # a plain loop: the common case, every input in the result's dtype
        i += 1
        if a.__class__ is Tensor and typed[i] and a.data.dtype is not native:
            break
    else:
        return out, None
    return out, tuple(a.data.dtype if a.__class__ is Tensor and typed[i] else None
                      for i, a in enumerate(args))


def _same_dtype_message(name: str, dts: list) -> str:
    a, b = (SCALAR_NAMES[d.name] for d in dts[:2])
    if name == "dot":
        return f"dot : expected both vectors to have same dtype, but found {a} and {b}"
    if name == "bmm":
        return f"expected scalar type {a} but found {b}"
    if name == "mv":
        return f"addmv input tensors must have the same dtype, but got {b}, {a}, and {b}"
    ca, cb = (C_NAMES[d.name] for d in dts[:2])
    return f"expected m1 and m2 to have the same dtype, but got: {ca} != {cb}"


def _saved_dict(saves: tuple, args: tuple, out: Tensor, data: Any) -> dict:
    """What a node keeps (see ``Node``) for each of ``saves``: (name, the input's index, or -1
    for the output)."""
    saved = {}
    for nm, idx in saves:
        if idx < 0:
            saved[nm] = (data, None, out._vc, 0, None, True)
        else:
            a = args[idx]
            if a.__class__ is Tensor:
                vc = a._vc
                saved[nm] = (a.data, a, vc, vc[0], a.grad_fn, False)
            else:
                saved[nm] = (a, None, None, 0, None, False)
    return saved


def _apply_binary(op: Any, a: Tensor, b: Tensor, grad_enabled: bool, ctx: Any) -> Tensor:
    """``apply`` for two tensors and no params, the most common op, without loops or lists."""
    backend = a.backend
    data = op.forward(backend.xp, a.data, b.data)
    out = Tensor(data, backend)
    ra = a.requires_grad and grad_enabled
    rb = b.requires_grad and grad_enabled
    if ra or rb:
        key = _TT if ra and rb else _TF if ra else _FT  # shared: a backward reads them hot
        saves = op.saves.get(key)
        if saves is None:
            saves = op.saved_names(key)
        saved = _EMPTY
        if saves:
            saved = _saved_dict(saves, (a, b), out, data)
        out.grad_fn = Node(op, (edge(a) if ra else None, edge(b) if rb else None), saved, _EMPTY,
                           _shared((a.data.shape, b.data.shape)), backend, key, ctx)
        out.requires_grad = True
    return out


_BIG = 1 << 53  # a Python int past this takes the general path (its range checks)
_KEEPS_DTYPE: dict = {}  # op -> whether a floating input's dtype is the result's, by its rule


def _keeps_dtype(op: Any, params: dict) -> bool:
    """Whether ``op`` applied to one floating tensor with ``params`` gives that tensor's dtype
    (every dtype rule but "to", where each param taking part in the promotion is None or a
    Python float or int, which never promotes a floating tensor), and has a formula for it."""
    got = _KEEPS_DTYPE.get(op)
    if got is None:
        got = _KEEPS_DTYPE[op] = (op.dtype_rule != "to" and op.forward is not None
                                  and bool(op.differentiable[0]))
    if got and op.wrapped:
        for name in op.wrapped:
            v = params.get(name)
            if not (v is None or v.__class__ is float or v.__class__ is int and -_BIG < v < _BIG):
                return False
    return got
_TT, _TF, _FT, _T = (True, True), (True, False), (False, True), (True,)
_SHAPES: dict[tuple, tuple] = {}
_SHAPES_LIMIT = 1024


def _shared(shapes: tuple) -> tuple:
    """One tuple object for equal input shapes (a node's ``shapes``): a graph of many nodes
    of a few shapes keeps a few tuples, which a backward reads from the cache."""
    got = _SHAPES.get(shapes)
    if got is None:
        if len(_SHAPES) >= _SHAPES_LIMIT:  # a program of many shapes: no more kept
            return shapes
        _SHAPES[shapes] = got = shapes
    return got


def _apply_scalar(op: Any, args: tuple, i: int, grad_enabled: bool, ctx: Any) -> Tensor:
    """``apply`` for a floating tensor ``args[i]`` (an input with a formula, so the dtype rule
    reads it) and a Python float or int, no params: the result has the tensor's dtype, as
    every rule gives (a number never promotes a floating tensor)."""
    t = args[i]
    backend = t.backend
    x = t.data
    data = op.forward(backend.xp, x, args[1]) if i == 0 else op.forward(backend.xp, args[0], x)
    if data.dtype is not x.dtype:
        data = backend.astype(data, t.dtype)
    out = Tensor(data, backend)
    if t.requires_grad and grad_enabled:
        if op.plans[i] is None:
            raise ScriptError(f"The function '{op.aten}' is not differentiable with respect to "
                              f"argument '{op.inputs[i]}'. This input cannot have "
                              "requires_grad True.")
        key = _TF if i == 0 else _FT
        saves = op.saves.get(key)
        if saves is None:
            saves = op.saved_names(key)
        saved = _saved_dict(saves, args, out, data) if saves else _EMPTY
        shape = x.shape
        if i == 0:
            edges, shapes = (edge(t), None), _SCALAR_FIRST if not shape else _shared((shape, None))
        else:
            edges, shapes = (None, edge(t)), _SCALAR_SECOND if not shape else _shared((None, shape))
        out.grad_fn = Node(op, edges, saved, _EMPTY, shapes, backend, key, ctx)
        out.requires_grad = True
    return out


_SCALAR_FIRST, _SCALAR_SECOND = ((), None), (None, ())  # a 0-d tensor's shapes, and a number


def _apply_unary(op: Any, a: Tensor, grad_enabled: bool, ctx: Any,
                 params: dict = _EMPTY) -> Tensor:
    """``apply`` for one floating tensor, and params that cannot change its dtype."""
    backend = a.backend
    if params:
        data = op.forward(backend.xp, a.data, **params)
        if data.dtype is not a.data.dtype:
            data = backend.astype(data, a.dtype)
    else:
        data = op.forward(backend.xp, a.data)
    out = Tensor(data, backend)
    if a.requires_grad and grad_enabled:
        key = _T
        saves = op.saves.get(key)
        if saves is None:
            saves = op.saved_names(key)
        saved = _EMPTY
        if saves:
            saved = _saved_dict(saves, (a,), out, data)
        out.grad_fn = Node(op, (edge(a),), saved, params, _shared((a.data.shape,)), backend,
                           key, ctx)
        out.requires_grad = True
    return out


def apply_inplace(op: Any, target: Tensor, args: tuple, params: dict = _EMPTY) -> Tensor:
    """Update ``target`` in place with ``op(target, *args)`` (``add_``, ``mul_``, …)."""
    ctx = current()
    grad_enabled = ctx.grad_enabled
    if grad_enabled and target.requires_grad and target.grad_fn is None:
        raise ScriptError("a leaf Variable that requires grad is being used in an in-place operation.")
    flags = getattr(target.data, "flags", None)
    if flags is not None and not flags.writeable and target.data.ndim:
        # NumPy's broadcast views (PyTorch's expanded tensors, e.g. the gradient of a sum that
        # grad() returns) are read-only: several elements share one memory location
        raise ScriptError("unsupported operation: more than one element of the written-to tensor "
                          "refers to a single memory location. Please clone() the tensor before "
                          "performing the operation.")
    base = target._base
    if base is None and not params and flags is not None and flags.writeable and \
            ctx.recorder is None and ctx.history is None and ctx.tracer is None and \
            ctx.vmap is None and ctx.allow_mutation is None and \
            not getattr(target, "_views", None):
        out = _plain_inplace(op, target, args, grad_enabled)
        if out is not None:  # nothing to record, check or refresh: the write alone
            if out is not _WRITTEN:
                target.data[...] = out
            target._vc[0] += 1
            _bumped(ctx, target)
            return target
    if grad_enabled and target._creation is not None:
        _check_creation(target, base, args)
    if grad_enabled and base is not None and (
        target.requires_grad or any(a.__class__ is Tensor and a.requires_grad for a in args)
    ):
        if base.requires_grad and base.grad_fn is None:
            raise ScriptError("a view of a leaf Variable that requires grad is being used in an "
                              "in-place operation.")
        return _inplace_on_view(op, target, base, args, params, ctx.recorder)
    result = _inplace_result(op, target, args, params)
    if ctx.history is not None and not grad_enabled:  # an optimizer-style update (history.py)
        ctx.history.keep(target)
    data = target.data
    if flags is None or not flags.writeable:  # a NumPy scalar (a 0-d value): a 0-d array
        data = target.data = target.backend.writable(data)
    if result.data.shape != data.shape and tuple(result.data.shape) != tuple(data.shape):
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
    if ctx.recorder is not None:
        ctx.recorder(target, op, (target, *args), True, params)
    data[...] = result.data
    target._vc[0] += 1
    _bumped(ctx, target)
    if base is not None or getattr(target, "_views", None):  # refresh_views' own test, first
        refresh_views(target)
    return target


def _plain_inplace(op: Any, target: Tensor, args: tuple, grad_enabled: bool) -> Any:
    """The new values of an in-place update that records no node: a floating ``target``
    updated with no argument (``zero_``), a tensor of its dtype and shape or a Python number
    (``add_``, ``sub_``, ``mul_`` ...), as ``apply``'s fast paths compute them (``_WRITTEN``
    when NumPy's add, subtract, multiply or divide wrote them into the target already); None
    for the general path (a node to record, a promotion, a broadcast, more arguments)."""
    data = target.data
    dt = data.dtype
    backend = target.backend
    if target.__class__ is not Tensor or dt not in backend.float_natives or \
            grad_enabled and target.requires_grad:  # (a lazy module's parameter: its error)
        return None
    if not args:
        return op.forward(backend.xp, data)
    if len(args) != 1:
        return None
    b = args[0]
    if b.__class__ is Tensor:
        if b.data.dtype is not dt or b.data.shape != data.shape or grad_enabled and \
                b.requires_grad:
            return None
        write = WRITES_INTO.get(op.name)
        if write is not None and data.__class__ is NDARRAY and b.data.__class__ is NDARRAY:
            write(data, b.data, data)  # NumPy's op straight into the target (backend.py)
            return _WRITTEN
        return op.forward(backend.xp, data, b.data)
    if (b.__class__ is float or b.__class__ is int and -_BIG < b < _BIG) and op.differentiable[0]:
        out = op.forward(backend.xp, data, b)
        return out if out.dtype is dt else backend.astype(out, target.dtype)
    return None


_WRITTEN = object()  # _plain_inplace wrote the new values into the target itself


def _bumped(ctx: Any, target: Tensor) -> None:
    """Remember the statement that bumped the version (for error hints); tell a tracer."""
    ctx.inplace_at[id(target._vc)] = (target._vc, ctx.free_tag)
    if ctx.tracer is not None:
        ctx.tracer.version(target)


NO_GRAD_VIEW_MSG = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked)."
)


def _check_creation(target: Tensor, base: Tensor | None, args: tuple) -> None:
    """PyTorch's refusals of an in-place update of a view, by how the view was made."""
    how = target._creation
    if how[0] == "no_grad":
        if (target.requires_grad or (base is not None and base.requires_grad)
                or any(a.__class__ is Tensor and a.requires_grad for a in args)):
            raise ScriptError(NO_GRAD_VIEW_MSG)
    elif target.requires_grad:
        raise ScriptError(
            f"Output {how[2]} of {how[1]} is a view and is being modified inplace. This view is "
            "the output of a function that returns multiple views. Such functions do not allow "
            "the output views to be modified inplace. You should replace the inplace operation "
            "by an out-of-place one.")


def _inplace_result(op: Any, target: Tensor, args: tuple, params: dict) -> Tensor:
    """The op's result, which must fit the target's dtype (PyTorch's ``canCast``)."""
    result = apply(op, (target, *args), params, record=False)
    if result.data.dtype is target.data.dtype:  # the common case: nothing to cast
        return result
    got, want = result.dtype, target.dtype
    if got is not want and (got.kind > want.kind and not (want is BOOL and got is BOOL)):
        raise ScriptError(f"result type {SCALAR_NAMES[got.name]} can't be cast to the desired "
                          f"output type {SCALAR_NAMES[want.name]}")
    return result


def _save_original_self(node: Node, target: Tensor) -> None:
    """What the in-place node saves, as PyTorch's in-place kernels save it, before ``target``
    is written. NOTE: a formula that reads ``self`` reads a clone of the original ``self``
    (``_saved_self`` is that clone, CloneBackward0 when ``self`` requires grad, which a
    second derivative goes through); a saved ``result`` is ``target`` itself, at the version
    the write gives it, so a later in-place update of it is caught."""
    saved = node.saved
    s = saved.get("self")
    if s is not None:
        clone = apply(O.CLONE, (target,), record=False)
        saved["self"] = (clone.data, clone, clone._vc, clone._vc[0], clone.grad_fn, False)
    for name, entry in saved.items():
        if entry[5]:  # an output
            saved[name] = (entry[0], None, target._vc, target._vc[0] + 1, None, True)


def _inplace_on_view(op: Any, target: Tensor, base: Tensor, args: tuple,
                     params: dict, recorder: Any) -> Tensor:
    result = _inplace_result(op, target, args, params)
    if tuple(result.data.shape) != tuple(target.data.shape):
        raise ScriptError(
            f"output with shape {list(target.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )
    fn = result.grad_fn
    if fn is None:  # an integer or bool view cannot require grad: a plain write (PyTorch's too)
        if recorder is not None:
            recorder(target, op, (target, *args), True, params)
        target.data[...] = result.data
        target._vc[0] += 1
        _bumped(current(), target)
        refresh_views(target, keep=target)
        return target
    _save_original_self(fn, target)
    index, inverse = view_maps(base.backend, base.shape, target._view_fn)
    cs = CopySlices(fn, edge(base) if base.requires_grad else None, index, inverse)
    if base._retains_grad and base.grad_fn is not None:
        base.grad_fn.retained, cs.retained = None, base
    base.grad_fn, base.requires_grad = cs, True
    view_node = regenerated_view_node(base, target, cs, index)
    if target._retains_grad and target.grad_fn is not None:
        target.grad_fn.retained, view_node.retained = None, target
    target.grad_fn, target.requires_grad = view_node, True
    if recorder is not None:
        recorder(target, op, (target, *args), True, params)
        recorder(base, O.COPY_SLICES, (base, target), True, _EMPTY)
    target.data[...] = result.data
    target._vc[0] += 1
    _bumped(current(), target)
    refresh_views(target, keep=target)
    return target


# ---- the common calls compiled ------------------------------------------------------------------
_python_apply = apply  # the compiled apply hands every call but its common ones to this one
_python_apply_inplace = apply_inplace  # and the compiled apply_inplace all but its plain path


def _compiled_spec() -> dict:
    """What _record.c reads once: the classes it makes (with the slot descriptors of what their
    constructors set, in its order), the Python it hands every other call to, and the shared
    constants of the fast paths above."""
    from .context import _CURRENT

    tensor_slots = ("data", "backend", "requires_grad", "grad_fn", "_grad", "_vc",
                    "_retains_grad", "_strides", "_base", "_creation", "_view_fn", "_accumulator",
                    "_views")
    node_slots = ("op", "edges", "saved", "params", "shapes", "backend", "retained", "dtypes",
                  "hooks", "freed", "freed_by", "unfreed", "seq", "prio", "mask")
    return {
        "tensor_class": (Tensor, tuple(getattr(Tensor, n) for n in tensor_slots)),
        "node_class": (Node, tuple(getattr(Node, n) for n in node_slots)),
        "apply": _python_apply, "edge": edge, "empty": _EMPTY, "shapes": _SHAPES,
        "shapes_limit": _SHAPES_LIMIT, "context": _CURRENT, "current": current,
        "tt": _TT, "tf": _TF, "ft": _FT, "t": _T,
        "scalar_first": _SCALAR_FIRST, "scalar_second": _SCALAR_SECOND,
        "apply_inplace": _python_apply_inplace, "ndarray": NDARRAY, "writes_into": WRITES_INTO,
    }


try:  # apply's common calls compiled (_record.c), where the install could build it
    if os.environ.get("GRADCLI_PURE"):
        raise ImportError("GRADCLI_PURE is set")
    _compiled: Any = importlib.import_module(f"{__package__}._record")  # optional: by name
except ImportError:
    _compiled = None
if _compiled is not None:
    _compiled.setup(_compiled_spec())
    apply = _compiled.apply  # the same calls; every other goes to the Python apply above
    apply_inplace = _compiled.apply_inplace  # its plain path; the rest to the Python one
