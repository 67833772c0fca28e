"""The ``gradcli`` command once Ctrl-C is watched: read argv, run the command, exit with its code.

A plain command line (``options.read``) goes straight to its ``commands.Command``; anything
else (help, completion, a usage error) goes to ``cli.py``'s Typer app, which says what is wrong.
Typer, Rich, NumPy and the engine are imported only by what needs them, so ``--version`` and a
small script start fast. Every exception ends here as an exit code (docs/commands.md), never a
traceback.

The entry point pauses the cyclic collector while the process starts (``gc_paused``): imports
make hundreds of thousands of objects that live until exit, and the collector would walk them
at every pass.  Once the command's modules are loaded they go to its oldest generation
(``engine.context.promote_to_oldest``) and it resumes.  The process then ends without the
interpreter's shutdown (``__main__.main``).
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None, *, gc_paused: bool = False,
         keep: list | None = None) -> None:
    """The ``gradcli`` entry point's work after ``interrupts.install()``; leaves by sys.exit.

    ``gc_paused``: the caller disabled the collector for the start-up; it is enabled again
    before the command runs.  ``keep``: a list that takes the command (and with it the run's
    result: its graph, tensors and program) when the caller ends the process right after,
    without freeing them object by object (about 0.1 s for a 20,000-statement script)."""
    args = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in args
    _usable_streams()
    try:
        from .interrupts import arm

        arm()  # a Ctrl-C is a KeyboardInterrupt from here on (installed by __main__.main)
        if args == ["--version"]:  # Typer's eager --version, without Typer
            from . import __version__

            sys.stdout.write(f"gradcli {__version__}\n")
            sys.stdout.flush()
            return
        from . import options

        parsed = options.read(args, os.environ)
        if gc_paused:
            _resume_collector(with_run=parsed is not None)
        if parsed is None:
            from .cli import run_typer

            run_typer(args)
        else:
            from .commands import Command

            command = Command(*parsed)
            if keep is not None:
                keep.append(command)
            code = command.guarded()
            if code:
                sys.exit(code)
    except (KeyboardInterrupt, Exception) as exc:  # noqa: BLE001 - never a bare traceback
        from .errors import exit_code_for

        code = exit_code_for(exc)
        if isinstance(exc, BrokenPipeError):
            from .session import quiet_stdout

            quiet_stdout()
        elif not isinstance(exc, KeyboardInterrupt):  # a bug: one line, traceback with --debug
            from .session import internal_error

            internal_error(exc, debug)
        sys.exit(code)


def _resume_collector(with_run: bool) -> None:
    """Load what every run needs, hand the start-up's objects to the oldest generation, and
    turn the collector back on."""
    import gc

    if with_run:
        _import_numpy()
        from . import pipeline, views  # noqa: F401 - the modules every command runs through
        from .engine.context import promote_to_oldest

        promote_to_oldest()
    gc.enable()


# The OpenBLAS of NumPy's Linux wheels, by the name of its file in numpy.libs (2.x:
# scipy-openblas, 1.26: openblas64_): its entry points for the number of processors and for
# setting the number of threads
_OPENBLAS = {"libscipy_openblas64_": ("scipy_openblas_get_num_procs64_",
                                      "scipy_openblas_set_num_threads64_"),
             "libopenblas64_": ("openblas_get_num_procs64_", "openblas_set_num_threads64_")}


def _import_numpy() -> None:
    """Import NumPy with its OpenBLAS started on one thread, then given the threads it would
    have started with, which sleep until a product needs them.

    OpenBLAS starts its thread pool when NumPy loads it, and each new thread spins while it
    waits for work (2^28 cycles by default: on 2 cores about 0.1 s of CPU time, a third of a
    small command's, and as much wall time when the other core is busy), paid by every
    command, while gradcli's own products go through MKL and NumPy's BLAS serves only
    fallbacks and a script's NumPy calls.  Loaded with one thread and the shortest wait
    (OPENBLAS_THREAD_TIMEOUT=4: 2^4 cycles), then given its threads, the pool costs a fraction
    of a millisecond and its threads sleep until a product wakes them.  A product's bits depend
    on the thread count, not on when the pool was made or how long its threads wait
    (tests/test_cli.py holds a script's NumPy product to ``python``'s).  Only for the library
    NumPy's Linux wheels bundle, found by name before it is loaded, and where no thread
    variable says otherwise (a wait the user set is kept).
    """
    if "numpy" in sys.modules or any(
            v in os.environ for v in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                                      "OMP_NUM_THREADS")):
        return
    from importlib.util import find_spec

    spec = find_spec("numpy")
    if spec is None or not spec.submodule_search_locations:
        return
    libs = os.path.join(os.path.dirname(next(iter(spec.submodule_search_locations))),
                        "numpy.libs")
    try:
        found = [(n, entry) for n in os.listdir(libs) if n.endswith(".so")
                 for prefix, entry in _OPENBLAS.items() if n.startswith(prefix)]
    except OSError:
        return
    if len(found) != 1:
        return
    import ctypes

    name, (procs, set_threads) = found[0]
    # read once, when the library loads
    setting = {"OPENBLAS_NUM_THREADS": "1", "OPENBLAS_THREAD_TIMEOUT": "4"}
    setting = {k: v for k, v in setting.items() if k not in os.environ}
    os.environ.update(setting)
    try:
        lib = ctypes.CDLL(os.path.join(libs, name))  # the one NumPy then loads
        import numpy  # noqa: F401
    except OSError:  # not loadable here: NumPy's own import says why, as without this
        return
    finally:
        for k in setting:
            del os.environ[k]
    if hasattr(lib, set_threads) and hasattr(lib, procs):
        getattr(lib, set_threads)(getattr(lib, procs)())  # its default: one per processor


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
