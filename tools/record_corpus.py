"""Record what PyTorch prints for every program of the PyTorch-program corpus (tests/corpus/).

Each program runs as `python NAME.py` in its own process, from the corpus folder, with the
interpreter that has PyTorch (by default the one running this script). Its stdout, the warnings
Python writes to stderr and its uncaught error (from the traceback) are written to
`tests/fixtures/corpus/NAME.json`, with the machine and the setting (tools/machines.py) they
ran under. The test-suite and `tools/corpus_report.py` compare gradcli with these files, so they
run without PyTorch. Usage:

    python tools/record_corpus.py                 # every program
    python tools/record_corpus.py NAME [NAME...]  # some programs (a name or a path)
    python tools/record_corpus.py --check         # exit 1 if a fixture is missing or out of date
    python tools/record_corpus.py --setting avx2 NAME  # under one of tools/machines.py's VARIANTS

A program is recorded under the pinned setting unless ``--setting`` names a variant (a machine
without AVX-512 cannot run PyTorch under the pinned AVX512 one); a fixture keeps its setting,
which a re-recording without ``--setting`` reuses and the test runs gradcli under.

The parsing half of this module (`parse_stderr`, `parse_warnings`, `parse_traceback`,
`normalise`) imports neither torch nor gradcli, so the tests can exercise it on stored samples.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import linecache
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import machines

CORPUS = ROOT / "tests" / "corpus"
FIXTURES = ROOT / "tests" / "fixtures" / "corpus"
TIMEOUT = 120  # seconds for one program: they are tiny, so more than this is a hang

# Only object addresses vary from run to run: `<MulBackward0 object at 0x7f3a…>`.
ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")
# What PyTorch appends to messages raised from C++: the path of a build machine.
TRIGGERED = re.compile(r"\s*\(Triggered internally at .*?\)", re.DOTALL)
# Python's warnings.formatwarning: `FILE:LINE: Category: message`.
WARNING_HEAD = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<category>[A-Za-z_][\w.]*Warning): ")
TRACEBACK_HEAD = "Traceback (most recent call last):"
FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+)')


# ---------------------------------------------------------------- parsing (no torch, no gradcli)


def normalise(text: str) -> str:
    """Replace what varies between runs (object addresses) by a fixed token: `at 0xADDR`."""
    return ADDRESS.sub("at 0xADDR", text)


def clean_message(message: str) -> str:
    """A message as the fixture keeps it: addresses normalised, PyTorch's build path dropped."""
    return normalise(TRIGGERED.sub("", message)).strip("\n")


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name the same file (tracebacks print absolute paths)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def parse_warnings(text: str, program: str) -> list[dict[str, Any]]:
    """The warnings in `text` (stderr before any traceback), as `{line, category, message}`.

    Python writes each warning as `FILE:LINE: Category: message` followed by the source line
    indented by two spaces; a message may span lines. `line` is LINE when FILE is the program,
    else null (the warning was attributed to a frame inside a library).
    """
    found: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    body: list[str] = []

    def close() -> None:
        if current is None:
            return
        lines = list(body)
        source = linecache.getline(current["file"], current["lineno"]).strip()
        if len(lines) > 1:
            # Python echoes the warning's source line; when that file cannot be read here
            # (a library missing on this machine) the indented last line is taken for it.
            echoed = lines[-1] == "  " + source if source else lines[-1].startswith("  ")
            if echoed:
                lines.pop()
        message = "\n".join(lines)
        found.append({
            "line": current["lineno"] if _same_file(current["file"], program) else None,
            "category": current["category"].rpartition(".")[2],
            "message": clean_message(message),
        })

    for raw in text.splitlines():
        head = WARNING_HEAD.match(raw)
        if head and (os.path.isabs(head["file"]) or os.path.exists(head["file"])):
            close()
            current = {"file": head["file"], "lineno": int(head["line"]),
                       "category": head["category"]}
            body = [raw[head.end():]]
        elif current is not None:
            body.append(raw)
    close()
    return found


def parse_traceback(text: str, program: str) -> dict[str, Any] | None:
    """The uncaught error of a traceback text as `{type, message, line}`, or None.

    Only the last traceback counts (an exception raised while handling another prints both).
    `type` is the class name without its module (`RuntimeError`, `IndexError`); `line` is the
    innermost frame that belongs to the program (null if none does).
    """
    start = text.rfind(TRACEBACK_HEAD)
    if start < 0:
        return None
    lines = text[start:].splitlines()[1:]
    line, i = None, 0
    while i < len(lines) and (lines[i].startswith(" ") or not lines[i]):
        frame = FRAME.match(lines[i])
        if frame and _same_file(frame["file"], program):
            line = int(frame["line"])
        i += 1
    rest = "\n".join(lines[i:])
    head, sep, message = rest.partition(": ")
    kind = (head if sep else rest.splitlines()[0] if rest else "").strip()
    if not sep:  # `raise KeyError` with no message prints the bare class name
        message = ""
    return {"type": kind.rpartition(".")[2], "message": clean_message(message), "line": line}


def parse_stderr(text: str, program: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Split a program's stderr into its warnings and its uncaught error."""
    start = text.find(TRACEBACK_HEAD)  # warnings come before the first traceback
    before = text if start < 0 else text[:start]
    return parse_warnings(before, program), parse_traceback(text, program)


# ---------------------------------------------------------------- running under torch


def corpus_programs(names: list[str] | None = None) -> list[Path]:
    """The corpus programs, all of them or those named (by name, stem or path)."""
    if not names:
        return sorted(CORPUS.glob("*.py"))
    out = []
    for name in names:
        path = Path(name)
        if not path.suffix:
            path = CORPUS / f"{name}.py"
        elif not path.is_absolute() and not path.exists():
            path = CORPUS / path.name
        if not path.exists():
            raise SystemExit(f"record_corpus: no such program: {name}")
        out.append(path.resolve())
    return out


def child_env(setting: dict[str, str] = machines.PINNED) -> dict[str, str]:
    """The environment of `python prog.py` as a user has it (default warning filters, UTF-8)
    under a setting of tools/machines.py (the pinned one by default)."""
    env = {k: v for k, v in machines.environment(setting).items()
           if not k.startswith("PYTHON") and k != "TORCH_LOGS"}
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONHASHSEED"] = "0"
    return env


def record(path: Path, python: str, setting: dict[str, str] = machines.PINNED) -> dict[str, Any]:
    """Run one program under PyTorch and return its fixture."""
    proc = subprocess.run(
        [python, path.name], cwd=path.parent, capture_output=True, text=True,
        encoding="utf-8", env=child_env(setting), timeout=TIMEOUT, check=False,
    )
    warnings, error = parse_stderr(proc.stderr, str(path))
    if proc.returncode != 0 and error is None:
        raise RuntimeError(f"{path.name}: exit {proc.returncode} without a traceback:\n"
                           f"{proc.stderr}")
    return {
        "torch": torch_version(python),
        "machine": machine(setting),
        "settings": setting,
        "source_sha256": source_hash(path),
        "stdout": normalise(proc.stdout),
        "stderr_warnings": warnings,
        "error": error,
        "exit": proc.returncode,
    }


def source_hash(path: Path) -> str:
    """SHA-256 of the program's bytes: lets the suite see a fixture older than its program."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


_VERSIONS: dict[str, str] = {}
_MACHINE: dict[str, dict[str, Any]] = {}


def machine(setting: dict[str, str] = machines.PINNED) -> dict[str, Any]:
    """The machine the programs run on under a setting (asked once for each)."""
    key = json.dumps(setting, sort_keys=True)
    if key not in _MACHINE:
        _MACHINE[key] = machines.describe(setting)
    return _MACHINE[key]


def setting_of(path: Path, name: str | None) -> dict[str, str]:
    """The setting to record ``path`` under: the variant named, else its fixture's, else the
    pinned one."""
    if name is not None:
        return machines.VARIANTS[name]
    target = FIXTURES / f"{path.stem}.json"
    if target.exists():
        return json.loads(target.read_text(encoding="utf-8"))["settings"]
    return machines.PINNED


def torch_version(python: str) -> str:
    """`torch.__version__` of the interpreter that runs the programs (asked once)."""
    if python not in _VERSIONS:
        proc = subprocess.run([python, "-c", "import torch; print(torch.__version__)"],
                              capture_output=True, text=True, check=True, env=child_env())
        _VERSIONS[python] = proc.stdout.strip()
    return _VERSIONS[python]


def dump(fixture: dict[str, Any]) -> str:
    """Deterministic JSON text of a fixture."""
    return json.dumps(fixture, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the fixture of every program named, or of all."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="programs (default: the whole corpus)")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter with torch 2.13 (default: this one)")
    parser.add_argument("--setting", choices=sorted(machines.VARIANTS),
                        help="record under this variant of the pinned setting")
    args = parser.parse_args(argv)
    paths = corpus_programs(args.names)
    torch_version(args.python)
    settings = [setting_of(p, args.setting) for p in paths]
    for setting in {json.dumps(s, sort_keys=True): s for s in settings}.values():
        why = machines.torch_cannot_run(setting)
        if why:
            raise SystemExit(f"record_corpus: {why}")
    with ThreadPoolExecutor(max_workers=2) as pool:  # two cores: more would only queue
        texts = list(pool.map(lambda ps: dump(record(ps[0], args.python, ps[1])),
                              zip(paths, settings)))
    stale = 0
    for path, text in zip(paths, texts, strict=True):
        target = FIXTURES / f"{path.stem}.json"
        if args.check:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                stale += 1
                print(f"stale: {target.relative_to(ROOT)}")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    if not args.names:
        known = {p.stem for p in paths}
        for orphan in sorted(FIXTURES.glob("*.json")):
            if orphan.stem not in known:
                stale += args.check
                print(f"{'orphan' if args.check else 'no program for'}: "
                      f"{orphan.relative_to(ROOT)}")
    print(f"{len(paths)} programs, " + (f"{stale} stale" if args.check else "all written"))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
