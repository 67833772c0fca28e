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
          progress: Callable[[int], None] | None = None) -> list[Tensor]:
    """d(of)/dw for each w of ``wrt``; ``rerun(tangent=)`` runs the script again."""
    be = result.backend
    out_value = result.bindings[of]
    if not isinstance(out_value, Tensor) or out_value.numel() != 1:
        raise ScriptError("grad can be implicitly created only for scalar outputs")
    done = 0
    found = []
    for name in wrt:
        x = result.bindings[name]
        k = result.binding_counts[name] - 1
        host = np.zeros(x.numel(), dtype=to_host(x.data).dtype)
        values = np.zeros(x.numel(), dtype=np.float64)
        for i in range(x.numel()):
            host[i] = 1.0
            seed = Tensor(be.asarray(host.reshape(tuple(x.shape))), be)
            host[i] = 0.0
            values[i] = _tangent(rerun(tangent=(name, k, seed)), of)
            done += 1
            if progress is not None:
                progress(done)
        found.append(Tensor(be.asarray(values.astype(host.dtype).reshape(tuple(x.shape))), be))
    return found


def _tangent(result: Any, of: str) -> float:
    """The tangent of ``of`` after a seeded re-run (0 when none reached it)."""
    if result.error is not None:
        err: GradcliError = result.error
        err.message = f"while re-running the script for forward mode: {err.message}"
        err.args = (err.message,)
        raise err
    t = result.bindings.get(of)
    tan = None if result.forward is None or not isinstance(t, Tensor) else \
        result.forward.tangent_of(t)
    return 0.0 if tan is None else float(to_host(tan.data).reshape(-1)[0])
