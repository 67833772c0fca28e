"""Python's ``time`` as a script imports it: the clocks programs read to time their work."""

from __future__ import annotations

import time as _python_time
from typing import Any

MEMBERS: dict[str, Any] = {
    "time": _python_time.time,
    "perf_counter": _python_time.perf_counter,
    "perf_counter_ns": _python_time.perf_counter_ns,
    "monotonic": _python_time.monotonic,
}

__all__ = ["MEMBERS"]
