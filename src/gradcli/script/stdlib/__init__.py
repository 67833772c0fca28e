"""The standard modules a PyTorch program imports for ordinary work (docs/language.md), each with the
parts programs use and nothing that reaches files, the network or the process: ``random``
(CPython's generator, one per run), ``itertools``, ``functools``, ``collections``, ``typing``,
``sys`` (``argv``, ``exit``, ``stdout.write``), ``time`` and ``matplotlib.pyplot`` (accepted,
not drawn).

Their functions are built-ins of the interpreter's kind: a script's callable given to one
(``functools.reduce(f, xs)``, a sort key, a defaultdict's factory) is called through the
interpreter, so its steps count and it stays in the sandbox; what they consume from a
script's iterable counts a step per item. ``MODULES`` are the same for every run (registered
in ``api.namespace`` beside torch's); ``PER_RUN`` makes a module of the run's own when a
script imports it (``sys.argv`` names the run's script). A module's code is imported when a
script first uses it, not when gradcli starts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any


class _Members(Mapping):
    """A module's members, read from ``script/stdlib/<file>.py`` when first asked for."""

    def __init__(self, file: str, names: str = "MEMBERS") -> None:
        self.file = file
        self.names = names
        self.loaded: Mapping | None = None

    def _load(self) -> Mapping:
        if self.loaded is None:
            found = getattr(importlib.import_module(f"{__name__}.{self.file}"), self.names)
            self.loaded = found if isinstance(found, Mapping) else dict.fromkeys(found)
        return self.loaded

    def __getitem__(self, name: str) -> Any:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


def _per_run(file: str, make: str) -> Callable[[Any], dict[str, Any]]:
    def module(interp: Any) -> dict[str, Any]:
        return getattr(importlib.import_module(f"{__name__}.{file}"), make)(interp)
    return module


MODULES: dict[str, Mapping] = {
    name: _Members(name) for name in ("random", "itertools", "collections", "functools",
                                      "typing", "time")}
# made per run (the names are what the static check of imports knows of them)
PER_RUN: dict[str, Callable[[Any], dict[str, Any]]] = {
    "sys": _per_run("sys", "module"), "matplotlib.pyplot": _per_run("pyplot", "module"),
    "matplotlib": _per_run("pyplot", "matplotlib")}
MODULES.update({"sys": _Members("sys", "NAMES"), "matplotlib.pyplot": _Members("pyplot", "NAMES"),
                "matplotlib": _Members("pyplot", "MATPLOTLIB_NAMES")})

__all__ = ["MODULES", "PER_RUN"]
