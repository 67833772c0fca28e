"""Every command's options: the ``Options`` record, and argv read without Typer when it is plain.

``cli.py`` declares the commands for Typer (help, completion, every error message); importing
Typer and building its command costs more than a small script's whole run, so ``read`` takes the
common command lines itself: a known command, then its own options (``--name value``,
``--name=value``, the short ``-e``, ``-o``, ``-q``) and at most one SCRIPT. Anything else (help,
completion, ``--``, a value that starts with ``-``, an unknown or misspelt option, a value that
does not convert) returns None and Typer reads argv, so its options, errors and exit codes are
the only ones there are. ``COMMANDS`` must list the options ``cli.py`` declares, with the same
kinds (tests/test_options.py compares them with the built Typer command).

Only the standard library here: this module is on the path of every command.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from .limits import MAX_ELEMENTS, MAX_EVALS, MAX_SCRIPT_BYTES, MAX_STEPS


class BackendName(str, Enum):
    """Array backends."""

    numpy = "numpy"
    cupy = "cupy"


class DType(str, Enum):
    """Floating dtypes."""

    float64 = "float64"
    float32 = "float32"


class Format(str, Enum):
    """Output formats."""

    rich = "rich"
    plain = "plain"
    json = "json"


class Mode(str, Enum):
    """How ``grad`` differentiates."""

    reverse = "reverse"
    forward = "forward"


class Options:
    """Every command's options after parsing (one field per shared option).

    The defaults are class attributes and ``Options(**fields)`` sets the ones given: a plain
    class, because a dataclass's generated code is compiled at every start of the process."""

    script: str | None = None
    eval_text: str | None = None
    wrt: list[str] | None = None  # None when not given, as Typer passes it
    of: str | None = None
    backend: Any = BackendName.numpy
    dtype: Any = None
    seed: int = 0
    set_: list[str] | None = None
    fmt: Any = None
    quiet: bool = False
    max_steps: int = MAX_STEPS
    max_elements: int = MAX_ELEMENTS
    max_script_bytes: int = MAX_SCRIPT_BYTES
    max_evals: int = MAX_EVALS
    debug: bool = False
    tree: bool = False
    backward: bool = False
    show_values: bool = False
    show_grads: bool = False
    show_saved: bool = False
    output: str | None = None
    top: int = 10
    lines: str | None = None
    rolled: bool = False
    rerun: bool = False
    mode: Any = Mode.reverse
    jacobian: bool = False
    hessian: bool = False

    def __init__(self, **given: Any) -> None:
        for name, value in given.items():
            if name not in Options.__annotations__:
                raise TypeError(f"Options has no field {name!r}")
            setattr(self, name, value)

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in Options.__annotations__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Options) and self._fields() == other._fields()

    def __repr__(self) -> str:
        given = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"Options({given})"


BACKEND_ENV = "GRADCLI_BACKEND"  # read for --backend when the option is not given

# option -> (Options field, kind); kind: "flag", "text", "int", "many" (repeatable text) or an
# Enum class (a choice, case-insensitive)
OPTIONS: dict[str, tuple[str, Any]] = {
    "-e": ("eval_text", "text"), "--eval": ("eval_text", "text"),
    "--wrt": ("wrt", "many"), "--of": ("of", "text"),
    "--backend": ("backend", BackendName), "--dtype": ("dtype", DType),
    "--seed": ("seed", "int"), "--set": ("set_", "many"), "--format": ("fmt", Format),
    "-q": ("quiet", "flag"), "--quiet": ("quiet", "flag"),
    "--max-steps": ("max_steps", "int"), "--max-elements": ("max_elements", "int"),
    "--max-script-bytes": ("max_script_bytes", "int"), "--max-evals": ("max_evals", "int"),
    "--debug": ("debug", "flag"), "--tree": ("tree", "flag"),
    "--backward": ("backward", "flag"), "--show-values": ("show_values", "flag"),
    "--show-grads": ("show_grads", "flag"), "--show-saved": ("show_saved", "flag"),
    "-o": ("output", "text"), "--output": ("output", "text"), "--top": ("top", "int"),
    "--lines": ("lines", "text"), "--rolled": ("rolled", "flag"), "--rerun": ("rerun", "flag"),
    "--mode": ("mode", Mode), "--jacobian": ("jacobian", "flag"), "--hessian": ("hessian", "flag"),
}

_SHARED = ("-e", "--eval", "--wrt", "--backend", "--dtype", "--seed", "--set", "--format", "-q",
           "--quiet", "--max-steps", "--max-elements", "--debug")
COMMANDS: dict[str, frozenset[str]] = {name: frozenset(_SHARED + extra) for name, extra in {
    "run": ("--max-script-bytes",),
    "grad": ("--of", "--mode", "--jacobian", "--hessian", "--max-script-bytes"),
    "graph": ("--of", "--tree", "--lines", "--rolled", "--mode", "--max-script-bytes"),
    "dot": ("--of", "--backward", "--show-values", "--show-grads", "--show-saved", "-o",
            "--output", "--lines", "--rolled", "--mode", "--max-script-bytes"),
    "html": ("--of", "--lines", "--backward", "--rolled", "--mode", "-o", "--output"),
    "check": ("--of", "--max-evals", "--rerun", "--max-script-bytes"),
    "explain": ("--of", "--top", "--mode"),
    "trace": (),
    "profile": (),
}.items()}
COMMANDS["doctor"] = frozenset(("--format",))
NO_SCRIPT = frozenset({"doctor"})  # commands that take no SCRIPT argument
COMMANDS["export"] = frozenset(("-e", "--eval", "--wrt", "--dtype", "--seed", "-o", "--output",
                                "-q", "--quiet", "--max-script-bytes", "--debug"))

def read(argv: list[str], environ: Any) -> tuple[str, Options] | None:
    """``(command, options)`` for a plain command line, None for anything Typer must read
    (see the module's docstring)."""
    if not argv or argv[0] not in COMMANDS or "_GRADCLI_COMPLETE" in environ:
        return None
    allowed = COMMANDS[argv[0]]
    opts = Options()
    given: set[str] = set()
    i, n = 1, len(argv)
    while i < n:
        arg = argv[i]
        i += 1
        if arg[:1] != "-" or arg == "-":  # SCRIPT
            if opts.script is not None or argv[0] in NO_SCRIPT:
                return None  # Typer: "Got unexpected extra argument"
            opts.script = arg
            continue
        name, eq, value = arg.partition("=") if arg[:2] == "--" else (arg, "", "")
        if name not in allowed:
            return None  # -h, --help, --, -qe ..., -eTEXT, a misspelt or foreign option
        fname, kind = OPTIONS[name]
        if kind == "flag":
            if eq:
                return None  # "does not take a value"
            setattr(opts, fname, True)
            continue
        if not eq:
            if i == n:
                return None  # "requires an argument"
            value = argv[i]
            i += 1
        if value[:1] == "-" and value != "-":
            return None  # Typer takes it as the value; rare enough to leave to it
        if kind == "many":
            if fname not in given:
                setattr(opts, fname, [])
            getattr(opts, fname).append(value)
        elif kind == "text":
            setattr(opts, fname, value)
        else:
            converted = _convert(kind, value)
            if converted is None:
                return None  # Typer says why
            setattr(opts, fname, converted)
        given.add(fname)
    if "backend" not in given and environ.get(BACKEND_ENV):
        backend = _convert(BackendName, environ[BACKEND_ENV])
        if backend is None:
            return None
        opts.backend = backend
    return argv[0], opts


def _convert(kind: Any, value: str) -> Any:
    """An int from ASCII digits, or the member of an Enum named case-insensitively; else None."""
    if not value.isascii():
        return None
    if kind == "int":
        digits = value[1:] if value[:1] == "+" else value
        return int(value) if digits.isdigit() else None
    folded = value.lower()
    for member in kind:
        if member.value == folded:
            return member
    return None
