"""gradcli: run tiny Python-flavoured scripts and see PyTorch's autograd graph.

Library use::

    import gradcli
    result = gradcli.run("w = 2; y = w * w", wrt=["w"])
    result.bindings["y"]            # an engine Tensor
    result.grad("y", ["w"])         # [tensor(4.)]
    result                          # in Jupyter: the interactive graph viewer
    result.graph(backward=True).save("g.html")
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `import gradcli` and `gradcli --version` never load it
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"


def run(source: str, *, wrt: Any = (), backend: str = "numpy", dtype: str | None = None,
        seed: int = 0, overrides: dict[str, Any] | None = None, record: bool = True,
        filename: str = "<script>") -> Any:
    """Run a grad script or a PyTorch program (one that imports torch first, or a ``filename``
    ending in .py); returns a RunResult (bindings, prints, warnings, error, ``grad()``) that
    shows its graph in Jupyter (``record=False``: faster, no graph to show). ``dtype`` None is
    float64 for a grad script and float32 for a PyTorch program."""
    from .notebook import Result
    from .pipeline import run as _run

    return Result.wrap(_run(source, filename=filename, wrt=tuple(wrt), backend=backend,
                            dtype=dtype, seed=seed, overrides=overrides, keep_freed=True,
                            record=record))
