"""The ``gradcli`` command once Ctrl-C is watched: read argv, run the command, exit with its code.

A plain command line (``options.read``) goes straight to its ``commands.Session``; anything
else (help, completion, a usage error) goes to ``cli.py``'s Typer app, which says what is wrong.
Typer, Rich, NumPy and the engine are imported only by what needs them, so ``--version`` and a
small script start fast. Every exception ends here as an exit code (SPEC §3), never a
traceback.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> None:
    """The ``gradcli`` entry point's work after ``interrupts.install()``; leaves by sys.exit."""
    args = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in args
    _usable_streams()
    try:
        from . import options
        from .interrupts import arm

        arm()  # a Ctrl-C is a KeyboardInterrupt from here on (installed by __main__.main)
        parsed = options.read(args, os.environ)
        if parsed is None:
            from .cli import run_typer

            run_typer(args)
        elif parsed == options.VERSION:
            from . import __version__

            sys.stdout.write(f"gradcli {__version__}\n")
            sys.stdout.flush()
        else:
            from .commands import Session

            code = Session(*parsed).guarded()
            if code:
                sys.exit(code)
    except (KeyboardInterrupt, Exception) as exc:  # noqa: BLE001 - never a bare traceback
        from .errors import exit_code_for

        code = exit_code_for(exc)
        if isinstance(exc, BrokenPipeError):
            from .commands import quiet_stdout

            quiet_stdout()
        elif not isinstance(exc, KeyboardInterrupt):  # a bug: one line, traceback with --debug
            from .commands import internal_error

            internal_error(exc, debug)
        sys.exit(code)


def _usable_streams() -> None:
    """Streams that cannot fail at the first write: a closed stdout or stderr (``>&-``, where
    Python sets it to None) writes nowhere, and text the locale's encoding cannot hold
    (PYTHONIOENCODING=ascii) is escaped as Python escapes it on stderr, never an error."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
        elif getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
