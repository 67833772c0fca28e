"""The ``gradcli`` command and ``python -m gradcli``: Ctrl-C handling first, then the command.

The process ends by ``os._exit`` once the command's output is flushed: the interpreter's own
shutdown (tearing down every module, NumPy's among them, and a last walk of the collector over
every object) cost 7% of a small script's whole run, for a process that writes nothing more.
Everything the command writes goes through ``sys.stdout`` / ``sys.stderr`` or files it closes
itself, and gradcli registers no ``atexit`` work.
"""

from __future__ import annotations

import gc
import os
import sys

from gradcli.exit_codes import EXIT_INTERRUPTED, EXIT_OK


def main() -> None:
    """Install the Ctrl-C watcher, then read argv and run the command (``launch.main``), the
    collector paused while the process starts."""
    try:
        gc.disable()
        from gradcli import interrupts

        interrupts.install()
    except KeyboardInterrupt:  # Ctrl-C before the watcher is up: the same quiet exit
        raise SystemExit(EXIT_INTERRUPTED) from None
    from gradcli.launch import main as launch_main

    kept: list = []  # the command and its run, never freed: the process ends with os._exit
    try:
        launch_main(gc_paused=True, keep=kept)
        code = EXIT_OK
    except SystemExit as exc:
        code = exc.code
    _exit(code)


def _exit(code: object) -> None:
    """Flush the standard streams and end the process with ``code`` (as ``sys.exit`` reads it)."""
    if code is not None and not isinstance(code, int):
        sys.stderr.write(f"{code}\n")
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the command has reported an unusable stream already
            pass
    os._exit(code or 0)


if __name__ == "__main__":
    main()
