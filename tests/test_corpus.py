"""The PyTorch-program corpus (tests/corpus/): gradcli against PyTorch's recorded output.

Every program named in tests/corpus/PASSING must print exactly what PyTorch 2.13 printed
(tests/fixtures/corpus/, written by tools/record_corpus.py): stdout, exit code, warnings and
error. The rest checks the corpus itself and the recorder's and reporter's parsing, on stored
samples, without torch.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
FIXTURES = ROOT / "tests" / "fixtures" / "corpus"
SAMPLES = ROOT / "tests" / "fixtures" / "corpus_stderr"
# SPEC §7: torch and its submodules, and the standard modules programs use for ordinary work
ALLOWED_MODULES = {"torch", "math", "random", "itertools", "functools", "collections", "typing",
                   "dataclasses", "sys", "time", "numpy", "matplotlib.pyplot"}


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


record = _tool("record_corpus")
report = _tool("corpus_report")
PROGRAMS = sorted(p.stem for p in CORPUS.glob("*.py"))
PASSING = report.read_passing()


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- gradcli against PyTorch


def test_a_recording_machine_without_avx512_caps_onednn_for_gradcli():
    """oneDNN (F.gelu's float32 kernels) picks its ISA from the CPU whatever the setting: a
    program recorded on a CPU without AVX-512 runs gradcli with ONEDNN_MAX_CPU_ISA=AVX2, so a
    machine with AVX-512 reproduces it too; one recorded with AVX-512 leaves oneDNN alone."""
    cap = record.machines.onednn_cap
    assert cap({"cpu": {"flags": ["avx", "avx2", "fma"]}}) == {"ONEDNN_MAX_CPU_ISA": "AVX2"}
    assert cap({"cpu": {"flags": ["avx2", "fma", "avx512f", "avx512bw", "avx512dq",
                                  "avx512vl"]}}) == {}
    assert cap(None) == {}


@pytest.fixture(scope="module")
def here() -> dict:
    """This machine under the pinned setting, as the fixtures describe theirs."""
    return record.machines.describe(record.machines.PINNED)


@pytest.mark.parametrize("name", PASSING)
def test_passing_program_prints_what_pytorch_prints(name, here):
    """Bit for bit on the machine the program was recorded on; elsewhere, where its numbers
    come through MKL's code path for the CPU, number by number within tools/machines.py's
    tolerance, and the summary says so.  gradcli runs under the fixture's setting (the pinned
    one, or a variant a machine without AVX-512 recorded under)."""
    expected = fixture(name)
    if expected["settings"] != record.machines.PINNED:
        here = record.machines.describe(expected["settings"])
    recorded_numpy = expected["machine"]["numpy"].split(".")[0]
    if recorded_numpy != np.__version__.split(".")[0] and \
            "import numpy" in (CORPUS / f"{name}.py").read_text(encoding="utf-8"):
        pytest.skip(f"recorded with NumPy {expected['machine']['numpy']}, which prints its own "
                    f"way; NumPy {np.__version__} here")
    got = report.run_gradcli(CORPUS / f"{name}.py", [sys.executable, "-m", "gradcli"],
                             expected["settings"], expected.get("machine"))
    assert got["error"] == expected["error"]
    assert got["stderr_warnings"] == expected["stderr_warnings"]
    assert got["exit"] == expected["exit"]
    if got["stdout"] == expected["stdout"]:
        return
    elsewhere = record.machines.same_machine(expected["machine"], here)
    if elsewhere is None:
        assert got["stdout"] == expected["stdout"]
    difference = record.machines.close_text(got["stdout"], expected["stdout"])
    assert difference is None, f"{difference} (recorded on another machine: {elsewhere})"
    pytest.skip(f"printed numbers within the tolerance, not bit for bit: recorded on another "
                f"machine ({elsewhere})")


def test_passing_list_names_corpus_programs():
    assert sorted(set(PASSING)) == sorted(PASSING), "a name is listed twice"
    assert set(PASSING) <= set(PROGRAMS)


# ---------------------------------------------------------------- the corpus itself


def test_corpus_is_large_and_has_failing_programs():
    assert len(PROGRAMS) >= 45
    ending_in_error = [n for n in PROGRAMS if fixture(n)["error"] is not None]
    assert len(ending_in_error) >= 8
    assert any(fixture(n)["stderr_warnings"] for n in PROGRAMS)


def test_every_program_has_an_up_to_date_fixture():
    assert sorted(p.stem for p in FIXTURES.glob("*.json")) == PROGRAMS
    for name in PROGRAMS:
        fx = fixture(name)
        assert fx["torch"].startswith("2.13"), name
        assert set(fx) == {"torch", "machine", "settings", "source_sha256", "stdout",
                           "stderr_warnings", "error", "exit"}, name
        assert fx["settings"] in (record.machines.PINNED,
                                  *record.machines.VARIANTS.values()), name
        digest = hashlib.sha256((CORPUS / f"{name}.py").read_bytes()).hexdigest()
        assert fx["source_sha256"] == digest, f"{name}: run tools/record_corpus.py {name}"
        assert (fx["exit"] == 0) == (fx["error"] is None), name
        assert "at 0x" not in fx["stdout"].replace("at 0xADDR", ""), name


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_is_small_sourced_and_in_the_spec_subset(name):
    text = (CORPUS / f"{name}.py").read_text(encoding="utf-8")
    assert text.startswith(("# Source:", "# Written for gradcli after")), "name the source"
    assert len(text.splitlines()) <= 60
    tree = ast.parse(text)
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules.add(node.module)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in {"open", "eval", "exec", "input", "__import__"}:
            pytest.fail(f"{node.func.id}() is outside SPEC §7")
        elif isinstance(node, ast.Attribute) and node.attr == "cuda" or \
                isinstance(node, ast.Constant) and "cuda" in str(node.value):
            pytest.fail("corpus programs stay on the CPU")
    outside = {m for m in modules if m not in ALLOWED_MODULES
               and not m.startswith(("torch.", "numpy."))}  # their submodules
    assert not outside, f"imports outside SPEC §7: {sorted(outside)}"


def test_every_standard_module_of_spec_7_has_a_program():
    """Issue 22: at least one corpus program imports each standard module gradcli has."""
    used = set()
    for name in PROGRAMS:
        for node in ast.walk(ast.parse((CORPUS / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                used |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                used.add(node.module)
    assert {"random", "itertools", "functools", "collections", "typing", "sys", "time",
            "matplotlib.pyplot"} <= used


# ---------------------------------------------------------------- recorder: parsing stderr


def sample(name: str) -> tuple[str, str]:
    """A stored stderr, with its program's path put back in, and that path."""
    program = str(SAMPLES / f"{name}.program")
    return (SAMPLES / f"{name}.stderr").read_text().replace("{PROGRAM}", program), program


def test_traceback_through_torch_frames_gives_the_programs_line():
    text, program = sample("retain_graph")
    warnings, error = record.parse_stderr(text, program)
    assert warnings == []
    assert error["type"] == "RuntimeError"
    assert error["line"] == 13  # c.backward(), not the frames inside torch/autograd
    assert error["message"].startswith("Trying to backward through the graph a second time")
    assert error["message"].endswith("after calling backward.")


def test_chained_traceback_keeps_the_last_error_and_its_multiline_message():
    text, program = sample("chained")
    warnings, error = record.parse_stderr(text, program)
    assert error == {"type": "ValueError", "message": "bad value:\nsecond line of the message",
                     "line": 12}
    assert warnings == [{"line": 8, "category": "UserWarning",
                         "message": "first line\n  indented second line"}]


def test_bare_exception_class_has_an_empty_message():
    text, program = sample("bare")
    assert record.parse_traceback(text, program) == {"type": "KeyError", "message": "",
                                                     "line": 2}


def test_warnings_drop_triggered_internally_and_the_echoed_line():
    text, program = sample("nonleaf_warnings")
    warnings, error = record.parse_stderr(text, program)
    assert error is None
    assert [w["line"] for w in warnings] == [9, 11]
    for w in warnings:
        assert w["category"] == "UserWarning"
        assert w["message"].startswith("The .grad attribute of a Tensor that is not a leaf")
        assert w["message"].endswith("for more information.")
        assert "Triggered internally" not in w["message"] and "print(" not in w["message"]


def test_warning_attributed_to_a_library_has_no_program_line():
    text, program = sample("library_warning")
    warnings = record.parse_warnings(text, program)
    assert warnings[0] == {"line": 4, "category": "UserWarning", "message":
                           "Implicit dimension choice for softmax has been deprecated. Change "
                           "the call to include dim=X as an argument."}
    assert warnings[1] == {"line": None, "category": "UserWarning", "message":
                           "size_average and reduce args will be deprecated, please use "
                           "reduction='mean' instead."}


def test_no_traceback_no_error():
    assert record.parse_traceback("", "p.py") is None
    assert record.parse_stderr("", "p.py") == ([], None)


def test_normalise_replaces_only_object_addresses():
    text = "<MulBackward0 object at 0x7f3a2b1c9d00> 0x1f (<A object at 0xDEADbeef>, 0)"
    assert record.normalise(text) == "<MulBackward0 object at 0xADDR> 0x1f (<A object at 0xADDR>, 0)"


def test_clean_message_strips_the_build_path():
    msg = "bad thing. (Triggered internally at /__w/pytorch/aten/src/X.cpp:12.)"
    assert record.clean_message(msg) == "bad thing."


# ---------------------------------------------------------------- reporter


def test_gradcli_diagnostics_are_parsed_into_the_fixture_shape():
    text = (SAMPLES / "gradcli_plain.stderr").read_text()
    warnings, error = report.parse_diagnostics(text)
    assert [(w["line"], w["category"]) for w in warnings] == [(5, "UserWarning")]
    assert warnings[0]["message"].startswith("The .grad attribute of a Tensor that is not a leaf")
    assert warnings[0]["message"].endswith("for more information.")
    assert error["type"] == "RuntimeError" and error["line"] == 6
    assert error["message"].endswith("after calling backward.")


def test_multiline_diagnostic_message_stops_at_the_quoted_line():
    text = ("p.py:3:5: RuntimeError: first\nsecond line\n    y.backward()\n        ^~~~\n"
            "hint: a hint\np.py:9:1: UserWarning: w\n    x.T\n    ^~~\n")
    warnings, error = report.parse_diagnostics(text)
    assert error == {"type": "RuntimeError", "message": "first\nsecond line", "line": 3}
    assert warnings == [{"line": 9, "category": "UserWarning", "message": "w"}]


def test_internal_error_is_an_error():
    text = "gradcli: internal error: KeyError: 'x' — please report it\n"
    assert report.parse_diagnostics(text)[1]["type"] == "KeyError"


def test_differences_name_the_first_differing_stdout_line():
    expected = {"stdout": "a\nb\nc\n", "stderr_warnings": [], "error": None, "exit": 0}
    assert report.differences(expected, dict(expected)) == []
    got = dict(expected, stdout="a\nB\nc\n")
    assert report.differences(expected, got) == ["stdout line 2: PyTorch 'b', gradcli 'B'"]
    got = dict(expected, stdout="a\n", exit=1,
               error={"type": "RuntimeError", "message": "boom", "line": 2})
    diffs = report.differences(expected, got)
    assert diffs[0].startswith("error: PyTorch none; gradcli RuntimeError at line 2")
    assert "stdout line 2: PyTorch 'b', gradcli (end)" in diffs
    assert "exit: PyTorch 0, gradcli 1" in diffs
    assert report.summary(diffs).startswith("stdout line 2")


def test_features_read_from_the_code():
    source = (
        "import torch\nimport torch.nn.functional as F\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "with torch.no_grad():\n    a, b = x[x > 0], x[[0, 1]]\n"
        "loss = F.mse_loss(x, x * 2)\n"
        "print(f'{loss.item():.4f}', [v for v in range(3)], sep=', ')\n"
        "h = x.register_hook(lambda g: g * 2)\n"
    )
    found = report.features(source)
    for f in ["import torch", "import torch.nn.functional as F", "torch.ones()",
              "torch.ones(requires_grad=)", "with torch.no_grad()", "tuple unpacking",
              "indexing with a mask x[x > 0]", "indexing with a list x[[i, j]]",
              "torch.nn.functional.mse_loss()", "f-string format spec", "list comprehension",
              "print(sep=)", ".register_hook()", "lambda", ".item()"]:
        assert f in found, f
    assert "torch.no_grad()" not in found  # counted once, as the with statement
    assert report.features("def (:") == {"unparsable program"}


def test_tally_and_unlock_order():
    needs = {"p1": {"a", "b"}, "p2": {"a"}, "p3": {"a", "c", "d"}}
    rows = report.tally(needs, supported={"b"})
    assert rows[0] == {"feature": "a", "programs": 3, "sole": 2}
    assert {r["feature"] for r in rows} == {"a", "c", "d"}
    steps = report.unlock_order(needs, supported=set())
    assert steps[0] == {"add": ["a"], "unlocks": ["p2"]}
    assert steps[1] == {"add": ["b"], "unlocks": ["p1"]}
    assert steps[2] == {"add": ["c", "d"], "unlocks": ["p3"]}


@pytest.mark.parametrize(("got", "want", "close"), [
    ("99 3147.146484375\n", "99 3147.146240234375\n", True),  # the last bits of a float32
    ("loss 31000.5\nloss 7.45e-09\n", "loss 31000.5\nloss 1.12e-08\n", True),  # near 0, scaled
    ("tensor([0.5001, 1.0000])", "tensor([0.5000, 1.0000])", True),  # the last printed digit
    ("tensor([ 9.9999, 1.0000])", "tensor([10.0000, 1.0000])", True),  # padding moves
    ("tensor([0.5100, 1.0000])", "tensor([0.5000, 1.0000])", False),
    ("loss 2.0\n", "loss 1.0\n", False),
    ("True 3", "False 3", False),
    ("tensor([1., 2.])", "tensor([1., 2., 3.])", False),
    ("tensor(nan)", "tensor(1.)", False),
])
def test_numbers_compare_within_the_stated_tolerance(got, want, close):
    """tools/machines.py's comparison for outputs recorded on another machine."""
    assert (record.machines.close_text(got, want) is None) == close
