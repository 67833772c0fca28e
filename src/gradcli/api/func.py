"""``torch.func``: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, functional_call
(and vmap, api/vmap.py).

The transforms compose as PyTorch's do (``grad(grad(f))``, ``jacrev(jacrev(f))``,
``jacfwd(jacrev(f))``, ``jacrev(jacfwd(f))``): each differentiates with the engine's reverse
mode under ``create_graph=True`` (``jvp``/``jacfwd`` with a dual level, engine/forward.py),
its inputs made differentiable by an alias (so an outer transform still reaches them), and the
outermost one hands back plain tensors, as PyTorch's functorch unwraps its results.
``RunContext.func_depth`` counts the transforms running.

NOTE: one dual level at a time (PyTorch's own forward AD has one): a ``jvp``/``jacfwd``
inside another computes its derivative by reverse mode instead; the values agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import OPS
from ..engine.context import GradMode, current
from ..engine.forward import enter, exit_level
from ..engine.record import apply
from ..engine.shape import reshape
from ..engine.tensor import Tensor, vmap_follow
from ..errors import ScriptError
from . import creation
from .autograd import grad as autograd_grad
from .vmap import vmap


def _call(func: Callable, args: tuple, kwargs: dict) -> Any:
    if not callable(func):
        raise ScriptError(f"'{type(func).__name__}' object is not callable", kind="TypeError")
    return func(*args, **kwargs)


def _argnums(argnums: Any, n: int, name: str) -> tuple[tuple[int, ...], bool]:
    """(the positions, whether ``argnums`` was a tuple), with PyTorch's errors."""
    many = isinstance(argnums, tuple)
    nums = argnums if many else (argnums,)
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise ScriptError(f"argnums must be int or Tuple[int, ...], got: {type(a)}",
                              kind="RuntimeError")
        if not -n <= a < n:
            raise ScriptError(f"Got argnums={a}, but only {n} positional inputs",
                              kind="RuntimeError")
    return tuple(a % n for a in nums), many


def _tracked(x: Any, name: str) -> Tensor:
    """``x`` as an input this transform differentiates: an alias when it already takes part in
    a graph (an outer transform's input), else a fresh leaf (with the tangent it had)."""
    if not isinstance(x, Tensor):
        raise ScriptError(f"{name}: Expected f to be a function that has non-empty inputs; "
                          f"got a {type(x).__name__}", kind="RuntimeError")
    if not x.dtype.is_floating_point:
        raise ScriptError("only Tensors of floating point dtype can require gradients")
    if x.requires_grad:
        return apply(OPS["alias"], (x,))
    out = Tensor(x.data, x.backend, requires_grad=True)
    vmap_follow(x, out)
    fw = current().forward
    if fw is not None and fw.tangent_of(x) is not None:
        fw.set(out, fw.tangent_of(x))
    return out


class _Transform:
    """Counts the transforms running; the outermost one's results are plain tensors."""

    def __enter__(self) -> Any:  # the manager itself
        ctx = current()
        self.outer = ctx.func_depth == 0
        ctx.func_depth += 1
        self.grad_mode = GradMode(True)
        self.grad_mode.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.grad_mode.__exit__()
        current().func_depth -= 1

    def result(self, value: Any) -> Any:
        """``value`` (tensors in tuples) detached when this is the outermost transform."""
        if not self.outer:
            return value
        if isinstance(value, Tensor):
            out = Tensor(value.data, value.backend)
            vmap_follow(value, out)  # a gradient of a batched input stays batched
            return out
        if isinstance(value, (tuple, list)):
            return type(value)(self.result(v) for v in value)
        if isinstance(value, dict):
            return {k: self.result(v) for k, v in value.items()}
        return value


def _tree(x: Any, name: str) -> tuple[Any, list[Tensor]]:
    """``x`` (a tensor, or a dict, tuple or list of them: a pytree) with each tensor tracked,
    and the tracked tensors in order."""
    if isinstance(x, dict):
        out, leaves = {}, []
        for k, v in x.items():
            out[k], more = _tree(v, name)
            leaves += more
        return out, leaves
    if isinstance(x, (tuple, list)):
        items, leaves = [], []
        for v in x:
            t, more = _tree(v, name)
            items.append(t)
            leaves += more
        return type(x)(items), leaves
    t = _tracked(x, name)
    return t, [t]


def _rebuild(x: Any, flat: list) -> Any:
    """``flat`` (one per tensor of ``x``, in order) in ``x``'s structure."""
    if isinstance(x, dict):
        return {k: _rebuild(v, flat) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(_rebuild(v, flat) for v in x)
    return flat.pop(0)


def _scalar(out: Any, name: str) -> Tensor:
    if not isinstance(out, Tensor):
        raise ScriptError(f"{name}(f)(*args): Expected f(*args) to return a Tensor, got "
                          f"{type(out)}", kind="RuntimeError")
    if out.data.ndim != 0:
        raise ScriptError(f"{name}(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                          f"tensor with {out.data.ndim} dims. Maybe you wanted to use the vjp "
                          "or jacrev APIs instead?", kind="RuntimeError")
    return out


def _grads(out: Tensor, inputs: list[Tensor], grad_out: Any = None) -> list[Tensor]:
    """d(out)/d(inputs) as recorded ops (zeros where out does not depend on an input)."""
    if not out.requires_grad:
        return [creation.zeros_like(x) for x in inputs]
    gs = autograd_grad((out,), tuple(inputs), None if grad_out is None else (grad_out,),
                       retain_graph=True, create_graph=True, allow_unused=True)
    return [creation.zeros_like(x) if g is None else g for x, g in zip(inputs, gs)]


def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """``torch.func.grad_and_value``: f's gradient with respect to ``argnums`` and f's value."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums, many = _argnums(argnums, len(args), "grad_and_value")
        with _Transform() as tr:
            args = list(args)
            leaves = []
            for i in nums:
                args[i], more = _tree(args[i], "grad_and_value")
                leaves.append(more)
            out = _call(func, tuple(args), kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise ScriptError("grad_and_value(f)(*args): output of function f should be "
                                      "a tuple: (output, aux) if has_aux is True",
                                      kind="RuntimeError")
                out, aux = out
            out = _scalar(out, "grad_and_value")
            flat = _grads(out, [t for more in leaves for t in more])
            gs = [_rebuild(args[i], flat) for i in nums]
            g = tuple(gs) if many else gs[0]
            return tr.result((g, (out, aux) if has_aux else out))
    return wrapper


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """``torch.func.grad``: f's gradient with respect to ``argnums`` (and aux)."""
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = inner(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``torch.func.vjp``: (f(*primals), vjp_fn), ``vjp_fn(cotangent)`` the tuple of v^T J."""
    with _Transform() as tr:
        inputs = [_tracked(p, "vjp") for p in primals]
        out = _call(func, tuple(inputs), {})
        aux = None
        if has_aux:
            out, aux = out
        outer = tr.outer

    def vjp_fn(cotangent: Any) -> tuple:
        with _Transform() as inner:
            if not isinstance(out, Tensor):
                raise ScriptError("vjp: only functions returning one Tensor are supported by "
                                  "gradcli", kind="NotImplementedError")
            if not isinstance(cotangent, Tensor) or tuple(cotangent.shape) != tuple(out.shape):
                got = tuple(cotangent.shape) if isinstance(cotangent, Tensor) else None
                raise ScriptError("Mismatch in shape: grad_output[0] has a shape of "
                                  f"torch.Size({list(got or ())}) and output[0] has a shape of "
                                  f"torch.Size({list(out.shape)}).", kind="RuntimeError")
            gs = tuple(_grads(out, inputs, cotangent))
            return inner.result(gs) if outer else gs

    value = tr.result(out) if outer else out
    return (value, vjp_fn, tr.result(aux)) if has_aux else (value, vjp_fn)


def jvp(func: Callable, primals: Any, tangents: Any, *, has_aux: bool = False) -> tuple:
    """``torch.func.jvp``: (f(*primals), J @ tangents) by forward-mode AD."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise ScriptError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "
                          "should be valid to call f(*primals).", kind="RuntimeError")
    if len(primals) != len(tangents):
        raise ScriptError("jvp(f, primals, tangents): Expected primals and tangents to have the "
                          f"same python structure. For example, if primals is a tuple of 3 "
                          f"tensors, tangents also must be. Got primals with structure "
                          f"{len(primals)} and tangents with structure {len(tangents)}",
                          kind="RuntimeError")
    ctx = current()
    if ctx.forward is not None:  # a jvp inside a dual level: J @ t by reverse mode
        return _jvp_by_reverse(func, primals, tangents, has_aux)
    with _Transform() as tr:
        enter()
        try:
            fw = ctx.forward
            inputs = []
            for p, t in zip(primals, tangents):
                x = _tracked(p, "jvp")
                fw.set(x, t)
                inputs.append(x)
            out = _call(func, tuple(inputs), {})
            aux = None
            if has_aux:
                out, aux = out
            tan = fw.tangent_of(out)
            if tan is None:
                tan = creation.zeros_like(out)
        finally:
            exit_level()
        res = (out, tan, aux) if has_aux else (out, tan)
        return tr.result(res)


def _jvp_by_reverse(func: Callable, primals: tuple, tangents: tuple, has_aux: bool) -> tuple:
    """J @ t as the derivative of u -> (v^T J) . t with respect to v (double backward)."""
    with _Transform() as tr:
        inputs = [_tracked(p, "jvp") for p in primals]
        out = _call(func, tuple(inputs), {})
        aux = None
        if has_aux:
            out, aux = out
        u = Tensor(out.backend.xp.zeros_like(out.data), out.backend, requires_grad=True)
        gs = _grads(out, inputs, u)
        total = None
        for g, t in zip(gs, tangents):
            term = (g * t).sum()
            total = term if total is None else total + term
        tan = _grads(total, [u])[0]
        res = (out, tan, aux) if has_aux else (out, tan)
        return tr.result(res)


def jacrev(func: Callable, argnums: Any = 0, *, has_aux: bool = False) -> Callable:
    """``torch.func.jacrev``: the Jacobian by reverse mode, shape out.shape + input.shape."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums, many = _argnums(argnums, len(args), "jacrev")
        with _Transform() as tr:
            args = list(args)
            for i in nums:
                args[i] = _tracked(args[i], "jacrev")
            out = _call(func, tuple(args), kwargs)
            aux = None
            if has_aux:
                out, aux = out
            inputs = [args[i] for i in nums]
            jacs = _jacobians_by_rows(out, inputs)
            j = tuple(jacs) if many else jacs[0]
            return tr.result((j, aux) if has_aux else j)
    return wrapper


def _jacobians_by_rows(out: Tensor, inputs: list[Tensor]) -> list[Tensor]:
    """One vector-Jacobian product per element of ``out``, stacked."""
    n = out.numel()
    xp = out.backend.xp
    rows: list[list[Tensor]] = [[] for _ in inputs]
    for k in range(n):  # PyTorch's vjp with each one-hot cotangent (vmapped there)
        basis = xp.zeros(n, dtype=out.data.dtype)
        basis[k] = 1
        gs = _grads(out, inputs, Tensor(xp.reshape(basis, tuple(out.shape)), out.backend))
        for r, g in zip(rows, gs):
            r.append(g)
    stack = _functions()["stack"]
    return [reshape(stack(r) if r else creation.zeros_like(x), (*out.shape, *x.shape))
            for r, x in zip(rows, inputs)]


def jacfwd(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """``torch.func.jacfwd``: the Jacobian by forward mode (a jvp per input element)."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums, many = _argnums(argnums, len(args), "jacfwd")
        if current().forward is not None:  # inside a dual level: by reverse mode
            return jacrev(func, argnums, has_aux=has_aux)(*args, **kwargs)
        jacs = []
        aux = None
        with _Transform() as tr:
            for i in nums:
                x = args[i]
                cols = []
                out = None
                for k in range(x.numel()):
                    seed = x.backend.xp.zeros(x.data.size, dtype=x.data.dtype)
                    seed[k] = 1
                    e = Tensor(x.backend.xp.reshape(seed, tuple(x.shape)), x.backend)

                    def f(xi: Tensor, i: int = i) -> Any:
                        full = list(args)
                        full[i] = xi
                        return _call(func, tuple(full), kwargs)

                    res = jvp(f, (x,), (e,), has_aux=has_aux)
                    out, col = res[0], res[1]
                    if has_aux:
                        aux = res[2]
                    cols.append(reshape(col, (-1,)))
                stack = _functions()["stack"]
                jac = stack(cols, dim=1) if cols else None
                shape = (*out.shape, *x.shape) if out is not None else tuple(x.shape)
                jacs.append(reshape(jac, shape))
            j = tuple(jacs) if many else jacs[0]
            return tr.result((j, aux) if has_aux else j)
    return wrapper


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """``torch.func.hessian``: jacfwd(jacrev(f))."""
    return jacfwd(jacrev(func, argnums), argnums)


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``torch.func.functional_call``: ``module(*args)`` with the given tensors in place of its
    parameters and buffers (put back afterwards)."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (list, tuple)):
        merged: dict = {}
        for d in dicts:
            merged.update(d)
        dicts = merged
    if not isinstance(dicts, dict):
        raise ScriptError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                          f"of dicts, but got {type(dicts)}", kind="ValueError")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    saved = []
    try:
        for name, value in dicts.items():
            owner, attr = _owner(module, name)
            saved.append((owner, attr, _detach_slot(owner, attr)))
            owner.__dict__[attr] = value
        return module(*args, **(kwargs or {}))
    finally:
        for owner, attr, slot in reversed(saved):
            owner.__dict__.pop(attr, None)
            if slot is not None:
                where, value = slot
                owner.__dict__[where][attr] = value


def _owner(module: Any, name: str) -> tuple[Any, str]:
    """The submodule that holds ``name`` (``"0.weight"``: module[0], ``weight``)."""
    *path, attr = name.split(".")
    owner = module
    for p in path:
        subs = owner.__dict__.get("_modules", {})
        if p not in subs:
            raise ScriptError(f"'{type(owner).__name__}' object has no attribute '{p}'",
                              kind="AttributeError")
        owner = subs[p]
    return owner, attr


def _detach_slot(owner: Any, attr: str) -> tuple[str, Any] | None:
    """Take ``attr`` out of the module's parameters or buffers for the call."""
    for where in ("_parameters", "_buffers"):
        table = owner.__dict__.get(where, {})
        if attr in table:
            return where, table.pop(attr)
    return None


def _functions() -> dict:
    from . import FUNCTIONS

    return FUNCTIONS


FUNC: dict[str, Any] = {
    "grad": grad, "grad_and_value": grad_and_value, "vjp": vjp, "jvp": jvp, "jacrev": jacrev,
    "jacfwd": jacfwd, "hessian": hessian, "functional_call": functional_call, "vmap": vmap,
}
