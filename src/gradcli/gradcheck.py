"""``gradcli check``: autograd's gradients against central finite differences, in float64.

By default (``check_graph``) the function checked is the one autograd differentiated: the
output's recorded graph, replayed in float64 from the values its leaves had when they were
used (``replay.py``), as ``torch.autograd.gradcheck`` checks a function; the analytic gradient
is autograd's through the replay, the numeric one ``(f(x+h) - f(x-h)) / 2h`` of the replay
with one element of a ``--wrt`` tensor moved.  Random draws, a training loop before the
output and an optimizer's steps after it take no part.  ``check --rerun`` (``check_rerun``)
checks the whole script instead: it re-runs it (parsed once) twice per checked element,
adding ``±h`` to that element of W's last top-level binding, against the gradient of the
final output.

The step follows the dtype and the element's magnitude: ``h = cbrt(eps) * max(1, |x|)`` (the
step that balances the central difference's truncation error, ~h², against its rounding error,
~eps/h), rounded so that ``x + h`` is exact.  Rounding in f itself is ``eps * |f|`` however
small ``h`` is, so a quotient of two large values of f carries an error of about
``eps * (|f(x+h)| + |f(x-h)|) / 2h``; that estimate is added to the tolerance, elementwise,
so a sum over 10,000 elements is not a false mismatch.  The elements agree when
``|a - n| <= atol + rtol * |n| + noise`` (rtol=1e-5, atol=1e-7).  The relative error of one
element is ``|a - n| / max(|a|, |n|)``, counted only where that scale is at least
``atol / rtol``.

Work is bounded: at most ``max_evals`` evaluations in all (two per element), shared between
the ``--wrt`` names; a tensor with more elements is checked at evenly spread elements, and a
note says how many.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .engine import Tensor
from .engine.backend import get_backend, to_host
from .errors import GradcliError, ScriptError
from .limits import MAX_EVALS

RTOL = 1e-5
ATOL = 1e-7
WORST = 3  # elements shown on a mismatch
NOISE_SAFETY = 8.0  # rounding of f is estimated, not known: allow a few ulps more


@dataclass
class Worst:
    """One element that disagrees: where, both values, and by how much."""

    index: tuple[int, ...]
    analytic: float
    numeric: float
    abs_err: float


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
    worst: list[Worst] = field(default_factory=list)


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


def compare(analytic: Any, numeric: Any, noise: Any = 0.0) -> tuple[float, float, bool]:
    """(max_abs_err, max_rel_err, ok) of two float64 arrays, ``noise`` added to the tolerance."""
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
        ok = bool(np.all(diff <= ATOL + RTOL * np.abs(n) + noise))
    return _max(diff), _max(rel), ok


def _max(v: Any) -> float:
    return float("nan") if np.isnan(v).any() else float(np.max(v))


def budget(sizes: list[int], max_evals: int) -> list[int]:
    """Elements to check per name: two re-runs each, ``max_evals`` in all, shared evenly
    (a small tensor's unused share goes to the others)."""
    left = max(max_evals // 2, len(sizes))  # at least one element per name
    counts = [0] * len(sizes)
    remaining = len(sizes)
    for k in sorted(range(len(sizes)), key=lambda k: sizes[k]):
        counts[k] = min(sizes[k], max(left // remaining, 1))
        left -= counts[k]
        remaining -= 1
    return counts


def elements(sizes: list[int], max_evals: int = MAX_EVALS) -> int:
    """How many elements ``check`` will move (two evaluations each)."""
    return sum(budget(sizes, max_evals))


def spread(total: int, count: int) -> Any:
    """``count`` flat indices evenly spread over ``total`` (all of them when they fit)."""
    if count >= total:
        return np.arange(total)
    return np.unique(np.linspace(0, total - 1, count).round().astype(np.int64))


def steps(x: Any, eps: float) -> Any:
    """The central-difference step of each element, made exact: ``(x + h) - x``."""
    h = np.cbrt(eps) * np.maximum(1.0, np.abs(x))
    return (x + h) - x


def check_graph(replay: Any, of: str, names: list[str],
                progress: Callable[[int], None] | None = None,
                max_evals: int = MAX_EVALS) -> CheckReport:
    """Compare autograd with central differences on the replayed graph (``replay.Replay``)."""
    from .replay import scalar

    zeros = [np.zeros(shape) for shape in replay.shapes]
    _, analytic = replay(zeros, differentiate=True)

    def f(k: int, index: int, step: float) -> float:
        moved = list(zeros)
        moved[k] = zeros[k].copy()
        moved[k].reshape(-1)[index] = step
        return scalar(replay(moved)[0], of)

    sizes = [int(np.prod(shape)) for shape in replay.shapes]
    return _compare_all(of, names, [a.reshape(-1) for a in analytic], replay.values,
                        [lambda i, h, k=k: f(k, i, h) for k in range(len(names))], sizes,
                        progress, max_evals, "evaluations")


def check_rerun(result: Any, of: str, wrt: list, rerun: Callable[..., Any],
                backend: str | None, seed: int, progress: Callable[[int], None] | None = None,
                max_evals: int = MAX_EVALS) -> CheckReport:
    """Compare autograd with central differences of the whole script (``check --rerun``).

    ``rerun(backend=, perturb=)`` runs the script again (same program and options) and
    returns its RunResult; ``backend`` and ``seed`` make a fresh float64 backend per re-run,
    so random draws repeat exactly.  ``progress(n)`` is told after each element.
    """
    out = result.bindings[of]
    analytic = [to_host(g.data).astype(np.float64).reshape(-1)
                for g in result.gradients(out, [w.tensor for w in wrt])]
    values = [to_host(w.tensor.data).astype(np.float64) for w in wrt]

    def f(w: Any, x: Any, index: int, step: float) -> float:
        be = get_backend(backend, "float64", seed)
        bump = np.zeros(x.size, dtype=np.float64)
        bump[index] = step
        delta = Tensor(be.asarray(bump.reshape(x.shape)), be)
        k = result.binding_counts[w.name] - 1
        return _scalar(rerun(backend=be, perturb=(w.name, k, delta)), of)

    sizes = [x.size for x in values]
    return _compare_all(of, [w.name for w in wrt], analytic, values,
                        [lambda i, h, w=w, x=x: f(w, x, i, h) for w, x in zip(wrt, values)],
                        sizes, progress, max_evals, "re-runs")


def _compare_all(of: str, names: list[str], analytic: list, values: list, fs: list,
                 sizes: list[int], progress: Callable[[int], None] | None, max_evals: int,
                 unit: str) -> CheckReport:
    """Each name's analytic gradient against ``fs[k](index, ±h)``'s central differences."""
    report = CheckReport(of)
    done = 0
    eps = float(np.finfo(np.float64).eps)
    for name, a_all, x, f, count in zip(names, analytic, values, fs, budget(sizes, max_evals)):
        total = x.size
        picked = spread(total, count)
        h = steps(x.reshape(-1)[picked], eps)
        fp, fm = np.zeros(len(picked)), np.zeros(len(picked))
        for j, (index, step) in enumerate(zip(picked.tolist(), h.tolist())):
            fp[j], fm[j] = f(index, step), f(index, -step)
            done += 1
            if progress is not None:
                progress(done)
        with np.errstate(all="ignore"):
            numeric = (fp - fm) / (2 * h)
            noise = NOISE_SAFETY * eps * (np.abs(fp) + np.abs(fm)) / (2 * h)
        a = a_all[picked]
        abs_err, rel_err, ok = compare(a, numeric, noise)
        check_ = WrtCheck(name, abs_err, rel_err, ok, len(picked), total, a, numeric)
        if not ok:
            check_.worst = _worst(a, numeric, noise, picked, x.shape)
        report.wrt[name] = check_
        if len(picked) < total:
            report.notes.append(
                f"checked {len(picked):,} of {total:,} elements of {name}, evenly spread (two "
                f"{unit} each; --max-evals {max_evals:,} bounds them, raise it to check more)")
    return report


def _worst(a: Any, n: Any, noise: Any, picked: Any, shape: tuple) -> list[Worst]:
    """The elements furthest past their tolerance, worst first."""
    with np.errstate(all="ignore"):
        excess = np.abs(a - n) - (ATOL + RTOL * np.abs(n) + noise)
    excess = np.where(np.isnan(excess), np.inf, excess)
    order = [i for i in np.argsort(-excess, kind="stable")[:WORST] if excess[i] > 0]
    return [Worst(tuple(int(v) for v in np.unravel_index(int(picked[i]), shape)),
                  float(a[i]), float(n[i]), float(abs(a[i] - n[i]))) for i in order]


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
