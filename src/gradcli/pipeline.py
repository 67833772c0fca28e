"""text → program → run → result: the one pipeline every command and the library call."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any

from .engine import Tensor
from .engine.backend import get_backend
from .engine.context import process_guard
from .errors import GradcliError, ScriptSyntaxError, Span, UsageError
from .language import program as P
from .language.checks import blocks, overridable
from .language.parser import parse
from .limits import MAX_DIMS, MAX_ELEMENTS, MAX_SCRIPT_BYTES, MAX_STEPS
from .script.imports import check_imports, is_torch_program
from .script.interpreter import Interpreter, RunResult
from .script.values import tname


def read_script(path: str | None, eval_text: str | None = None,
                max_bytes: int = MAX_SCRIPT_BYTES) -> tuple[str, str, str]:
    """(source, display name, folder for relative load() paths) from a path, ``-`` or -e text.

    At most ``max_bytes`` are read, in chunks: ``gradcli run /dev/zero`` stops at the limit
    instead of reading until memory runs out.
    """
    if eval_text is not None:
        if path is not None:
            raise UsageError("give either SCRIPT or -e/--eval, not both")
        if len(eval_text) > max_bytes:
            raise _too_big("-e TEXT", max_bytes)
        return eval_text, "<eval>", os.getcwd()
    if path is None:
        raise UsageError("missing SCRIPT (a path, or - for standard input); or use -e TEXT")
    if path == "-":
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None:  # standard input closed (gradcli run - <&-)
            raise UsageError("cannot read standard input: it is closed")
        try:
            raw = _read_bounded(stdin, "standard input", max_bytes)
        except OSError as exc:
            raise UsageError(f"cannot read standard input: {exc.strerror or exc}") from None
        return decode(raw, "<stdin>"), "<stdin>", os.getcwd()
    if not os.path.exists(path):
        raise UsageError(f"no such file: {path}")
    if os.path.isdir(path):
        raise UsageError(f"{path} is a folder, not a script")
    try:
        with open(path, "rb") as f:
            raw = _read_bounded(f, path, max_bytes)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return decode(raw, path), path, os.path.dirname(os.path.abspath(path))


def _read_bounded(f: Any, name: str, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = f.read(min(1 << 20, max_bytes + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise _too_big(name, max_bytes)


def _too_big(name: str, max_bytes: int) -> UsageError:
    return UsageError(f"{name} is larger than {max_bytes:,} bytes, the limit for a script",
                      hint="raise it with --max-script-bytes N if this is really a script")


def decode(raw: bytes, name: str) -> str:
    """UTF-8 text, or a positioned syntax error at the first bad byte."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0  # exc.start counts from after it
        start = exc.start + bom
        line = raw.count(b"\n", 0, start) + 1
        col = start - (raw.rfind(b"\n", 0, start) + 1) + 1 - (bom if line == 1 else 0)
        raise ScriptSyntaxError(f"the script is not UTF-8 text (byte 0x{raw[start]:02x})",
                                span=Span(line, col, line, col + 1)) from None
    if text.startswith("\ufeff"):  # one byte-order mark is allowed, as in Python, not two
        raise ScriptSyntaxError("invalid non-printable character U+FEFF", span=Span(1, 1, 1, 2),
                                hint="the file starts with two byte-order marks; remove one")
    return text


def script_header(source: str) -> dict[str, Any]:
    """The options of ``# gradcli: [grad] [of=L] [wrt=a,b]`` lines among the leading comments.

    Samples and scenarios name their output and inputs this way (``tools/torch_oracle.py``
    reads the same lines), so ``gradcli grad samples/chain_rule.grad`` needs no options.
    """
    header: dict[str, Any] = {"wrt": [], "of": None}
    for raw in source.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            break
        match = _HEADER.match(line)
        if not match:
            continue
        for token in match.group(1).split():
            key, _, value = token.partition("=")
            if key == "of" and value.isidentifier():
                header["of"] = value
            elif key == "wrt":
                header["wrt"] += [w for w in value.split(",")
                                  if w.isidentifier() and w not in header["wrt"]]
    return header


_HEADER = re.compile(r"^#\s*gradcli:\s*(.*)$")


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """``--set NAME=VALUE`` items as {name: number or nested list}."""
    import json  # only for --set

    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.isidentifier():
            raise UsageError(f"--set expects NAME=VALUE, got {item!r}")
        if _nesting(value) > MAX_DIMS:  # json.loads would recurse once per level
            raise UsageError(f"--set {name}: lists nested deeper than {MAX_DIMS} (a tensor has "
                             f"at most {MAX_DIMS} dimensions)")
        try:
            parsed = json.loads(value)
        except ValueError:
            raise UsageError(f"--set {name}: {value!r} is not a number or a JSON list") from None
        if not _numeric(parsed):
            raise UsageError(f"--set {name}: {value!r} is not a number or a JSON list of numbers")
        out[name] = parsed
    return out


def _nesting(text: str) -> int:
    """How deep ``[`` brackets nest in ``text`` (a JSON list of numbers has no strings)."""
    depth = deepest = 0
    for ch in text:
        if ch == "[":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "]":
            depth -= 1
    return deepest


def _numeric(v: Any) -> bool:
    if isinstance(v, list):
        return all(_numeric(x) for x in v)
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def run(source: str, *, filename: str = "<script>", wrt: tuple[str, ...] | list[str] = (),
        backend: str | Any = "numpy", dtype: str | None = None, seed: int = 0,
        overrides: dict[str, Any] | None = None, record: bool = False,
        max_steps: int = MAX_STEPS, max_elements: int = MAX_ELEMENTS,
        on_print: Callable[[str], None] | None = None, base_dir: str = ".",
        on_progress: Callable[[int], None] | None = None,
        perturb: tuple[str, int, Any] | None = None, tracer: Any = None,
        keep_freed: bool = False, program: P.Program | None = None,
        tangent: tuple[str, int, Any] | None = None) -> RunResult:
    """Parse and execute a script: a grad script, or a PyTorch program (docs/language.md: a ``.py``
    file, or one that imports torch first), whose default dtype is float32 (``dtype``, when
    given, wins in both modes).

    ``tangent=(name, k, t)`` gives the k-th binding of ``name`` the tangent ``t`` under a
    dual level (``result.forward``), which carries it forward through the rest of the run.

    ``keep_freed`` keeps aside what the script's own ``backward()`` calls free, so that
    ``result.grad()`` works after them (the script itself still fails where PyTorch would).

    Raises ``ScriptSyntaxError`` (nothing ran; also for an import gradcli does not have) and
    ``UsageError`` (bad options); an error the script raises while running is part of its
    result (``result.error``), with what it printed and bound until then.
    """
    if program is None:  # `check` parses once and re-runs the same program
        with process_guard():  # parsing allocates many small objects that all live: no gc
            program = parse(source, filename)
    check_imports(program)
    mode = "torch" if is_torch_program(program, filename) else "grad"
    if dtype is None:
        dtype = "float32" if mode == "torch" else "float64"
    be = get_backend(backend, dtype, seed) if isinstance(backend, str) or backend is None \
        else backend
    _check_overrides(program, overrides or {})
    interp = Interpreter(program, be, mode=mode, wrt=tuple(wrt), overrides=overrides,
                         record=record, max_steps=max_steps, on_print=on_print,
                         base_dir=base_dir, on_progress=on_progress, perturb=perturb,
                         max_elements=max_elements, tracer=tracer, keep_freed=keep_freed,
                         tangent=tangent)
    return interp.run()


def _check_overrides(program: Any, overrides: dict[str, Any]) -> None:
    if not overrides:
        return
    found: set[str] = set()
    stack = list(program.body)
    while stack:
        s = stack.pop()
        if overridable(s):
            found.add(s.target)
        if isinstance(s, P.FunctionDef):
            stack.extend(s.body)
        for b in blocks(s):
            stack.extend(b)
    for name in overrides:
        if name not in found:
            raise UsageError(f"--set {name}: the script has no assignment of a literal to "
                             f"'{name}'", hint=f"write {name} = <number or list> or "
                             f"{name} = torch.tensor(<number or list>, ...)")


def resolve_names(result: RunResult, wrt: list[str], of: str | None) -> str:
    """Check --wrt/--of against the final bindings; the output name (default: last assigned)."""
    if of is None:
        of = result.last_assigned
        if of is None:
            raise UsageError("the script assigns nothing, so there is no output; use --of")
    for flag, name in [("--of", of), *[("--wrt", w) for w in wrt]]:
        if name not in result.bindings:
            known = ", ".join(sorted(result.bindings)) or "none"
            raise UsageError(f"{flag} {name}: the script binds no '{name}' at top level "
                             f"(top-level names: {known})")
        if not isinstance(result.bindings[name], Tensor):
            kind = tname(result.bindings[name])
            article = "an" if kind[0] in "aeiou" else "a"
            raise UsageError(f"{flag} {name}: '{name}' is {article} {kind}, not a tensor")
    return of


__all__ = ["GradcliError", "parse_overrides", "read_script", "resolve_names", "run"]
