"""Ctrl-C for the command line: exit 130 with no traceback, within a moment, at any time.

Python runs its SIGINT handler only between bytecodes of the main thread, so a Ctrl-C waited
for a big NumPy matmul to finish (9 s), and one during start-up broke an import with a
traceback. ``install()`` (first thing the entry point does, before Typer loads) blocks SIGINT
in every thread and starts a watcher thread that waits for it. Before ``arm()`` (start-up) a
Ctrl-C ends the process at once; after it, the watcher raises KeyboardInterrupt in the main
thread, the command's normal path to exit 130, and ends the process itself if the main thread
is still inside C code after ``GRACE`` seconds (or at a second Ctrl-C).

Only the standard library and ``exit_codes`` (which imports nothing) here: this module is
imported before anything else of gradcli's.
"""

from __future__ import annotations

import os
import signal
import threading

from .exit_codes import EXIT_INTERRUPTED

GRACE = 0.5  # seconds a Ctrl-C waits for Python code to stop before the process exits

_armed = threading.Event()


def install() -> None:
    """Block SIGINT and watch for it in a thread (POSIX; elsewhere Python's handler stays)."""
    if not hasattr(signal, "pthread_sigmask") or not hasattr(signal, "sigwait"):
        return
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return  # SIGINT ignored (a background job) or handled by an embedding program
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    threading.Thread(target=_watch, name="gradcli-interrupt", daemon=True).start()


def arm() -> None:
    """From now on a Ctrl-C is a KeyboardInterrupt in the main thread (the command handles it)."""
    _armed.set()


def _watch() -> None:
    signal.sigwait({signal.SIGINT})
    if not _armed.is_set():
        os._exit(EXIT_INTERRUPTED)
    import _thread

    _thread.interrupt_main()
    timer = threading.Timer(GRACE, os._exit, (EXIT_INTERRUPTED,))
    timer.daemon = True
    timer.start()
    signal.sigwait({signal.SIGINT})  # a second Ctrl-C: at once
    os._exit(EXIT_INTERRUPTED)
