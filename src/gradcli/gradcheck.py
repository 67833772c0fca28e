"""``gradcli check``: autograd's gradients against central finite differences, in float64.

For each ``--wrt W`` the analytic gradient is ``result.grad(of, [W])``; the numeric one re-runs
the whole script once per element and sign, adding ``±h`` to one element of W's last top-level
binding (``h = 1e-6 * max(1, |x|)``), and takes ``(f(x+h) - f(x-h)) / 2h``.  They agree when
``|a - n| <= atol + rtol * |n|`` elementwise (``numpy.allclose`` with rtol=1e-5, atol=1e-7).
The relative error of one element is ``|a - n| / max(|a|, |n|)``, counted only where that
scale is at least ``atol / rtol`` (below it the absolute tolerance decides, and a quotient of
two tiny numbers would only be noise).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .engine import Tensor
from .engine.backend import get_backend, to_host
from .errors import GradcliError, ScriptError

RTOL = 1e-5
ATOL = 1e-7
MAX_CHECKED = 2_000  # elements checked per --wrt name (two re-runs each)


@dataclass
class WrtCheck:
    """The comparison for one --wrt name."""

    name: str
    max_abs_err: float
    max_rel_err: float
    ok: bool
    checked: int
    total: int
    analytic: Any = None
    numeric: Any = None


@dataclass
class CheckReport:
    """Every --wrt name's comparison and notes for the user."""

    of: str
    wrt: dict[str, WrtCheck] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every name agrees."""
        return all(w.ok for w in self.wrt.values())


def compare(analytic: Any, numeric: Any) -> tuple[float, float, bool]:
    """(max_abs_err, max_rel_err, ok) of two float64 arrays."""
    a = np.asarray(analytic, dtype=np.float64).reshape(-1)
    n = np.asarray(numeric, dtype=np.float64).reshape(-1)
    if a.size == 0:
        return 0.0, 0.0, True
    with np.errstate(all="ignore"):
        diff = np.abs(a - n)
        scale = np.maximum(np.abs(a), np.abs(n))
        judged = scale >= ATOL / RTOL  # smaller values are judged by atol alone
        rel = np.where(judged, diff / np.where(judged, scale, 1.0), 0.0)
        rel = np.where(np.isnan(diff), np.nan, rel)
        ok = bool(np.allclose(a, n, rtol=RTOL, atol=ATOL, equal_nan=False))
    return _max(diff), _max(rel), ok


def _max(v: Any) -> float:
    return float("nan") if np.isnan(v).any() else float(np.max(v))


def elements(result: Any, wrt: list[str]) -> int:
    """How many elements ``check`` will perturb (two re-runs each)."""
    return sum(min(result.bindings[w].numel(), MAX_CHECKED) for w in wrt)


def check(result: Any, of: str, wrt: list[str], rerun: Callable[..., Any],
          backend: str | None, seed: int,
          progress: Callable[[int], None] | None = None) -> CheckReport:
    """Compare autograd with central differences for each name in ``wrt``.

    ``rerun(backend=, perturb=)`` runs the script again (same source and options) and returns its
    RunResult; ``backend`` and ``seed`` make a fresh float64 backend per re-run, so random draws
    repeat exactly.  ``progress(n)`` is told after each element.
    """
    report = CheckReport(of)
    done = 0
    for name in wrt:
        [g] = result.grad(of, [name])
        analytic = to_host(g.data).astype(np.float64)
        x = to_host(result.bindings[name].data).astype(np.float64)
        k = result.binding_counts[name] - 1
        total = x.size
        count = min(total, MAX_CHECKED)
        numeric = np.zeros(count, dtype=np.float64)
        flat_x = x.reshape(-1)
        for j in range(count):
            h = 1e-6 * max(1.0, abs(float(flat_x[j])))
            f = []
            for sign in (1.0, -1.0):
                be = get_backend(backend, "float64", seed)
                bump = np.zeros(total, dtype=np.float64)
                bump[j] = sign * h
                delta = Tensor(be.asarray(bump.reshape(x.shape)), be)
                f.append(_scalar(rerun(backend=be, perturb=(name, k, delta)), of))
            numeric[j] = (f[0] - f[1]) / (2 * h)
            done += 1
            if progress is not None:
                progress(done)
        a = analytic.reshape(-1)[:count]
        abs_err, rel_err, ok = compare(a, numeric)
        report.wrt[name] = WrtCheck(name, abs_err, rel_err, ok, count, total, a, numeric)
        if count < total:
            report.notes.append(f"checked the first {count:,} of {total:,} elements of "
                                f"{name} (each needs two re-runs of the script)")
    return report


def _scalar(result: Any, of: str) -> float:
    """The value of ``of`` after a perturbed re-run; a re-run's error is the user's error."""
    if result.error is not None:
        err: GradcliError = result.error
        err.message = f"while re-running the script for finite differences: {err.message}"
        err.args = (err.message,)
        raise err
    t = result.bindings.get(of)
    if not isinstance(t, Tensor) or t.numel() != 1:
        raise ScriptError(f"check needs a one-element output; '{of}' is not one",
                          hint="choose a scalar output with --of")
    return float(to_host(t.data).reshape(()))
