"""``torch.set_num_threads``/``get_num_threads`` and ``torch.backends``: the machine a run
reproduces (``RunContext.machine``, engine/machine.py), as a program asks about it."""

from __future__ import annotations

from typing import Any

from ..engine.context import current
from ..errors import ScriptError


def set_num_threads(*args: Any) -> None:
    """As ``torch.set_num_threads(n)``: the run's reductions and MKL's products split between
    ``n`` threads from here on."""
    if len(args) != 1:
        raise ScriptError("torch.set_num_threads() takes exactly one argument "
                          f"({len(args)} given)", kind="TypeError")
    n = args[0]
    if not isinstance(n, int) or isinstance(n, bool):
        raise ScriptError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise ScriptError("set_num_threads expects a positive integer")
    current().set_num_threads(n)


def get_num_threads(*args: Any) -> int:
    """As ``torch.get_num_threads()``."""
    if args:
        raise ScriptError(f"torch.get_num_threads() takes no arguments ({len(args)} given)",
                          kind="TypeError")
    return current().machine.threads


def get_cpu_capability() -> str:
    """As ``torch.backends.cpu.get_cpu_capability()``: "AVX512", "AVX2" or "DEFAULT"."""
    return current().machine.capability


def mkl_is_available() -> bool:
    """As ``torch.backends.mkl.is_available()``: True, the CPU build gradcli reproduces links
    MKL (whether gradcli found the library itself, ``gradcli doctor`` says)."""
    return True


THREADS = {"set_num_threads": set_num_threads, "get_num_threads": get_num_threads}
BACKENDS_CPU = {"get_cpu_capability": get_cpu_capability}
BACKENDS_MKL = {"is_available": mkl_is_available}
