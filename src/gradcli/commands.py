"""What each command does: run the pipeline, build views, hand them to a renderer, exit code.

``cli.py`` parses options into an ``Options`` and calls ``Session(command, opts).guarded()``;
this module never imports Typer, and Rich only through ``render.table``.  Every failure becomes
an exit code here: a ``GradcliError`` its own (1, 2, 3), ``check`` mismatch 4, Ctrl-C 130, a bug
70 with one line asking for a report.  With ``--format json`` a document is printed even on
failure, with ``error`` filled in.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from .errors import GradcliError, UsageError, exit_code_for
from .exit_codes import EXIT_MISMATCH, EXIT_OK

ISSUES_URL = "https://github.com/gradcli/gradcli/issues"
PROGRESS_MIN = 50  # elements; fewer finite-difference re-runs finish before a bar would help


class Session:
    """One command invocation: its options, the script text, and where output goes."""

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
        self.doc_written = False
        self.line_open = False  # the script's last print() did not end its line
        self.out_closed = False  # the reader of stdout went away (| head): write nothing more
        self._out: Any = None
        self._err: Any = None

    # -- the guard --------------------------------------------------------------------------------
    def guarded(self) -> int:
        """Run the command; map every outcome to an exit code (SPEC §3)."""
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
                keep_freed: bool = False) -> Any:
        """Read the script and run it with the shared options; warnings go to stderr."""
        from . import pipeline

        o = self.opts
        self.load()
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
                tracer=tracer, keep_freed=keep_freed)
        finally:
            status.stop()
        if not o.quiet:
            for w in result.warnings:
                self.diagnose(w, warning=True)
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

    def names(self, result: Any, need_output: bool) -> tuple[str | None, GradcliError | None]:
        """The output name and a UsageError for unknown --wrt/--of names (None if all good)."""
        from .engine import Tensor
        from .pipeline import resolve_names

        if result.error is not None:  # show what exists; the script's error is reported
            of = self.opts.of if self.opts.of is not None else result.last_assigned
            return (of if isinstance(result.bindings.get(of), Tensor) else None), None
        try:
            if self.opts.of is not None or need_output:
                return resolve_names(result, self.wrt, self.opts.of), None
            of = result.last_assigned
            if self.wrt:
                resolve_names(result, self.wrt, self.wrt[0])
            return (of if isinstance(result.bindings.get(of), Tensor) else None), None
        except UsageError as err:
            return None, err

    def require_wrt(self) -> None:
        """``grad`` and ``check`` need at least one --wrt (or a ``# gradcli: wrt=`` header)."""
        self.load()
        if not self.wrt:
            raise UsageError(f"{self.command} needs at least one --wrt NAME",
                             hint=f"e.g. gradcli {self.command} script.grad --wrt w")

    # -- commands ---------------------------------------------------------------------------------
    def cmd_run(self) -> int:
        """print() output as it happens, then the final bindings."""
        from . import views

        json_out = self.fmt == "json"
        result = self.execute(on_print=None if json_out else self.echo)
        err = result.error
        if err is None and self.wrt:
            err = self.names(result, need_output=False)[1]
        bindings = views.bindings_view(result)
        if json_out:
            from .render import json

            self.doc(json.run_doc(bindings, result.prints, result.warnings, err))
        elif err is None and not self.opts.quiet and result.mode != "torch":
            # a PyTorch program's output is exactly what `python prog.py` prints (SPEC §7)
            if self.line_open:
                self.write("\n")
            self.emit("run", bindings)
        return self.finish(err)

    def cmd_grad(self) -> int:
        """d(of)/dW for each --wrt W."""
        from . import views

        self.require_wrt()
        result = self.execute(keep_freed=True)
        of, err = self.names(result, need_output=True)
        err = result.error or err
        grads: dict[str, Any] = {}
        out = None
        if err is None:
            try:
                values = result.grad(of, self.wrt)
            except GradcliError as exc:
                err = _explain_grad_error(exc, result, of)
            else:
                grads = {w: views.tensor_view(g) for w, g in zip(self.wrt, values)}
                out = views.tensor_view(result.bindings[of])
        if self.fmt == "json":
            from .render import json

            self.doc(json.grad_doc(of, out, grads, err))
        elif grads:
            self.emit("grad", of, grads)
        return self.finish(err)

    def _graph_view(self) -> tuple[Any, Any]:
        view, _, err, _ = self._scoped_view()
        return view, err

    def _scoped_view(self, tracer: Any = None) -> tuple[Any, Any, Any, Any]:
        """(view, folds, error, result): the graph of the run, scoped by --of/--lines and
        rolled by --rolled (SPEC §8)."""
        from . import rolling, scope, views

        o = self.opts
        lines = scope.parse_lines(o.lines) if o.lines is not None else None
        if lines and o.tree:
            raise UsageError("--lines applies to the listing, not to --tree",
                             hint="gradcli dot --backward --lines A-B draws that part of the "
                             "grad_fn graph")
        result = self.execute(record=True, tracer=tracer)
        of, err = self.names(result, need_output=False)
        if err is not None:
            return None, None, err, result
        backward = o.tree or o.backward
        view = views.backward_view(result, of) if backward else views.graph_view(result, of)
        view = scope.scope(view, of=o.of is not None, lines=lines)
        folds = None
        if o.rolled:
            view, folds = (rolling.roll_backward(view) if backward
                           else rolling.roll_graph(view))
        return view, folds, result.error, result

    def cmd_graph(self) -> int:
        """Every recorded node (or, with --tree, the backward graph)."""
        view, err = self._graph_view()
        if self.fmt == "json":
            from .render import json

            doc = json.backward_doc if self.opts.tree else json.graph_doc
            self.doc(doc(view, err))
        elif view is not None:
            self.emit("tree" if self.opts.tree else "graph", view)
        return self.finish(err)

    def cmd_dot(self) -> int:
        """Graphviz DOT to stdout or to -o FILE (rendered for .svg/.png/.pdf)."""
        from .render import dot

        o = self.opts
        view, folds, err, _ = self._scoped_view()
        text = None
        if view is not None:
            if o.backward:
                text = dot.backward(view, show_values=o.show_values, show_grads=o.show_grads,
                                    show_saved=o.show_saved, folds=folds)
            else:
                text = dot.forward(view, show_values=o.show_values, show_grads=o.show_grads,
                                   show_saved=o.show_saved, folds=folds)
            if o.output:
                dot.save(text, o.output)
                self.note(f"wrote {o.output}")
        if self.fmt == "json":
            from .render import json

            self.doc(json.dot_doc(text, err))
        elif text is not None and not o.output:
            self.write(text)
        return self.finish(err)

    def cmd_html(self) -> int:
        """The interactive viewer: one self-contained HTML page (SPEC §8 ``html``)."""
        from . import steps
        from .analysis.trace import Tracer
        from .render import analysis_json, dot, html

        o = self.opts
        to_stdout = o.output is None
        if to_stdout and (_isatty(sys.stdout) or self.fmt == "json"):
            raise UsageError("html needs -o FILE.html (or a redirected standard output)",
                             hint="gradcli html script.grad -o graph.html")
        if not to_stdout and os.path.splitext(o.output)[1].lower() not in (".html", ".htm"):
            raise UsageError(f"-o {o.output}: the viewer is an HTML page; name it .html")
        dot.require_graphviz("cannot draw the graph")  # before a long run, not after
        tracer = Tracer()  # the stepper walks the run's trace events (SPEC §8)
        view, folds, err, result = self._scoped_view(tracer)
        count = events = None
        if view is not None:
            of = self.names(result, need_output=False)[0]
            evs = analysis_json.trace_doc(tracer.finish(result), result.backend.dtype_name,
                                          None, text=True)["events"]
            if not any(e["phase"] == "backward" for e in evs):  # show what one would do
                evs += steps.backward_events(result, of, len(evs))
            text = html.render(view, folds=folds, events=evs, source=self.source or "",
                               filename=self.filename, output=of,
                               error=json_error(result.error))
            count, events = len(view.nodes), len(evs)
            if to_stdout:
                self.write(text)
            else:
                _write_text(o.output, text)
                self.note(f"wrote {o.output} ({count:,} node{'' if count == 1 else 's'})")
        if self.fmt == "json":
            from .render import json

            self.doc(json.html_doc(o.output, count, events, err))
        return self.finish(err)

    def cmd_check(self) -> int:
        """Autograd against central differences; exit 4 on a mismatch."""
        from . import gradcheck as checking
        from . import pipeline

        o = self.opts
        self.require_wrt()
        if o.dtype is not None and o.dtype.value != "float64":
            self.note("check computes in float64; --dtype is ignored")
        result = self.execute(dtype="float64", keep_freed=True)
        of, err = self.names(result, need_output=True)
        err = result.error or err
        report = None

        if o.max_evals < 2:
            raise UsageError(f"--max-evals must be at least 2, got {o.max_evals}")

        def rerun(backend: Any, perturb: Any) -> Any:
            return pipeline.run(
                self.source, filename=self.filename, wrt=self.wrt, backend=backend,
                dtype="float64", seed=o.seed, overrides=self.overrides,
                max_steps=o.max_steps, max_elements=o.max_elements, base_dir=self.base_dir,
                perturb=perturb, program=result.program)

        if err is None:
            try:
                with self.progress("finite differences",
                                   checking.elements(result, self.wrt, o.max_evals)) as tick:
                    report = checking.check(result, of, self.wrt, rerun, o.backend.value,
                                            o.seed, tick, o.max_evals)
            except GradcliError as exc:
                err = _explain_grad_error(exc, result, of)
        if self.fmt == "json":
            from .render import json

            self.doc(json.check_doc(report, err))
        elif report is not None:
            self.emit("check", report)
        for text in report.notes if report is not None else ():
            self.note(text)
        if report is not None and not report.ok and _cuts_the_graph(self.source or ""):
            self.note("the script uses detach(), no_grad or requires_grad=False: autograd does "
                      "not differentiate through them, finite differences do, so a mismatch "
                      "is expected there")
        if err is not None:
            return self.finish(err)
        return EXIT_OK if report.ok else EXIT_MISMATCH

    def cmd_explain(self) -> int:
        """dL/dW as a sum over chain-rule paths (SPEC §8)."""
        from .analysis.explain import Keeper, explain

        o = self.opts
        self.require_wrt()
        if len(self.wrt) > 1:
            raise UsageError("explain takes one --wrt NAME", hint="run it once per name")
        if o.top < 0:
            raise UsageError(f"--top must be at least 0, got {o.top}")
        keeper = Keeper()
        result = self.execute(record=True, tracer=keeper)
        of, err = self.names(result, need_output=True)
        err = result.error or err
        ex = None
        if err is None:
            try:
                ex = explain(result, of, self.wrt[0], o.top, keeper.kept)
            except GradcliError as exc:
                err = _explain_grad_error(exc, result, of)
        if self.fmt == "json":
            from .render import analysis_json

            self.doc(analysis_json.explain_doc(ex, of, self.wrt[0], err))
        elif ex is not None:
            self.emit_analysis("explain", ex)
        return self.finish(err)

    def cmd_trace(self) -> int:
        """The run's events in order (SPEC §8); the script's own error ends the list."""
        from .analysis.trace import Tracer
        from .engine.context import process_guard

        tracer = Tracer()
        result = self.execute(record=True, tracer=tracer)
        err = result.error or self.names(result, need_output=False)[1]
        # naming and writing up to 10^5 events: no collector passes over the run's graph
        with process_guard():
            tr = tracer.finish(result)
            if self.fmt == "json":
                from .render import analysis_json

                self.doc(analysis_json.trace_doc(tr, result.backend.dtype_name, err), "events")
            else:
                self.emit_analysis("trace", tr)
        return self.finish(err)

    def cmd_profile(self) -> int:
        """Cost per script line (SPEC §8)."""
        from .analysis.profile import Profiler

        profiler = Profiler()
        result = self.execute(tracer=profiler)
        prof = profiler.finish(result)
        err = result.error or self.names(result, need_output=False)[1]
        if self.fmt == "json":
            from .render import analysis_json

            self.doc(analysis_json.profile_doc(prof, err))
        else:
            self.emit_analysis("profile", prof)
        return self.finish(err)

    def cmd_export(self) -> int:
        """The grad script as a standalone PyTorch program (SPEC §7), to stdout or -o FILE."""
        from .export import export_program
        from .language.parser import parse
        from .script.imports import is_torch_program

        o = self.opts
        self.load()
        source = self.source or ""
        program = None if self.filename.endswith(".py") else parse(source, self.filename)
        if program is None or is_torch_program(program, self.filename):
            text = source  # a PyTorch program already: the program is itself
            self.note(f"{self.filename} is already a PyTorch program; it is written unchanged")
        else:
            dtype = o.dtype.value if o.dtype is not None else "float64"
            text = export_program(program, self.filename, wrt=self.wrt, dtype=dtype,
                                  seed=o.seed)
        if o.output:
            _write_text(o.output, text)
            self.note(f"wrote {o.output}")
        else:
            self.write(text)
        return EXIT_OK

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


def _cuts_the_graph(source: str) -> bool:
    """Whether the script has a construct that autograd does not differentiate through."""
    return any(word in source for word in ("detach", "no_grad", "requires_grad=False",
                                            "requires_grad_(False)"))


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _explain_grad_error(err: GradcliError, result: Any, of: str) -> GradcliError:
    """Position an error of gradcli's own after-the-run gradient, and say why it happened.

    The gradient is taken once the script has ended, through the graph ``of`` has then; the
    statement to point at is the one that bound ``of``.
    """
    span = result.binding_spans.get(of)
    freed_by = getattr(err, "freed_by", None)
    if freed_by is not None and not err.hint:
        err.hint = (f"the backward() on line {freed_by.line} freed the saved tensors; pass "
                    "retain_graph=True there, or drop it: gradcli differentiates by itself")
    elif err.message.startswith("one of the variables needed for gradient computation") \
            and not err.hint:
        line = f" on line {span.line}" if span is not None else ""
        err.hint = (f"gradcli differentiates '{of}' after the script has run, and a tensor "
                    f"that '{of}' (bound{line}) saved for backward was changed in place later; "
                    "choose an output computed after that update with --of, or update a "
                    "clone()")
    return err.at(span)


def _write_text(path: str, text: str) -> None:
    """Write a whole file, or a UsageError that says why not."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None


def json_error(err: Any) -> dict | None:
    """A script's error as the viewer shows it (type, message, line)."""
    from .render import json

    return json.error(err)


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

