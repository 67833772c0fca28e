"""How many corpus programs gradcli runs exactly as PyTorch does, and what the others need.

For every program of tests/corpus/ this runs `gradcli run NAME.py --format plain` (the command
next to this interpreter, importing gradcli as PYTHONPATH says) from the corpus folder and
compares it with tests/fixtures/corpus/NAME.json (recorded by tools/record_corpus.py): stdout
exactly (after the same address normalisation), the exit code, the warnings (line, category,
message) and the error (type, message, line). Usage:

    PYTHONPATH=src python tools/corpus_report.py            # one line per program, a total,
                                                            # and a tally of needed features
    PYTHONPATH=src python tools/corpus_report.py --json     # the same as one JSON document
    PYTHONPATH=src python tools/corpus_report.py NAME ...   # only these programs

Exit status: 1 when a program listed in tests/corpus/PASSING no longer passes, else 0.

The feature tally reads each failing program's code (imports, Python syntax, torch calls,
methods, attributes, keywords, indexing forms) and counts, per feature, the failing programs
that use it. Features used by a passing program are taken as supported and left out, so the
tally shrinks as gradcli grows.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
FIXTURES = ROOT / "tests" / "fixtures" / "corpus"
PASSING = CORPUS / "PASSING"
TIMEOUT = 120


def _load_recorder() -> Any:
    """tools/record_corpus.py, for its normaliser (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location("record_corpus", Path(__file__).with_name(
        "record_corpus.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


recorder = _load_recorder()
machines = recorder.machines  # tools/machines.py, which the recorder put on the path

# gradcli's plain diagnostic: `FILE:LINE:COL: Kind: message`, then the source line, a caret
# line and an optional `hint: …`.
DIAGNOSTIC = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<kind>[A-Za-z_][\w.]*): ")
CARET = re.compile(r"^    \s*\^~*$")
INTERNAL = re.compile(r"^gradcli: internal error: (?P<kind>[\w.]+): (?P<msg>.*)$")
USAGE = re.compile(r"^gradcli: error: (?P<msg>.*)$")


# ---------------------------------------------------------------- reading gradcli's output


def parse_diagnostics(text: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """gradcli's plain stderr as (warnings, error), in the fixture's shapes.

    A diagnostic whose kind ends in `Warning` is a warning; the last other one is the error.
    A message runs from the head line to the quoted source line (the one above the caret).
    """
    lines = text.splitlines()
    found: list[dict[str, Any]] = []
    error: dict[str, Any] | None = None
    i = 0
    while i < len(lines):
        head = DIAGNOSTIC.match(lines[i])
        other = INTERNAL.match(lines[i]) or USAGE.match(lines[i])
        if other:
            kind = other.groupdict().get("kind") or "UsageError"
            error = {"type": kind, "message": other["msg"], "line": None}
            i += 1
            continue
        if not head:
            i += 1
            continue
        body = [lines[i][head.end():]]
        i += 1
        while i < len(lines) and not DIAGNOSTIC.match(lines[i]):
            if CARET.match(lines[i]):
                body.pop()  # the quoted source line above the caret
                i += 1
                break
            if lines[i].startswith("hint: "):
                break
            body.append(lines[i])
            i += 1
        while i < len(lines) and lines[i].startswith("hint: "):
            i += 1
        record = {"line": int(head["line"]), "message": recorder.clean_message("\n".join(body))}
        if head["kind"].endswith("Warning"):
            found.append({"line": record["line"], "category": head["kind"],
                          "message": record["message"]})
        else:
            error = {"type": head["kind"], **record}
    return found, error


def gradcli_command() -> list[str]:
    """The installed `gradcli` beside this interpreter, else `python -m gradcli`."""
    beside = Path(sys.executable).with_name("gradcli")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("gradcli")
    return [found] if found else [sys.executable, "-m", "gradcli"]


def run_gradcli(path: Path, command: list[str] | None = None,
                setting: dict[str, str] = machines.PINNED,
                recorded: dict[str, Any] | None = None) -> dict[str, Any]:
    """`gradcli run NAME.py --format plain` from the program's folder, in the fixture's shape,
    under a setting of tools/machines.py (the fixture's) and, given the ``recorded`` machine,
    its oneDNN ISA (machines.onednn_cap)."""
    env = dict(machines.environment(setting), NO_COLOR="1", PYTHONIOENCODING="utf-8",
               **machines.onednn_cap(recorded))
    try:
        proc = subprocess.run([*(command or gradcli_command()), "run", path.name, "--format",
                               "plain"], cwd=path.parent, capture_output=True, text=True,
                              encoding="utf-8", env=env, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return {"stdout": "", "stderr_warnings": [], "exit": None,
                "error": {"type": "Timeout", "message": f"no answer in {TIMEOUT} s",
                          "line": None}}
    warnings, error = parse_diagnostics(proc.stderr)
    return {"stdout": recorder.normalise(proc.stdout), "stderr_warnings": warnings,
            "error": error, "exit": proc.returncode}


# ---------------------------------------------------------------- comparing


def _clip(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[:width - 1] + "…")


def _error_text(e: dict[str, Any] | None) -> str:
    if e is None:
        return "none"
    return f"{e['type']} at line {e['line']}: {_clip(e['message'], 50)}"


def differences(expected: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """What differs between a fixture and gradcli's run, most telling first; [] when equal."""
    out: list[str] = []
    if expected["error"] != got["error"]:
        out.append(f"error: PyTorch {_error_text(expected['error'])}; "
                   f"gradcli {_error_text(got['error'])}")
    if expected["stdout"] != got["stdout"]:
        want, have = expected["stdout"].splitlines(), got["stdout"].splitlines()
        k = next((n for n, (a, b) in enumerate(zip(want, have)) if a != b), min(len(want),
                                                                             len(have)))
        w = _clip(want[k]) if k < len(want) else "(end)"
        h = _clip(have[k]) if k < len(have) else "(end)"
        if w == h:  # same lines, different line endings or final newline
            w, h = _clip(expected["stdout"][-20:]), _clip(got["stdout"][-20:])
        out.append(f"stdout line {k + 1}: PyTorch {w}, gradcli {h}")
    if expected["stderr_warnings"] != got["stderr_warnings"]:
        want_w, have_w = expected["stderr_warnings"], got["stderr_warnings"]
        k = next((n for n, (a, b) in enumerate(zip(want_w, have_w)) if a != b),
                 min(len(want_w), len(have_w)))
        w = (f"line {want_w[k]['line']} {_clip(want_w[k]['message'], 50)}" if k < len(want_w)
             else "(no more)")
        h = (f"line {have_w[k]['line']} {_clip(have_w[k]['message'], 50)}" if k < len(have_w)
             else "(no more)")
        out.append(f"warning {k + 1}: PyTorch {w}; gradcli {h}")
    if expected["exit"] != got["exit"]:
        out.append(f"exit: PyTorch {expected['exit']}, gradcli {got['exit']}")
    return out


# ---------------------------------------------------------------- what a program needs

BUILTINS = {"range", "len", "zip", "enumerate", "sum", "min", "max", "abs", "round", "float",
            "int", "isinstance", "type", "str", "bool", "list", "tuple", "dict", "print", "any",
            "all", "sorted", "reversed", "map", "filter", "repr", "id"}
OPERATORS = {ast.Mod: "%", ast.FloorDiv: "//", ast.Pow: "**", ast.MatMult: "@", ast.Div: "/",
             ast.Mult: "*", ast.Add: "+", ast.Sub: "-"}


class _Features(ast.NodeVisitor):
    """Collect the features one program uses, as short readable names."""

    def __init__(self) -> None:
        self.found: set[str] = set()
        self.aliases: dict[str, str] = {}  # local name -> module path (F -> torch.nn.functional)

    def add(self, name: str) -> None:
        self.found.add(name)

    def qualified(self, node: ast.expr) -> str | None:
        """`torch.nn.functional.mse_loss` for `F.mse_loss` when the root is an imported name."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return ".".join([self.aliases[node.id], *reversed(parts)])
        return None

    # imports
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.add(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
            self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                a.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for a in node.names:
            self.add(f"from {node.module} import {a.name}")
            self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    # statements
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.add("def")
        if node.args.defaults or node.args.kw_defaults:
            self.add("default arguments")
        if node.args.vararg or node.args.kwarg:
            self.add("*args / **kwargs")
        for d in node.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            self.add(f"decorator @{self.qualified(target) or ast.unparse(target)}")
        self.generic_visit(node)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            ctx = item.context_expr
            if isinstance(ctx, ast.Call):  # `with torch.no_grad():` is one feature, not two
                self.add(f"with {self.qualified(ctx.func) or ast.unparse(ctx.func)}()")
                for a in [*ctx.args, *ctx.keywords]:
                    self.visit(a)
            else:
                self.add(f"with {self.qualified(ctx) or ast.unparse(ctx)}")
                self.visit(ctx)
        for stmt in node.body:
            self.visit(stmt)

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._target(t)
        if len(node.targets) > 1:
            self.add("chained assignment a = b = …")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.add(f"augmented {OPERATORS.get(type(node.op), '?')}=")
        if isinstance(node.target, ast.Subscript):
            self.add("augmented index assignment x[i] op= v")
        elif isinstance(node.target, ast.Attribute):
            self.add(f"augmented attribute assignment .{node.target.attr} op=")
        self.generic_visit(node)

    def _target(self, t: ast.expr) -> None:
        if isinstance(t, ast.Tuple | ast.List):
            self.add("tuple unpacking")
            if any(isinstance(e, ast.Tuple | ast.List) for e in t.elts):
                self.add("nested tuple unpacking")
            if any(isinstance(e, ast.Starred) for e in t.elts):
                self.add("starred unpacking")
        elif isinstance(t, ast.Subscript):
            self.add("index assignment x[i] = v")
        elif isinstance(t, ast.Attribute):
            self.add(f"attribute assignment .{t.attr} =")

    def visit_For(self, node: ast.For) -> None:
        self.add("for")
        if isinstance(node.target, ast.Tuple | ast.List):
            self.add("tuple unpacking in for")
        if not (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                and node.iter.func.id == "range"):
            self.add("for over a non-range iterable")
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        self.add("while")
        self.generic_visit(node)

    def visit_Break(self, node: ast.Break) -> None:
        self.add("break / continue")

    visit_Continue = visit_Break  # type: ignore[assignment]

    def visit_If(self, node: ast.If) -> None:
        self.add("if")
        self.generic_visit(node)

    # expressions
    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self.add("f-string")
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                if v.format_spec is not None:
                    self.add("f-string format spec")
                if v.conversion != -1:
                    self.add("f-string !r/!s conversion")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        op = OPERATORS.get(type(node.op))
        if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and \
                isinstance(node.left.value, str):
            self.add("%-formatting of strings")
        elif op in {"%", "//", "@", "**"}:
            self.add(f"operator {op}")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for op in node.ops:
            if isinstance(op, ast.Is | ast.IsNot):
                self.add("is / is not")
            elif isinstance(op, ast.In | ast.NotIn):
                self.add("in / not in")
        if len(node.ops) > 1:
            self.add("chained comparison")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        self.add("and / or")
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.add("conditional expression")
        self.generic_visit(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.add("lambda")
        self.generic_visit(node)

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self.add("list comprehension")
        self.generic_visit(node)

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:
        self.add("generator expression")
        self.generic_visit(node)

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self.add("dict comprehension")
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        self.add("dict literal")
        self.generic_visit(node)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        if isinstance(node.ctx, ast.Load):
            self.add("tuple literal")
        self.generic_visit(node)

    def visit_Starred(self, node: ast.Starred) -> None:
        if isinstance(node.ctx, ast.Load):
            self.add("*iterable in a call")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and "\n" in node.value:
            self.add("string with \\n")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if len(parts) > 1:
            self.add("indexing x[i, j]")
        for p in parts:
            if isinstance(p, ast.Slice):
                self.add("indexing with a slice" + (" step" if p.step else ""))
            elif isinstance(p, ast.List):
                self.add("indexing with a list x[[i, j]]")
            elif isinstance(p, ast.Compare):
                self.add("indexing with a mask x[x > 0]")
            elif isinstance(p, ast.Constant | ast.UnaryOp):
                self.add("indexing with an int")
            else:
                self.add("indexing with a name or call (int, tensor or mask)")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = self.qualified(node.func)
        if name is not None:
            self.add(f"{name}()")
            for kw in node.keywords:
                self.add(f"{name}({kw.arg}=)")
        elif isinstance(node.func, ast.Name) and node.func.id in BUILTINS:
            self.add(f"builtin {node.func.id}()")
            if node.func.id == "print":
                for kw in node.keywords:
                    self.add(f"print({kw.arg}=)")
        elif isinstance(node.func, ast.Attribute):
            self.add(f".{node.func.attr}()")
            for kw in node.keywords:
                self.add(f".{node.func.attr}({kw.arg}=)")
            self.visit(node.func.value)
            for a in [*node.args, *node.keywords]:
                self.visit(a)
            return
        if name is None:
            self.visit(node.func)
        for a in [*node.args, *node.keywords]:
            self.visit(a)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self.qualified(node)
        if name is not None:
            if isinstance(node.ctx, ast.Load):
                self.add(name)
            return
        if isinstance(node.ctx, ast.Load):
            self.add(f".{node.attr}")
        self.generic_visit(node)


def features(source: str) -> set[str]:
    """The features a program's text uses (a syntax error gives {"unparsable program"})."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {"unparsable program"}
    visitor = _Features()
    visitor.visit(tree)
    return visitor.found


def tally(needs: dict[str, set[str]], supported: set[str]) -> list[dict[str, Any]]:
    """Per feature: failing programs using it, and those for which it is the only one missing."""
    missing = {name: feats - supported for name, feats in needs.items()}
    count: Counter[str] = Counter(f for feats in missing.values() for f in feats)
    sole: Counter[str] = Counter(next(iter(m)) for m in missing.values() if len(m) == 1)
    rows = [{"feature": f, "programs": n, "sole": sole[f]} for f, n in count.items()]
    return sorted(rows, key=lambda r: (-r["programs"], -r["sole"], r["feature"]))


def unlock_order(needs: dict[str, set[str]], supported: set[str]) -> list[dict[str, Any]]:
    """Greedy order of work: repeatedly take the failing program that misses the fewest features
    not yet taken, add those features, and list every program they complete."""
    have = set(supported)
    left = dict(needs)
    steps: list[dict[str, Any]] = []
    while left:
        name = min(left, key=lambda n: (len(left[n] - have), n))
        add = sorted(left[name] - have)
        have |= set(add)
        done = sorted(n for n, f in left.items() if f <= have)
        for n in done:
            del left[n]
        steps.append({"add": add, "unlocks": done})
    return steps


# ---------------------------------------------------------------- command line


def read_passing() -> list[str]:
    """Names listed in tests/corpus/PASSING (blank lines and `#` comments ignored)."""
    if not PASSING.exists():
        return []
    lines = (ln.split("#", 1)[0].strip() for ln in PASSING.read_text().splitlines())
    return [ln for ln in lines if ln]


def report(names: list[str] | None, jobs: int) -> dict[str, Any]:
    """Run and compare the programs; the whole report as one dictionary."""
    paths = sorted(CORPUS.glob("*.py")) if not names else [CORPUS / f"{Path(n).stem}.py"
                                                          for n in names]
    command = gradcli_command()
    fixtures = [json.loads((FIXTURES / f"{p.stem}.json").read_text(encoding="utf-8"))
                for p in paths]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = list(pool.map(lambda pf: run_gradcli(pf[0], command, pf[1]["settings"],
                                                    pf[1].get("machine")),
                             zip(paths, fixtures)))
    programs, torch_version = [], None
    for path, got, expected in zip(paths, runs, fixtures, strict=True):
        torch_version = expected["torch"]
        diff = differences(expected, got)
        programs.append({"name": path.stem, "pass": not diff, "differences": diff,
                         "gradcli": {"exit": got["exit"], "error": got["error"]},
                         "ends_in_error": expected["error"] is not None,
                         "features": sorted(features(path.read_text(encoding="utf-8")))})
    supported = {f for p in programs if p["pass"] for f in p["features"]}
    needs = {p["name"]: set(p["features"]) for p in programs if not p["pass"]}
    for p in programs:
        p["needs"] = sorted(needs.get(p["name"], set()) - supported)
    passing = read_passing()
    return {
        "torch": torch_version,
        "total": len(programs),
        "passed": sum(p["pass"] for p in programs),
        "regressions": [p["name"] for p in programs if p["name"] in passing and not p["pass"]],
        "programs": programs,
        "features": tally(needs, supported),
        "unlock_order": unlock_order(needs, supported),
    }


def summary(diffs: list[str]) -> str:
    """A failing program's line: stdout's first differing line, then a differing error."""
    shown = [d for d in diffs if d.startswith("stdout")][:1]
    shown += [d for d in diffs if d.startswith("error")][:1]
    shown = shown or diffs[:1]
    more = len(diffs) - len(shown)
    return " | ".join(shown) + (f" (+{more} more)" if more else "")


def text_report(doc: dict[str, Any], top: int) -> str:
    """The report as text: one line per program, the total, then the tally."""
    out = []
    for p in doc["programs"]:
        if p["pass"]:
            out.append(f"PASS {p['name']}")
        else:
            out.append(f"FAIL {p['name']}: {summary(p['differences'])}")
    out.append("")
    out.append(f"{doc['passed']} of {doc['total']} print exactly what PyTorch prints"
               f" (torch {doc['torch']})")
    if doc["regressions"]:
        out.append("listed in tests/corpus/PASSING but failing: " + ", ".join(doc["regressions"]))
    failing = doc["total"] - doc["passed"]
    if failing:
        out.append("")
        out.append(f"Features the {failing} failing programs use (programs using it; 'sole': "
                   "programs it alone blocks; features of passing programs left out):")
        for row in doc["features"][:top]:
            out.append(f"  {row['programs']:3d}  sole {row['sole']:2d}  {row['feature']}")
        if len(doc["features"]) > top:
            out.append(f"  … {len(doc['features']) - top} more (--top N, or --json)")
        out.append("")
        out.append("Cheapest order of work (each step adds the features the next-cheapest "
                   "program misses):")
        passing = doc["passed"]
        for k, step in enumerate(doc["unlock_order"][:top], 1):
            passing += len(step["unlocks"])
            added = ", ".join(step["add"]) or "(nothing new)"
            out.append(f"  {k:2d}. +{len(step['add'])} features -> {passing} passing: "
                       f"{', '.join(step['unlocks'])}")
            out.append(f"      {added}")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the report; exit 1 if a program listed in PASSING fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="programs (default: the whole corpus)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--top", type=int, default=25, help="rows of the tally shown (25)")
    parser.add_argument("--jobs", type=int, default=2, help="programs run at once (2)")
    args = parser.parse_args(argv)
    for name in args.names:
        if not (CORPUS / f"{Path(name).stem}.py").exists():
            parser.error(f"no such program in {CORPUS.relative_to(ROOT)}: {name}")
    doc = report(args.names or None, max(1, args.jobs))
    if args.json:
        sys.stdout.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(text_report(doc, args.top))
    return 1 if doc["regressions"] else 0


if __name__ == "__main__":
    sys.exit(main())
