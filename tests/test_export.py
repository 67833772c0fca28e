"""`gradcli export`: the exported PyTorch program prints what `gradcli run` prints.

`tools/record_exports.py` exported every sample and scenario into `tests/fixtures/export/`
(`<stem>.py`, the golden program) and recorded what PyTorch 2.13 printed running it
(`<stem>.json`).  Here, without PyTorch: the export is still the golden text, and the script's
print() output under gradcli is the recorded stdout, byte for byte.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_parser_properties import stmts, unparse
from typer.testing import CliRunner

from gradcli import pipeline
from gradcli.cli import app
from gradcli.errors import UsageError
from gradcli.export import export_source

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "export"
SCRIPTS = sorted(p for folder in (ROOT / "samples", ROOT / "tests" / "scenarios")
                 for p in folder.glob("*.grad"))
ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")  # as tools/record_corpus.py normalises them


def _fixture(path: Path) -> dict:
    return json.loads((FIXTURES / f"{path.stem}.json").read_text(encoding="utf-8"))


def _export(path: Path) -> str:
    source = path.read_text(encoding="utf-8")
    return export_source(source, path.relative_to(ROOT).as_posix(),
                         wrt=pipeline.script_header(source)["wrt"])


def _gradcli_stdout(path: Path) -> tuple[str, bool]:
    """What `gradcli run` prints for the script's print() calls, and whether it failed."""
    source = path.read_text(encoding="utf-8")
    printed: list[str] = []
    result = pipeline.run(source, filename=path.name, wrt=pipeline.script_header(source)["wrt"],
                          base_dir=str(path.parent), on_print=printed.append)
    return ADDRESS.sub("at 0xADDR", "".join(printed)), result.error is not None


def test_every_script_is_recorded() -> None:
    recorded = {p.stem for p in FIXTURES.glob("*.json")}
    assert recorded == {p.stem for p in SCRIPTS}, "run tools/record_exports.py"


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_export_is_the_golden_program(path: Path) -> None:
    fixture = _fixture(path)
    if "refused" in fixture:
        with pytest.raises(UsageError) as err:
            _export(path)
        assert err.value.message == fixture["refused"]["message"]
        return
    golden = FIXTURES / f"{path.stem}.py"
    program = _export(path)
    assert program == golden.read_text(encoding="utf-8"), "run tools/record_exports.py"
    # the recorded stdout is that of this very program
    assert fixture["source_sha256"] == hashlib.sha256(golden.read_bytes()).hexdigest()
    ast.parse(program)
    assert "gradcli" not in "".join(line.split("#")[0] for line in program.splitlines())


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_pytorch_prints_what_gradcli_prints(path: Path) -> None:
    fixture = _fixture(path)
    if "refused" in fixture:
        pytest.skip(f"not exported: {fixture['refused']['message']}")
    stdout, failed = _gradcli_stdout(path)
    assert stdout == fixture["stdout"]
    assert failed == (fixture["exit"] != 0), fixture["error"]


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_gradcli_runs_the_exported_program_as_pytorch_does(path: Path) -> None:
    """The golden program run by gradcli as a PyTorch program (SPEC §7) prints the same."""
    golden = FIXTURES / f"{path.stem}.py"
    if not golden.exists():
        pytest.skip("not exported")
    printed: list[str] = []
    result = pipeline.run(golden.read_text(encoding="utf-8"), filename=golden.name,
                          on_print=printed.append)
    fixture = _fixture(path)
    assert ADDRESS.sub("at 0xADDR", "".join(printed)) == fixture["stdout"]
    assert (result.error is not None) == (fixture["exit"] != 0)


# ---------------------------------------------------------------- translations


def _body(source: str, **kw) -> list[str]:
    """The exported program's lines after its header (the script's own lines)."""
    program = export_source(source, "s.grad", **kw)
    lines = program.splitlines()
    start = max(i for i, ln in enumerate(lines)
                if ln.startswith(("import ", "torch.", "# --wrt", "    return"))) + 1
    while not lines[start]:
        start += 1
    return lines[start:]


def _same_prints(source: str, **kw) -> str:
    """Export ``source``, run both under gradcli, check the prints agree; return the program."""
    program = export_source(source, "s.grad", **kw)
    grad_out: list[str] = []
    torch_out: list[str] = []
    a = pipeline.run(source, wrt=kw.get("wrt", ()), seed=kw.get("seed", 0),
                     on_print=grad_out.append)
    b = pipeline.run(program, filename="s.py", on_print=torch_out.append)
    assert torch_out == grad_out, program
    assert (a.error is None) == (b.error is None), (a.error, b.error)
    return program


def test_literal_leaves_and_wrt() -> None:
    body = _body("x1 = 1; x2 = -[1, [2, -3.5]]\nw: float = 2\ny = w * x1\n", wrt=["w", "y"])
    assert body == [
        ("x1 = torch.tensor(1, dtype=torch.float64); "
        "x2 = torch.tensor([-1, [-2, 3.5]], dtype=torch.float64)"),
        "w = torch.tensor(2, dtype=torch.float64, requires_grad=True)",
        "y = w * x1",
        "y.requires_grad_()",
    ]


def test_wrt_of_an_unknown_kind_is_tested_at_run_time() -> None:
    program = _same_prints("def f(v):\n    return v\nfor w in [1.0, f(2.0)]:\n"
                           "    print(w)\nq = f(3)\nprint(q, w.requires_grad)\n", wrt=["w", "q"])
    assert "    if isinstance(w, torch.Tensor) and w.is_leaf: w.requires_grad_()" in program
    assert "if isinstance(q, torch.Tensor) and q.is_leaf: q.requires_grad_()" in program


def test_builtins_become_pytorch_names() -> None:
    body = _body("x = param([1.0, -2.0])\ny = softmax(relu(x) + tanh(x), 0)\n"
                 "z = reshape(x + 1, 2, 1)\nv = view(x, -1)\ng = grad(y.sum(), x)\n"
                 "t = tensor([1, 2]); r = arange(3); f = full((2,), 4)\n")
    assert body == [
        "x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)",
        "y = F.softmax(F.relu(x) + torch.tanh(x), 0)",
        "z = (x + 1).reshape(2, 1)",
        "v = x.view(-1)",
        "g = list(torch.autograd.grad(y.sum(), x))",
        # statements sharing a line that would be too long go on lines of their own
        "t = torch.tensor([1, 2], dtype=torch.float64)",
        "r = torch.arange(3, dtype=torch.float64)",
        "f = torch.full((2,), 4, dtype=torch.float64)",
    ]


def test_sum_max_min_round_by_the_kind_of_their_argument() -> None:
    program = _same_prints(
        "x = [1.0, 2.0]\nw = x * 2\nw = w + 1\nn = len(x)\nn = n + 1\n"
        "def f(v):\n    return sum(v)\n"
        "print(sum(x), max(w), min(n, 3), round(w.sum().item(), 1), f(w), f([1, 2]))\n"
        "print(sum(i * 2 for i in range(3)), max(w, 0))\n")
    assert "print(torch.sum(x), torch.max(w), min(n, 3), round(w.sum().item(), 1)" in program
    assert "    return _sum(v)" in program  # a parameter: either kind, decided at run time
    assert "torch.max(w, 0))" in program  # PyTorch's for a tensor: (values, indices)
    assert "def _min" not in program and "def _round" not in program
    # its result is not one tensor, so a sum of it is decided at run time
    assert "print(_sum(torch.max(w, 0)))" in _same_prints("w = [1.0, 2.0]\n"
                                                           "print(sum(max(w, 0)))\n")


def test_a_script_name_shadows_a_builtin() -> None:
    body = _body("def relu(v):\n    return v * 0\nsum = 3\nx = param(1.0)\n"
                 "print(relu(x), sum, [tanh for tanh in [1]])\n")
    assert body[-1] == "print(relu(x), sum, [tanh for tanh in [1]])"


def test_comments_and_blank_lines_are_kept() -> None:
    source = ("# head\nx = 1  # one\n\n\n\n# about y\ny = (x +  # inside\n     2)\n"
              "for i in range(2):  # loop\n    # body\n    y = y * 2\nelse:\n    pass\n# end\n")
    assert _body(source) == [
        "# head", "x = torch.tensor(1, dtype=torch.float64)  # one", "", "",
        "# about y", "y = (x +  # inside", "     2)", "for i in range(2):  # loop",
        "    # body", "    y = y * 2", "else:", "    pass", "# end"]


def test_seed_and_random_draws() -> None:
    program = _same_prints("x = randn(2)\nseed(3)\nprint(x, rand(1))\n", seed=7)
    assert "torch.manual_seed(7)  # gradcli seeds its generator with --seed (7)" in program
    assert "torch.manual_seed(3)" in program
    assert "manual_seed" not in export_source("x = 1\n", "s.grad")


def test_float32() -> None:
    program = export_source("x = 1.5\nprint(x * 2)\n", "s.grad", dtype="float32")
    assert "set_default_dtype" not in program
    assert "x = torch.tensor(1.5, dtype=torch.float32)" in program


@pytest.mark.parametrize(("source", "message", "column"), [
    ("x = load('w.npy')\n", "cannot export load()", 5),
    ("y = 1\nprint(seed(2))\n", "cannot export seed() inside an expression", 7),
    ("f = param\n", "cannot export param as a value", 5),
    ("v = [1.0]\ny = reshape()\n", "cannot export reshape() without a tensor", 5),
    ("x = 1\ntorch = x\n", ("cannot export a script that binds the name 'torch': the program "
     "calls PyTorch through it"), 1),
])
def test_what_cannot_be_exported_is_a_positioned_error(source, message, column) -> None:
    with pytest.raises(UsageError) as err:
        export_source(source, "s.grad")
    assert err.value.message == message
    assert err.value.span.line == source.count("\n", 0, source.index(source.splitlines()[-1])) + 1
    assert err.value.span.column == column


# ---------------------------------------------------------------- the command


def test_cli_writes_the_program(tmp_path: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["export", "samples/chain_rule.grad"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (FIXTURES / "chain_rule.py").read_text(encoding="utf-8")
    out = tmp_path / "chain.py"
    r = runner.invoke(app, ["export", "samples/chain_rule.grad", "-o", str(out)])
    assert r.exit_code == 0 and r.stdout == ""
    assert f"wrote {out}" in r.stderr
    assert out.read_text(encoding="utf-8") == (FIXTURES / "chain_rule.py").read_text()
    # --wrt replaces the header's names, as for every command
    r = runner.invoke(app, ["export", "samples/chain_rule.grad", "--wrt", "w2"])
    assert "w2 = torch.tensor(2, dtype=torch.float64, requires_grad=True)" in r.stdout
    assert "\nw1 = torch.tensor(1, dtype=torch.float64)\n" in r.stdout


def test_cli_copies_a_pytorch_program(tmp_path: Path) -> None:
    prog = tmp_path / "prog.py"
    prog.write_text("import torch\nx = torch.ones(2, requires_grad=True)\nprint(x)\n")
    r = CliRunner().invoke(app, ["export", str(prog)])
    assert r.exit_code == 0
    assert r.stdout == prog.read_text()
    assert "already a PyTorch program" in r.stderr
    r = CliRunner().invoke(app, ["export", "-e", "import torch\nprint(torch.ones(1))"])
    assert r.stdout == "import torch\nprint(torch.ones(1))"


def test_cli_errors() -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["export", "-e", "x = 1\ny = load('a.npy') * x"])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith("<eval>:2:5: UsageError: cannot export load()\n")
    r = runner.invoke(app, ["export", "-e", "x = (1"])
    assert r.exit_code == 3 and r.stdout == ""
    r = runner.invoke(app, ["export", "no/such.grad"])
    assert r.exit_code == 2


# ---------------------------------------------------------------- random scripts, round trip

_UNARY = ("tanh({})", "exp({} / 4)", "sigmoid({})", "relu({} - 0.5)", "sum({})", "max({})",
          "{}.mean()", "abs({})", "-{}", "{} ** 2", "round({}, decimals=1)", "softmax({}, 0)")
_BINARY = ("{} * {}", "{} + {}", "{} - {}", "{} / (1 + {} ** 2)", "maximum({}, {})",
           "pow({} * {}, 2)", "min({}, {})")


@st.composite
def _scripts(draw) -> tuple[str, list[str]]:
    """A grad script of literal leaves, arithmetic, prints, a backward; and its --wrt names."""
    number = st.floats(-3, 3, allow_nan=False).map(lambda v: round(v, 2))
    lines, names = [], []
    for i in range(draw(st.integers(1, 3))):
        data = repr(draw(number)) if draw(st.booleans()) else \
            "[" + ", ".join(repr(draw(number)) for _ in range(3)) + "]"
        form = draw(st.sampled_from(("x{} = {}", "x{} = param({})", "x{} = -{}")))
        lines.append(form.format(i, data))
        names.append(f"x{i}")
    for j in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            expr = draw(st.sampled_from(_UNARY)).format(draw(st.sampled_from(names)))
        else:
            expr = draw(st.sampled_from(_BINARY)).format(
                *(draw(st.sampled_from(names)) for _ in range(2)))
        lines.append(f"t{j} = {expr}")
        names.append(f"t{j}")
        if draw(st.booleans()):
            lines.append(f"print(t{j})")
    lines += [f"L = sum({names[-1]})", "print(L)", "L.backward()"]
    lines += [f"print({n}.grad)" for n in names if n.startswith("x")]
    wrt = draw(st.lists(st.sampled_from(names), unique=True, max_size=3))
    return "\n".join(lines) + "\n", wrt


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_scripts())
def test_generated_scripts_round_trip(case: tuple[str, list[str]]) -> None:
    """gradcli runs a script and its export (as a PyTorch program) to the same prints."""
    source, wrt = case
    _same_prints(source, wrt=wrt)


@pytest.mark.filterwarnings("ignore:Generating overly large repr")  # of a 90 kB program
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stmts(depth=2))
def test_any_program_exports_to_python_or_a_positioned_refusal(body: tuple) -> None:
    """The parser's generated programs (every statement and expression form): the export is
    Python that parses, or a UsageError at a place in the script; never a crash."""
    text = unparse(body)
    try:
        program = export_source(text, "g.grad", wrt=["a", "b", "x"])
    except UsageError as err:
        assert err.span is not None and err.message.startswith("cannot export")
        return
    with warnings.catch_warnings():  # CPython warns of `1(2)`; it is still Python
        warnings.simplefilter("ignore")
        compile(program, "<exported>", "exec")


def test_one_line_blocks_and_with_items_keep_their_layout() -> None:
    source = ("x = param(2.0)\nwith no_grad(), enable_grad():\n    y = x * 2\n"
              "with no_grad(): z = x * 3; print(z.requires_grad)\n"
              "if y.requires_grad: print('yes')\nelif x: pass\nelse: print('no')\n"
              "def f(v): return v * 2\nfor i in [x, y]: print(f(i))\nprint(y)\n")
    program = _same_prints(source, wrt=["i"])
    assert _body(source, wrt=["i"]) == [
        "x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)",
        "with torch.no_grad(), torch.enable_grad():", "    y = x * 2",
        "with torch.no_grad(): z = x * 3; print(z.requires_grad)",
        "if y.requires_grad: print('yes')", "elif x: pass", "else: print('no')",
        "def f(v): return v * 2",
        "for i in [x, y]:",  # --wrt i: its statement needs a line, so the block is indented
        "    if isinstance(i, torch.Tensor) and i.is_leaf: i.requires_grad_()",
        "    print(f(i))", "print(y)"]
    assert "torch.no_grad()" in program
