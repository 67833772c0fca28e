"""Run grad scripts as the PyTorch programs of SPEC §2.7 and record the answers as JSON fixtures.

The test-suite compares gradcli against these fixtures, so it runs without PyTorch installed.
This script imports torch and never gradcli. Usage:

    python tools/torch_oracle.py [--check] PATHS...   # one fixture per script
    python tools/torch_oracle.py [--check] --all      # tests/scenarios/ and samples/

Each script runs in a fresh interpreter, as a user's PyTorch program would, so warnings that
PyTorch gives once per process are recorded the same way whatever the order of the scripts.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import json
import math
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import machines

FIXTURES = ROOT / "tests" / "fixtures" / "torch"
CORPORA = (ROOT / "tests" / "scenarios", ROOT / "samples")
HEADER = re.compile(r"^#\s*gradcli:\s*(.*)$")
TRIGGERED = re.compile(r"\s*\(Triggered internally at .*?\)\s*$", re.DOTALL)
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# fmt: off
TORCH_NAMES = (
    "zeros", "ones", "eye", "linspace", "zeros_like", "ones_like", "rand", "randn", "exp", "log",
    "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu", "neg", "add", "sub", "mul", "div",
    "pow", "matmul", "mm", "maximum", "minimum", "clamp", "sum", "mean", "max", "min",
    "transpose", "unsqueeze", "squeeze", "flatten", "t", "clone", "detach",
)
# fmt: on
FUNCTIONAL_NAMES = ("softmax", "log_softmax", "mse_loss")
# Python's built-ins a grad script has (gradcli's script/pybuiltins.py and exceptions.py)
PYTHON_NAMES = (
    "int", "float", "bool", "str", "list", "tuple", "dict", "set", "range", "repr", "ascii",
    "format", "divmod", "pow", "chr", "ord", "bin", "hex", "oct", "len", "zip", "enumerate",
    "map", "filter", "reversed", "iter", "next", "any", "all", "sorted", "type", "isinstance",
    "callable", "hasattr", "getattr", "BaseException", "Exception", "ArithmeticError",
    "ZeroDivisionError", "OverflowError", "FloatingPointError", "AssertionError",
    "AttributeError", "ImportError", "ModuleNotFoundError", "LookupError", "IndexError",
    "KeyError", "MemoryError", "NameError", "UnboundLocalError", "RuntimeError",
    "NotImplementedError", "RecursionError", "StopIteration", "TypeError", "ValueError",
    "UnicodeError", "Warning", "UserWarning", "DeprecationWarning", "RuntimeWarning",
)


# ---------------------------------------------------------------- translation (no torch here)


def parse_header(source: str) -> dict[str, Any]:
    """Read `# gradcli: [grad] [of=L] [wrt=a,b]` lines from the script's leading comments."""
    header: dict[str, Any] = {"wrt": [], "grad": False, "of": None}
    for raw in source.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            break
        match = HEADER.match(line)
        if not match:
            continue
        for token in match.group(1).split():
            key, _, value = token.partition("=")
            if key == "grad" and not value:
                header["grad"] = True
            elif key == "of":
                header["of"] = value
            elif key == "wrt":
                header["wrt"] += [w for w in value.split(",") if w and w not in header["wrt"]]
    return header


def _is_literal(node: ast.expr) -> bool:
    """A number or a (nested) list literal of numbers, each optionally signed."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _is_literal(node.operand)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    return isinstance(node, ast.List) and all(_is_literal(e) for e in node.elts)


def _negate(node: ast.expr) -> ast.expr:
    """Push a unary minus into a list literal, since `-[1, 2]` is not valid at run time."""
    if isinstance(node, ast.List):
        return ast.List(elts=[_negate(e) for e in node.elts], ctx=ast.Load())
    return ast.UnaryOp(op=ast.USub(), operand=node)


class _Literals(ast.NodeTransformer):
    """Rewrite `name = <literal>` and `a = b = <literal>` (anywhere) into
    `name = __literal__(<literal>)`."""

    def visit_Assign(self, node: ast.Assign) -> ast.Assign:
        value = node.value
        if all(isinstance(t, ast.Name) for t in node.targets) and _is_literal(value):
            if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.List):
                value = _negate(value.operand) if isinstance(value.op, ast.USub) else value.operand
            call = ast.Call(func=ast.Name("__literal__", ast.Load()), args=[value], keywords=[])
            node.value = ast.copy_location(call, node.value)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
        if isinstance(node.target, ast.Name) and node.value is not None and \
                _is_literal(node.value):  # `n: float = 2`, a leaf as `n = 2` is
            fake = self.visit_Assign(ast.Assign(targets=[node.target], value=node.value))
            node.value = fake.value
        return node


def _bound_names(stmt: ast.stmt) -> list[str]:
    """Names a statement binds directly (assignment targets and loop variables)."""
    if isinstance(stmt, ast.Assign):
        targets: list[ast.expr] = list(stmt.targets)
    elif isinstance(stmt, ast.AugAssign | ast.For):
        targets = [stmt.target]
    else:
        return []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _mark_wrt(body: list[ast.stmt], wrt: list[str], seen: list[str]) -> list[ast.stmt]:
    """After each binding of a `wrt` name outside `def` bodies, call `__wrt__(name)`."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.append(stmt)
            continue
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, _mark_wrt(getattr(stmt, field), wrt, seen))
        bound = _bound_names(stmt)
        seen.extend(bound)
        hooks = [_wrt_hook(name, stmt) for name in bound if name in wrt]
        if isinstance(stmt, ast.For):  # the loop variable is bound at the top of each pass
            stmt.body[:0] = hooks
            hooks = []
        out += [stmt, *hooks]
    return out


def _wrt_hook(name: str, where: ast.stmt) -> ast.stmt:
    call = ast.Call(ast.Name("__wrt__", ast.Load()), [ast.Name(name, ast.Load())], [])
    return ast.copy_location(ast.Expr(call), where)


def translate(source: str, wrt: list[str]) -> tuple[ast.Module, list[str]]:
    """Return the PyTorch program's tree and the top-level names it binds, in source order."""
    tree = _Literals().visit(ast.parse(source))
    seen: list[str] = []
    tree.body = _mark_wrt(tree.body, wrt, seen)
    return ast.fix_missing_locations(tree), list(dict.fromkeys(seen))


# ---------------------------------------------------------------- running under torch


def builtins_namespace(torch: Any, prints: list[str]) -> dict[str, Any]:
    """The grad language's built-ins (SPEC §2.5), mapped to PyTorch as in §2.7."""
    f = torch.nn.functional
    default = torch.get_default_dtype

    def tensor(data: Any, **kw: Any) -> Any:
        return torch.tensor(data, **{"dtype": default(), **kw})

    def floating(fn: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *a, **kw: fn(*a, **{"dtype": default(), **kw})

    def capture(*args: Any, sep: str | None = " ", end: str | None = "\n") -> None:
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        text = sep.join(str(a) for a in args) + ("" if end == "\n" else end)
        prints.append(ADDRESS.sub(" at ADDR", text))

    def tensor_or_python(name: str) -> Callable[..., Any]:
        """sum, max, min, abs, round: PyTorch's for a tensor, Python's otherwise (§2.5)."""
        torch_fn, python_fn = getattr(torch, name), getattr(builtins, name)
        return lambda *a, **kw: (torch_fn if a and isinstance(a[0], torch.Tensor)
                                 else python_fn)(*a, **kw)

    ns: dict[str, Any] = {name: getattr(torch, name) for name in TORCH_NAMES}
    ns.update({name: getattr(f, name) for name in FUNCTIONAL_NAMES})
    ns.update(
        param=lambda data: torch.tensor(data, dtype=default(), requires_grad=True),
        tensor=tensor,
        full=floating(torch.full),
        arange=floating(torch.arange),
        reshape=lambda x, *shape: x.reshape(*shape),
        view=lambda x, *shape: x.view(*shape),
        grad=lambda *a, **kw: list(torch.autograd.grad(*a, **kw)),
        no_grad=torch.no_grad,
        enable_grad=torch.enable_grad,
        seed=lambda n: torch.manual_seed(n) and None,
        print=capture,
    )
    ns.update({name: tensor_or_python(name) for name in ("sum", "max", "min", "abs", "round")})
    # NOTE: only the language's Python built-ins; torch's C++ side needs `__import__`.
    ns["__builtins__"] = {name: getattr(builtins, name) for name in PYTHON_NAMES}
    ns["__builtins__"]["__import__"] = __import__
    ns["__literal__"] = lambda lit: torch.tensor(lit, dtype=default())
    ns["__wrt__"] = lambda v: v.requires_grad_() if isinstance(v, torch.Tensor) and v.is_leaf else v
    return ns


def _number(x: Any) -> Any:
    """JSON-safe float: non-finite numbers become the strings "nan", "inf", "-inf"."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, list):
        return [_number(e) for e in x]
    return x


def node_name(fn: Any) -> str:
    """A backward node's name as its repr shows it: `CopySlices`, not `torch::autograd::CopySlices`."""
    return fn.name().rpartition("::")[2]


def graph_of(torch: Any, root: Any, names: dict[int, str]) -> list[dict[str, Any]]:
    """The backward graph reachable from `root`, breadth-first, as a list of nodes."""
    if root is None:
        return []
    order, index, nodes = [root], {id(root): 0}, []
    for fn in order:  # `order` grows while we walk it: iterative, no recursion
        saved, freed, stale = [], [], []
        for attr in sorted(a for a in dir(fn) if a.startswith("_saved_")):
            try:
                value = getattr(fn, attr)
            except RuntimeError as err:  # freed by a backward, or modified in place since
                # stale: still held, but its tensor was modified in place since it was saved
                (freed if "second time" in str(err) else stale).append(attr[7:])
                continue
            if isinstance(value, torch.Tensor) or (
                isinstance(value, tuple | list) and any(isinstance(v, torch.Tensor) for v in value)
            ):
                saved.append(attr[7:])
        nxt: list[int | None] = []
        for child, _ in fn.next_functions:
            if child is None:
                nxt.append(None)
                continue
            if id(child) not in index:
                index[id(child)] = len(order)
                order.append(child)
            nxt.append(index[id(child)])
        node = {"name": node_name(fn), "saved": saved, "freed": freed, "stale": stale, "next": nxt}
        if node["name"] == "AccumulateGrad":
            node["variable"] = names.get(id(fn.variable))
        nodes.append(node)
    return nodes


def encode(torch: Any, value: Any, names: dict[int, str]) -> Any:
    """A binding's value as JSON (tensor record, plain number, list, or a typed repr)."""
    if value is None:
        return None
    if isinstance(value, torch.Tensor):
        readable = value.is_leaf or value.retains_grad  # other .grad reads would warn
        grad = value.grad if readable else None
        return {
            "shape": list(value.shape),
            "dtype": str(value.dtype).removeprefix("torch."),
            "data": _number(value.tolist()),
            "requires_grad": value.requires_grad,
            "is_leaf": value.is_leaf,
            "grad_fn": node_name(value.grad_fn) if value.grad_fn is not None else None,
            "grad": None if grad is None else _number(grad.tolist()),
            "version": value._version,
            "graph": graph_of(torch, value.grad_fn, names),
        }
    if isinstance(value, bool | int | float):
        return {"type": type(value).__name__, "value": _number(value)}
    if isinstance(value, list | tuple) and not isinstance(value, torch.Size):
        return {"type": "list", "items": [encode(torch, v, names) for v in value]}
    return {"type": type(value).__name__, "repr": ADDRESS.sub(" at ADDR", repr(value))}


def _frame_line(frame: Any, filename: str) -> int | None:
    """Line of the innermost frame, from `frame` outwards, that runs the script."""
    while frame is not None and frame.f_code.co_filename != filename:
        frame = frame.f_back
    return frame.f_lineno if frame is not None else None


def _error(exc: BaseException, filename: str) -> dict[str, Any]:
    """An exception as `{type, message, line}`, the line being the script's innermost frame."""
    line = exc.lineno if isinstance(exc, SyntaxError) else None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return {"type": type(exc).__name__, "message": TRIGGERED.sub("", str(exc)), "line": line}


def run_script(path: Path) -> dict[str, Any]:
    """Execute one grad script under PyTorch and return its fixture record."""
    import torch

    torch.set_default_dtype(torch.float64)
    torch.manual_seed(0)
    source = path.read_text(encoding="utf-8")
    header = parse_header(source)
    filename = str(path.resolve())
    rel = (
        path.resolve().relative_to(ROOT).as_posix()
        if path.resolve().is_relative_to(ROOT)
        else str(path)
    )
    prints: list[str] = []
    found: list[dict[str, Any]] = []
    ns = builtins_namespace(torch, prints)
    error, names_in_order = None, []

    def hook(message: Any, category: type, fname: str, lineno: int, *_: Any) -> None:
        line = _frame_line(sys._getframe(1), filename)
        if line is None and fname == filename:
            line = lineno
        text = TRIGGERED.sub("", str(message))
        found.append({"line": line, "category": category.__name__, "message": text})

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = hook
        try:
            tree, names_in_order = translate(source, header["wrt"])
            exec(compile(tree, filename, "exec"), ns)  # noqa: S102 - our own corpus
        except Exception as exc:  # noqa: BLE001 - recording the script's failure is the job
            error = _error(exc, filename)
        bound = {n: ns[n] for n in names_in_order if n in ns and not callable(ns[n])}
        names = {id(v): n for n, v in sorted(bound.items(), reverse=True)}
        record: dict[str, Any] = {
            "torch": torch.__version__,
            "script": rel,
            "wrt": header["wrt"],
            "prints": prints,
            "warnings": found,
            "error": error,
            "bindings": {n: encode(torch, v, names) for n, v in bound.items()},
        }
        if header["grad"]:
            of = header["of"] or (names_in_order[-1] if names_in_order else None)
            record["grad"] = grad_record(torch, ns, of, header["wrt"], filename)
    return record


def grad_record(
    torch: Any, ns: dict[str, Any], of: str | None, wrt: list[str], filename: str
) -> dict[str, Any]:
    """d(of)/d(w) for each w, as `gradcli grad` computes it (nothing accumulates)."""
    out: dict[str, Any] = {"of": of, "value": None, "wrt": {}, "error": None}
    try:
        output, inputs = ns[of], [ns[w] for w in wrt]
        out["value"] = _number(output.tolist())
        grads = torch.autograd.grad(output, inputs, retain_graph=True, allow_unused=True)
        for w, x, g in zip(wrt, inputs, grads, strict=True):
            g = torch.zeros_like(x) if g is None else g
            out["wrt"][w] = {"shape": list(g.shape), "data": _number(g.tolist())}
    except Exception as exc:  # noqa: BLE001
        out["error"] = _error(exc, filename)
    return out


# ---------------------------------------------------------------- command line


def dump(record: dict[str, Any]) -> str:
    """Deterministic JSON text of a fixture."""
    return json.dumps(record, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def fixture_text(path: Path) -> str:
    """Run one script in a fresh interpreter and return its fixture's JSON text."""
    proc = subprocess.run(
        [sys.executable, __file__, "--emit", str(path)],
        capture_output=True,
        text=True,
        check=False,
        env=machines.environment(machines.PINNED),  # the setting the tests run under
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{path}: oracle failed:\n{proc.stderr}")
    return proc.stdout


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the fixture of every script named."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--all", action="store_true", help="every script in the corpora")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.emit:
        sys.stdout.write(dump(run_script(args.paths[0])))
        return 0
    paths = list(args.paths) + [p for d in CORPORA if args.all for p in sorted(d.glob("*.grad"))]
    stems = [p.stem for p in paths]
    if dupes := sorted({s for s in stems if stems.count(s) > 1}):
        parser.error(f"two scripts share a fixture name: {', '.join(dupes)}")
    if not paths:
        parser.error("name scripts, or pass --all")
    with ThreadPoolExecutor() as pool:
        texts = list(pool.map(fixture_text, paths))
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
    print(f"{len(paths)} scripts, " + (f"{stale} stale" if args.check else "all written"))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
