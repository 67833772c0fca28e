"""Export every sample and scenario with `gradcli export`, run each program with PyTorch, record.

For each `samples/*.grad` and `tests/scenarios/*.grad` this writes

- `tests/fixtures/export/<stem>.py`: the exported program (the golden text the suite holds
  `gradcli export` to), and
- `tests/fixtures/export/<stem>.json`: what `python <stem>.py` did with PyTorch 2.13, in the
  corpus fixtures' format (`tools/record_corpus.py`: stdout, warnings, error, exit and the
  program's SHA-256), plus the script's path; or, for a script gradcli refuses to export,
  `{"script", "refused": {"message", "line", "column"}}`.

`tests/test_export.py` checks that gradcli still exports each script to the golden text and
that `gradcli run` prints exactly the recorded stdout, so the suite needs no PyTorch. Usage
(gradcli from this checkout, torch in the interpreter that runs the programs):

    PYTHONPATH=src python tools/record_exports.py            # every script
    PYTHONPATH=src python tools/record_exports.py NAME...    # some (a stem or a path)
    PYTHONPATH=src python tools/record_exports.py --check    # exit 1 if a fixture is stale
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_corpus import dump, record  # the corpus recorder's run and format

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "export"
SCRIPTS = (ROOT / "samples", ROOT / "tests" / "scenarios")


def scripts(names: list[str]) -> list[Path]:
    """The scripts named (a stem or a path), or every sample and scenario."""
    every = sorted(p for folder in SCRIPTS for p in folder.glob("*.grad"))
    if not names:
        return every
    by_stem = {p.stem: p for p in every}
    out = []
    for name in names:
        path = by_stem.get(Path(name).stem)
        if path is None:
            raise SystemExit(f"record_exports: no such script: {name}")
        out.append(path)
    return out


def export(path: Path) -> tuple[str | None, dict[str, Any] | None]:
    """(program, None), or (None, the refusal) for a script gradcli does not export."""
    from gradcli.errors import UsageError
    from gradcli.export import export_source
    from gradcli.pipeline import script_header

    source = path.read_text(encoding="utf-8")
    rel = path.relative_to(ROOT).as_posix()
    try:
        return export_source(source, rel, wrt=script_header(source)["wrt"]), None
    except UsageError as err:
        span = err.span
        return None, {"message": err.message, "line": span and span.line,
                      "column": span and span.column}


def fixture(path: Path, python: str) -> tuple[str | None, str]:
    """The program text and the JSON fixture text of one script."""
    program, refused = export(path)
    rel = path.relative_to(ROOT).as_posix()
    if program is None:
        return None, dump({"script": rel, "refused": refused})
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / f"{path.stem}.py"
        prog.write_text(program, encoding="utf-8")
        result = record(prog, python)
    return program, dump({"script": rel, **result})


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the fixtures of every script named, or of all."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="scripts (default: samples and scenarios)")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter with torch 2.13 (default: this one)")
    args = parser.parse_args(argv)
    paths = scripts(args.names)
    with ThreadPoolExecutor(max_workers=2) as pool:  # two cores: more would only queue
        made = list(pool.map(lambda p: fixture(p, args.python), paths))
    stale = refused = 0
    for path, (program, text) in zip(paths, made, strict=True):
        refused += program is None
        wanted = {FIXTURES / f"{path.stem}.json": text}
        if program is not None:
            wanted[FIXTURES / f"{path.stem}.py"] = program
        if args.check:
            for target, content in wanted.items():
                if not target.exists() or target.read_text(encoding="utf-8") != content:
                    stale += 1
                    print(f"stale: {target.relative_to(ROOT)}")
            continue
        FIXTURES.mkdir(parents=True, exist_ok=True)
        (FIXTURES / f"{path.stem}.py").unlink(missing_ok=True)
        for target, content in wanted.items():
            target.write_text(content, encoding="utf-8")
    if not args.names:
        known = {p.stem for p in paths}
        for orphan in sorted(FIXTURES.glob("*.*")):
            if orphan.stem not in known:
                stale += args.check
                print(f"{'orphan' if args.check else 'no script for'}: "
                      f"{orphan.relative_to(ROOT)}")
    print(f"{len(paths)} scripts, {refused} refused, "
          + (f"{stale} stale" if args.check else "all written"))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
