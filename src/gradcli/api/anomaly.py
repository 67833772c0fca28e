"""torch.autograd's anomaly mode: ``detect_anomaly()``, ``set_detect_anomaly(mode)``,
``torch.is_anomaly_enabled()`` and friends, as PyTorch 2.13 has them.

With the mode on, every backward node remembers the forward statement (and the calls leading
to it) that made it; a backward that fails in a node first warns "Error detected in
MulBackward0. Traceback of forward call that caused the error:" with those frames, and with
``check_nan`` a node whose gradient holds a NaN is PyTorch's error (engine/autograd.py).
"""

from __future__ import annotations

from typing import Any

from ..engine.context import current
from ..errors import ScriptError

ENABLED_MSG = ("Anomaly Detection has been enabled. This mode will increase the runtime and "
               "should only be enabled for debugging.")


def _bool(fn: str, name: str, position: int, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ScriptError(f"{fn}(): argument '{name}' (position {position}) must be bool, not "
                          f"{type(value).__name__}", kind="TypeError")
    return value


def set_anomaly_enabled(enabled: Any, check_nan: Any = True) -> None:
    """``torch.set_anomaly_enabled(enabled, check_nan=True)``."""
    ctx = current()
    ctx.anomaly = _bool("set_anomaly_enabled", "enabled", 1, enabled)
    ctx.anomaly_nan = _bool("set_anomaly_enabled", "check_nan", 2, check_nan)


def is_anomaly_enabled() -> bool:
    """``torch.is_anomaly_enabled()``."""
    return current().anomaly


def is_anomaly_check_nan_enabled() -> bool:
    """``torch.is_anomaly_check_nan_enabled()``."""
    return current().anomaly_nan


class detect_anomaly:
    """``with torch.autograd.detect_anomaly(check_nan=True):``: on inside the block (PyTorch
    warns that it is enabled when the manager is made)."""

    def __init__(self, check_nan: Any = True) -> None:
        ctx = current()
        self.prev, self.prev_nan = ctx.anomaly, ctx.anomaly_nan
        self.check_nan = check_nan
        ctx.warn(ENABLED_MSG)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_nan)


class set_detect_anomaly:
    """``torch.autograd.set_detect_anomaly(mode, check_nan=True)``: on or off at once; as a
    ``with`` block, the previous mode again at its end."""

    def __init__(self, mode: Any, check_nan: Any = True) -> None:
        ctx = current()
        self.prev, self.prev_nan = ctx.anomaly, ctx.anomaly_nan
        set_anomaly_enabled(_bool("set_detect_anomaly", "mode", 1, mode), check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_nan)


AUTOGRAD: dict[str, Any] = {"detect_anomaly": detect_anomaly,
                            "set_detect_anomaly": set_detect_anomaly}
TORCH: dict[str, Any] = {"set_anomaly_enabled": set_anomaly_enabled,
                         "is_anomaly_enabled": is_anomaly_enabled,
                         "is_anomaly_check_nan_enabled": is_anomaly_check_nan_enabled}

__all__ = ["AUTOGRAD", "ENABLED_MSG", "TORCH", "detect_anomaly", "is_anomaly_check_nan_enabled",
           "is_anomaly_enabled", "set_anomaly_enabled", "set_detect_anomaly"]
