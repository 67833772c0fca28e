"""Python's ``sys`` as a script imports it: ``argv``, ``exit`` and ``stdout.write``, nothing
that reaches the process (docs/language.md). Made per run: ``argv`` holds the run's script name."""

from __future__ import annotations

from typing import Any

from ..exceptions import EXCEPTIONS, ExcValue, raise_value
from ..printing import type_name
from ..pyprotocols import fail, needs_interpreter


class Stdout:
    """``sys.stdout``: what ``write`` writes is the script's output, as print's is."""

    __slots__ = ()
    script_type = "_io.TextIOWrapper"
    script_attributes = frozenset({"write", "flush"})

    def script_repr(self, printer: Any) -> str:
        return "<_io.TextIOWrapper name='<stdout>' mode='w' encoding='utf-8'>"

    @needs_interpreter
    def write(self, interp: Any, *args: Any) -> int:
        """``write(s)``: the number of characters written."""
        if len(args) != 1:
            raise fail(f"TextIOWrapper.write() takes exactly one argument ({len(args)} given)")
        text = args[0]
        if not isinstance(text, str):
            raise fail(f"write() argument must be str, not {type_name(text)}")
        interp.emit(text, "")
        return len(text)

    def flush(self) -> None:
        """Nothing to flush: the output is written as it comes."""


@needs_interpreter
def exit(interp: Any, *args: Any) -> None:
    """``sys.exit(status=None)``: SystemExit, which ends the run with that status."""
    if len(args) > 1:
        raise fail(f"exit expected at most 1 argument, got {len(args)}")
    raise raise_value(ExcValue(EXCEPTIONS["SystemExit"], args), interp.printer.str)


NAMES = ("argv", "exit", "stdout")


def module(interp: Any) -> dict[str, Any]:
    """The run's ``sys``: ``argv`` is ``[script name]`` (a list the script may change)."""
    return {"argv": [interp.program.filename], "exit": exit, "stdout": Stdout()}


__all__ = ["module"]
