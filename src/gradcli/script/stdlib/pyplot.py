"""``matplotlib.pyplot`` as a script imports it: every call is accepted and draws nothing, and
the run's stderr says so once (``gradcli: note: ...``), so that a plot in the middle of a
program does not stop what follows it (docs/language.md).

A call returns what the program goes on to use: ``fig, ax = plt.subplots()`` two objects,
``line, = plt.plot(x, y)`` one; each of them accepts any method and attribute in turn. Data
handed to a drawing call is checked as matplotlib's conversion to an array would check it: a
tensor that requires grad is PyTorch's error, as the tutorials show (``.detach()`` first).
"""

from __future__ import annotations

from typing import Any

from ...engine import Tensor
from ...errors import ScriptError
from ..pyprotocols import needs_interpreter

_NOTE = "matplotlib.pyplot is not drawn by gradcli: its calls do nothing (the first on line {})"
# the calls that turn their data into arrays (numpy.asarray), as matplotlib's plotting does
_DRAWING = frozenset({
    "plot", "scatter", "hist", "hist2d", "bar", "barh", "imshow", "matshow", "fill_between",
    "errorbar", "step", "stem", "loglog", "semilogx", "semilogy", "contour", "contourf",
    "pcolormesh", "pcolor", "hexbin", "boxplot", "violinplot", "pie", "quiver", "stackplot",
    "plot_surface", "axhline", "axvline"})
_FUNCTIONS = frozenset({
    *_DRAWING, "figure", "subplot", "gca", "gcf", "show", "savefig", "close", "clf", "cla",
    "title", "suptitle", "xlabel", "ylabel", "xlim", "ylim", "xticks", "yticks", "xscale",
    "yscale", "legend", "grid", "axis", "text", "annotate", "colorbar", "tight_layout",
    "subplots_adjust", "pause", "ion", "ioff", "draw", "margins", "twinx", "set_cmap"})


class _Names:
    """Every public name: what a figure or axes lets a script read."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and not name.startswith("_")


class Artist:
    """A figure, axes, line ... of the program's: its methods are calls that draw nothing."""

    __slots__ = ("name",)
    script_type = "matplotlib.artist.Artist"
    script_attributes = _Names()
    script_sequence = True  # axes[0, 1]; line, = ax.plot(x, y); for ax in axes.flat
    needs_interpreter = True

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, name: str) -> Artist:
        if name.startswith("_"):
            raise AttributeError(name)
        return Artist(name)

    def __call__(self, interp: Any, *args: Any, **kwargs: Any) -> Any:
        return _draw(interp, self.name, args)

    def __getitem__(self, key: Any) -> Artist:
        return Artist("axes")

    def __iter__(self) -> Any:
        return iter((Artist(self.name),))

    def __len__(self) -> int:
        return 1

    def script_repr(self, printer: Any) -> str:
        return f"<matplotlib object (not drawn by gradcli) at {printer.address(self)}>"


def _draw(interp: Any, name: str, args: tuple) -> Any:
    """One call: the note (once per run), the data's check, what the call returns."""
    notes = interp.result.notes
    if not any(n.startswith(_NOTE[:30]) for n in notes):
        notes.append(_NOTE.format(interp.span.line if interp.span is not None else "?"))
    if name in _DRAWING:
        for a in args:
            for t in (a if isinstance(a, (list, tuple)) else (a,)):
                if isinstance(t, Tensor) and t.requires_grad:
                    raise ScriptError("Can't call numpy() on Tensor that requires grad. Use "
                                      "tensor.detach().numpy() instead.")
    if name == "subplots":
        return Artist("figure"), Artist("axes")
    if name == "hist":
        return Artist("n"), Artist("bins"), Artist("patches")
    return Artist(name)


def _function(name: str) -> Any:
    @needs_interpreter
    def call(interp: Any, *args: Any, **kwargs: Any) -> Any:
        return _draw(interp, name, args)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``plt.{name}(...)``: accepted, not drawn."
    return call


NAMES = (*sorted(_FUNCTIONS | {"subplots"}), "style", "rcParams")
MATPLOTLIB_NAMES = ("pyplot", "use", "rcParams")


def module(interp: Any) -> dict[str, Any]:
    """The run's ``matplotlib.pyplot`` (``rcParams`` a dict of the run's own)."""
    members: dict[str, Any] = {name: _function(name) for name in _FUNCTIONS | {"subplots"}}
    members.update({"style": Artist("style"), "rcParams": {}})
    return members


def matplotlib(interp: Any) -> dict[str, Any]:
    """The run's ``matplotlib``: ``use`` and ``rcParams``, and its ``pyplot``."""
    pyplot = interp.module("matplotlib.pyplot")
    return {"pyplot": pyplot, "use": _function("use"), "rcParams": pyplot.get("rcParams")}


__all__ = ["MATPLOTLIB_NAMES", "NAMES", "matplotlib", "module"]
