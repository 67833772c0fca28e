"""gradcli: run tiny Python-flavoured scripts and see PyTorch's autograd graph.

Library use::

    import gradcli
    result = gradcli.run("w = 2; y = w * w", wrt=["w"])
    result.bindings["y"]            # an engine Tensor
    result.grad("y", ["w"])         # [tensor(4.)]
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def run(source: str, *, wrt: Any = (), backend: str = "numpy", dtype: str = "float64",
        seed: int = 0, overrides: dict[str, Any] | None = None) -> Any:
    """Run a grad script; returns a RunResult (bindings, prints, warnings, error, ``grad()``)."""
    from .pipeline import run as _run

    return _run(source, wrt=tuple(wrt), backend=backend, dtype=dtype, seed=seed,
                overrides=overrides, keep_freed=True)
