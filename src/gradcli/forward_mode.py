"""``grad --mode forward``: d(of)/dW by forward-mode AD, one re-run per element of W.

Each re-run gives the element's binding the tangent e_i (the same binding ``check`` perturbs:
the name's last binding), and the dual level carries it to ``of``, whose tangent is the
element's derivative (engine/forward.py).  The answer equals reverse mode's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .engine import Tensor
from .engine.backend import to_host
from .errors import GradcliError, ScriptError


def grads(result: Any, of: str, wrt: list[str], rerun: Callable[..., Any],
          progress: Callable[[int], None] | None = None, jacobian: bool = False) -> list[Tensor]:
    """d(of)/dw for each w of ``wrt``; ``rerun(tangent=)`` runs the script again.

    ``jacobian``: ``of`` may have any shape, and the answer is shaped (*of.shape, *w.shape)
    as torch.autograd.functional.jacobian gives it: the re-run seeded with e_i gives the whole
    column d(of)/dw_i as the tangent of ``of``."""
    be = result.backend
    out_value = result.bindings[of]
    if not isinstance(out_value, Tensor) or (out_value.numel() != 1 and not jacobian):
        raise ScriptError("grad can be implicitly created only for scalar outputs")
    out_shape = tuple(out_value.shape)
    done = 0
    found = []
    for name in wrt:
        x = result.bindings[name]
        k = result.binding_counts[name] - 1
        host = np.zeros(x.numel(), dtype=to_host(x.data).dtype)
        columns = []
        for i in range(x.numel()):
            host[i] = 1.0
            seed = Tensor(be.asarray(host.reshape(tuple(x.shape))), be)
            host[i] = 0.0
            columns.append(_tangent(rerun(tangent=(name, k, seed)), of, out_shape, host.dtype))
            done += 1
            if progress is not None:
                progress(done)
        shape = (*out_shape, *x.shape) if jacobian else tuple(x.shape)
        values = np.stack(columns, axis=-1) if columns else np.zeros(shape, dtype=host.dtype)
        found.append(Tensor(be.writable(be.xp.asarray(values.reshape(shape))), be))
    return found


def _tangent(result: Any, of: str, shape: tuple, dtype: Any) -> np.ndarray:
    """The tangent of ``of`` after a seeded re-run (zeros when none reached it)."""
    if result.error is not None:
        err: GradcliError = result.error
        err.message = f"while re-running the script for forward mode: {err.message}"
        err.args = (err.message,)
        raise err
    t = result.bindings.get(of)
    tan = None if result.forward is None or not isinstance(t, Tensor) else \
        result.forward.tangent_of(t)
    if tan is None:
        return np.zeros(shape, dtype=dtype)
    return np.asarray(to_host(tan.data), dtype=dtype).reshape(shape)
