"""``torch.autograd`` as a program calls it: ``grad``, ``backward``, ``Variable``.

Arguments are checked in PyTorch's order with PyTorch's messages (its Python layer first,
``torch/autograd/__init__.py``, then its C++ engine's), so a wrong call reads as it would
under PyTorch.  The engine (``engine.autograd``) runs the graph.
"""

from __future__ import annotations

from typing import Any

from ..engine import autograd as engine_autograd
from ..engine.context import current
from ..engine.custom import once_differentiable, run_function
from ..engine.tensor import Tensor
from ..errors import ScriptError
from .types import TypeObject

ONLY_INPUTS_MSG = ("only_inputs argument is deprecated and is ignored now (defaults to True). To "
                   "accumulate gradient for other parts of the graph, please use "
                   "torch.autograd.backward.")
GRAD_VARIABLES_MSG = "`grad_variables` is deprecated. Use `grad_tensors` instead."
VOLATILE_MSG = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."


def _as_tuple(value: Any) -> tuple:
    """A tensor as a 1-tuple, any other iterable as a tuple (Python's error otherwise)."""
    if isinstance(value, Tensor):
        return (value,)
    if isinstance(value, (list, tuple, str)):  # Python's tuple(value): a string is iterable
        return tuple(value)
    raise ScriptError(f"'{type(value).__name__}' object is not iterable", kind="TypeError")


def _grads_for(outputs: tuple, grads: Any) -> list:
    """PyTorch's ``_tensor_or_tensors_to_tuple`` then ``_make_grads``: one gradient per output."""
    given = [None] * len(outputs) if grads is None else list(_as_tuple(grads))
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise ScriptError("Expected output to be a torch.Tensor", kind="AssertionError")
        if i >= len(given):
            continue
        g = given[i]
        if g is None:
            if out.requires_grad and out.numel() != 1:
                raise ScriptError("grad can be implicitly created only for scalar outputs")
        elif not isinstance(g, Tensor):
            raise ScriptError(f"gradients can be either Tensors or None, but got "
                              f"{type(g).__name__}", kind="TypeError")
        elif tuple(g.shape) != tuple(out.shape):
            raise ScriptError(
                f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size({list(g.shape)}) "
                f"and output[{i}] has a shape of torch.Size({list(out.shape)}).")
    if len(given) < len(outputs):
        raise ScriptError(f"got {len(outputs)} tensors and {len(given)} gradients")
    return given[:len(outputs)]  # NOTE: PyTorch zips them: extra gradients are ignored


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """As ``torch.autograd.grad``: a tuple of gradients, nothing accumulated into ``.grad``."""
    if materialize_grads and allow_unused is False:
        raise ScriptError("Expected allow_unused to be True or not passed when "
                          "materialize_grads=True, but got: allow_unused=False.",
                          kind="ValueError")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if not only_inputs:
        current().warn(ONLY_INPUTS_MSG, "FutureWarning")
    if is_grads_batched:
        raise ScriptError("grad(is_grads_batched=True) is not supported by gradcli",
                          kind="NotImplementedError",
                          hint="call grad() once per row of grad_outputs")
    grads = _grads_for(outs, grad_outputs)
    _check_outputs(outs, grads)
    if not ins:
        raise ScriptError("`inputs` argument to `grad()` cannot be empty.")
    for t in ins:
        if not isinstance(t, Tensor):
            raise ScriptError("all inputs have to be Tensors or GradientEdges, but got "
                              f"{type(t).__name__}")
    return tuple(engine_autograd.grad(list(outs), list(ins), grads, retain_graph, create_graph,
                                      bool(allow_unused), materialize_grads))


def _check_outputs(outs: tuple, grads: list) -> None:
    """The C++ engine's check: every output needs a graph."""
    for i, out in enumerate(outs):
        if not out.requires_grad:
            raise ScriptError(f"element {i} of tensors does not require grad and does not have a "
                              "grad_fn")


def grad_list(outputs: Any, inputs: Any, grad_outputs: Any = None,
              retain_graph: bool | None = None, create_graph: bool = False,
              allow_unused: bool | None = None, materialize_grads: bool = False) -> list:
    """A grad script's ``grad(...)``: ``torch.autograd.grad`` returning a list (docs/language.md)."""
    for v in (outputs, inputs):
        items = v if isinstance(v, list) else [v]
        if not items or not all(isinstance(t, Tensor) for t in items):
            raise ScriptError("grad() takes a tensor or a list of tensors", kind="TypeError")
    return list(grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                     allow_unused=allow_unused, materialize_grads=materialize_grads))


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables: Any = None,
             inputs: Any = None) -> None:
    """As ``torch.autograd.backward``: accumulate into ``.grad`` (of ``inputs`` only, if given)."""
    if grad_variables is not None:
        current().warn(GRAD_VARIABLES_MSG, "FutureWarning")
        if grad_tensors is not None:
            raise ScriptError("`grad_tensors` and `grad_variables` (deprecated) arguments both "
                              "passed to `backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    ins = None if inputs is None else engine_autograd.input_list(inputs, "backward")
    outs = _as_tuple(tensors)
    grads = _grads_for(outs, grad_tensors)
    _check_outputs(outs, grads)
    engine_autograd.backward_all(list(outs), grads, retain_graph, create_graph, ins)


def Variable(data: Any, requires_grad: bool = False, volatile: Any = None) -> Tensor:
    """``torch.autograd.Variable(t)``: a leaf sharing ``t``'s memory (Variables are Tensors)."""
    if volatile is not None:
        current().warn(VOLATILE_MSG)
    if not isinstance(data, Tensor):
        raise ScriptError(f"Variable data has to be a tensor, but got {type(data).__name__}",
                          kind="TypeError")
    if not isinstance(requires_grad, bool):
        raise ScriptError(f"Variable(): argument 'requires_grad' must be bool, not "
                          f"{type(requires_grad).__name__}", kind="TypeError")
    out = data.detach()  # the same memory and version counter, as PyTorch's
    if requires_grad:
        out.requires_grad_(True)
    return out


# ---- torch.autograd.Function ---------------------------------------------------------------------
FORWARD_MSG = "You must implement the forward function for custom autograd.Function."
BACKWARD_MSG = ("You must implement either the backward or vjp method for your custom "
                "autograd.Function to use it with backward mode AD.")
LEGACY_MSG = ("Legacy autograd function with non-static forward method is deprecated. Please use "
              "new-style autograd function with static forward method. (Example: "
              "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")


class Function:
    """``torch.autograd.Function``: a program's class with static ``forward`` and ``backward``
    (and maybe ``setup_context``) is applied with ``Cls.apply(*args)``; its node is
    ``<Cls>Backward`` (``engine.custom``)."""

    script_subclassable = True  # a script's class may derive from it (script/classes.py)
    script_attributes: frozenset[str] = frozenset()
    script_class_attributes = frozenset({"apply"})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = getattr(type(self), "script_class", None)
        name = repr(cls) if cls is not None else "<class 'torch.autograd.function.Function'>"
        current().warn(f"{name} should not be instantiated. Methods on autograd functions are all "
                       "static, so you should invoke them on the class itself. Instantiating an "
                       "autograd function will raise an error in a future version of PyTorch.",
                       "DeprecationWarning")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ScriptError(LEGACY_MSG)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` and record the node whose backward is the class's ``backward``."""
        forward = _static(cls, "forward")
        if forward is None:
            raise ScriptError(FORWARD_MSG, kind="NotImplementedError")
        setup = _static(cls, "setup_context")
        if setup is not None:  # PyTorch binds the arguments to forward's, defaults included
            args, kwargs = forward.positional(args, kwargs), {}
        backward, vjp = _static(cls, "backward"), _static(cls, "vjp")
        backward = _both if backward is not None and vjp is not None else \
            backward or vjp or _no_backward
        tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
        backend = tensors[0].backend if tensors else current().backend
        jvp = _static(cls, "jvp") or _no_jvp
        return run_function(_class_name(cls), forward, backward, setup, tuple(args), kwargs,
                            backend, jvp)


def _both(ctx: Any, *grads: Any) -> Any:
    raise ScriptError("Implementing both 'backward' and 'vjp' for a custom Function is not "
                      "allowed. You should only implement one of them.")


def _no_jvp(ctx: Any, *tangents: Any) -> Any:
    raise ScriptError("You must implement the jvp function for custom autograd.Function to use "
                      "it with forward mode AD.", kind="NotImplementedError")


def _no_backward(ctx: Any, *grads: Any) -> Any:
    raise ScriptError(BACKWARD_MSG, kind="NotImplementedError")


def _static(cls: Any, name: str) -> Any:
    """The class's own ``forward``/``backward``/``setup_context`` (a program's class's, read
    through its class object), or None where only Function's base has it."""
    script = getattr(cls, "script_class", None)
    if script is not None:
        owner, value = script.lookup(name)
        return None if owner is None else getattr(value, "function", value)
    value = cls.__dict__.get(name)
    return None if value is None else value.__func__ if isinstance(value, staticmethod) else value


def _class_name(cls: Any) -> str:
    script = getattr(cls, "script_class", None)
    return script.name if script is not None else cls.__name__


FUNCTION = TypeObject("torch.autograd.function.Function", (Function,), Function)
# torch.autograd.function: the module of Function and its decorators
FUNCTION_MODULE: dict[str, Any] = {"Function": FUNCTION,
                                   "once_differentiable": once_differentiable}
