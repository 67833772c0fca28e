"""The one error root of gradcli: every user-facing failure is a GradcliError with a source span."""

from __future__ import annotations

from typing import NamedTuple

from .exit_codes import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK


class Span(NamedTuple):
    """A 1-based source region: where a statement or expression sits in the script.

    A named tuple rather than a dataclass: one is made for every program node, and a dataclass
    costs its code generation at every start of the process."""

    line: int
    column: int
    end_line: int
    end_column: int


class GradcliError(Exception):
    """Root of every error gradcli reports to a user.

    ``kind`` is the Python/PyTorch exception name the same program would raise
    ("RuntimeError", "TypeError", "NameError", "SyntaxError", ...).
    """

    exit_code = 1
    default_kind = "RuntimeError"

    def __init__(
        self,
        message: str,
        *,
        kind: str | None = None,
        span: Span | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind or self.default_kind
        self.span = span
        self.hint = hint

    def at(self, span: Span | None) -> GradcliError:
        """Attach a span unless one is already known; returns self for ``raise err.at(span)``."""
        if self.span is None:
            self.span = span
        return self


class ScriptSyntaxError(GradcliError):
    """The script is not in the grad language (exit 3)."""

    exit_code = 3
    default_kind = "SyntaxError"


class ScriptError(GradcliError):
    """The script failed while running (exit 1): autograd errors, unknown names, bad arguments."""


class ScriptExit(GradcliError):
    """``sys.exit(code)`` or ``raise SystemExit(code)`` ended the script: Python's exit status
    (0 for None, the int itself, else 1 with the value printed on stderr)."""

    default_kind = "SystemExit"

    def __init__(self, code: object, text: str) -> None:
        plain = code is None or isinstance(code, int)
        super().__init__("" if plain else text, kind="SystemExit")
        self.code = code
        self.exit_code = 0 if code is None else int(code) & 0xFF if plain else 1


class UsageError(GradcliError):
    """The command line is wrong: bad option, missing file, unknown --wrt name, no backend (exit 2)."""

    exit_code = 2
    default_kind = "UsageError"


# The one map from an exception that ends a command to its exit code (the command line and the
# session both use it); the codes no error class carries are exit_codes.py's.
def exit_code_for(exc: BaseException) -> int:
    """The exit code a command ends with when ``exc`` stops it."""
    if isinstance(exc, GradcliError):
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, BrokenPipeError):  # the reader went away: quietly, as `head` expects
        return EXIT_OK
    return EXIT_INTERNAL
