"""The exit codes of docs/commands.md that no error class carries (``errors.GradcliError`` and its
subclasses carry 1, 2 and 3).

A module of its own, importing nothing: ``interrupts`` needs ``EXIT_INTERRUPTED`` before the
Ctrl-C watcher is up, and importing ``errors`` there (with ``typing``, which ``gradcli
--version`` never loads) took 4.4 ms of ``python -X importtime -m gradcli --version``, where
``interrupts`` with all it imports takes 2.6 ms.
"""

EXIT_OK = 0
EXIT_MISMATCH = 4  # `check` found a gradient that disagrees with finite differences
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
