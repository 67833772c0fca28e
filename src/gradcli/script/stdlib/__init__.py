"""The standard modules a PyTorch program imports for ordinary work (SPEC §7), each with the
parts programs use and nothing that reaches files, the network or the process: ``random``
(CPython's generator, one per run), ``itertools``, ``functools``, ``collections``, ``typing``,
``sys`` (``argv``, ``exit``, ``stdout.write``), ``time`` and ``matplotlib.pyplot`` (accepted,
not drawn).

Their functions are built-ins of the interpreter's kind: a script's callable given to one
(``functools.reduce(f, xs)``, a sort key, a defaultdict's factory) is called through the
interpreter, so its steps count and it stays in the sandbox; what they consume from a
script's iterable counts a step per item. ``MODULES`` are the same for every run (registered
in ``api.namespace`` beside torch's); ``PER_RUN`` makes a module of the run's own when a
script imports it (``sys.argv`` names the run's script).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import collections, functools, itertools, pyplot, random, sys, time, typing

MODULES: dict[str, dict[str, Any]] = {
    "random": random.MEMBERS,
    "itertools": itertools.MEMBERS,
    "collections": collections.MEMBERS,
    "functools": functools.MEMBERS,
    "typing": typing.MEMBERS,
    "time": time.MEMBERS,
}
PER_RUN: dict[str, Callable[[Any], dict[str, Any]]] = {
    "sys": sys.module, "matplotlib.pyplot": pyplot.module, "matplotlib": pyplot.matplotlib}
# what the static check of imports knows of them (the run's own has the same names)
MODULES.update({"sys": dict.fromkeys(sys.NAMES),
                "matplotlib.pyplot": dict.fromkeys(pyplot.NAMES),
                "matplotlib": dict.fromkeys(("pyplot", "use", "rcParams"))})

__all__ = ["MODULES", "PER_RUN"]
