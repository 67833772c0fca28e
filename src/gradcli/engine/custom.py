"""Custom autograd functions (``torch.autograd.Function``): their node and how it runs.

``run_function`` is PyTorch's ``Function.apply``: it makes the node, which is also the
function's ``ctx`` (as in PyTorch, ``y.grad_fn is ctx``), runs ``forward`` under no_grad, and
gives the outputs their history (``mark_dirty`` inputs updated in place, non-differentiable
outputs left out, an input returned as is made an alias).  The node's ``apply`` calls the
program's ``backward`` with one gradient per output (zeros, or None after
``set_materialize_grads(False)``, for an output that got none) and checks what it returns as
PyTorch's engine does: one gradient per input, tensors or None, shapes that reduce to the
input's.  What ``save_for_backward`` saved is kept as every node keeps its saved tensors
(``graph.Node.saved``), so that a backward without ``retain_graph`` frees it, an in-place
update since is caught, and graph listings show it.

A function with several outputs has one ``OutputSlot`` node per output (what the outputs'
``grad_fn`` and their consumers' edges hold; a program sees the node itself and
``(node, output_nr)`` in ``next_functions``): each passes its gradient on, tagged with its
output number, and the node runs once with all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ScriptError
from .context import current, no_grad
from .graph import _EMPTY, RETAIN_MSG, Node, SavedInfo, edge, sum_to
from .saved_hooks import SavedHooks, active_hooks
from .tensor import Tensor

ONCE_MSG = "trying to differentiate twice a function that was marked with @once_differentiable"
LEAF_DIRTY_MSG = "a leaf Variable that requires grad has been used in an in-place operation."


class Parts(dict):
    """Gradients of a node's outputs by output number, as its slots send them; two senders
    to the same output add up."""

    def __add__(self, other: Parts) -> Parts:
        out = Parts(self)
        for i, g in other.items():
            out[i] = out[i] + g if i in out else g
        return out


class FunctionNode(Node):
    """The node (and ``ctx``) of one call of a custom Function: ``<Name>Backward``."""

    __slots__ = ("attrs", "backward", "call", "dirty", "for_forward", "in_jvp", "inputs",
                 "materialize", "name_", "non_diff", "outputs", "saved_order", "saved_outputs",
                 "slots", "to_save")

    def __init__(self, name: str, backward: Callable[..., Any], backend: Any) -> None:
        super().__init__(None, (), {}, _EMPTY, (), backend, ())
        self.name_ = name
        self.backward = backward  # backward(ctx, *grads): the program's
        self.attrs: dict[str, Any] = {}  # the attributes a program sets on ctx
        self.inputs: tuple = ()  # the forward's arguments (tensors as placeholders: see _run)
        self.outputs: list = []  # per output: (shape, dtype, differentiable) or None
        self.to_save: tuple | None = None
        self.for_forward: tuple | None = None  # save_for_forward's, until jvp ran
        self.in_jvp = False
        self.saved_order: tuple[str | None, ...] = ()
        self.saved_outputs: dict[str, int] = {}  # saved name -> output number, for outputs
        self.slots: dict[int, OutputSlot] | None = None  # when it has several outputs
        self.dirty: tuple = ()
        self.non_diff: tuple = ()
        self.materialize = True
        # recording runs: (forward, setup_context, args, kwargs) of the call, so `check` can
        # call the Function again on its replayed inputs (replay.py)
        self.call: tuple | None = None

    @property
    def fn_name(self) -> str:
        """``MyReLUBackward``: the class's name and ``Backward``, as PyTorch names it."""
        return self.name_

    def repr_name(self) -> str:
        """How Python prints the node's class: PyTorch makes it in torch.autograd.function."""
        return f"torch.autograd.function.{self.name_}"

    def op_name(self) -> str:
        """The Function's class name (``MyReLU``)."""
        return self.name_.removesuffix("Backward")

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """One flag per forward argument: whether its gradient is needed."""
        return tuple(a is True for a in self.inputs)

    # -- what the program calls on ctx ----------------------------------------------------------
    def save_for_backward(self, *tensors: Any) -> None:
        """Keep ``tensors`` (or None) for ``backward``."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise ScriptError(f"save_for_backward can only save variables, but argument {i} "
                                  f"is of type {type(t).__name__}", kind="TypeError")
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Keep ``tensors`` (or None) for ``jvp``, where ``ctx.saved_tensors`` gives them."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise ScriptError("save_for_forward expects all arguments to be tensors; you "
                                  "should save non-tensors as attributes on ctx.",
                                  kind="AssertionError")
        self.for_forward = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        """Inputs ``forward`` modified in place."""
        self.dirty = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Outputs that have no gradient."""
        self.non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` gets zeros (True) or None for an output without a gradient."""
        self.materialize = bool(value)

    @property
    def saved_values(self) -> tuple:
        """``ctx.saved_tensors``: what ``save_for_backward`` saved, checked as PyTorch unpacks
        it (``saved_tensors()`` is the listing every node has); in ``jvp``, what
        ``save_for_forward`` saved (PyTorch saves for backward after jvp ran)."""
        if self.in_jvp:
            return tuple(self.for_forward or ())
        if self.to_save is not None:  # still inside forward
            return tuple(self.to_save)
        return tuple(None if nm is None else self.unpack_saved(nm) for nm in self.saved_order)

    def unpack_saved(self, name: str) -> Tensor:
        """One saved tensor: the tensor itself, or the output with this node as its grad_fn."""
        if self.freed:
            err = ScriptError(RETAIN_MSG)
            err.freed_by = self.freed_by  # type: ignore[attr-defined]
            raise err
        value, tensor, _, _, _, is_output = entry = self.saved[name]
        if entry.__class__ is not tuple:  # taken by a pack hook: its unpack hook's tensor
            return self.unpack(name, True)
        self.unpack(name, False)  # its version checks
        if is_output:
            index = self.saved_outputs[name]
            node = self if self.slots is None else self.slots[index]
            return Tensor(value, self.backend, True, node)
        return tensor

    # -- backward -------------------------------------------------------------------------------
    def apply(self, grad: Any, needed: Sequence[bool], xp: Any, tensor_mode: bool) -> list:
        """Call the program's backward; its gradients for the input edges."""
        grads = self._output_grads(grad, tensor_mode)
        result = self.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_inputs = len(self.inputs)
        if len(result) > n_inputs and all(r is None for r in result[n_inputs:]):
            result = result[:n_inputs]
        if len(result) != n_inputs:
            raise ScriptError(f"function {self.fn_name} returned an incorrect number of "
                              f"gradients (expected {n_inputs}, got {len(result)})")
        out: list = []
        k = 0
        for i, (a, g) in enumerate(zip(self.inputs, result)):
            if g is not None and not isinstance(g, Tensor):
                raise ScriptError(f"expected Variable or None (got {type(g).__name__})")
            if a is None:  # not a tensor
                if g is not None:
                    raise ScriptError(f"function {self.fn_name} returned a gradient different "
                                      f"than None at position {i + 1}, but the corresponding "
                                      "forward input was not a Variable")
                continue
            if needed[k] and g is not None:
                out.append(self._checked(g, k, i, tensor_mode))
            else:
                out.append(None if not needed[k] else self._zeros(k, tensor_mode))
            k += 1
        return out

    def _output_grads(self, grad: Any, tensor_mode: bool) -> list:
        if not isinstance(grad, Parts):  # its one differentiable output's
            grad = Parts({next(i for i, o in enumerate(self.outputs) if o and o[2]): grad})
        parts = grad
        out = []
        for i, info in enumerate(self.outputs):
            g = parts.get(i)
            if info is None:  # not a tensor
                out.append(None)
            elif g is not None:
                out.append(g if isinstance(g, Tensor) else Tensor(g, self.backend))
            elif self.materialize:
                out.append(Tensor(self.backend.xp.zeros(info[0], dtype=info[1]), self.backend))
            else:
                out.append(None)
        return out

    def _checked(self, g: Tensor, k: int, i: int, tensor_mode: bool) -> Any:
        """A returned gradient with the engine's checks: the input's shape (summed down to it
        when it broadcasts), the input's dtype."""
        shape, dtype = self.shapes[k], self.dtypes[k]
        if tuple(g.shape) != tuple(shape):
            if not _expands(shape, tuple(g.shape)):
                raise ScriptError(f"Function {self.fn_name} returned an invalid gradient at "
                                  f"index {i} - got {list(g.shape)} but expected shape "
                                  f"compatible with {list(shape)}")
            g = _sum_to_tensor(g, tuple(shape)) if tensor_mode else \
                Tensor(sum_to(self.backend.xp, g.data, tuple(shape)), self.backend)
        if g.data.dtype is not dtype:
            g = g.to(self.backend.dtype_of(self.backend.xp.zeros((), dtype=dtype)))
        return g if tensor_mode else g.data

    def _zeros(self, k: int, tensor_mode: bool) -> Any:
        z = self.backend.xp.zeros(self.shapes[k], dtype=self.dtypes[k])
        return Tensor(z, self.backend) if tensor_mode else z

    # -- listings -------------------------------------------------------------------------------
    def saved_tensors(self) -> list[SavedInfo]:
        """What it saved, for listings, by ``saved_tensors[i]``."""
        if not self.freed:
            return super().saved_tensors()
        return [SavedInfo(nm, True, False, tuple(shape), None, None, nm in self.saved_outputs)
                for nm, shape in self.saved.items() if shape is not None]


def _sum_to_tensor(g: Tensor, shape: tuple) -> Tensor:
    """``graph.sum_to`` as recorded ops (a gradient under ``create_graph=True``)."""
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape)
                                      if d == 1 and g.shape[i + lead] != 1)
    if axes:
        g = g.sum(axes, keepdim=True)
    return g.reshape(shape) if lead else g


def _expands(shape: tuple, to: tuple) -> bool:
    """Whether ``shape`` broadcasts to ``to`` (PyTorch's ``is_expandable_to``)."""
    if len(shape) > len(to):
        return False
    for a, b in zip(reversed(shape), reversed(to)):
        if a != b and a != 1:
            return False
    return True


class OutputSlot(Node):
    """Output ``index`` of a node with several outputs: consumers' edges point here."""

    __slots__ = ("index", "main")

    def __init__(self, main: FunctionNode, index: int) -> None:
        super().__init__(None, (main,), _EMPTY, _EMPTY, (), main.backend, (True,))
        self.main, self.index = main, index

    @property
    def fn_name(self) -> str:
        """The node's name."""
        return self.main.fn_name

    def output_ref(self) -> tuple[Node, int]:
        """``(node, output_nr)``, as ``next_functions`` shows an edge to it."""
        return self.main, self.index

    def op_name(self) -> str:
        """The Function's class name."""
        return self.main.op_name()

    def apply(self, grad: Any, needed: Sequence[bool], xp: Any, tensor_mode: bool) -> list:
        """The gradient of this output, for the node to gather."""
        return [Parts({self.index: grad})]

    def saved_tensors(self) -> list[SavedInfo]:
        """The node's saved tensors."""
        return self.main.saved_tensors()


class ErrorNode(Node):
    """PyTorch's ``Error`` node: the gradient of a ``@once_differentiable`` backward's
    outputs, which fails when differentiated."""

    __slots__ = ()

    @property
    def fn_name(self) -> str:
        """``Error``."""
        return "Error"

    def name(self) -> str:
        """``torch::autograd::Error``."""
        return "torch::autograd::Error"

    def apply(self, grad: Any, needed: Sequence[bool], xp: Any, tensor_mode: bool) -> list:
        """Differentiating it again is the error."""
        raise ScriptError(ONCE_MSG)


def once_differentiable(backward: Callable[..., Any]) -> Callable[..., Any]:
    """``@once_differentiable``: the backward runs without recording; under
    ``create_graph=True`` its results fail when differentiated again."""
    def wrapper(ctx: Any, *grads: Any) -> Any:
        with no_grad():
            out = backward(ctx, *grads)
        if not current().grad_enabled:
            return out
        if not any(isinstance(g, Tensor) and g.requires_grad for g in grads):
            return out
        single = not isinstance(out, tuple)
        items = (out,) if single else out
        tensors = [g for g in grads if isinstance(g, Tensor) and g.requires_grad]
        err = ErrorNode(None, tuple(edge(g) for g in tensors), _EMPTY, _EMPTY,
                        tuple(g.data.shape for g in tensors), ctx.backend)
        wrapped = tuple(Tensor(x.data, x.backend, True, err) if isinstance(x, Tensor) else x
                        for x in items)
        return wrapped[0] if single else wrapped

    wrapper.__name__ = getattr(backward, "__name__", "backward")
    wrapper.once_differentiable = True  # type: ignore[attr-defined]
    return wrapper


# ---- apply --------------------------------------------------------------------------------------
def run_function(name: str, forward: Callable[..., Any], backward: Callable[..., Any],
                 setup_context: Callable[..., Any] | None, args: tuple, kwargs: dict,
                 backend: Any, jvp: Callable[..., Any] | None = None) -> Any:
    """``Cls.apply(*args)``: forward under no_grad (and without forward AD), outputs given the
    node as history; in a dual level, ``jvp`` gives the outputs their tangents."""
    ctx = current()
    node = FunctionNode(f"{name}Backward", backward, backend)
    grad_on = ctx.grad_enabled
    every = (*args, *kwargs.values())
    tensors = [a for a in every if isinstance(a, Tensor)]
    node.inputs = tuple((a.requires_grad and grad_on) if isinstance(a, Tensor) else None
                        for a in every)
    fw = ctx.forward
    if fw is not None:
        fw.paused += 1  # PyTorch runs forward with forward AD off
    try:
        with no_grad():
            if setup_context is None:
                result = forward(node, *args, **kwargs)
            else:
                result = forward(*args)
                setup_context(node, tuple(args), result)
    finally:
        if fw is not None:
            fw.paused -= 1
    single = not isinstance(result, tuple)
    outputs = (result,) if single else result
    executable = any(a is True for a in node.inputs)
    if executable:  # the inputs' history, before a dirty input gets this node as its own
        node.edges = tuple(edge(t) if t.requires_grad else None for t in tensors)
        node.mask = tuple(e is not None for e in node.edges)
        node.shapes = tuple(t.data.shape for t in tensors)
        node.dtypes = tuple(t.data.dtype for t in tensors)
    raw = outputs
    outputs = _wrap_outputs(node, every, outputs, executable)
    if fw is not None and jvp is not None:
        _forward_mode(fw, node, jvp, every, raw, outputs)
    node.for_forward = None
    if executable:
        _save(node, args, outputs)
    node.to_save = None
    if ctx.recorder is not None:
        node.call = (forward, setup_context, args, kwargs)
        for out in outputs:
            if isinstance(out, Tensor):
                ctx.recorder(out, CustomOp(name), tuple(tensors), False)
        hooks = active_hooks()  # (after the reports: a trace lists the op, then the packs)
        if executable and node.saved and hooks is not None and hooks.disabled is None:
            _pack(hooks, node, outputs)
    return outputs[0] if single else outputs


class CustomOp:
    """What graph records name a custom Function's op by (``MyReLU``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def _wrap_outputs(node: FunctionNode, args: tuple, outputs: tuple, executable: bool) -> tuple:
    dirty = {id(t) for t in node.dirty}
    non_diff = {id(t) for t in node.non_diff}
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    for t in node.dirty:
        if id(t) not in inputs:
            raise ScriptError("mark_dirty only accepts input tensors, but argument 0 isn't one")
    several = sum(isinstance(o, Tensor) for o in outputs) > 1 if executable else False
    slots: list = []
    out: list = []
    node.outputs = []
    for i, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            node.outputs.append(None)
            out.append(o)
            continue
        differentiable = executable and id(o) not in non_diff and o.dtype.is_floating_point
        node.outputs.append((tuple(o.data.shape), o.data.dtype, differentiable))
        if id(o) in dirty:
            if o.requires_grad and o.grad_fn is None and executable:
                raise ScriptError(LEAF_DIRTY_MSG)
            o._vc[0] += 1
        elif id(o) in inputs:  # an input returned as it is: an alias (PyTorch's view_as)
            o = o.detach()
        if differentiable:
            slot = OutputSlot(node, i) if several else node
            slots.append(slot)
            o.grad_fn, o.requires_grad = slot, True
        elif executable:
            o.requires_grad = False
        out.append(o)
    if several:
        node.slots = {s.index: s for s in slots}
    return tuple(out)


def _forward_mode(fw: Any, node: FunctionNode, jvp: Callable[..., Any], args: tuple,
                  raw: tuple, outputs: tuple) -> None:
    """PyTorch's ``_process_forward_mode_AD``: when an input carries a tangent, ``jvp(ctx,
    *tangents)`` (zeros for a floating input without one, None for the other arguments) gives
    one tangent (or None) per output, checked as PyTorch checks it: an input modified in place
    must have its tangent modified in place and returned as it is, an input returned as it is
    a view of its tangent."""
    given = [fw.tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in given):
        return
    versions = [t.version if t is not None else None for t in given]
    tans = list(given)
    for i, (a, t) in enumerate(zip(args, tans)):
        if t is None and node.materialize and isinstance(a, Tensor) and \
                a.dtype.is_floating_point:
            tans[i] = Tensor(a.backend.xp.zeros_like(a.data), a.backend)
    node.in_jvp = True
    fw.paused += 1  # jvp's own ops carry no tangent (PyTorch runs it with forward AD off)
    try:
        got = jvp(node, *tans)
    finally:
        node.in_jvp = False
        fw.paused -= 1
    got = got if isinstance(got, tuple) else (got,)
    if len(got) != len(outputs):
        raise ScriptError("Function's jvp returned an invalid number of forward gradients "
                          f"(expected {len(outputs)} but got {len(got)})")
    position = {id(a): i for i, a in enumerate(args) if isinstance(a, Tensor)}
    dirty = {id(t) for t in node.dirty}
    non_diff = {id(t) for t in node.non_diff}
    for i, (r, out, tan) in enumerate(zip(raw, outputs, got)):
        if tan is not None and not isinstance(tan, Tensor):
            raise ScriptError(f"expected Variable or None (got {type(tan).__name__}) for grad "
                              f"output {i}.")
        if not isinstance(r, Tensor):
            continue
        if id(r) in non_diff or not r.dtype.is_floating_point:
            if tan is not None:
                raise ScriptError(f"Function's jvp returned a gradient at position {i}, but  the "
                                  "corresponding forward output is not a differentiable Tensor."
                                  "You should return None at that position instead.")
            continue
        if tan is None:
            continue
        if tuple(tan.shape) != tuple(out.shape):
            raise ScriptError("Trying to set a forward gradient that has a different size than "
                              "that of the original Tensor, this is not supported. Tensor is of "
                              f"size {list(out.shape)} while the given forward gradient is of "
                              f"size {list(tan.shape)}.")
        k = position.get(id(r))
        if k is not None and given[k] is not None:
            _check_aliasing(tan, given[k], versions[k], id(r) in dirty)
        fw.set(out, tan)
        tracer = current().tracer
        if tracer is not None:
            tracer.tangent(out, tan.data)


def _check_aliasing(tan: Tensor, given: Tensor, version: int, modified: bool) -> None:
    """PyTorch's checks of the tangent of an output that is an input: modified in place (its
    tangent too, returned as it is) or returned as it is (a view of the input's tangent)."""
    if modified:
        if tan.version == version:
            raise ScriptError("An inplace custom Function is not modifying the forward mode "
                              "gradients inplace. If the forward is modifying an input inplace, "
                              "then the jvp function must modify the corresponding gradient "
                              "inplace.")
        if tan is not given:
            raise ScriptError("An inplace custom Function is not returning the forward mode "
                              "gradients as-is. If the forward is modifying an input inplace, "
                              "then the jvp function must modify the gradient inplace and "
                              "return it as-is.")
        return
    if tan._base is None:
        raise ScriptError("A custom Function's forward is returning a view (or an input as-is) "
                          "but the jvp is not returning a view.")
    if given._base is not None:
        if tan._base is not given._base:
            raise ScriptError("A custom Function is returning a view but the jvp is not "
                              "returning a view of the same base as the given grad input.")
    elif tan._base is not given:
        raise ScriptError("A custom Function is returning a view but the jvp is not returning a "
                          "view of the given grad input.")


def _save(node: FunctionNode, args: tuple, outputs: tuple) -> None:
    """What ``save_for_backward`` saved, as the node's saved entries."""
    if not node.to_save:
        return
    entries, order = {}, []
    by_output = {id(o): i for i, o in enumerate(outputs) if isinstance(o, Tensor)}
    for j, t in enumerate(node.to_save):
        if t is None:
            order.append(None)
            continue
        nm = f"saved_tensors[{j}]"
        i = by_output.get(id(t))
        if i is not None and t.grad_fn is not None and t.grad_fn.output_ref()[0] is node:
            entries[nm] = (t.data, None, t._vc, t._vc[0], None, True)
            node.saved_outputs[nm] = i
        else:
            entries[nm] = (t.data, t, t._vc, t._vc[0], t.grad_fn, False)
        order.append(nm)
    node.saved = entries
    node.saved_order = tuple(order)


def _pack(hooks: SavedHooks, node: FunctionNode, outputs: tuple) -> None:
    """``save_for_backward``'s tensors through the pack hook, in their order (a saved output
    with its node); ``ctx.saved_tensors`` then unpacks them. disable_saved_tensors_hooks
    leaves a Function's saving alone, as PyTorch's."""
    saved = node.saved
    for nm in node.saved_order:
        if nm is None:
            continue
        entry = saved[nm]
        tensor, owner = entry[1], node
        if entry[5]:
            i = node.saved_outputs[nm]
            owner = node if node.slots is None else node.slots[i]
            tensor = outputs[i]
        saved[nm] = hooks.packed(entry, nm, tensor, owner)


__all__ = ["ErrorNode", "FunctionNode", "OutputSlot", "Parts", "once_differentiable",
           "run_function"]
