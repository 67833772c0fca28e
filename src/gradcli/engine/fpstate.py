"""Where NumPy's floating-point reports go in this context: ``QUIET`` is the ``backend.quiet()``
in force (True when it ignores everything, else its FloatingPointLog), None outside one; the
exact kernels read it (``exact.fp.fp_ignored``) to skip an errstate that changes nothing."""

from __future__ import annotations

from contextvars import ContextVar

QUIET: ContextVar = ContextVar("gradcli_quiet", default=None)
