"""``torch.optim``: SGD and Adam, step for step as PyTorch 2.13's single-tensor code.

Each update is PyTorch's sequence of CPU kernels on the parameter's own dtype, with the fused
``a + alpha * b`` where PyTorch fuses it (``engine.kernels``), and Adam's square root is
PyTorch's (MKL's VML ``sqrt``, ``engine.kernels.unary``), so SGD's and Adam's float32 parameters
match PyTorch bit for bit (tools/engine_cases.py: ``nn_sgd_steps``, ``nn_adam_steps``).  (On a
CPU PyTorch picks the single-tensor code; its ``foreach`` code runs the same kernels in the same
order, so ``foreach=True`` gives the same numbers.)  Updates run
outside autograd and bump each parameter's version, as PyTorch's in-place ops do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from ..engine.context import GradMode, current
from ..engine.kernels import add_scaled, fused_add, unary
from ..engine.tensor import Tensor
from ..errors import ScriptError


class Optimizer:
    """PyTorch's ``Optimizer`` base: param groups, ``zero_grad``, state, printing."""

    defaults: dict[str, Any]
    # set by an lr_scheduler made for it: its first step() warns unless this one stepped since
    watched_by_scheduler = False
    stepped_since_watched = False

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: dict[Tensor, dict[str, Any]] = {}
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise ScriptError("params argument given to the optimizer should be an iterable of "
                              f"Tensors or dicts, but got {_tensor_type(params)}",
                              kind="TypeError")
        if not isinstance(params, (list, tuple, Iterator)):  # model.parameters(), chain(...)
            raise ScriptError(f"'{type(params).__name__}' object is not iterable",
                              kind="TypeError")
        groups = list(params)
        if not groups:
            raise ScriptError("optimizer got an empty parameter list", kind="ValueError")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: Any) -> None:
        """Add a group of parameters with its own hyper-parameters (defaults fill the rest)."""
        if not isinstance(param_group, dict):
            raise ScriptError(f"param_group must be a dict, but got {type(param_group).__name__}",
                              kind="TypeError")
        params = param_group.get("params")
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (list, tuple, Iterator)):
            params = list(params)
        else:
            raise ScriptError("optimizer parameters need to be organized in ordered collections, "
                              "but the ordering of tensors in sets will change between runs. "
                              "Please use a list instead.", kind="TypeError")
        for p in params:
            if not isinstance(p, Tensor):
                raise ScriptError("optimizer can only optimize Tensors, but one of the params is "
                                  f"{type(p).__name__}", kind="TypeError")
            if p.grad_fn is not None:
                raise ScriptError("can't optimize a non-leaf Tensor", kind="ValueError")
        group = dict(param_group)
        group["params"] = params
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ScriptError("some parameters appear in more than one parameter group",
                              kind="ValueError")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to None, or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def step(self, closure: Callable | None = None) -> Any:
        """One update of every parameter that has a ``.grad``; returns ``closure()``'s loss."""
        loss = None
        if closure is not None:
            with GradMode(True):
                loss = closure()
        with GradMode(False):
            for group in self.param_groups:
                self._update(group)
        if self.watched_by_scheduler:
            self.stepped_since_watched = True
        return loss

    def _update(self, group: dict[str, Any]) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {_show(group[key])}\n"
        return text + ")"


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _tensor_type(t: Tensor) -> str:
    kind = {"float64": "DoubleTensor", "float32": "FloatTensor"}
    return "torch." + kind.get(str(t.data.dtype).rpartition(".")[2], "Tensor")


def _number(name: str, value: Any, lower: float = 0.0, label: str | None = None) -> None:
    if isinstance(value, (Tensor, bool)) or not isinstance(value, (int, float)):
        raise ScriptError(f"gradcli's optimizers take a number for {name}, not "
                          f"{type(value).__name__}", kind="TypeError")
    if not value >= lower:
        raise ScriptError(f"Invalid {label or name}: {value}", kind="ValueError")


def _write(p: Tensor, new: Any) -> None:
    """Store an update into ``p`` in place (one version bump, as one in-place op)."""
    ctx = current()
    if ctx.history is not None:  # the values the last graph saved (engine/history.py)
        ctx.history.keep(p)
    if ctx.allow_mutation is not None:  # allow_mutation_on_saved_tensors: clone what saved p
        ctx.allow_mutation.clone_saved(p)
    p.data = p.backend.writable(p.data)
    p.data[...] = new
    p._vc[0] += 1


class SGD(Optimizer):
    """``torch.optim.SGD``: plain, momentum, Nesterov, weight decay, maximize."""

    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        _number("lr", lr, label="learning rate")
        _number("momentum", momentum, label="momentum value")
        _number("weight_decay", weight_decay, label="weight_decay value")
        _number("dampening", dampening, -math.inf)
        if differentiable or fused:
            raise ScriptError("SGD(differentiable=True) and SGD(fused=True) are not supported by "
                              "gradcli", kind="NotImplementedError")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ScriptError("Nesterov momentum requires a momentum and zero dampening",
                              kind="ValueError")
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov = group["weight_decay"], group["nesterov"]
        for p in group["params"]:
            if p._grad is None:
                continue
            xp = p.backend.xp
            grad = xp.asarray(p._grad.data)
            if group["maximize"]:
                grad = -grad
            if weight_decay != 0:
                grad = add_scaled(xp, grad, weight_decay, p.data)
            if momentum != 0:
                state = self.state.setdefault(p, {})
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = Tensor(p.backend.writable(xp.asarray(grad, copy=True)), p.backend)
                    state["momentum_buffer"] = buf
                else:
                    _write(buf, add_scaled(xp, buf.data * _same(xp, momentum, buf.data),
                                           1 - dampening, grad))
                grad = add_scaled(xp, grad, momentum, buf.data) if nesterov else buf.data
            _write(p, add_scaled(xp, p.data, -lr, grad))


def _same(xp: Any, value: float, like: Any) -> Any:
    """A Python number as PyTorch's kernels see it: in the tensor's dtype."""
    return xp.asarray(value, dtype=like.dtype)


class Adam(Optimizer):
    """``torch.optim.Adam`` (with ``amsgrad``, ``maximize``, L2 or decoupled weight decay)."""

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        _number("lr", lr, label="learning rate")
        _number("eps", eps, label="epsilon value")
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ScriptError("betas must be a pair of numbers", kind="TypeError")
        for i, b in enumerate(betas):
            _number(f"betas[{i}]", b, label=f"beta parameter at index {i}")
            if not b < 1.0:
                raise ScriptError(f"Invalid beta parameter at index {i}: {b}", kind="ValueError")
        _number("weight_decay", weight_decay, label="weight_decay value")
        if differentiable or fused or capturable:
            raise ScriptError("Adam(differentiable=, fused=, capturable=True) are not supported "
                              "by gradcli", kind="NotImplementedError")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay = group["weight_decay"]
        for p in group["params"]:
            if p._grad is None:
                continue
            xp, be = p.backend.xp, p.backend
            state = self.state.setdefault(p, {})
            if not state:
                zeros = xp.zeros_like(xp.asarray(p.data))
                state["step"] = Tensor(xp.asarray(0.0, dtype=xp.float32), be)
                state["exp_avg"] = Tensor(be.writable(xp.asarray(zeros, copy=True)), be)
                state["exp_avg_sq"] = Tensor(be.writable(xp.asarray(zeros, copy=True)), be)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = Tensor(be.writable(xp.asarray(zeros, copy=True)),
                                                     be)
            grad = xp.asarray(p._grad.data)
            if group["maximize"]:
                grad = -grad
            step_t = state["step"]
            _write(step_t, step_t.data + 1)
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    _write(p, p.data * _same(xp, 1 - lr * weight_decay, p.data))
                else:
                    grad = add_scaled(xp, grad, weight_decay, p.data)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            _write(exp_avg, _lerp(xp, exp_avg.data, grad, 1 - beta1))
            scaled = exp_avg_sq.data * _same(xp, beta2, exp_avg_sq.data)
            _write(exp_avg_sq, _addcmul(xp, scaled, grad, grad, 1 - beta2))
            step = float(step_t.data)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            if group["amsgrad"]:
                mx = state["max_exp_avg_sq"]
                _write(mx, xp.maximum(mx.data, exp_avg_sq.data))
                second = mx.data
            else:
                second = exp_avg_sq.data
            denom = unary(xp, "sqrt", second) / _same(xp, bias_correction2_sqrt, second)
            denom = denom + _same(xp, eps, denom)
            _write(p, _addcdiv(xp, p.data, exp_avg.data, denom, -step_size))


def _lerp(xp: Any, start: Any, end: Any, weight: float) -> Any:
    """PyTorch's CPU ``lerp``: fused, from the nearer end (``aten/src/ATen/native/Lerp.h``)."""
    w = _same(xp, weight, start)
    diff = end - start
    if float(abs(w)) < 0.5:
        return _fused(xp, start, w, diff)
    return _fused(xp, end, _same(xp, -(1 - float(w)), start), diff)


def _addcmul(xp: Any, base: Any, t1: Any, t2: Any, value: float) -> Any:
    """PyTorch's CPU ``addcmul``: ``base + value * t1 * t2``, the last add fused."""
    return _fused(xp, base, _same(xp, value, t1) * t1, t2)


def _addcdiv(xp: Any, base: Any, t1: Any, t2: Any, value: float) -> Any:
    """PyTorch's CPU ``addcdiv``: ``base + (value * t1) / t2``, each step rounded (no fusing)."""
    return base + (_same(xp, value, t1) * t1) / t2


def _fused(xp: Any, base: Any, a: Any, b: Any) -> Any:
    """``base + a * b`` rounded once (float32), as PyTorch's vectorised kernels."""
    if base.dtype == xp.float32:
        return fused_add(xp, base, a, b)
    return base + a * b
