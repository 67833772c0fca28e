"""``torch.optim``: SGD, Adam, AdamW, RMSprop and Adagrad, step for step as PyTorch 2.13's
single-tensor code.

Each update is PyTorch's sequence of CPU kernels on the parameter's own dtype, with the fused
``a + alpha * b`` where PyTorch fuses it (``engine.kernels``), and the square roots are
PyTorch's (MKL's VML ``sqrt``, ``engine.kernels.unary``), so the parameters match PyTorch bit
for bit (tools/engine_cases.py: ``nn_sgd_steps``, ``nn_adam_steps``; corpus programs
``train_optim_*``).  AdamW is PyTorch 2.13's: Adam with ``decoupled_weight_decay=True``.  (On a
CPU PyTorch picks the single-tensor code; its ``foreach`` code runs the same kernels in the same
order, so ``foreach=True`` gives the same numbers.)  Updates run
outside autograd and bump each parameter's version, as PyTorch's in-place ops do.

Every kernel of an update is elementwise, with the group's numbers as its scalars, so a
group's parameters are updated together (``_Flat``): at the group's first step each state
(``exp_avg``, ``momentum_buffer``, ...) is made one flat array whose parts are the parameters'
state tensors (``opt.state[p]['exp_avg']`` is a view of its part), and each step gathers the
gradients and parameters end to end, runs each kernel once over all of them and writes the
parameters back: each element gets what PyTorch's loop over the parameters gives it.  Where
that cannot hold (parameters of several dtypes or strided ones, a state made or replaced
elsewhere, steps that differ, a parameter without a gradient this step) the group is
updated one parameter at a time, and stays so.  RMSprop and Adagrad always go one parameter
at a time (``flat_steps``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..engine import kernels, machine
from ..engine.context import GradMode, current
from ..engine.exact.fp import rounds_once
from ..engine.kernels import unary
from ..engine.tensor import Tensor
from ..errors import ScriptError


class _States(dict):
    """An optimizer's ``state``: PyTorch's ``defaultdict(dict)``, so a parameter not stepped
    yet reads as ``{}`` (and is added), printed as PyTorch prints it."""

    __slots__ = ()
    script_type = "collections.defaultdict"
    script_attributes = frozenset({"keys", "values", "items", "get", "pop", "popitem",
                                   "setdefault", "update", "copy", "clear"})

    def __missing__(self, key: Any) -> dict:
        value = self[key] = {}
        return value

    def copy(self) -> _States:
        """A shallow copy that is a defaultdict too, as ``defaultdict.copy`` gives."""
        return _States(self)

    def script_repr(self, printer: Any) -> str:
        return f"defaultdict(<class 'dict'>, {printer.repr(dict(self))})"


class Optimizer:
    """PyTorch's ``Optimizer`` base: param groups, ``zero_grad``, state, printing."""

    defaults: dict[str, Any]
    # set by an lr_scheduler made for it: its first step() warns unless this one stepped since
    watched_by_scheduler = False
    stepped_since_watched = False
    # whether a group's parameters may be updated together over flat states (_update_flat)
    flat_steps = True

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: dict[Tensor, dict[str, Any]] = _States()
        self.param_groups: list[dict[str, Any]] = []
        # id(group) -> (group, its parameters' flat states): see the module docstring
        self._flats: dict[int, tuple[dict[str, Any], _Flat]] = {}
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
        """One step for a group's parameters that have a gradient: together over the group's
        flat states where they can be, else one by one."""
        params = [p for p in group["params"] if p._grad is not None]
        if not params:
            return
        flat = self._flat(group, params) if self.flat_steps else None
        if flat is not None and self._update_flat(group, params, flat):
            return
        for p in params:
            self._update_one(group, p)

    def _update_flat(self, group: dict[str, Any], params: list[Tensor], flat: _Flat) -> bool:
        raise NotImplementedError

    def _update_one(self, group: dict[str, Any], p: Tensor) -> None:
        raise NotImplementedError

    def _flat(self, group: dict[str, Any], params: list[Tensor]) -> _Flat | None:
        """The group's flat states when this step can update ``params`` (those with a
        gradient) together: made at the group's first step, dropped for good once a step
        cannot (the parameters then go one by one)."""
        key = id(group)
        got = self._flats.get(key)
        if got is not None:
            if got[0] is group and got[1].intact(params, self.state):
                return got[1]
            del self._flats[key]
            return None
        if not _Flat.fits(params, self.state):
            return None
        flat = _Flat(params, self.state)
        self._flats[key] = (group, flat)
        return flat

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


# the states PyTorch updates with two in-place ops (a version each) where gradcli writes once:
# exp_avg_sq.mul_(beta2).addcmul_(...), buf.mul_(momentum).add_(...) (RMSprop's .addcdiv_(...)),
# square_avg.mul_(alpha).addcmul_(...)
_MORE_OPS = {"exp_avg_sq": 1, "momentum_buffer": 1, "square_avg": 1}


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


class _Flat:
    """A param group's parameters end to end, for a step that runs each kernel once over all
    of them (see the module docstring).

    Each state is one flat array (``arrays[name]``); the parameter's state tensor
    (``state[p][name]``) holds a view of its part (``views[name]``), so that PyTorch's
    per-parameter state shows and prints as ever.  ``gather`` copies the gradients and the
    parameters into the two flat buffers, ``scatter`` writes the new parameters back.
    """

    __slots__ = ("arrays", "bounds", "dtype", "grads", "params", "parts", "shapes", "state",
                 "states", "sums", "tensors", "values", "views")

    def __init__(self, params: list[Tensor], state: dict[Tensor, dict[str, Any]]) -> None:
        self.params = list(params)
        self.shapes = [p.data.shape for p in params]
        self.bounds: list[tuple[int, int]] = []
        end = 0
        for p in params:
            self.bounds.append((end, end + p.data.size))
            end += p.data.size
        self.dtype = params[0].data.dtype
        self.grads = np.empty(end, self.dtype)
        self.values = np.empty(end, self.dtype)
        self.sums = np.empty((2, end), np.float64)  # float32 fused multiply-adds' sums
        # each parameter's part of ``values``, the buffer the update's addend also goes to
        self.parts = [self.values[a:b].reshape(shape)
                      for (a, b), shape in zip(self.bounds, self.shapes)]
        self.state = state
        self.states: list[dict[str, Any]] = []  # the parameters' state dicts, from the first add
        self.arrays: dict[str, Any] = {}
        self.views: dict[str, list[Any]] = {}
        self.tensors: dict[str, list[Tensor]] = {}

    @staticmethod
    def fits(params: list[Tensor], state: dict[Tensor, dict[str, Any]]) -> bool:
        """Whether ``params`` can share flat states: NumPy arrays of one floating dtype in C
        order, each once, with gradients alike and no state yet."""
        first = params[0].data
        if first.__class__ is not np.ndarray or first.dtype not in (np.float32, np.float64):
            return False
        for p in params:
            d, g = p.data, p._grad.data
            if (d.__class__ is not np.ndarray or d.dtype != first.dtype
                    or not d.flags.c_contiguous or g.__class__ is not np.ndarray
                    or g.dtype != d.dtype or g.shape != d.shape or not g.flags.c_contiguous
                    or state.get(p)):
                return False
        return len({id(p) for p in params}) == len(params)

    def intact(self, params: list[Tensor], state: dict[Tensor, dict[str, Any]]) -> bool:
        """Whether ``params`` are the flat's, their state tensors still its views."""
        if len(params) != len(self.params) or state is not self.state:
            return False
        for p, mine in zip(params, self.params):
            if p is not mine:
                return False
        for p, st in zip(params, self.states):
            if state.get(p) is not st:
                return False
        for name, tensors in self.tensors.items():
            for st, t, view in zip(self.states, tensors, self.views[name]):
                if st.get(name) is not t or t.data is not view:
                    return False
        return True

    def free(self, name: str) -> bool:
        """Whether no parameter has a state ``name`` yet (one ``add`` may make)."""
        return all(name not in self.state.get(p, ()) for p in self.params)

    def add(self, name: str, array: Any, backend: Any, scalar: bool = False) -> Any:
        """Make the state ``name`` of every parameter a part of ``array`` (flat, the flat's
        own from now on; with ``scalar``, one 0-d value per parameter) and return it."""
        if scalar:
            views = [array[i:i + 1].reshape(()) for i in range(len(self.params))]
        else:
            views = [array[a:b].reshape(shape) for (a, b), shape in zip(self.bounds, self.shapes)]
        tensors = [Tensor(view, backend) for view in views]
        if not self.states:
            self.states = [self.state.setdefault(p, {}) for p in self.params]
        for st, t in zip(self.states, tensors):
            st[name] = t
        self.arrays[name] = array
        self.views[name] = views
        self.tensors[name] = tensors
        return array

    def gather(self, params: list[Tensor], values: bool = True) -> tuple[Any, Any] | None:
        """The gradients and (with ``values``, else None) the parameters, each end to end
        (the flat's buffers); None when some shape or dtype is no longer the flat's."""
        dtype = self.dtype
        for p, shape in zip(params, self.shapes):
            d = p.data
            if (d.shape != shape or d.dtype != dtype or d.__class__ is not np.ndarray
                    or p._grad.data.shape != shape):
                return None
        try:
            np.concatenate([p._grad.data.reshape(-1) for p in params], out=self.grads,
                           casting="no")
        except (TypeError, ValueError):  # another dtype or size
            return None
        if not values:
            return self.grads, None
        np.concatenate([p.data.reshape(-1) for p in params], out=self.values)
        return self.grads, self.values

    def prepare(self, names: tuple[str, ...]) -> None:
        """Before the step writes the parameters and the states ``names``: what _write does
        for each tensor (the run's history, allow_mutation_on_saved_tensors)."""
        ctx = current()
        if ctx.history is None and ctx.allow_mutation is None:
            return
        for t in [*self.params, *(t for name in names for t in self.tensors[name])]:
            if ctx.history is not None:
                ctx.history.keep(t)
            if ctx.allow_mutation is not None:
                ctx.allow_mutation.clone_saved(t)

    def scatter(self, new: Any, names: tuple[str, ...], bumps: int = 1,
                add: bool = False) -> None:
        """Write the new parameters back (with ``add``, add ``new`` to them) and bump the
        versions: ``bumps`` for each parameter, one for each tensor of the states ``names``
        (a name twice: two)."""
        parts = self.parts if new is self.values else [
            new[a:b].reshape(shape) for (a, b), shape in zip(self.bounds, self.shapes)]
        for p, part in zip(self.params, parts):
            if add:
                np.add(p.data, part, out=p.data)
            else:
                p.data[...] = part
            p._vc[0] += bumps
        for name in names:
            for t in self.tensors[name]:
                t._vc[0] += 1


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

    def _update_one(self, group: dict[str, Any], p: Tensor) -> None:
        xp = p.backend.xp
        state = self.state.setdefault(p, {}) if group["momentum"] != 0 else {}
        buf = state.get("momentum_buffer")

        def write(name: str, new: Any) -> Any:
            t = p if name == "param" else state[name]
            _write(t, new)
            t._vc[0] += _MORE_OPS.get(name, 0)
            return t.data

        def make(grad: Any) -> Any:
            state["momentum_buffer"] = Tensor(p.backend.writable(xp.asarray(grad, copy=True)),
                                              p.backend)
            return state["momentum_buffer"].data

        _sgd(xp, group, p.data, xp.asarray(p._grad.data), None if buf is None else buf.data,
             write, make)

    def _update_flat(self, group: dict[str, Any], params: list[Tensor], flat: _Flat) -> bool:
        """The step over the group's flat states; False (nothing done) when it cannot be."""
        momentum = group["momentum"] != 0
        buf = flat.arrays.get("momentum_buffer")
        if momentum and buf is None and not flat.free("momentum_buffer"):
            return False
        got = flat.gather(params)
        if got is None:
            return False
        grad, value = got
        # buf.mul_(momentum).add_(grad, ...): two in-place ops, two versions
        written = ("momentum_buffer",) * 2 if momentum and buf is not None else ()
        flat.prepare(written)
        out = [value]

        def write(name: str, new: Any) -> Any:
            if name == "param":
                out[0] = new
                return new
            flat.arrays[name][...] = new
            return flat.arrays[name]

        def make(values: Any) -> Any:
            return flat.add("momentum_buffer", np.array(values, copy=True), params[0].backend)

        _sgd(params[0].backend.xp, group, value, grad, buf if momentum else None, write, make,
             flat)
        flat.scatter(out[0], written)
        return True


def _sgd(xp: Any, group: dict[str, Any], param: Any, grad: Any, buf: Any,
         write: Callable[[str, Any], Any], make: Callable[[Any], Any],
         flat: _Flat | None = None) -> None:
    """One SGD update of ``param`` (one parameter's array, or with ``flat`` a group's end to
    end): ``write(name, new)`` stores the parameter's (``"param"``) or a state's new values
    and returns them, ``make(values)`` makes the momentum buffer at the first step."""
    if flat is not None:
        def add_scaled(xp: Any, a: Any, alpha: float, b: Any) -> Any:
            return _add_scaled_flat(xp, a, alpha, b, flat.sums)
    else:
        add_scaled = kernels.add_scaled
    lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
    weight_decay = group["weight_decay"]
    if group["maximize"]:
        grad = -grad
    if weight_decay != 0:
        grad = add_scaled(xp, grad, weight_decay, param)
    if momentum != 0:
        if buf is None:
            buf = make(grad)
        else:
            buf = write("momentum_buffer",
                        add_scaled(xp, buf * _same(xp, momentum, buf), 1 - dampening, grad))
        grad = add_scaled(xp, grad, momentum, buf) if group["nesterov"] else buf
    write("param", add_scaled(xp, param, -lr, grad))


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

    def _update_one(self, group: dict[str, Any], p: Tensor) -> None:
        xp, be = p.backend.xp, p.backend
        state = self.state.setdefault(p, {})
        if not state:
            zeros = xp.zeros_like(xp.asarray(p.data))
            state["step"] = Tensor(xp.asarray(0.0, dtype=_step_dtype(be)), be)
            for name in _adam_states(group):
                state[name] = Tensor(be.writable(xp.asarray(zeros, copy=True)), be)
        step_t = state["step"]
        _write(step_t, step_t.data + 1)

        def write(name: str, new: Any) -> Any:
            if name == "param+":
                _write(p, p.data + new)
                return p.data
            t = p if name == "param" else state[name]
            _write(t, new)
            t._vc[0] += _MORE_OPS.get(name, 0)
            return t.data

        mx = state["max_exp_avg_sq"].data if group["amsgrad"] else None
        _adam(xp, group, float(step_t.data), p.data, xp.asarray(p._grad.data),
              state["exp_avg"].data, state["exp_avg_sq"].data, mx, write)

    def _update_flat(self, group: dict[str, Any], params: list[Tensor], flat: _Flat) -> bool:
        """The step over the group's flat states; False (nothing done) when it cannot be."""
        names = _adam_states(group)
        if "step" not in flat.arrays:
            if not all(flat.free(name) for name in ("step", *names)):
                return False
            be = params[0].backend
            flat.add("step", np.zeros(len(params), _step_dtype(be)), be, scalar=True)
            # the two moments as the rows of one array: their update writes both at once
            moments = np.zeros((2, flat.values.size), flat.dtype)
            flat.add("exp_avg", moments[0], be)
            flat.add("exp_avg_sq", moments[1], be)
            if group["amsgrad"]:
                flat.add("max_exp_avg_sq", np.zeros_like(moments[0]), be)
        elif any(name not in flat.arrays for name in names):  # amsgrad turned on since
            return False
        steps = flat.arrays["step"]
        counts = steps.tolist()
        if counts.count(counts[0]) != len(counts):  # a step tensor changed
            return False
        got = flat.gather(params, values=group["weight_decay"] != 0)  # else never read
        if got is None:
            return False
        grad, value = got
        written = ("step", *names, "exp_avg_sq")  # exp_avg_sq.mul_(beta2).addcmul_(...)
        flat.prepare(written)
        steps += 1
        arrays = flat.arrays
        out: list[Any] = [None, 0]  # the new parameters, how many writes made them

        def write(name: str, new: Any) -> Any:
            if name == "param":
                out[0] = new
            elif name == "param+":
                out[0] = new if out[0] is None else out[0] + new
            else:
                arrays[name][...] = new
                return arrays[name]
            out[1] += 1
            return new

        _adam(params[0].backend.xp, group, float(steps[0]), value, grad, arrays["exp_avg"],
              arrays["exp_avg_sq"], arrays.get("max_exp_avg_sq"), write, flat=flat)
        # no write before the last: its addend goes onto each parameter in place
        flat.scatter(out[0], written, bumps=out[1], add=out[1] == 1)
        return True


class AdamW(Adam):
    """``torch.optim.AdamW``: PyTorch 2.13's is Adam with ``decoupled_weight_decay=True`` (and
    a default weight decay of 0.01), so Adam's code runs it."""

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


def _adam_states(group: dict[str, Any]) -> tuple[str, ...]:
    """The names of Adam's array states, in PyTorch's order."""
    if group["amsgrad"]:
        return ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    return ("exp_avg", "exp_avg_sq")


def _adam(xp: Any, group: dict[str, Any], step: float, param: Any, grad: Any, exp_avg: Any,
          exp_avg_sq: Any, max_exp_avg_sq: Any, write: Callable[[str, Any], Any],
          flat: _Flat | None = None) -> None:
    """One Adam update of ``param`` (one parameter's array, or with ``flat`` a group's end to
    end, its states the flat arrays) at the step count ``step``; ``write(name, new)`` stores
    the parameter's (``"param"``) or a state's new values and returns them; the last
    update of the parameter is ``write("param+", addend)``, the parameter plus the addend."""
    lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
    weight_decay = group["weight_decay"]
    if group["maximize"]:
        grad = -grad
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            param = write("param", param * _same(xp, 1 - lr * weight_decay, param))
        else:
            grad = (kernels.add_scaled(xp, grad, weight_decay, param) if flat is None
                    else _add_scaled_flat(xp, grad, weight_decay, param, flat.sums))
    if flat is None:
        exp_avg = write("exp_avg", _lerp(xp, exp_avg, grad, 1 - beta1))
        scaled = exp_avg_sq * _same(xp, beta2, exp_avg_sq)
        exp_avg_sq = write("exp_avg_sq", _addcmul(xp, scaled, grad, grad, 1 - beta2))
    else:  # both at once, straight into the flat states (none is the other's operand)
        scaled = exp_avg_sq * _same(xp, beta2, exp_avg_sq)
        _fused_into(xp, (_lerp_terms(xp, exp_avg, grad, 1 - beta1),
                         _addcmul_terms(xp, scaled, grad, grad, 1 - beta2)),
                    exp_avg.base, flat.sums)  # the flat's moments: rows of one array
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2 ** 0.5
    if group["amsgrad"]:
        second = write("max_exp_avg_sq", xp.maximum(max_exp_avg_sq, exp_avg_sq))
    else:
        second = exp_avg_sq
    denom = unary(xp, "sqrt", second)
    if flat is None:
        denom = denom / _same(xp, bias_correction2_sqrt, second)
        denom = denom + _same(xp, eps, denom)
        write("param+", _addcdiv_addend(xp, exp_avg, denom, -step_size))  # param.addcdiv_
        return
    # the same operations in place: denom is sqrt's own result, the addend goes to the
    # parameters' flat buffer (no longer read: _Flat.scatter adds its parts)
    np.divide(denom, _same(xp, bias_correction2_sqrt, second), out=denom)
    np.add(denom, _same(xp, eps, denom), out=denom)
    addend = np.multiply(_same(xp, -step_size, exp_avg), exp_avg, out=flat.values)
    write("param+", np.divide(addend, denom, out=addend))


class RMSprop(Optimizer):
    """``torch.optim.RMSprop``: plain, centered, momentum, weight decay, maximize; PyTorch's
    ``_single_tensor_rmsprop``, its in-place ops in its order, one parameter at a time."""

    flat_steps = False

    def __init__(self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _number("lr", lr, label="learning rate")
        _number("eps", eps, label="epsilon value")
        _number("momentum", momentum, label="momentum value")
        _number("weight_decay", weight_decay, label="weight_decay value")
        _number("alpha", alpha, label="alpha value")
        if differentiable or capturable:
            raise ScriptError("RMSprop(differentiable=True) and RMSprop(capturable=True) are not "
                              "supported by gradcli", kind="NotImplementedError")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "capturable": capturable,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update_one(self, group: dict[str, Any], p: Tensor) -> None:
        xp, be = p.backend.xp, p.backend
        state = self.state.setdefault(p, {})
        if not state:
            state["step"] = Tensor(xp.asarray(0.0, dtype=_step_dtype(be)), be)
            names = ["square_avg"]
            if group["momentum"] > 0:
                names.append("momentum_buffer")
            if group["centered"]:
                names.append("grad_avg")
            for name in names:
                state[name] = Tensor(be.writable(xp.zeros_like(xp.asarray(p.data))), be)

        def write(name: str, new: Any) -> Any:
            t = p if name == "param" else state[name]
            _write(t, new)
            t._vc[0] += _MORE_OPS.get(name, 0)
            return t.data

        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        momentum, weight_decay = group["momentum"], group["weight_decay"]
        param = p.data
        grad = xp.asarray(p._grad.data)
        if group["maximize"]:
            grad = -grad
        step_t = state["step"]
        _write(step_t, step_t.data + 1)
        if weight_decay != 0:
            grad = kernels.add_scaled(xp, grad, weight_decay, param)
        square_avg = state["square_avg"].data
        scaled = square_avg * _same(xp, alpha, square_avg)
        square_avg = write("square_avg", _addcmul(xp, scaled, grad, grad, 1 - alpha))
        if group["centered"]:
            grad_avg = write("grad_avg", _lerp(xp, state["grad_avg"].data, grad, 1 - alpha))
            avg = unary(xp, "sqrt", _addcmul(xp, square_avg, grad_avg, grad_avg, -1))
        else:
            avg = unary(xp, "sqrt", square_avg)
        avg = avg + _same(xp, eps, avg)
        if momentum > 0:
            buf = state["momentum_buffer"].data
            buf = buf * _same(xp, momentum, buf)
            buf = write("momentum_buffer", buf + _addcdiv_addend(xp, grad, avg, 1))
            write("param", kernels.add_scaled(xp, param, -lr, buf))
        else:
            write("param", param + _addcdiv_addend(xp, grad, avg, -lr))


class Adagrad(Optimizer):
    """``torch.optim.Adagrad`` (dense gradients): learning-rate decay, weight decay, an initial
    accumulator, maximize; PyTorch's ``_single_tensor_adagrad``, its in-place ops in its order,
    one parameter at a time.  As PyTorch's, it makes every parameter's state when it is made."""

    flat_steps = False

    def __init__(self, params: Any, lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        _number("lr", lr, label="learning rate")
        _number("lr_decay", lr_decay, label="lr_decay value")
        _number("weight_decay", weight_decay, label="weight_decay value")
        _number("initial_accumulator_value", initial_accumulator_value,
                label="initial_accumulator_value value")
        _number("eps", eps, label="epsilon value")
        if differentiable or fused:
            raise ScriptError("Adagrad(differentiable=True) and Adagrad(fused=True) are not "
                              "supported by gradcli", kind="NotImplementedError")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p: Tensor) -> dict[str, Any]:
        """The parameter's ``step`` and ``sum``: zero and ``initial_accumulator_value`` (the
        optimizer's, as PyTorch reads it, not the group's)."""
        xp, be = p.backend.xp, p.backend
        state = self.state.setdefault(p, {})
        state["step"] = Tensor(xp.asarray(0.0, dtype=_step_dtype(be)), be)
        data = xp.asarray(p.data)
        state["sum"] = Tensor(be.writable(xp.full(data.shape, self.defaults[
            "initial_accumulator_value"], dtype=data.dtype)), be)
        return state

    def _update_one(self, group: dict[str, Any], p: Tensor) -> None:
        xp = p.backend.xp
        state = self.state.setdefault(p, {})
        if not state:
            state = self._init_state(p)

        def write(name: str, new: Any) -> Any:
            t = p if name == "param" else state[name]
            _write(t, new)
            return t.data

        lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
        weight_decay = group["weight_decay"]
        param = p.data
        step_t = state["step"]
        _write(step_t, step_t.data + 1)
        step = float(step_t.data)
        grad = xp.asarray(p._grad.data)
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            grad = kernels.add_scaled(xp, grad, weight_decay, param)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum = write("sum", _addcmul(xp, state["sum"].data, grad, grad, 1))
        std = unary(xp, "sqrt", state_sum)
        std = std + _same(xp, eps, std)
        write("param", param + _addcdiv_addend(xp, grad, std, -clr))


def _step_dtype(backend: Any) -> Any:
    """The dtype of a ``step`` state: PyTorch's ``_get_scalar_dtype()``, float64 when that is
    the default dtype, else float32."""
    return backend.xp.float64 if backend.dtype_name == "float64" else backend.xp.float32


def _lerp(xp: Any, start: Any, end: Any, weight: float) -> Any:
    """PyTorch's CPU ``lerp``: fused, from the nearer end (``aten/src/ATen/native/Lerp.h``)."""
    return _fused(xp, *_lerp_terms(xp, start, end, weight))


def _lerp_terms(xp: Any, start: Any, end: Any, weight: float) -> tuple[Any, Any, Any]:
    """``lerp`` as one fused ``base + a * b``: its three terms."""
    w = _same(xp, weight, start)
    diff = end - start
    if float(abs(w)) < 0.5:
        return start, w, diff
    return end, _same(xp, -(1 - float(w)), start), diff


def _addcmul(xp: Any, base: Any, t1: Any, t2: Any, value: float) -> Any:
    """PyTorch's CPU ``addcmul``: ``base + value * t1 * t2``, the last add fused."""
    return _fused(xp, *_addcmul_terms(xp, base, t1, t2, value))


def _addcmul_terms(xp: Any, base: Any, t1: Any, t2: Any, value: float) -> tuple[Any, Any, Any]:
    """``addcmul`` as one fused ``base + a * b``: its three terms."""
    return base, _same(xp, value, t1) * t1, t2


def _addcdiv_addend(xp: Any, t1: Any, t2: Any, value: float) -> Any:
    """What PyTorch's CPU ``addcdiv`` adds to its base: ``(value * t1) / t2``, each step
    rounded (no fusing; the sum ``base + addend`` rounded again)."""
    return (_same(xp, value, t1) * t1) / t2


def _fused(xp: Any, base: Any, a: Any, b: Any) -> Any:
    """``base + a * b`` as PyTorch's lerp and addcmul kernels compute it: rounded once in
    float32 and float64 where the CPU has FMA (kernels.madd)."""
    return kernels.madd(xp, base, a, b)


def _fused_into(xp: Any, terms: tuple[tuple[Any, Any, Any], ...], outs: Any,
                sums: Any) -> None:
    """Each ``base + a * b`` of ``terms`` as ``_fused`` gives it, stored into the rows of
    ``outs`` (a NumPy array: a row per term, each of the bases' shape and dtype; no term reads
    an earlier term's row), the float64 ``sums`` (_Flat.sums) the scratch space.

    In float32 the float64 sums (exact products plus addends, base first as exact/fp.fused_add
    adds them) are checked together (exact/fp.rounds_once) and rounded straight into
    ``outs``.  Where a sum lies on a float32 midpoint or in float32's subnormal range (Adam's
    averages of a gradient that stays zero decay into it), only those elements go through
    _fused, whose result is elementwise: the same bits as _fused over the whole array."""
    if outs[0].dtype != np.float32 or not machine.current().fma:
        for (base, a, b), out in zip(terms, outs):
            out[...] = _fused(xp, base, a, b)
        return
    sums = sums[:len(terms)]
    for (base, a, b), s in zip(terms, sums):
        np.multiply(a, b, out=s, dtype=np.float64)
        np.add(base, s, out=s)
    fixes = []
    if not rounds_once(sums):
        bits = sums.view(np.uint64)
        risky = ((bits & _LOW29) == _MID28) | ((np.abs(sums) < _TINY32) & (sums != 0))
        for k, (base, a, b) in enumerate(terms):
            at = np.flatnonzero(risky[k])
            if at.size:
                fixes.append((k, at, _fused(xp, base[at], a if not a.ndim else a[at], b[at])))
    with np.errstate(over="ignore"):  # beyond float32's range is inf, as the FMA's result
        np.copyto(outs, sums, casting="same_kind")
    for k, at, values in fixes:
        outs[k][at] = values


def _add_scaled_flat(xp: Any, a: Any, alpha: float, b: Any, sums: Any) -> Any:
    """kernels.add_scaled's ``a + alpha * b`` of flat NumPy arrays: a float32 one fused as
    _fused_into fuses (where some sum may double-round, only there as add_scaled does)."""
    if a.dtype != np.float32 or not machine.current().fma:
        return kernels.add_scaled(xp, a, alpha, b)
    out = np.empty((1, a.size), np.float32)
    _fused_into(xp, ((a, xp.asarray(alpha, dtype=xp.float32), b),), out, sums)
    return out[0]


# exact/fp.rounds_once's tests: a float64 sum on a float32 midpoint (its low 29 bits), or in
# float32's subnormal range, may round differently from the fused result
_LOW29, _MID28 = np.uint64((1 << 29) - 1), np.uint64(1 << 28)
_TINY32 = 2.0 ** -126