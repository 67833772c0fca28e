"""What each command does: run the pipeline, build views, hand them to a renderer, exit code.

``launch.py`` (a plain command line, read by ``options.read``) or ``cli.py`` (Typer) makes an
``Options`` and calls ``Command(command, opts).guarded()``, which runs the command's
``cmd_<name>`` on its session (``session.Session``: the script, output, diagnostics, the exit
code of a failure).  This module never imports Typer, and Rich only through the renderers.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NamedTuple

from .errors import GradcliError, UsageError
from .exit_codes import EXIT_MISMATCH, EXIT_OK
from .session import Session, _isatty


class Scoped(NamedTuple):
    """What graph, dot and html show: the view, its folds (--rolled), the script's error,
    the run, the output and the --wrt gradients."""

    view: Any
    folds: Any
    error: Any
    result: Any
    out: Any
    grads: list


class Command(Session):
    """A session with its command: one ``cmd_<name>`` method per subcommand."""

    # -- commands ---------------------------------------------------------------------------------
    def cmd_run(self) -> int:
        """print() output as it happens, then the final bindings."""
        from . import views

        json_out = self.fmt == "json"
        result = self.execute(on_print=None if json_out else self.echo)
        err = result.error
        if err is None and self.wrt:
            err = self.targets(result, need_output=False)[2]
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
        """d(output)/dW for each --wrt W; --jacobian: for an output of any shape; --hessian:
        d²(output)/dW²."""
        from . import views

        kind = self._derivative()
        self.require_wrt()
        result = self.execute(keep_freed=True)
        out, wrt, err = self.targets(result, need_output=True)
        err = result.error or err
        grads: dict[str, Any] = {}
        value = None
        if err is None and kind == "hessian" and out.tensor.numel() != 1:
            err = UsageError(f"--hessian needs a scalar output: '{out.name}' has shape "
                             f"{tuple(out.tensor.shape)}",
                             hint="--jacobian differentiates an output of any shape")
        if err is None:
            try:
                if self.opts.mode.value == "forward":
                    values = self._forward_grads(result, out, wrt, jacobian=kind == "jacobian")
                elif kind == "gradient":
                    values = self.gradients(result, out, wrt)
                else:
                    total = out.tensor.numel() if kind == "jacobian" else \
                        sum(w.tensor.numel() for w in wrt)
                    with self.progress(kind, total) as tick:
                        values = self.second(result, out, wrt, kind, tick)
            except GradcliError as exc:
                err = _explain_grad_error(exc, result, out)
            else:
                grads = {w.name: views.tensor_view(g) for w, g in zip(wrt, values)}
                value = views.tensor_view(out.tensor)
        of = out.name if out is not None else None
        if self.fmt == "json":
            from .render import json

            doc = json.grad_doc(of, value, grads, err)
            if kind != "gradient":
                doc = {"gradcli": doc.pop("gradcli"), "derivative": kind, **doc}
            self.doc(doc)
        elif grads:
            self.emit("grad", of, grads, kind)
        return self.finish(err)

    def _derivative(self) -> str:
        """"gradient", "jacobian" or "hessian" (--jacobian, --hessian); a UsageError for both,
        or for --hessian with --mode forward."""
        o = self.opts
        if o.jacobian and o.hessian:
            raise UsageError("--jacobian and --hessian cannot be given together",
                             hint="--hessian is d²(output)/dW² of a scalar output; --jacobian "
                             "d(output)/dW of an output of any shape")
        if o.hessian and o.mode.value == "forward":
            raise UsageError("--hessian is computed by reverse mode only (reverse over reverse)",
                             hint="drop --mode forward")
        return "jacobian" if o.jacobian else "hessian" if o.hessian else "gradient"

    def _forward_grads(self, result: Any, out: Any, wrt: list, jacobian: bool = False) -> list:
        """grad --mode forward: a seeded re-run per element of each --wrt (forward_mode.py),
        which seeds and reads top-level bindings."""
        from . import forward_mode, pipeline

        o = self.opts
        for t in (out, *wrt):
            if result.bindings.get(t.name) is not t.tensor:
                raise UsageError(f"grad --mode forward seeds and reads top-level bindings; "
                                 f"'{t.name}' is not one",
                                 hint="reverse mode (the default) differentiates it")
        of = out.name

        def rerun(tangent: Any) -> Any:
            return pipeline.run(
                self.source, filename=self.filename, wrt=self.wrt, backend=o.backend.value,
                dtype=o.dtype.value if o.dtype is not None else None, seed=o.seed,
                overrides=self.overrides, max_steps=o.max_steps, max_elements=o.max_elements,
                base_dir=self.base_dir, program=result.program, tangent=tangent)

        total = sum(result.bindings[w].numel() for w in self.wrt)
        with self.progress("forward mode", total) as tick:
            return forward_mode.grads(result, of, self.wrt, rerun, tick, jacobian=jacobian)

    @staticmethod
    def second(result: Any, out: Any, wrt: list, kind: str, progress: Any = None) -> list:
        """--jacobian or --hessian by reverse mode (``progress(k)``: k backwards done), or
        PyTorch's error for an output that has no gradient."""
        from . import targets

        targets.differentiable(result, out, wrt)
        tensors = [w.tensor for w in wrt]
        return result.jacobian(out.tensor, tensors, progress) if kind == "jacobian" else \
            result.hessian(out.tensor, tensors, progress)

    @staticmethod
    def gradients(result: Any, out: Any, wrt: list) -> list:
        """d(out)/dW for each target W, or PyTorch's error for an output that has no gradient."""
        from . import targets

        targets.differentiable(result, out, wrt)
        return result.gradients(out.tensor, [w.tensor for w in wrt])

    def _graph_view(self) -> tuple[Any, Any]:
        scoped = self._scoped_view()
        return scoped.view, scoped.error

    def _scoped_view(self, tracer: Any = None) -> Scoped:
        """The graph of the run, scoped by --of/--lines and rolled by --rolled (SPEC §8), with
        d(output)/dW on the nodes of each --wrt W, computed as ``grad`` computes it."""
        from . import rolling, scope, views

        o = self.opts
        lines = scope.parse_lines(o.lines) if o.lines is not None else None
        if lines and o.tree:
            raise UsageError("--lines applies to the listing, not to --tree",
                             hint="gradcli dot --backward --lines A-B draws that part of the "
                             "grad_fn graph")
        if o.rolled and o.tree:
            raise UsageError("--rolled applies to the listing, not to --tree",
                             hint="gradcli dot --backward --rolled draws the grad_fn graph "
                             "rolled")
        # graph shows what the script prints first (dot and html write documents to stdout)
        echo = self.prints() if self.command == "graph" else None
        seeded = self._forward_seed() if o.mode.value == "forward" else None
        result = self.execute(record=True, tracer=tracer, keep_freed=bool(self.wrt),
                              on_print=echo, tangent=seeded)
        out, wrt, err = self.targets(result, need_output=False)
        if err is not None:
            return Scoped(None, None, err, result, out, [])
        backward = o.tree or o.backward
        view = views.backward_view(result, out) if backward else views.graph_view(result, out)
        grads = self._view_gradients(result, out, wrt)
        if grads:
            view = views.with_gradients(view, result, out, grads)
        view = scope.scope(view, of=o.of is not None, lines=lines)
        folds = None
        if o.rolled:
            view, folds = (rolling.roll_backward(view) if backward
                           else rolling.roll_graph(view))
        if seeded is not None and not backward:
            view.seeded = seeded[0]
        return Scoped(view, folds, result.error, result, out, grads)

    def _forward_seed(self, element: int | None = None) -> tuple[str, int, Any] | None:
        """``--mode forward``: (the one --wrt, its last binding, its tangent): ones, or the
        basis vector e_element; None when the script fails before (the run reports it)."""
        import numpy as np

        from . import pipeline
        from .engine import Tensor
        from .engine.backend import to_host

        o = self.opts
        self.require_wrt()
        if len(self.wrt) > 1:
            raise UsageError("--mode forward seeds one --wrt NAME", hint="run it once per name")
        name = self.wrt[0]
        if self._probe is None:  # which binding to seed: the name's last (as check perturbs)
            self._probe = pipeline.run(
                self.source, filename=self.filename, wrt=self.wrt, backend=o.backend.value,
                dtype=o.dtype.value if o.dtype is not None else None, seed=o.seed,
                overrides=self.overrides, max_steps=o.max_steps, max_elements=o.max_elements,
                base_dir=self.base_dir)
        probe = self._probe
        if probe.error is not None or name not in probe.bindings:
            return None  # the run reports the script's error, or the name it does not bind
        x = probe.bindings.get(name)
        if not isinstance(x, Tensor) or not x.dtype.is_floating_point:
            raise UsageError(f"--mode forward seeds a top-level binding that holds a floating "
                             f"point tensor; '{name}' is not one",
                             hint="reverse mode (the default) differentiates it")
        host = to_host(x.data)
        seed = np.ones_like(host) if element is None else np.zeros_like(host)
        if element is not None:
            seed.reshape(-1)[element] = 1
        be = probe.backend
        return name, probe.binding_counts[name] - 1, Tensor(be.asarray(seed), be)

    def _view_gradients(self, result: Any, out: Any, wrt: list) -> list[tuple[Any, Any]]:
        """(target, d(out)/d(target)) for each --wrt, or none (with a note saying why)."""
        if not wrt or out is None or result.error is not None:
            return []
        try:
            grads = self.gradients(result, out, wrt)
        except GradcliError as exc:
            self.note(f"d{out.name}/d{wrt[0].name} is not shown: {exc.message}")
            return []
        return list(zip(wrt, grads))

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
        view, folds, err = self._scoped_view()[:3]
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
        view, folds, err, result, out, grads = self._scoped_view(tracer)
        count = events = None
        if view is not None:
            evs = analysis_json.trace_doc(tracer.finish(result), result.backend.dtype_name,
                                          None, text=True)["events"]
            if grads:  # the gradients as grad computes them, edge by edge
                evs += steps.gradient_events(result, out, grads, len(evs))
            elif not any(e["phase"] == "backward" for e in evs):  # show what one would do
                evs += steps.backward_events(result, out, len(evs))
            text = html.render(view, folds=folds, events=evs, source=self.source or "",
                               filename=self.filename,
                               output=out.name if out is not None else None,
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

        o = self.opts
        self.require_wrt()
        if o.max_evals < 2:
            raise UsageError(f"--max-evals must be at least 2, got {o.max_evals}")
        if o.rerun:
            report, err = self._check_rerun()
        else:
            report, err = self._check_graph()
        if self.fmt == "json":
            from .render import json

            self.doc(json.check_doc(report, err))
        elif report is not None:
            self.emit("check", report)
        for text in report.notes if report is not None else ():
            self.note(text)
        if report is not None and not report.ok and o.rerun and \
                _cuts_the_graph(self.source or ""):
            self.note("the script uses detach(), no_grad or requires_grad=False: autograd does "
                      "not differentiate through them, finite differences of the whole script "
                      "do, so a mismatch is expected there (check without --rerun checks the "
                      "graph autograd recorded)")
        if err is not None:
            return self.finish(err)
        return EXIT_OK if report.ok else EXIT_MISMATCH

    def _check_graph(self) -> tuple[Any, Any]:
        """``check``: the output's recorded graph replayed in float64 (replay.py)."""
        from . import gradcheck as checking
        from . import targets
        from .replay import Replay

        o = self.opts
        result = self.execute(record=True)
        out, wrt, err = self.targets(result, need_output=True)
        err = result.error or err
        if err is not None:
            return None, err
        try:
            targets.differentiable(result, out, wrt)
            if out.tensor.numel() != 1:
                raise UsageError(f"check needs a one-element output; '{out.name}' has shape "
                                 f"{tuple(out.tensor.shape)}",
                                 hint="choose a scalar output with --of")
            replay = Replay(result, out, wrt, o.backend.value, o.seed)
            sizes = [w.tensor.numel() for w in wrt]
            with self.progress("finite differences",
                               checking.elements(sizes, o.max_evals)) as tick:
                return checking.check_graph(replay, out.name, [w.name for w in wrt], tick,
                                            o.max_evals), None
        except GradcliError as exc:
            return None, _explain_grad_error(exc, result, out)

    def _check_rerun(self) -> tuple[Any, Any]:
        """``check --rerun``: the whole script re-run in float64 with a top-level binding
        moved, against the gradient of its final output."""
        from . import gradcheck as checking
        from . import pipeline

        o = self.opts
        if o.dtype is not None and o.dtype.value != "float64":
            self.note("check --rerun computes in float64; --dtype is ignored")
        result = self.execute(dtype="float64", keep_freed=True)
        out, wrt, err = self.targets(result, need_output=True)
        err = result.error or err
        if err is not None:
            return None, err
        for name in [out.name, *(w.name for w in wrt)]:
            if result.bindings.get(name) is not (out.tensor if name == out.name else
                                                 next(w.tensor for w in wrt if w.name == name)):
                return None, UsageError(
                    f"check --rerun moves and reads top-level bindings; '{name}' is not one",
                    hint="check without --rerun replays the recorded graph instead")

        def rerun(backend: Any, perturb: Any) -> Any:
            return pipeline.run(
                self.source, filename=self.filename, wrt=self.wrt, backend=backend,
                dtype="float64", seed=o.seed, overrides=self.overrides,
                max_steps=o.max_steps, max_elements=o.max_elements, base_dir=self.base_dir,
                perturb=perturb, program=result.program)

        try:
            sizes = [w.tensor.numel() for w in wrt]
            with self.progress("finite differences",
                               checking.elements(sizes, o.max_evals)) as tick:
                return checking.check_rerun(result, out.name, wrt, rerun, o.backend.value,
                                            o.seed, tick, o.max_evals), None
        except GradcliError as exc:
            return None, _explain_grad_error(exc, result, out)

    def cmd_explain(self) -> int:
        """dL/dW as a sum over chain-rule paths (SPEC §8)."""
        from . import targets
        from .analysis.explain import explain, nondifferentiable

        o = self.opts
        self.require_wrt()
        if len(self.wrt) > 1:
            raise UsageError("explain takes one --wrt NAME", hint="run it once per name")
        if o.top < 0:
            raise UsageError(f"--top must be at least 0, got {o.top}")
        forward = o.mode.value == "forward"
        seeded = self._forward_seed(0) if forward else None
        result = self.execute(record=True, keep_freed=True, tangent=seeded)
        out, wrt, err = self.targets(result, need_output=True)
        err = result.error or err
        if err is None and len(wrt) > 1:
            err = UsageError(f"--wrt {self.wrt[0]} names {len(wrt)} tensors; explain takes one",
                             hint="name one: " + ", ".join(w.name for w in wrt[:4]))
        ex = None
        if err is None:
            try:
                targets.differentiable(result, out, wrt, nondifferentiable(result, out, wrt))
                ex = self._explain_forward(result, out, wrt[0]) if forward else \
                    explain(result, out, wrt[0], o.top)
            except GradcliError as exc:
                err = _explain_grad_error(exc, result, out)
        if self.fmt == "json":
            from .render import analysis_json

            doc = analysis_json.explain_forward_doc if forward else analysis_json.explain_doc
            self.doc(doc(ex, out.name if out is not None else None,
                         wrt[0].name if wrt else self.wrt[0], err))
        elif ex is not None:
            self.emit_analysis("explain_forward" if forward else "explain", ex)
        return self.finish(err)

    def _explain_forward(self, result: Any, out: Any, target: Any) -> Any:
        """explain --mode forward: the re-runs seeded with e_1, e_2 ... (the first is
        ``result``), and the tangent carried node by node (analysis/forward.py)."""
        from . import pipeline
        from .analysis.forward import explain_forward

        o = self.opts
        runs = [result]
        n = target.tensor.numel()
        with self.progress("forward mode", n) as tick:
            for i in range(1, n):
                run = pipeline.run(
                    self.source, filename=self.filename, wrt=self.wrt,
                    backend=o.backend.value, dtype=o.dtype.value if o.dtype is not None
                    else None, seed=o.seed, overrides=self.overrides, record=True,
                    max_steps=o.max_steps, max_elements=o.max_elements,
                    base_dir=self.base_dir, program=result.program,
                    tangent=self._forward_seed(i))
                if run.error is not None:
                    err: GradcliError = run.error
                    err.message = f"while re-running the script for forward mode: {err.message}"
                    err.args = (err.message,)
                    raise err
                if len(run.records) != len(result.records):
                    raise UsageError("explain --mode forward: a re-run of the script did not "
                                     "record the same graph as the first one")
                runs.append(run)
                if tick is not None:
                    tick(i + 1)
        return explain_forward(runs, out, target, o.top)

    def cmd_trace(self) -> int:
        """The run's events in order (SPEC §8); the script's own error ends the list."""
        from .analysis.trace import Tracer
        from .engine.context import process_guard

        tracer = Tracer()
        echo = self.prints()
        result = self.execute(record=True, tracer=tracer, on_print=None if echo is None else
                              tracer.printed)
        err = result.error or self.targets(result, need_output=False)[2]
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
        result = self.execute(tracer=profiler, on_print=self.prints())
        prof = profiler.finish(result)
        err = result.error or self.targets(result, need_output=False)[2]
        if self.fmt == "json":
            from .render import analysis_json

            self.doc(analysis_json.profile_doc(prof, err))
        else:
            self.emit_analysis("profile", prof)
        return self.finish(err)

    def cmd_doctor(self) -> int:
        """The machine whose PyTorch gradcli reproduces here (doctor.py): no script."""
        from . import doctor

        facts = doctor.facts()
        if self.fmt == "json":
            self.doc(facts)
        elif self.fmt == "plain":
            self.write(doctor.plain(facts))
        else:
            self.emit("doctor", f"gradcli {facts['version']}", doctor.rows(facts))
        return EXIT_OK

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


def _cuts_the_graph(source: str) -> bool:
    """Whether the script has a construct that autograd does not differentiate through."""
    return any(word in source for word in ("detach", "no_grad", "requires_grad=False",
                                            "requires_grad_(False)"))


def _explain_grad_error(err: GradcliError, result: Any, out: Any) -> GradcliError:
    """Position an error of gradcli's own after-the-run gradient, and say why it happened.

    The gradient is taken once the script has ended, through the graph the output has then;
    the statement to point at is the one that bound the output (or called its backward()).
    """
    of, span = out.name, out.span
    freed_by = getattr(err, "freed_by", None)
    if freed_by is not None and not err.hint:
        err.hint = (f"the backward() on line {freed_by.line} freed the saved tensors; pass "
                    "retain_graph=True there, or drop it: gradcli differentiates by itself")
    elif err.message == "grad can be implicitly created only for scalar outputs" \
            and not err.hint:
        err.hint = (f"'{of}' has shape {tuple(out.tensor.shape)}; --jacobian gives "
                    f"d({of})/dW for an output of any shape")
    elif err.message.startswith("one of the variables needed for gradient computation") \
            and not err.hint:
        line = f" on line {span.line}" if span is not None else ""
        err.hint = (f"gradcli differentiates '{of}' after the script has run, and a tensor "
                    f"that '{of}' (made{line}) saved for backward was changed in place later "
                    "with grad on; choose an output computed after that update with --of, or "
                    "update a clone()")
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
