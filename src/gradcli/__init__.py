"""gradcli: run tiny Python-flavoured scripts and see PyTorch's autograd graph.

Library use::

    import gradcli
    result = gradcli.run("w = 2; y = w * w", wrt=["w"])
    result.bindings["y"]            # an engine Tensor
    result.grad("y", ["w"])         # [tensor(4.)]
    result                          # in Jupyter: the interactive graph viewer
    result.graph(backward=True).save("g.html")
    gradcli.run_file("train.py").grad(wrt=["model"])   # d(loss)/d(each parameter)
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `import gradcli` and `gradcli --version` never load it
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"


def run(source: Any, *, wrt: Any = (), backend: str = "numpy", dtype: str | None = None,
        seed: int = 0, overrides: dict[str, Any] | None = None, record: bool = True,
        filename: str | None = None, raise_error: bool = False) -> Any:
    """Run a grad script or a PyTorch program and return its ``Result`` (bindings, prints,
    warnings, error; ``grad()``, ``graph()``; the graph viewer in Jupyter).

    ``source`` is the script's text, a ``pathlib.Path`` or the path of an existing file (read;
    a ``.py`` file is a PyTorch program, as is text that imports torch first).  ``wrt`` names
    the tensors ``grad()`` and the viewer differentiate by (``w``, ``model.0.weight``, a
    module); ``dtype`` None is float64 for a grad script and float32 for a PyTorch program;
    ``record=False`` runs faster and keeps no graph to show.  The script's own error is
    ``result.error``, or raised with ``raise_error=True``; a wrong argument is a TypeError or
    ValueError."""
    from .library import run as _run

    return _run(source, wrt=wrt, backend=backend, dtype=dtype, seed=seed, overrides=overrides,
                record=record, filename=filename, raise_error=raise_error)


def run_file(path: Any, **options: Any) -> Any:
    """``run`` of the file at ``path`` (a str or a ``pathlib.Path``), with the same options."""
    from .library import run_file as _run_file

    return _run_file(path, **options)
