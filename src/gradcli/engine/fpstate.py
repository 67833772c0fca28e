"""Whether NumPy's floating-point reports go anywhere: ``backend.quiet()`` sets ``QUIET`` for the
context it runs in, and the exact kernels ask ``fp_ignored()`` for the errstate they need."""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any

import numpy

# the quiet() in force in this context: True (everything ignored), its FloatingPointLog, or None
QUIET: contextvars.ContextVar = contextvars.ContextVar("gradcli_quiet", default=None)
_NOTHING = contextlib.nullcontext()


def fp_ignored() -> Any:
    """``numpy.errstate(all="ignore")`` for a kernel whose floating-point flags mean nothing
    (x * x overflowing to inf, as PyTorch's); inside ``quiet()``, where NumPy's reports go
    nowhere while no script's own NumPy call runs, nothing to enter (an errstate costs a
    kernel on a small tensor as much as its arithmetic)."""
    state = QUIET.get()
    if state is True or state is not None and not state.active:
        return _NOTHING
    return numpy.errstate(all="ignore")
