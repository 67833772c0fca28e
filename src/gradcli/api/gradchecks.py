"""``torch.autograd.gradcheck`` and ``gradgradcheck``, as PyTorch 2.13's slow mode runs them.

The numerical Jacobian perturbs each element of each input that requires grad by ``eps`` in
place and takes central differences of the function's outputs; the analytical one is a
``torch.autograd.grad`` per output element, twice (the second run checks that backward is
reentrant).  They must agree within ``atol + rtol * |numerical|``; then the backward must
give zeros for zero output gradients.  Every step calls the program's function and its
backward as often and in the order PyTorch does, and a failure is PyTorch's
``GradcheckError`` with its text (the Jacobians printed as PyTorch prints tensors).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from ..engine.context import current, no_grad
from ..engine.tensor import Tensor
from ..errors import ScriptError
from .autograd import grad

NONDET_NOTE = (
    "\n\nNOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
    "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
    "this failure might be expected.\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `nondet_tol=<tol>` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `gradcheck_nondet_tol=<tol>`.\n"
    "- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_nondet_tol=<tol>`\n")
UNDEFINED_WARNING = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled by "
    "default, but it may break existing callers of this function. If this is true for you, "
    'you can call this function with "check_undefined_grad=False" to disable the feature')


class GradcheckFailed(ScriptError):
    """``torch.autograd.gradcheck.GradcheckError`` (a RuntimeError)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="GradcheckError")


def _as_tuple(x: Any) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _differentiable(x: Any) -> tuple:
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: Any = None) -> bool:
    """True when the analytical Jacobian of ``func`` at ``inputs`` matches the numerical one."""
    if check_batched_grad or check_batched_forward_grad or check_forward_ad or fast_mode or \
            not check_backward_ad:
        raise ScriptError("gradcli's gradcheck checks reverse mode the slow way only "
                          "(check_batched_grad, check_forward_ad and fast_mode are not "
                          "supported)", kind="NotImplementedError")
    try:
        _check(func, _as_tuple(inputs), eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_grad_dtypes)
    except GradcheckFailed:
        if raise_exception:
            raise
        return False
    return True


def _check(func: Callable[..., Any], inputs: tuple, eps: float, atol: float, rtol: float,
           nondet_tol: float, check_undefined_grad: bool, check_grad_dtypes: bool) -> None:
    _check_inputs(inputs)
    func_out = func(*inputs)
    outputs = _differentiable(func_out)
    func_out = _as_tuple(func_out)
    numerical = _numerical(func, inputs, func_out, eps)
    if not outputs:
        for per_input in numerical:
            for jacobian in per_input:
                if bool((jacobian != 0).sum() > 0):
                    raise GradcheckFailed("Numerical gradient for function expected to be zero")
    else:
        by_output = [nj for o, nj in zip(func_out, zip(*numerical)) if o.requires_grad]
        for i, o in enumerate(outputs):
            analytical = _analytical(inputs, o, nondet_tol, check_grad_dtypes)
            for j, (a, n) in enumerate(zip(analytical, by_output[i])):
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckFailed(
                        f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
                        f"numerical:{n!r}\nanalytical:{a!r}\n")
    _zero_grad_outputs(outputs, inputs)
    if check_undefined_grad:
        _undefined_grad_outputs(func, outputs, inputs)


def _check_inputs(inputs: tuple) -> None:
    found = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype.name != "float64":
                current().warn(f"Input #{idx} requires gradient and is not a double precision "
                               "floating point or complex. This check will likely fail if all "
                               "the inputs are not of double precision floating point or "
                               "complex. ")
            found = True
    if not found:
        raise ScriptError("gradcheck expects at least one input tensor to require gradient, but "
                          "none of them have requires_grad=True.", kind="ValueError")


def _numerical(func: Callable[..., Any], inputs: tuple, outputs: tuple, eps: float) -> list:
    """Per input that requires grad, per output: the (input numel, output numel) Jacobian."""
    out: list = []
    for x in inputs:
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        columns = {}
        alias = x.detach()  # PyTorch's x.data: the same memory, a version counter of its own
        alias._vc = [0]
        for d_idx, idx in enumerate(itertools.product(*[range(m) for m in x.data.shape])):
            entry = alias[idx] if idx else alias
            orig = entry.clone()
            entry.copy_(orig - eps)
            outa = _clones(func(*inputs))
            entry.copy_(orig + eps)
            outb = _clones(func(*inputs))
            entry.copy_(orig)
            columns[d_idx] = [_central(a, b, eps, idx) for a, b in zip(outa, outb)]
        jacobians = []
        for i, o in enumerate(outputs):
            if not (isinstance(o, Tensor) and o.dtype.is_floating_point):
                continue
            j = _zeros(o, (x.numel(), o.numel()))
            with no_grad():
                for k, cols in columns.items():
                    j[k] = cols[i]
            jacobians.append(j)
        out.append(jacobians)
    return out


def _zeros(like: Tensor, shape: tuple) -> Tensor:
    """``like.new_zeros(shape)``: zeros of its dtype."""
    be = like.backend
    return Tensor(be.writable(be.xp.zeros(shape, dtype=like.data.dtype)), be)


def _clones(out: Any) -> tuple:
    return tuple(a.clone() for a in _as_tuple(out))


def _central(a: Tensor, b: Tensor, eps: float, idx: tuple) -> Tensor:
    if tuple(a.shape) != tuple(b.shape):
        raise ScriptError(f"Expected `func` to return outputs with the same shape when inputs "
                          f"are perturbed on index {idx} by {eps}, but got: shapes "
                          f"{a.shape} and {b.shape}.", kind="AssertionError")
    return ((b - a) / (2 * eps)).detach().reshape(-1)


def _analytical(inputs: tuple, output: Tensor, nondet_tol: float,
                check_grad_dtypes: bool) -> list:
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    rows1 = _rows(diff, output)
    rows2 = _rows(diff, output)
    j1, types_ok, sizes_ok = _stack(rows1, diff, output.numel())
    j2, _, _ = _stack(rows2, diff, output.numel())
    reentrant = all(a.numel() == 0 or float((a - b).abs().max()) <= nondet_tol
                    for a, b in zip(j1, j2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckFailed("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckFailed("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckFailed(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + NONDET_NOTE)
    return j1


def _rows(diff: list, output: Tensor) -> list:
    """``grad(output, inputs, e_j)`` for each output element j: per input, the rows."""
    base = _zeros(output, tuple(output.shape))
    flat = base.view(-1)
    rows: list = [[] for _ in diff]
    for j in range(flat.numel()):
        with no_grad():
            flat.zero_()
            flat[j] = 1.0
        grads = grad(output, diff, base, retain_graph=True, allow_unused=True)
        for i, g in enumerate(grads):
            rows[i].append(g.clone() if isinstance(g, Tensor) else None)
    return rows


def _stack(rows: list, diff: list, numel_output: int) -> tuple[list, bool, bool]:
    out, sizes_ok, types_ok = [], True, True
    for inp, column in zip(diff, rows):
        j = _zeros(inp, (inp.numel(), numel_output))
        for k, g in enumerate(column):
            if g is not None and tuple(g.shape) != tuple(inp.shape):
                sizes_ok = False
            elif g is not None and g.dtype is not inp.dtype:
                types_ok = False
            with no_grad():
                if g is None:
                    j[:, k].zero_()
                else:
                    j[:, k] = g.reshape(-1)
        out.append(j)
    return out, types_ok, sizes_ok


def _allclose(a: Tensor, n: Tensor, rtol: float, atol: float) -> bool:
    from ..engine.dtypes import promote_types

    dtype = promote_types(a.dtype, n.dtype)
    return bool(a.to(dtype).allclose(n.to(dtype), rtol, atol))


def _zero_grad_outputs(outputs: tuple, inputs: tuple) -> None:
    """Backward of zero output gradients must give zeros of the inputs' type and size."""
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    grads = grad(outputs, diff, [_zeros(o, tuple(o.shape)) for o in outputs],
                 allow_unused=True)
    for gi, di in zip(grads, diff):
        if gi is None:
            continue
        if not bool(gi.eq(0).all()):
            raise GradcheckFailed("backward not multiplied by grad_output")
        if gi.dtype is not di.dtype:
            raise GradcheckFailed("grad is incorrect type")
        if tuple(gi.shape) != tuple(di.shape):
            raise GradcheckFailed("grad is incorrect size")


def _undefined_grad_outputs(func: Callable[..., Any], outputs: tuple, inputs: tuple) -> None:
    """PyTorch's check that backward copes with undefined output gradients: the function
    again, its outputs' gradients zero (as a custom Function's backward gets them)."""
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    to_check = [_differentiable(func(*inputs))]
    if len(to_check[0]) > 1:
        to_check += [_differentiable(func(*inputs)) for _ in outputs]
    for outs in to_check:
        grads = grad(outs, diff, [_zeros(o, tuple(o.shape)) for o in outs],
                     allow_unused=True)
        for gi in grads:
            if gi is not None and not bool(gi.eq(0).all()):
                current().warn(UNDEFINED_WARNING)
                raise GradcheckFailed(
                    "Expected all input grads to be undefined or zero when all output grads are "
                    'undefined or zero. Please look at "Notes about undefined output gradients" '
                    'in "tools/autograd/derivatives.yaml"')


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    """``gradcheck`` of the function's gradient (its vector-Jacobian product, with random
    output gradients drawn as ``torch.testing.make_tensor`` draws them)."""
    if gen_non_contig_grad_outputs:
        raise ScriptError("gradcli's gradgradcheck does not make non-contiguous grad_outputs",
                          kind="NotImplementedError")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable(func(*tupled_inputs))
        tupled_grad_outputs = tuple(_make_tensor(x) for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_inputs = {i for i, x in enumerate(tupled_inputs)
                   if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_outputs = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args: Any) -> tuple:
        input_args = tuple(x.requires_grad_() if i in diff_inputs else x
                           for i, x in enumerate(args[:-num_outputs]))
        outs = _differentiable(func(*input_args))
        grads_out = tuple(x.requires_grad_() if i in diff_grad_outputs else x
                          for i, x in enumerate(args[-num_outputs:]))
        diff = tuple(x for i, x in enumerate(input_args) if i in diff_inputs)
        grads_in = grad(outs, diff, grads_out, create_graph=True, allow_unused=True)
        return tuple(g for g in grads_in if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def _make_tensor(x: Tensor) -> Tensor:
    """``torch.testing.make_tensor(x.shape, dtype, low=-1, high=1, requires_grad=True)``."""
    from .creation import empty

    dtype = x.dtype if x.dtype.is_floating_point else None
    t = empty(*x.shape, dtype=dtype) if dtype is not None else empty(*x.shape)
    t.uniform_(-1, 1)
    t.requires_grad_(True)
    return t


__all__ = ["GradcheckFailed", "gradcheck", "gradgradcheck"]
