"""Jupyter display: a run's graph shows itself (docs/commands.md ``html``).

``gradcli.run(src)`` in a notebook cell (``library.Result``) shows the interactive viewer
(``_repr_html_``, the page of ``gradcli html`` in an isolated ``iframe``) and, where a
frontend cannot run it, the static Graphviz drawing (``_repr_svg_``).  ``result.graph(...)``
picks the view: forward or ``backward``, ``of`` an output, ``wrt`` the tensors whose
gradients it shows, ``lines`` and ``rolled`` as on the command line.
"""

from __future__ import annotations

import html as _html
from typing import Any

from .errors import GradcliError
from .script.result import RunResult

FRAME_HEIGHT = 640  # pixels: the viewer's iframe in a notebook


class Graph:
    """One view of a run's graph: ``_repr_html_`` is the viewer, ``_repr_svg_`` the drawing."""

    def __init__(self, result: RunResult, of: str | None = None, *, wrt: Any = (),
                 backward: bool = False, rolled: bool = False, lines: str | None = None) -> None:
        self.result, self.of, self.wrt, self.backward = result, of, tuple(wrt), backward
        self.rolled, self.lines = rolled, lines
        self.grads: list = []

    def _view(self) -> tuple[Any, Any, Any]:
        from . import rolling, scope, targets, views

        r = self.result
        if r.records is None:
            raise GradcliError("this run kept no graph records; run it with record=True",
                               kind="UsageError")
        of = targets.output(r, self.of, need=False)  # as the command line
        view = views.backward_view(r, of) if self.backward else views.graph_view(r, of)
        self.grads = []
        if self.wrt and of is not None and r.error is None and of.tensor.requires_grad:
            wrt = targets.inputs(r, list(self.wrt))
            self.grads = list(zip(wrt, r.gradients(of.tensor, [w.tensor for w in wrt])))
            view = views.with_gradients(view, r, of, self.grads)
        view = scope.scope(view, of=self.of is not None,
                           lines=scope.parse_lines(self.lines) if self.lines else None)
        folds = None
        if self.rolled:
            view, folds = (rolling.roll_backward(view) if self.backward
                           else rolling.roll_graph(view))
        return view, folds, of

    def html(self) -> str:
        """The viewer page, as ``gradcli html`` writes it."""
        from . import steps
        from .render import html, json

        view, folds, of = self._view()
        program = self.result.program
        events = steps.events(self.result, None if self.grads else of)
        if self.grads:  # the gradients as grad computes them, edge by edge
            events += steps.gradient_events(self.result, of, self.grads, len(events))
        return html.render(view, folds=folds, events=events,
                           source=program.source, filename=program.filename,
                           output=of.name if of is not None else None,
                           error=json.error(self.result.error))

    def svg(self) -> str:
        """The static drawing as SVG text (Graphviz)."""
        from .render import dot

        view, folds, _ = self._view()
        drawing = (dot.draw_backward(view, show_saved=True, folds=folds) if self.backward
                   else dot.draw_forward(view, show_saved=True, folds=folds))
        return dot.svg(drawing.text())

    def save(self, path: str) -> None:
        """Write the viewer (``.html``) or the drawing (``.svg``)."""
        text = self.html() if path.lower().endswith((".html", ".htm")) else self.svg()
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def _repr_html_(self) -> str:
        try:
            page = self.html()
        except GradcliError as err:
            return _message(err)
        return (f'<iframe srcdoc="{_html.escape(page, quote=True)}" style="width:100%;'
                f'height:{FRAME_HEIGHT}px;border:1px solid #ccc;border-radius:4px" '
                'sandbox="allow-scripts" title="gradcli graph viewer"></iframe>')

    def _repr_svg_(self) -> str | None:
        try:
            return self.svg()
        except GradcliError:
            return None  # the frontend falls back to another representation


def _message(err: GradcliError) -> str:
    """Why there is no viewer, in a notebook cell (never a traceback)."""
    hint = f"<br><i>{_html.escape(err.hint)}</i>" if err.hint else ""
    return (f'<div style="padding:8px 12px;border-left:4px solid #c77700">'
            f"<b>gradcli</b>: {_html.escape(err.message)}{hint}</div>")
