"""``torch.autograd.functional``: jacobian, hessian, vjp, jvp, vhp, hvp over the engine's grad.

Each follows PyTorch 2.13's ``torch/autograd/functional.py`` step for step (the same calls to
``grad``, the same checks and messages, the same tuple-or-tensor results), so values, errors
and, under ``create_graph=True``, the top ``grad_fn`` are PyTorch's.  ``func`` is any callable:
a Python function or a script's function value.

NOTE: ``vectorize=True`` computes the same Jacobian with the loop (PyTorch uses vmap; values
agree to rounding).  A Jacobian built with ``create_graph=True`` joins its rows with
``torch.stack`` when the engine has it, otherwise with an equivalent differentiable sum of
one-hot products: the result's grad_fn (``ViewBackward0``), values and gradients are PyTorch's,
the nodes below it are not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import FUNCTIONS as ENGINE_FUNCTIONS
from ..engine.context import GradMode, current
from ..engine.indexing import getitem
from ..engine.shape import reshape, view
from ..engine.tensor import Tensor
from ..errors import ScriptError
from . import creation, forward_ad
from .autograd import grad


# -- PyTorch's helpers ----------------------------------------------------------------------------
def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """(whether ``inp`` was a tuple, ``inp`` as a tuple of tensors), with PyTorch's TypeError."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise ScriptError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                              f"tuple of Tensors but {where} has type {_type(el)}.",
                              kind="TypeError")
    return is_tuple, items


def _type(value: Any) -> str:
    if isinstance(value, Tensor):
        return "<class 'torch.Tensor'>"
    return f"<class '{type(value).__name__}'>"


def _tuple_postprocess(res: Any, to_unpack: Any) -> Any:
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh tensor objects: a differentiable view under create_graph, else detached leaves."""
    out = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            out.append(view(inp, *inp.shape))  # PyTorch's inp.view_as(inp)
        else:
            out.append(inp.detach().requires_grad_(need_graph))
    return tuple(out)


def _grad_postprocess(inputs: Any, create_graph: bool) -> Any:
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(t.detach() for t in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise ScriptError(f"v is a tuple of invalid length: should be {len(other)} but got "
                              f"{len(v)}.")
        raise ScriptError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if tuple(el_v.shape) != tuple(el_other.shape):
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise ScriptError(f"{prepend}v has invalid size: should be "
                              f"torch.Size({list(el_other.shape)}) but got "
                              f"torch.Size({list(el_v.shape)}).")


_REQUIRES_GRAD_MSG = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when running "
                "in strict mode."),
}


def _check_requires_grad(inputs: tuple, input_type: str, strict: bool) -> None:
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise ScriptError(f"The output of the user-provided function is independent of input "
                              f"{i}. This is not allowed in strict mode.")
        if not inp.requires_grad:
            raise ScriptError(_REQUIRES_GRAD_MSG[input_type].format(i=i))


def _autograd_grad(outputs: tuple, inputs: tuple, grad_outputs: Any = None,
                   create_graph: bool = False, retain_graph: bool | None = None) -> tuple:
    """``grad`` of the outputs that require grad; all None when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    outs, gouts = [], []
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            outs.append(out)
            gouts.append(g)
    if not outs:
        return (None,) * len(inputs)
    return grad(tuple(outs), inputs, tuple(gouts), allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


_FILL_MSG = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool,
                   stage: str) -> tuple:
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise ScriptError(_FILL_MSG[stage].format(i=i))
            g = creation.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise ScriptError(f"The {what} of the user-provided function is independent of input "
                              f"{i}. This is not allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


def _call(func: Callable, inputs: tuple) -> Any:
    if not callable(func):
        raise ScriptError(f"'{type(func).__name__}' object is not callable", kind="TypeError")
    return func(*inputs)


def _single_v_or_fail(inputs: tuple, v: Any, create_graph: bool, is_tuple: bool,
                      fn_name: str, where: str) -> Any:
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph, need_graph=False)
        _validate_v(v, inputs, is_tuple)
        return v
    if len(inputs) != 1 or inputs[0].numel() != 1:
        raise ScriptError(f"The vector v can only be None if the {where} is a single Tensor with "
                          "a single element.")
    return None


# -- the public functions -------------------------------------------------------------------------
def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), vᵀ·J)``, as ``torch.autograd.functional.vjp``."""
    with GradMode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(_call(func, inputs),
                                              "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise ScriptError("The vector v can only be None if the user-provided function "
                              "returns a single Tensor with a single element.")
    with GradMode(True if create_graph else current().grad_enabled):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_inputs_tuple))


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), J·v)`` by PyTorch's double-backward trick."""
    with GradMode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        v = _single_v_or_fail(inputs, v, create_graph, is_inputs_tuple, "jvp",
                              "input to the user-provided function")
        is_outputs_tuple, outputs = _as_tuple(_call(func, inputs),
                                              "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # The backward is linear, so grad_outputs' values do not matter (finite zeros do).
        grad_outputs = tuple(creation.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with GradMode(True if create_graph else current().grad_enabled):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_outputs_tuple))


def _stack_rows(rows: list[Tensor], shape: tuple, create_graph: bool) -> Tensor:
    """PyTorch's ``torch.stack(rows, dim=0).view(shape)``."""
    if not create_graph or not any(r.requires_grad for r in rows):
        be = rows[0].backend
        xp = be.xp
        data = xp.reshape(xp.stack([xp.asarray(r.data) for r in rows], axis=0), shape)
        return Tensor(be.writable(data), be)
    stack = ENGINE_FUNCTIONS.get("stack")
    if stack is not None:
        return view(stack(rows, dim=0), *shape)
    n = len(rows)
    total = None
    for j, r in enumerate(rows):
        onehot = creation.zeros(n)
        onehot.data[j] = 1.0
        term = reshape(onehot, n, *([1] * r.ndim)) * r
        total = term if total is None else total + term
    return view(total, *shape)


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: a tensor, or tuples by outputs then inputs."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ScriptError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                          'Hint: If your function has more outputs than inputs, "forward-mode" '
                          'tends to be more performant. Otherwise, prefer to use "reverse-mode".',
                          kind="AssertionError")
    if strategy == "forward-mode":
        if create_graph:
            raise ScriptError('torch.autograd.functional.jacobian: `create_graph=True` and '
                              '`strategy="forward-mode"` are not supported together (yet). '
                              'Please either set `create_graph=False` or `strategy="reverse-'
                              'mode"`.', kind="NotImplementedError")
        return _jacfwd(func, inputs, strict, vectorize)
    with GradMode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(_call(func, inputs),
                                              "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise ScriptError("torch.autograd.functional.jacobian: `strict=True` and "
                              "`vectorized=True` are not supported together. Please either set "
                              "`strict=False` or `vectorize=False`.")
        result = []
        for i, out in enumerate(outputs):
            rows: list[list[Tensor]] = [[] for _ in inputs]
            flat = reshape(out, -1)
            for j in range(out.numel()):
                vj = _autograd_grad((getitem(flat, j),), inputs, retain_graph=True,
                                    create_graph=create_graph)
                for k, (vj_el, inp) in enumerate(zip(vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise ScriptError(
                                "The jacobian of the user-provided function is independent of "
                                "input {i}. This is not allowed in strict mode when "
                                "create_graph=True.")  # NOTE: PyTorch leaves {i} unformatted
                        rows[k].append(vj_el)
                    else:
                        if strict:
                            raise ScriptError(f"Output {i} of the user-provided function is "
                                              f"independent of input {k}. This is not allowed "
                                              "in strict mode.")
                        rows[k].append(creation.zeros_like(inp))
            result.append(tuple(
                _stack_rows(r, tuple(out.shape) + tuple(inputs[k].shape), create_graph)
                if r else _empty_jacobian(out, inputs[k]) for k, r in enumerate(rows)))
        result = _grad_postprocess(tuple(result), create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def _jacfwd(func: Callable, inputs: Any, strict: bool, vectorize: bool) -> Any:
    """PyTorch's _jacfwd: a column of the Jacobian per input element, by forward-mode AD (a
    dual level per element where PyTorch vmaps them)."""
    if strict:
        raise ScriptError('torch.autograd.functional.jacobian: `strict=True` and '
                          '`strategy="forward-mode"` are not supported together (yet). Please '
                          'either set `strict=False` or `strategy="reverse-mode"`.')
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        # NOTE: PyTorch's message lacks the space between "is" and "only"
        raise ScriptError("Computing Jacobian using forward-AD or forward-over-reverse Hessian "
                          "isonly implemented for `vectorize=True`.",
                          kind="NotImplementedError")
    numels = [x.numel() for x in inputs]
    total = sum(numels)
    columns: list[list[Tensor]] = []
    primals: list[Tensor] = []
    is_outputs_tuple = False
    for b in range(total):
        with forward_ad.dual_level():
            duals, start = [], 0
            for x, n in zip(inputs, numels):
                tangent = creation.zeros_like(x)
                if start <= b < start + n:
                    tangent.data = tangent.backend.writable(tangent.data)
                    tangent.data.reshape(-1)[b - start] = 1
                duals.append(forward_ad.make_dual(x, tangent))
                start += n
            is_outputs_tuple, outs = _as_tuple(_call(func, tuple(duals)), "outputs",
                                               "jacobian")
            if not columns:
                columns = [[] for _ in outs]
            primals = []
            for i, out in enumerate(outs):
                primal, tangent = forward_ad.unpack_dual(out)
                primals.append(primal)
                columns[i].append(tangent if tangent is not None else
                                  creation.zeros_like(primal))
    stack, split = ENGINE_FUNCTIONS["stack"], ENGINE_FUNCTIONS["split"]
    result = []
    for cols, out in zip(columns, primals):  # PyTorch's: split by input, batch dim moved last
        per_input = []
        for jac, x in zip(split(stack(cols), numels, 0), inputs):
            moved = jac.permute(*range(1, jac.ndim), 0)
            per_input.append(reshape(moved, (*out.shape, *x.shape)))
        result.append(per_input)
    return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def _empty_jacobian(out: Tensor, inp: Tensor) -> Tensor:
    """The Jacobian of an output with no elements: PyTorch's stack of nothing fails too."""
    raise ScriptError("stack expects a non-empty TensorList")


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar ``func`` at ``inputs`` (the Jacobian of its Jacobian)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise ScriptError('Expected strategy to be either "forward-mode" or "reverse-mode".',
                          kind="AssertionError")

    def ensure_single_output_function(*inp: Tensor) -> Tensor:
        out = _call(func, inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise ScriptError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise ScriptError("The Tensor returned by the function given to hessian should "
                              "contain a single element")
        return out.squeeze()

    def jac_func(*inp: Tensor) -> Any:
        if outer_jacobian_strategy == "forward-mode":  # inputs the inner backward can reach
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_output(outputs: tuple, is_outputs_tuple: bool, fn_name: str) -> None:
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise ScriptError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise ScriptError(f"The Tensor returned by the function given to {fn_name} should contain "
                          "a single element")


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), vᵀ·H)`` of a scalar function."""
    with GradMode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        v = _single_v_or_fail(inputs, v, create_graph, is_inputs_tuple, "vhp",
                              "input to the user-provided function")
        is_outputs_tuple, outputs = _as_tuple(_call(func, inputs),
                                              "outputs of the user-provided function", "vhp")
        _check_requires_grad(outputs, "outputs", strict)
        _scalar_output(outputs, is_outputs_tuple, "vhp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with GradMode(True if create_graph else current().grad_enabled):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_inputs_tuple))


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), H·v)`` of a scalar function, by the double-backward trick."""
    with GradMode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        v = _single_v_or_fail(inputs, v, create_graph, is_inputs_tuple, "hvp",
                              "input to the user-provided function")
        is_outputs_tuple, outputs = _as_tuple(_call(func, inputs),
                                              "outputs of the user-provided function", "hvp")
        _check_requires_grad(outputs, "outputs", strict)
        _scalar_output(outputs, is_outputs_tuple, "hvp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        grad_jac = tuple(creation.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with GradMode(True if create_graph else current().grad_enabled):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_inputs_tuple))
