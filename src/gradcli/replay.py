"""The recorded graph of an output, replayed: the function autograd differentiated.

``check`` holds a gradient to finite differences of the function autograd differentiated, as
``torch.autograd.gradcheck`` does for a function: not the whole script (whose random draws,
training loop and optimizer would make it another function), but the graph the output was
recorded with.  That graph is the output's record and every record it reaches through
autograd's edges (a node's edge for each input that required grad) back to the ``--wrt``
tensors; what lies outside it (data, ``no_grad`` and ``detach()`` results, a
non-differentiable op's result) is a constant: the values the op read then (the record's
copy when an in-place update overwrote them, ``engine/history.py``'s after an optimizer's
step, else the tensor's own).

A ``Replay`` runs those ops again in float64 on a fresh backend, through ``record.apply`` with
each record's op, arguments and params (a custom Function's ``apply`` again, its forward and
backward the script's), so the same forwards and formulas run: the input of a
``--wrt`` tensor is its recorded value plus a perturbation (each state of a leaf, as autograd
adds the gradients of every use into one ``.grad``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .engine import Tensor
from .engine import ops as O
from .engine.autograd import grad as autograd_grad
from .engine.backend import get_backend, quiet, to_host
from .engine.context import RunContext, no_grad, use
from .engine.custom import FunctionNode, run_function
from .engine.dtypes import FLOAT64
from .engine.record import apply
from .errors import GradcliError, ScriptError
from .views import output_record, state_data

REPLAY_RTOL = {"float64": 1e-9, "float32": 1e-4}  # the replay reproduces the output this well


class ReplayError(GradcliError):
    """The graph holds what cannot be replayed op by op (a custom Function, a write through a
    view); ``check --rerun`` checks such a script by re-running it."""

    default_kind = "NotImplementedError"
    exit_code = 1


class Replay:
    """The output as a function of perturbations of the ``--wrt`` tensors (float64)."""

    def __init__(self, result: Any, output: Any, wrt: list, backend: str = "numpy",
                 seed: int = 0) -> None:
        self.result = result
        self.backend = get_backend(backend, "float64", seed)
        records = result.records or []
        self.records = records
        self.out = output_record(result, output)
        if self.out is None:
            raise ReplayError(f"the graph of '{output.name}' was not recorded")
        # record id -> which --wrt input it is a state of
        sources: dict[int, int] = {}
        for k, w in enumerate(wrt):
            states = [i for i, r in enumerate(records) if r.tensor is w.tensor]
            if w.tensor.grad_fn is not None:  # a non-leaf: its value now is the input
                states = states[-1:]
            for i in states:
                sources[i] = k
        self.sources = sources
        # each input's value where the graph last read it (the finite differences' scale)
        self.values = []
        for k, w in enumerate(wrt):
            used = [i for i, j in sources.items() if j == k and i <= self.out]
            data = state_data(result, records[max(used)]) if used else w.tensor.data
            self.values.append(np.asarray(to_host(data), dtype=np.float64))
        self.shapes = [tuple(w.tensor.shape) for w in wrt]
        self.live = self._live()
        self.plan = [i for i in range(self.out + 1) if self.live[i] and i not in sources]
        for i in self.plan:
            self._replayable(i)
        self.constants: dict[int, Tensor] = {}
        self._check_reproduces(output)

    def _live(self) -> list[bool]:
        """Which records the output's value depends on through autograd's edges."""
        live = [False] * (self.out + 1)
        records = self.records
        for i in range(self.out + 1):
            if i in self.sources:
                live[i] = True
                continue
            node = records[i].node
            if node is None or not hasattr(node, "edges"):
                continue
            edges = node.edges
            live[i] = any(j is not None and k < len(edges) and edges[k] is not None and live[j]
                          for k, j in enumerate(records[i].inputs))
        return live

    def _replayable(self, i: int) -> None:
        r = self.records[i]
        op = O.OPS.get(r.op)
        if isinstance(r.node, FunctionNode) and r.node.call is not None and \
                r.node.slots is None:
            return  # a custom Function with one output: called again
        if op is None or r.node.op is not op or op.forward is None:
            line = f" on line {r.span.line}" if r.span is not None else ""
            what = "a custom autograd Function with several outputs" if op is None else \
                "an in-place update through a view" if r.op == "copy_slices" or \
                r.node.op is not op else f"'{r.op}'"
            raise ReplayError(
                f"check cannot replay {what}{line}: it replays the recorded graph op by op",
                hint="check --rerun differentiates the whole script by re-running it instead")

    def _constant(self, j: int) -> Tensor:
        """Record ``j``'s values when they were read, on the replay's backend (float64 for a
        floating dtype, as a gradcheck's inputs)."""
        got = self.constants.get(j)
        if got is None:
            host = np.asarray(to_host(state_data(self.result, self.records[j])))
            be = self.backend
            if host.dtype.kind == "f":
                data = be.asarray(host.astype(np.float64))
            else:
                data = be.xp.asarray(host, copy=True)
            got = self.constants[j] = Tensor(be.leaf_data(data), be)
        return got

    def __call__(self, deltas: list[Any], differentiate: bool = False) -> tuple[Tensor, list]:
        """The output with each input moved by ``deltas`` (host arrays); with
        ``differentiate``, also autograd's gradient of it with respect to each delta."""
        be = self.backend
        with use(RunContext(be)), quiet():
            moves = [Tensor(be.asarray(d), be, requires_grad=differentiate) for d in deltas]
            if differentiate:
                return self._run(moves, True)
            with no_grad():
                return self._run(moves, False)

    def _run(self, moves: list[Tensor], differentiate: bool) -> tuple[Tensor, list]:
        records = self.records
        values: dict[int, Tensor] = {}
        for i, k in self.sources.items():
            if i <= self.out and self.live[i]:
                values[i] = apply(O.OPS["add"], (self._constant(i), moves[k]))
        for i in self.plan:
            r = records[i]
            args = []
            for k, j in enumerate(r.inputs):
                if j is None:
                    args.append(r.numbers[k] if k < len(r.numbers) else None)
                elif self.live[j]:
                    args.append(values[j])
                else:
                    args.append(self._constant(j))
            if isinstance(r.node, FunctionNode):
                values[i] = _call_again(r.node, args, self.backend)
            else:
                values[i] = apply(O.OPS[r.op], tuple(args), _params(r.node.params))
        out = values.get(self.out)
        if out is None:  # the output does not depend on the inputs: a constant
            out = self._constant(self.out)
        if not differentiate:
            return out, []
        if not out.requires_grad:
            return out, [np.zeros(tuple(m.shape)) for m in moves]
        grads = autograd_grad(out, moves, allow_unused=True, materialize_grads=True)
        return out, [np.asarray(to_host(g.data), dtype=np.float64) for g in grads]

    def _check_reproduces(self, output: Any) -> None:
        """The replay at the recorded values must give the recorded output: a guard against
        a graph that does not say everything its value came from."""
        got, _ = self([np.zeros(s) for s in self.shapes])
        want = np.asarray(to_host(output.tensor.data), dtype=np.float64)
        have = np.asarray(to_host(got.data), dtype=np.float64)
        rtol = REPLAY_RTOL.get(output.tensor.dtype.name, 1e-4)
        if have.shape != want.shape or not np.allclose(have, want, rtol=rtol, atol=rtol,
                                                       equal_nan=True):
            raise ReplayError(f"replaying the recorded graph of '{output.name}' does not give "
                              f"its value ({have.reshape(-1)[:3].tolist()} for "
                              f"{want.reshape(-1)[:3].tolist()})",
                              hint="check --rerun differentiates the whole script by re-running "
                              "it instead")


def _call_again(node: FunctionNode, tensors: list, backend: Any) -> Tensor:
    """A custom Function's ``apply`` again, its tensor arguments replaced by ``tensors`` in
    order (what the record lists), the others as they were."""
    forward, setup_context, args, kwargs = node.call
    given = iter(tensors)
    args = tuple(next(given) if isinstance(a, Tensor) else a for a in args)
    kwargs = {k: next(given) if isinstance(v, Tensor) else v for k, v in kwargs.items()}
    return run_function(node.op_name(), forward, node.backward, setup_context, args, kwargs,
                        backend)


def _params(params: dict) -> dict:
    """The op's params, a floating ``dtype`` (``.float()``, ``.to(torch.float32)``) made
    float64: the replay computes in float64 throughout."""
    dtype = params.get("dtype") if params else None
    if dtype is not None and getattr(dtype, "is_floating_point", False):
        return {**params, "dtype": FLOAT64}
    return params


def scalar(t: Tensor, name: str) -> float:
    """A replayed one-element output as a float."""
    if t.numel() != 1:
        raise ScriptError(f"check needs a one-element output; '{name}' has shape "
                          f"{tuple(t.shape)}", hint="choose a scalar output with --of")
    return float(np.asarray(to_host(t.data)).reshape(()))


__all__ = ["Replay", "ReplayError", "scalar"]
