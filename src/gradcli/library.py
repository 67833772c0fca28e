"""The library: ``gradcli.run`` and ``gradcli.run_file``, their arguments checked, and the
``Result`` they return (docs/library.md).

``run`` takes script text, a ``pathlib.Path`` or the path of an existing file (read, its
name deciding a PyTorch program by ``.py`` and its folder the one ``load()`` reads from).  A
script's own error is the result's ``error`` (with what it printed and bound until then), or,
with ``raise_error=True``, raised as the ``GradcliError`` it is.  A wrong argument is a
``TypeError`` or ``ValueError`` that says which and why, before anything runs.
"""

from __future__ import annotations

import os
from typing import Any

from .errors import GradcliError, UsageError
from .script.result import RunResult

BACKENDS = ("numpy", "cupy")
DTYPES = ("float64", "float32")


class Result(RunResult):
    """What ``gradcli.run`` returns: the bindings (engine tensors), ``prints``, ``warnings``,
    ``error``; ``grad()`` and ``graph()``; in Jupyter, the interactive graph viewer."""

    @classmethod
    def wrap(cls, result: RunResult) -> Result:
        """The same result, with the library's methods (its fields are shared, not copied)."""
        out = cls.__new__(cls)
        out.__dict__.update(result.__dict__)
        return out

    def grad(self, of: str | None = None, wrt: Any = None) -> list:
        """d(of)/dW for each name of ``wrt`` (default: the run's ``wrt``), as ``gradcli grad``
        computes it: names as the command line takes them (``w``, ``model.0.weight``, a module:
        its parameters in ``named_parameters()`` order, in place of its name); ``of`` None is
        the tensor the script last called backward() on, else its last scalar that requires
        grad.  Raises PyTorch's error for an output that does not require grad."""
        from . import targets

        names = self.wrt if wrt is None else _names(wrt, "wrt")
        if not names:
            raise ValueError("grad() needs the tensors to differentiate by: "
                             "result.grad('loss', ['w'])")
        if of is not None and not isinstance(of, str):
            raise TypeError(f"grad(): of must be a name (str) or None, not {type(of).__name__}")
        _no_error(self, "grad()")
        try:
            out = targets.output(self, of, need=True)
            inputs = targets.inputs(self, list(names))
        except UsageError as err:  # a name, said as the command line says it
            hint = f" ({err.hint})" if err.hint else ""
            raise ValueError(f"grad(): {err.message}{hint}") from None
        targets.differentiable(self, out, inputs)
        return self.gradients(out.tensor, [t.tensor for t in inputs])

    def graph(self, of: str | None = None, *, wrt: Any = None, backward: bool = False,
              rolled: bool = False, lines: str | None = None) -> Any:
        """The graph of ``of`` (default: as the command line chooses it), to display or save
        (``notebook.Graph``); ``wrt`` (default: the run's) puts d(of)/dW on the nodes and in
        the stepper, as ``gradcli html --wrt``."""
        from .notebook import Graph

        return Graph(self, of, wrt=self.wrt if wrt is None else _names(wrt, "wrt"),
                     backward=backward, rolled=rolled, lines=lines)

    def _repr_html_(self) -> str:
        return self.graph()._repr_html_()

    def _repr_svg_(self) -> str | None:
        return self.graph()._repr_svg_()

    def __repr__(self) -> str:
        program = self.program
        kind = "a PyTorch program" if self.mode == "torch" else "a grad script"
        names = list(self.bindings)
        shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        error = "ok" if self.error is None else \
            f"failed: {self.error.kind}: {self.error.message.splitlines()[0][:60]}"
        return (f"<gradcli.Result of {program.filename} ({kind}): {len(names)} bindings "
                f"({shown}), {len(self.prints)} printed, {error}>")


def run(source: Any, *, wrt: Any = (), backend: str = "numpy", dtype: str | None = None,
        seed: int = 0, overrides: dict[str, Any] | None = None, record: bool = True,
        filename: str | None = None, raise_error: bool = False) -> Result:
    """Run a grad script or a PyTorch program: ``source`` is its text, a ``pathlib.Path`` or
    the path of an existing file (see the module docstring)."""
    from .pipeline import read_script
    from .pipeline import run as run_pipeline

    text, name, base_dir = _source(source)
    if name is not None:  # a file
        text, name, base_dir = read_script(name)
    if filename is not None:
        if not isinstance(filename, str):
            raise TypeError(f"run(): filename must be a str, not {type(filename).__name__}")
        name = filename
    names = _names(wrt, "wrt")
    if backend not in BACKENDS:
        raise ValueError(f"run(): backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if dtype is not None and dtype not in DTYPES:
        raise ValueError(f"run(): dtype must be None or one of {', '.join(DTYPES)}, not "
                         f"{dtype!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"run(): seed must be an int, not {type(seed).__name__}")
    if overrides is not None and not isinstance(overrides, dict):
        raise TypeError(f"run(): overrides must be a dict of name -> number or list, not "
                        f"{type(overrides).__name__}")
    try:
        result = Result.wrap(run_pipeline(
            text, filename=name or "<script>", wrt=names, backend=backend, dtype=dtype,
            seed=seed, overrides=overrides, keep_freed=True, record=bool(record),
            base_dir=base_dir or "."))
    except UsageError as err:  # the arguments, seen by the run (an unknown --set name ...)
        raise ValueError(f"run(): {err.message}") from None
    if raise_error and result.error is not None:
        err = result.error
        where = f"{result.program.filename}:{err.span.line}:{err.span.column}: " \
            if err.span is not None else ""
        err.args = (f"{where}{err.kind}: {err.message}",)  # str(err), as Python shows it
        raise err
    return result


def run_file(path: Any, **options: Any) -> Result:
    """``run`` of the file at ``path`` (a str or a ``pathlib.Path``); the same options."""
    from pathlib import Path

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"run_file(): path must be a str or a pathlib.Path, not "
                        f"{type(path).__name__}")
    return run(Path(path), **options)


def _source(source: Any) -> tuple[str | None, str | None, str | None]:
    """(text, None, None) for script text, (None, path, None) for a file to read."""
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"run(): no such file: {path}")
        return None, path, None
    if isinstance(source, bytes):
        raise TypeError("run(): source must be text (str), a pathlib.Path or a file path, not "
                        "bytes; decode it first")
    if not isinstance(source, str):
        raise TypeError("run(): source must be script text (str), a pathlib.Path or a file "
                        f"path, not {type(source).__name__}")
    if "\n" not in source and source.strip() and os.path.isfile(source):
        return None, source, None
    return source, None, None


def _names(value: Any, what: str) -> tuple[str, ...]:
    """A name or an iterable of names, as a tuple (a lone str is one name, not its letters)."""
    if isinstance(value, str):
        return (value,)
    try:
        names = tuple(value)
    except TypeError:
        raise TypeError(f"{what} must be a name or a list of names, not "
                        f"{type(value).__name__}") from None
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"{what} must hold names (str), not {type(n).__name__}")
    return names


def _no_error(result: Result, what: str) -> None:
    if result.error is not None:
        raise GradcliError(f"{what}: the script failed, so it has no gradient to give "
                           f"({result.error.kind}: {result.error.message})",
                           kind="RuntimeError")


__all__ = ["Result", "run", "run_file"]
