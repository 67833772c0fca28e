"""What every command runs on: the session of one invocation, its options, the script read and
run, output and diagnostics, and the exit code it ends with.

This module never imports Typer, and Rich only through ``render.rich``.  Every failure becomes
an exit code here (``Session.guarded``): a ``GradcliError`` its own (1, 2, 3), Ctrl-C 130, a bug
70 with one line asking for a report; ``check``'s mismatch (4) is what its command returns.
With ``--format json`` a document is printed even on failure, with ``error`` filled in.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from .errors import GradcliError, ScriptExit, UsageError, exit_code_for

ISSUES_URL = "https://github.com/gradcli/gradcli/issues"
PROGRESS_MIN = 50  # elements; fewer finite-difference re-runs finish before a bar would help


class Session:
    """One command invocation: its options, the script text, and where output goes; its
    command is a ``cmd_<name>`` method of the subclass ``commands.Command``."""

    def __init__(self, command: str, opts: Any) -> None:
        self.command = command
        self.opts = opts
        chosen = opts.fmt.value if opts.fmt is not None else None
        self.fmt = chosen or ("rich" if _isatty(sys.stdout) else "plain")
        self.rich_errors = chosen == "rich" or (chosen is None and _isatty(sys.stderr))
        self.source: str | None = None
        self.filename = "<script>"
        self.base_dir = "."
        self.wrt: list[str] = list(dict.fromkeys(opts.wrt or ()))
        self.overrides: dict[str, Any] = {}
        self.result: Any = None  # the run's result, alive as long as the session (launch.main)
        self.doc_written = False
        self.line_open = False  # the script's last print() did not end its line
        self.out_closed = False  # the reader of stdout went away (| head): write nothing more
        self._out: Any = None
        self._err: Any = None
        self._probe: Any = None  # --mode forward: the run that finds the binding to seed

    # -- the guard --------------------------------------------------------------------------------
    def guarded(self) -> int:
        """Run the command; map every outcome to an exit code (docs/commands.md)."""
        try:
            return self._guarded()
        except OutputError as err:  # raised again while reporting an error: stdout is unusable
            quiet_stdout()
            self.diagnose(err)
            return err.exit_code

    def _guarded(self) -> int:
        try:
            code = getattr(self, "cmd_" + self.command)()
            self.output(sys.stdout.flush)
            return code
        except OutputError as err:  # stdout cannot take more: say so on stderr, nothing else
            quiet_stdout()
            self.diagnose(err)
            return err.exit_code
        except GradcliError as err:
            if self.fmt == "json" and not self.doc_written:
                self.doc(_empty_doc(self.command, err, bool(getattr(self.opts, "tree", False))))
            self.diagnose(err)
            return err.exit_code
        except KeyboardInterrupt as exc:
            return exit_code_for(exc)
        except BrokenPipeError as exc:
            quiet_stdout()
            return exit_code_for(exc)
        except Exception as exc:  # noqa: BLE001 - a bug: report it, never a bare traceback
            if self.fmt == "json" and not self.doc_written:
                err = GradcliError(f"{type(exc).__name__}: {exc}", kind="InternalError")
                with contextlib.suppress(Exception):  # the report below matters more
                    self.doc(_empty_doc(self.command, err))
            internal_error(exc, self.opts.debug)
            return exit_code_for(exc)

    # -- running ----------------------------------------------------------------------------------
    def execute(self, *, record: bool = False, on_print: Any = None,
                dtype: str | None = None, tracer: Any = None,
                keep_freed: bool = False, tangent: Any = None) -> Any:
        """Read the script and run it with the shared options; warnings go to stderr."""
        from . import pipeline

        o = self.opts
        self.load()
        from .engine.machine import capability_setting

        ignored = capability_setting()[1]
        if ignored:  # PyTorch warns and picks the CPU's capability; so does gradcli
            self.note(f"{ignored} (PyTorch's values: default, avx2, avx512)")
        status = _RunStatus(not o.quiet and _isatty(sys.stderr), o.max_steps)
        if on_print is not None:
            echo = on_print

            def on_print(text: str) -> None:
                status.stop()  # printed lines show progress; a bar would garble them
                echo(text)

        try:
            result = pipeline.run(
                self.source, filename=self.filename, wrt=self.wrt, backend=o.backend.value,
                dtype=dtype or (o.dtype.value if o.dtype is not None else None), seed=o.seed,
                overrides=self.overrides,
                record=record, max_steps=o.max_steps, max_elements=o.max_elements,
                on_print=on_print, base_dir=self.base_dir, on_progress=status.step,
                tracer=tracer, keep_freed=keep_freed, tangent=tangent)
        finally:
            status.stop()
        if not o.quiet:
            for w in result.warnings:
                self.diagnose(w, warning=True)
            for note in result.notes:
                self.diagnose_text(f"gradcli: note: {note}")
        self.result = result
        return result

    def load(self) -> None:
        """Check the limits, read the script and apply its ``# gradcli:`` header (once)."""
        from . import pipeline

        if self.source is not None:
            return
        o = self.opts
        for flag, value in (("--max-steps", o.max_steps), ("--max-elements", o.max_elements),
                            ("--max-script-bytes", o.max_script_bytes)):
            if value < 1:
                raise UsageError(f"{flag} must be at least 1, got {value}")
        # named before reading: a script that is not UTF-8 fails inside read_script
        self.filename = "<eval>" if o.eval_text is not None else \
            "<stdin>" if o.script == "-" else o.script or self.filename
        self.source, self.filename, self.base_dir = pipeline.read_script(
            o.script, o.eval_text, o.max_script_bytes)
        self.overrides = pipeline.parse_overrides(list(o.set_ or ()))
        # the header's --wrt/--of stand in for options not given (the command line wins)
        header = pipeline.script_header(self.source)
        if not self.wrt and header["wrt"]:
            self.wrt = list(header["wrt"])
        if getattr(o, "of", None) is None and header["of"] is not None:
            o.of = header["of"]

    def targets(self, result: Any, need_output: bool) -> tuple[Any, list, GradcliError | None]:
        """(the output, the --wrt tensors, a UsageError for a name that names nothing) of a
        finished run (``targets.py``); the output is None when there is none to show."""
        from . import targets

        if result.error is not None:  # show what exists; the script's error is reported
            try:
                return targets.output(result, self.opts.of, need=False), [], None
            except UsageError:
                return None, [], None
        try:
            out = targets.output(result, self.opts.of, need=need_output)
            return out, targets.inputs(result, self.wrt), None
        except UsageError as err:
            return None, [], err

    def require_wrt(self) -> None:
        """``grad`` and ``check`` need at least one --wrt (or a ``# gradcli: wrt=`` header)."""
        self.load()
        if not self.wrt:
            raise UsageError(f"{self.command} needs at least one --wrt NAME",
                             hint=f"e.g. gradcli {self.command} script.grad --wrt w")
    # -- output -----------------------------------------------------------------------------------
    def emit_analysis(self, kind: str, *args: Any) -> None:
        """Render an analysis (explain, trace, profile) in the plain or the rich form."""
        if self.fmt == "plain":
            from .render import analysis_plain

            self.write(getattr(analysis_plain, kind)(*args))
            return
        from .render import analysis_rich, rich

        if self._out is None:
            self._out = rich.console()
        getattr(analysis_rich, kind)(self._out, *args)

    def finish(self, err: GradcliError | None) -> int:
        """Report the error (if any) and return its exit code."""
        if err is None:
            return 0
        if isinstance(err, ScriptExit):  # sys.exit(): as Python ends, no diagnostic
            if err.message:
                self.diagnose_text(err.message)
            return err.exit_code
        self.diagnose(err)
        return err.exit_code

    def output(self, write: Callable[..., Any], *args: Any) -> None:
        """Call ``write(*args)`` on stdout: a closed pipe silences the rest of the output (the
        command goes on and exits with its own code); any other failure is an OutputError."""
        if self.out_closed:
            return
        try:
            write(*args)
        except BrokenPipeError:
            self.out_closed = True
            quiet_stdout()
        except OSError as exc:
            raise OutputError(f"cannot write to standard output: {exc.strerror or exc}") \
                from None

    def prints(self) -> Any:
        """Where a listing command (graph, profile, trace) sends the script's print() output:
        ``echo``, ahead of the listing; None with --quiet or --format json (stdout holds the
        document alone)."""
        return None if self.opts.quiet or self.fmt == "json" else self.echo

    def echo(self, text: str) -> None:
        """What the script's print() writes (its ``end`` included), as it happens."""
        if text:
            self.line_open = not text.endswith("\n")  # print(..., end="") left a line open
        self.output(_write_flush, text)

    def write(self, text: str) -> None:
        """Text to stdout."""
        self.output(sys.stdout.write, text)

    def doc(self, document: dict, one_per_line: str | None = None) -> None:
        """A JSON document to stdout (the list under ``one_per_line``: an item per line)."""
        from .render import json

        self.doc_written = True
        self.write(json.dumps(document, one_per_line))

    def emit(self, kind: str, *args: Any) -> None:
        """Render a view in the plain or the rich form."""
        if self.fmt == "plain":
            from .render import plain

            self.write(getattr(plain, kind)(*args))
            return
        from .render import rich as table

        if self._out is None:
            self._out = table.console()
        self.output(getattr(table, kind), self._out, *args)

    def diagnose(self, err: Any, warning: bool = False) -> None:
        """An error or warning on stderr (a panel on a terminal, else the plain form)."""
        try:
            self._diagnose(err, warning)
        except OSError:  # stderr is gone or full: there is nowhere left to say it
            pass

    def diagnose_text(self, text: str) -> None:
        """A line of the script's own on stderr (``sys.exit("message")``), control characters
        shown."""
        from .render.plain import printable

        try:
            sys.stderr.write(printable(text) + "\n")
            sys.stderr.flush()
        except OSError:
            pass

    def _diagnose(self, err: Any, warning: bool) -> None:
        if self.rich_errors:
            from .render import rich as table

            if self._err is None:
                self._err = table.console(stderr=True)
            table.diagnostic(self._err, err, self.source, self.filename, warning)
        else:
            from .render import plain

            sys.stderr.write(plain.diagnostic(err, self.source, self.filename))
        sys.stderr.flush()

    @contextlib.contextmanager
    def progress(self, label: str, total: int) -> Iterator[Callable[[int], None] | None]:
        """A progress bar on a terminal's stderr for long work; nothing otherwise."""
        if total < PROGRESS_MIN or self.opts.quiet or not _isatty(sys.stderr):
            yield None
            return
        from .render import rich as table

        with table.progress(label, total) as update:
            yield update

    def note(self, text: str) -> None:
        """A remark on stderr (hidden by --quiet)."""
        if not self.opts.quiet:
            sys.stderr.write(f"gradcli: note: {text}\n")


class OutputError(Exception):
    """Standard output cannot be written (a full disk, an I/O error): exit 2, like ``-o``.

    Not a GradcliError: raised inside a script's print(), it must not become the script's
    error; it ends the command.
    """

    exit_code = UsageError.exit_code
    kind = UsageError.default_kind
    span = None
    hint = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _write_flush(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _empty_doc(command: str, err: Any, tree: bool = False) -> dict:
    """The command's JSON document when it failed before producing anything."""
    from .render import json

    if command == "graph" and tree:
        return json.backward_doc(None, err)
    if command == "run":
        return json.run_doc({}, [], [], err)
    if command == "grad":
        return json.grad_doc(None, None, {}, err)
    if command == "graph":
        return json.graph_doc(None, err)
    if command == "check":
        return json.check_doc(None, err)
    if command == "html":
        return json.html_doc(None, None, None, err)
    if command in ("explain", "trace", "profile"):
        from .render import analysis_json

        if command == "trace":
            return analysis_json.trace_doc(None, "float64", err)
        if command == "profile":
            return analysis_json.profile_doc(None, err)
        return analysis_json.explain_doc(None, None, None, err)
    return json.dot_doc(None, err)


def internal_error(exc: BaseException, debug: bool) -> None:
    """One line asking for a report; the traceback only with --debug."""
    if debug:
        import traceback

        traceback.print_exception(exc)
    sys.stderr.write(f"gradcli: internal error: {type(exc).__name__}: {exc} — please report it "
                     f"at {ISSUES_URL}" + ("" if debug else " (rerun with --debug for details)")
                     + "\n")
    sys.stderr.flush()


def quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so the final flush cannot fail (Python docs)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


class _RunStatus:
    """A transient "running" line on a terminal's stderr once a run passes a second."""

    def __init__(self, enabled: bool, max_steps: int) -> None:
        self.enabled, self.max_steps = enabled, max_steps
        self.started = time.monotonic()
        self.bar: Any = None

    def step(self, steps: int) -> None:
        """Told the statement count every few thousand statements."""
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.started < 1.0:
                return
            from .render import rich as table

            self.bar = table.RunStatus(self.max_steps)
        self.bar.update(steps)

    def stop(self) -> None:
        """Clear the line for good (before output, or at the end)."""
        self.enabled = False
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
