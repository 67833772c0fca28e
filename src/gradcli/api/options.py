"""``torch.set_printoptions``: the run's print options (``RunContext.print_options``)."""

from __future__ import annotations

from typing import Any

from ..engine.context import current
from ..engine.printing import set_printoptions as _set


def set_printoptions(precision: Any = None, threshold: Any = None, edgeitems: Any = None,
                     linewidth: Any = None, profile: Any = None, sci_mode: Any = None) -> None:
    """As ``torch.set_printoptions``: a profile ("default", "short", "full"), then each option
    given, for the rest of the run; ``sci_mode`` left out is back to None (chosen per tensor)."""
    ctx = current()
    ctx.print_options = _set(ctx.print_options, precision, threshold, edgeitems, linewidth,
                             profile, sci_mode)
