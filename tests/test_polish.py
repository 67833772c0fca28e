"""What users see and bounded work (issue 13): tables at 80 columns, grad/check on the samples,
labels and messages, hints, check's report, colours, memory, script size, pipes, hostile input.

Every test here was written against a reproduced fault and fails without its fix.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from marks import with_default_sigint
from typer.testing import CliRunner

from gradcli import cli, pipeline, targets, views
from gradcli.render import plain


def _out(result, of):
    """The output named ``of`` as the command line resolves it (targets.py)."""
    return targets.output(result, of, need=False)


ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")
SAMPLES = ROOT / "samples"
runner = CliRunner()


def invoke(*args: str, input: str | None = None, env: dict | None = None):
    """The app in-process; stdout and stderr are kept apart."""
    return runner.invoke(cli.app, list(args), input=input, env=env)


def sh(*args: str, input: bytes | None = None, env: dict | None = None, **kw):
    """``python -m gradcli`` in a subprocess (bytes in and out)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full_env.update(PYTHONPATH=SRC, **(env or {}))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=input, check=False,
                          capture_output=True, env=full_env, timeout=120, **kw)


# -- graph --tree stays linear --------------------------------------------------------------------
CHAIN = "x = param(1.0)\ny = x\nfor i in range({n}):\n    y = y * 1.0001\n"


def test_a_deep_tree_is_drawn_in_blocks_with_bounded_indentation():
    r = pipeline.run(CHAIN.format(n=2000), record=True)
    text = plain.tree(views.backward_view(r, _out(r, "y")))
    lines = text.splitlines()
    assert max(len(line) for line in lines) < 4 * plain.TREE_DEPTH + 60
    assert len(text) < 2000 * 120  # one drawn tree would be ~8 MB (indentation ~ depth)
    # every node is drawn once, and each continuation is drawn as the root of a block
    drawn = [line for line in lines if "MulBackward0 [" in line]
    assert len(drawn) == 2000
    first = next(line for line in lines if "(continued below)" in line)
    number = first.split("#")[1].split()[0]
    assert f"\n#{number} MulBackward0 [" in text
    assert lines[-1].endswith("AccumulateGrad -> x ()")


def test_a_shallow_tree_is_one_block():
    r = pipeline.run((SAMPLES / "chain_rule.grad").read_text(), wrt=["w1"], record=True)
    text = plain.tree(views.backward_view(r, _out(r, "L")))
    assert "continued" not in text and "\n\n" not in text
    assert "#4 AccumulateGrad (see above)" in text


# -- grad and check on scripts that call backward() themselves ----------------------------------
@pytest.mark.parametrize(("sample", "wrt", "expected"), [
    ("detach", "x", "dout/dx = [3., 3., 3., 3., 3., 3., 3., 3., 3., 3.]"),
    ("exercise", "x", "df/dx = -12.0"),
    ("backprop_demystified", "a", "de/da = [3.]"),
    ("loop_graph", "a", "dy/da = [[ 2.,  4.,  6.],\n         [ 8., 10., 12.]]"),
    ("reassignment", "w1", "dout/dw1 = 256.0"),
    ("retain_graph_fixed", "a", "de/da = [[2., 4., 6., 8.]]"),
])
def test_grad_works_after_the_scripts_own_backward(sample, wrt, expected):
    r = invoke("grad", str(SAMPLES / f"{sample}.grad"), "--wrt", wrt, "--format", "plain")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == expected + "\n"


@pytest.mark.parametrize(("script", "expected"), [
    ("w = param(1.0)\na = w * 2\nb = a\n", "a"),  # one tensor, two names: the first bound
    ("w = param(1.0)\na = w * 2\nb = w * 3\na = b * 1\n", "a"),  # rebound: the newest node
    ("w = param(1.0)\nv = w * 2\nu = v.sum()\nm = w * 3\nq = m * (v * 1)\n", "q"),
    ("w = param(1.0)\nb = w\n", "w"),  # only leaves: the first of them
])
def test_the_default_output_is_the_newest_scalar_that_requires_grad(script, expected):
    assert _out(pipeline.run(script), None).name == expected


def test_every_sample_that_runs_to_its_end_has_a_gradient_and_checks():
    wrt = {"accumulation": "Wh", "backprop_demystified": "a", "chain_rule": "w1", "detach": "x",
           "exercise": "x", "gradient_descent": "b", "growing_graph": "A", "loop_graph": "a",
           "reassignment": "w1", "retain_graph_fixed": "a", "rnn_cell": "Wh"}
    for sample, w in wrt.items():
        for command in ("grad", "check"):
            r = invoke(command, str(SAMPLES / f"{sample}.grad"), "--wrt", w, "--format", "json")
            doc = json.loads(r.stdout)
            assert doc["error"] is None, (sample, command, doc["error"])
            assert r.exit_code in (0, 4), (sample, command)


def test_the_scripts_own_failure_is_reported_where_it_happens():
    doc = json.loads(invoke("grad", str(SAMPLES / "retain_graph.grad"), "--wrt", "a",
                            "--format", "json").stdout)
    assert doc["error"]["line"] == 11 and "line 9" in doc["error"]["hint"]


def test_the_library_gradient_works_after_the_scripts_own_backward():
    import gradcli

    r = gradcli.run("x = param([1.0, 2.0])\ny = (x * x).sum()\ny.backward()\n")
    [g] = r.grad("y", ["x"])
    assert g.data.tolist() == [2.0, 4.0] and r.bindings["x"].grad.data.tolist() == [2.0, 4.0]


def test_a_stale_saved_tensor_is_positioned_and_explained():
    src = "w = param(2.0)\nh = w * 1\ny = h * h\nh += 1\n"
    r = invoke("grad", "-e", src, "--wrt", "w", "--of", "y", "--format", "plain")
    assert r.exit_code == 1
    assert r.stderr.startswith("<eval>:3:1: RuntimeError: one of the variables needed")
    assert "changed in place later" in r.stderr


def test_an_update_under_no_grad_leaves_the_recorded_graph_as_it_was():
    # an optimizer-style update after backward(): the gradient is the one autograd computed
    src = "w = param(2.0)\ny = w * w\ny.backward()\nwith no_grad():\n    w -= 0.1 * w.grad\n"
    r = invoke("grad", "-e", src, "--wrt", "w", "--format", "plain")
    assert (r.exit_code, r.stdout) == (0, "dy/dw = 4.0\n")


def test_the_header_names_wrt_and_of():
    r = invoke("grad", str(SAMPLES / "chain_rule.grad"), "--format", "plain")
    assert (r.exit_code, r.stdout) == (0, "dL/dw1 = -8.0\n")
    r = invoke("grad", str(SAMPLES / "chain_rule.grad"), "--of", "x5", "--format", "plain")
    assert r.stdout == "dx5/dw1 = 8.0\n"
    r = invoke("grad", str(SAMPLES / "chain_rule.grad"), "--wrt", "w2", "--format", "plain")
    assert r.stdout == "dL/dw2 = -1.0\n"
    assert pipeline.script_header("# gradcli: grad of=L wrt=a,b\nx = 1\n# gradcli: wrt=c\n") \
        == {"wrt": ["a", "b"], "of": "L"}


# -- labels and messages: no internal names -------------------------------------------------------
def _err(src: str):
    r = pipeline.run(src)
    assert r.error is not None, src
    return r.error


@pytest.mark.parametrize(("src", "message"), [
    ("x = max(ones(2), foo=1)", "max() got an unexpected keyword argument 'foo'"),
    ("z = ones(2).add_(1, 2, 3)", ("add_() received an invalid combination of arguments - got "
                                   "(!int!, !int!, !int!), but expected (Tensor other, *, "
                                   "Number alpha = 1)")),  # PyTorch's
    ("seed(1, 2)", "seed() takes 1 positional argument but 2 were given"),
    ("print(foo=1)", "print() got an unexpected keyword argument 'foo'"),
    ("def f():\n    pass\nx = f + 1", "unsupported operand type(s) for +: 'function' and 'int'"),
])
def test_messages_name_what_the_script_wrote(src, message):
    assert _err(src).message == message


def test_print_shows_built_ins_as_python_does():
    r = pipeline.run("x = ones(2)\nprint(print, tanh, x.zero_)\n")
    assert re.fullmatch(r"<built-in function print> <built-in function tanh> "
                        r"<built-in method zero_ of Tensor object at 0x7f[0-9a-f]+>", r.prints[0])
    row = plain.run(views.bindings_view(pipeline.run("x = ones(2)\ny = x.zero_\n")))
    assert "<built-in method zero_ of Tensor object at 0x" in row and "<function <" not in row


def test_an_int_is_named_with_its_article():
    src = "x = 1\nfor n in range(3):\n    pass\n"
    r = invoke("grad", "-e", src, "--wrt", "x", "--of", "n", "--format", "plain")
    assert "'n' is an int, not a tensor" in r.stderr


def test_an_in_place_op_that_ends_in_underscore_is_not_doubled():
    r = pipeline.run("x = ones(2)\nx.zero_()\ny = ones(2)\ny -= 1\n", record=True)
    text = plain.graph(views.graph_view(r, _out(r, "y")))
    assert " zero_ " in text and "zero__" not in text and " sub_ " in text


def test_accumulate_grad_names_the_leaf_as_it_is_now():
    src = "w = param(1.0)\ny = w * 2\nwith no_grad():\n    w -= 0.5\nz = w * 3\n"
    r = pipeline.run(src, record=True)
    assert plain.tree(views.backward_view(r, _out(r, "z"))).splitlines()[-1] == \
        "└── #1 AccumulateGrad -> w ()"


# -- hints ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("src", "hint"), [
    ("x = torch.exp(2)", ("without the 'torch.' prefix (exp(...), not torch.exp(...)); or start "
                          "the script with 'import torch'")),
    ("y = F.relu(2)", "without the 'F.' prefix (relu(...), not F.relu(...))"),
    ("x = tnah(2)", "did you mean 'tanh'?"),
    ("x = Treu", "did you mean 'True'?"),
    ("x = ones(2)\ny = x.sum(dmi=0)", "did you mean 'dim'?"),
    ("x = clamp(ones(2), mni=0)", "did you mean 'min'?"),
    ("w = param(1.0)\nw.grad.zero_()", ("w.grad is None here: w requires grad but no backward() "
                                         "has run yet; zero it only when it exists")),
    ("x = ones(2, 3) @ ones(2, 3)", "A is 2x3 and B is 2x3, so 3 != 2; transpose one"),
])
def test_hints(src, hint):
    assert hint in (_err(src).hint or "")


def test_a_tuple_argument_is_a_shape_as_in_pytorch():
    r = invoke("run", "-e", "x = zeros((2, 3))\nprint(x.shape)", "--format", "plain")
    assert r.exit_code == 0 and r.stdout.startswith("torch.Size([2, 3])")


# -- bounded input --------------------------------------------------------------------------------
def test_a_script_over_the_size_limit_is_refused_without_reading_it_all():
    r = sh("run", "/dev/zero", "--max-script-bytes", "100000")
    assert r.returncode == 2
    assert b"/dev/zero is larger than 100,000 bytes" in r.stderr and b"--max-script-bytes" in r.stderr
    r = sh("run", "-", "--max-script-bytes", "10", input=b"x = 1\ny = 2\nz = 3\n")
    assert r.returncode == 2 and b"standard input is larger than 10 bytes" in r.stderr
    assert sh("run", "-", "--max-script-bytes", "100", input=b"x = 1\n").returncode == 0


def test_closed_standard_input_is_a_usage_error():
    r = sh("run", "-", stdin=subprocess.DEVNULL, pass_fds=())
    assert r.returncode == 0  # empty input: an empty script
    r = subprocess.run(f"{sys.executable} -m gradcli run - <&-", shell=True, capture_output=True,
                       env={**os.environ, "PYTHONPATH": SRC}, timeout=60, check=False)
    assert r.returncode == 2 and b"standard input: it is closed" in r.stderr


ONES_65 = ", ".join(["1"] * 65)


@pytest.mark.parametrize("src", [
    f"x = rand({ONES_65})", f"x = full([{ONES_65}], 2.0)", f"x = reshape(ones(1), {ONES_65})",
    f"x = ones({', '.join(['1'] * 64)}).unsqueeze(0)", f"x = ones(1).view({ONES_65})",
])
def test_more_than_64_dimensions_is_a_script_error(src):
    err = _err(src)
    assert err.message == ("a tensor can have at most 64 dimensions in gradcli, not 65 (NumPy's "
                           "limit; PyTorch allows more)") and err.span.line == 1


def test_set_with_deep_nesting_is_a_usage_error():
    r = invoke("run", "-e", "x = 1", "--set", "x=" + "[" * 5000 + "]" * 5000)
    assert r.exit_code == 2 and "nested deeper than 64" in r.stderr


def test_npz_must_start_as_a_zip_archive(tmp_path):
    import io
    import zipfile

    import numpy as np

    buf = io.BytesIO()
    np.save(buf, np.ones(3))
    with zipfile.ZipFile(tmp_path / "z.zip", "w") as z:
        z.writestr("W.npy", buf.getvalue())
    # a .npy with a zip appended: NumPy reads a bare array, is_zipfile sees an archive
    (tmp_path / "weird.npz").write_bytes(buf.getvalue() + (tmp_path / "z.zip").read_bytes())
    r = pipeline.run("x = load('weird.npz')", base_dir=str(tmp_path))
    assert r.error.message == "load(): 'weird.npz' is not a .npz file (not a zip archive)"


def test_csv_meets_the_element_limit_before_it_is_parsed(tmp_path, monkeypatch):
    import numpy as np

    (tmp_path / "big.csv").write_text("1.5,2.5,3.5\n# a comment, with commas,,\n" * 1000)
    called = []
    monkeypatch.setattr(np, "loadtxt", lambda *a, **k: called.append(1))
    r = pipeline.run("x = load('big.csv')", base_dir=str(tmp_path), max_elements=100)
    assert "over the limit of 100" in r.error.message and not called
    monkeypatch.undo()
    r = pipeline.run("x = load('big.csv')", base_dir=str(tmp_path), max_elements=3000)
    assert r.error is None and r.bindings["x"].shape == (1000, 3)


@pytest.mark.parametrize(("raw", "message"), [
    ("x = \u0661\u0662\n".encode(), "invalid character '\u0661' (U+0661)"),
    ("x = 1\uff12\n".encode(), "invalid character '\uff12' (U+FF12)"),
    (b"\xef\xbb\xbf\xef\xbb\xbfx = 1\n", "invalid non-printable character U+FEFF"),
])
def test_only_ascii_digits_and_one_byte_order_mark(raw, message):
    from gradcli.errors import ScriptSyntaxError

    with pytest.raises(ScriptSyntaxError) as info:
        pipeline.run(pipeline.decode(raw, "f.grad"))
    assert info.value.message == message
    assert pipeline.run(pipeline.decode(b"\xef\xbb\xbfx = 12\n", "f.grad")).error is None


# -- what reaches the terminal --------------------------------------------------------------------
def test_control_characters_of_the_script_are_shown_not_sent():
    src = 'x = tnah("\x1b[31mred\x1b]0;title\x07")\n'
    r = sh("run", "-", "--format", "plain", input=src.encode())
    assert b"\x1b" not in r.stderr and b"\x07" not in r.stderr
    assert '    x = tnah("\u241b[31mred\u241b]0;title\u2407")\n        ^~~~\n' in r.stderr.decode()
    r = sh("run", "-", "--format", "rich", input=src.encode())
    assert b"\x1b]0;" not in r.stderr and "\u241b]0;title".encode() in r.stderr


def test_user_text_is_never_rich_markup():
    src = 'print("[/]")\nx = "[bold red]x[/]"\ny = "[/]"\n'
    r = sh("run", "-", "--format", "rich", input=src.encode())
    assert r.returncode == 0, r.stderr
    assert b"[bold red]x[/]" in r.stdout and b"[/]" in r.stdout


# -- where output goes ----------------------------------------------------------------------------
BAD = "x = param(1.0)\ny = x * 2\nprint(y)\nz = tnah(y)\n"


def test_a_closed_pipe_keeps_the_scripts_exit_code():
    r = subprocess.run(f"{sys.executable} -m gradcli run - --format json | head -c0", shell=True,
                       input=BAD.encode(), capture_output=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": SRC}, executable="/bin/bash", check=False)
    assert r.returncode == 0  # head's
    r = subprocess.run(f"set -o pipefail; {sys.executable} -m gradcli run - --format json "
                       "| head -c0", shell=True, input=BAD.encode(), capture_output=True,
                       timeout=60, env={**os.environ, "PYTHONPATH": SRC}, executable="/bin/bash", check=False)
    assert r.returncode == 1, r.stderr


@pytest.mark.parametrize("fmt", ["rich", "plain"])
def test_a_closed_pipe_is_quiet_and_exit_0_for_a_good_script(fmt):
    r = subprocess.run(f"set -o pipefail; {sys.executable} -m gradcli graph "
                       f"{SAMPLES / 'rnn_cell.grad'} --format {fmt} 2>/dev/null | head -1; "
                       f"echo code ${{PIPESTATUS[0]}}", shell=True, capture_output=True,
                       timeout=60, env={**os.environ, "PYTHONPATH": SRC}, executable="/bin/bash", check=False)
    assert r.stdout.decode().endswith("code 0\n"), r.stdout
    assert r.stderr == b""


@pytest.mark.parametrize("fmt", ["plain", "json", "rich"])
def test_a_full_disk_on_stdout_is_one_clear_line(fmt):
    with open("/dev/full", "wb") as full:
        r = subprocess.run([sys.executable, "-m", "gradcli", "run", "-", "--format", fmt],
                           input=b'print("hi")\nx = 1\n', stdout=full, stderr=subprocess.PIPE,
                           env={**os.environ, "PYTHONPATH": SRC}, timeout=60, check=False)
    assert r.returncode == 2
    assert b"cannot write to standard output: No space left on device" in r.stderr
    assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr


def test_closed_stdout_and_an_ascii_locale_do_not_fail():
    r = subprocess.run(f"{sys.executable} -m gradcli run - >&-", shell=True,
                       input='print("h\u00e9llo \u2713")\n'.encode(), capture_output=True,
                       env={**os.environ, "PYTHONPATH": SRC}, timeout=60, check=False)
    assert (r.returncode, r.stderr) == (0, b"")
    r = sh("run", "-", "--format", "plain", input='print("h\u00e9llo \u2713")\n'.encode(),
           env={"PYTHONIOENCODING": "ascii"})
    assert r.returncode == 0 and r.stdout.startswith(b"h\\xe9llo \\u2713\n")


def test_ctrl_c_stops_a_long_matmul_at_once():
    import signal
    import time

    src = "a = ones(2500, 2500)\nfor i in range(40):\n    b = a @ a\n"
    p = subprocess.Popen(with_default_sigint([sys.executable, "-m", "gradcli", "run", "-e", src]),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, "PYTHONPATH": SRC})
    time.sleep(1.5)
    start = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and b"Traceback" not in err
    assert time.monotonic() - start < 2.0  # 9 s before: Python waited for BLAS


def test_dot_output_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    import errno

    from gradcli.render import dot

    target = tmp_path / "g.dot"
    target.write_text("the old file\n")
    calls = []

    def full_disk(fd, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return min(len(data), 16)

    monkeypatch.setattr(dot.os, "write", full_disk)
    r = invoke("dot", str(SAMPLES / "chain_rule.grad"), "-o", str(target))
    assert r.exit_code == 2 and len(calls) == 2
    assert "cannot write" in r.stderr and "No space left on device" in r.stderr
    assert "wrote" not in r.stderr
    assert target.read_text() == "the old file\n" and os.listdir(tmp_path) == ["g.dot"]
    monkeypatch.undo()
    r = invoke("dot", str(SAMPLES / "chain_rule.grad"), "-o", str(target))
    assert r.exit_code == 0 and target.read_text().startswith("digraph")
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- tables at 80 columns, PyTorch's number format, colours ---------------------------------------
LONG = """a_long_parameter_name = param([[1.0], [2.0], [3.0]])
weights = param([[1e-7, 2.5e-8], [3.0, 4.0]])
small = param([1.3713e-07, 2.0e-9])
hidden_state_after_tanh = tanh(weights @ weights)
loss = (hidden_state_after_tanh.sum() + a_long_parameter_name.sum()) * small.sum()
loss.backward()
"""


def _rich(kind: str, *args, width: int = 80) -> str:
    import io

    from gradcli.render import rich as table

    con = table.console(color=False)
    con.file, con.width = io.StringIO(), width
    getattr(table, kind)(con, *args)
    return con.file.getvalue()


@pytest.mark.parametrize("width", [80, 120])
def test_rich_tables_never_cut_names_shapes_or_grad_fn(width):
    r = pipeline.run(LONG, record=True)
    text = _rich("run", views.bindings_view(r), width=width)
    for word in ("a_long_parameter_name", "hidden_state_after_tanh", "(3, 1)", "(2, 2)",
                 "TanhBackward0", "MulBackward0", "req_grad"):
        assert word in text, (word, text)
    assert "…" not in text and max(map(len, text.splitlines())) <= width
    graph = _rich("graph", views.graph_view(r, _out(r, "loss")), width=width)
    for word in ("a_long_parameter_name", "hidden_state_after_tanh", "TanhBackward0", "(3, 1)"):
        assert word in graph, (word, graph)
    assert "…" not in graph and max(map(len, graph.splitlines())) <= width


def test_a_column_vector_is_previewed_as_rows_not_one_line_with_an_ellipsis():
    r = pipeline.run("v = param([[1.0], [2.0], [3.0]])\ny = v * 2\n", record=True)
    graph = _rich("graph", views.graph_view(r, _out(r, "y")))
    lines = graph.splitlines()
    first = next(i for i, line in enumerate(lines) if "[[1.]," in line)
    column = lines[first].index("[[1.],")
    assert lines[first + 1][column:column + 6] == " [2.],"
    assert lines[first + 2][column:column + 6] == " [3.]]"
    assert "…" not in graph


def test_small_values_print_as_pytorch_prints_them():
    r = pipeline.run(LONG)
    listing = plain.run(views.bindings_view(r))
    assert "[1.3713e-07, 2.0000e-09]" in listing and "1.1130e-06" in listing
    assert "[[1.], [2.], [3.]]" in listing
    assert "1.3713e-07" in _rich("run", views.bindings_view(r), width=120)


def test_no_color_means_no_styles_at_all():
    src = "a = param([1.0, 2.0])\nb = (a * a).sum()\nb.backward()\n"
    styled = sh("graph", "-", "--format", "rich", input=src.encode(), env={"FORCE_COLOR": "1"})
    assert b"\x1b[1m" in styled.stdout  # the control: bold is there without NO_COLOR
    r = sh("graph", "-", "--format", "rich", input=src.encode(),
           env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert r.returncode == 0 and b"\x1b[" not in r.stdout and b"\x1b[" not in r.stderr


def test_saved_tensor_styles_read_the_right_way_round():
    from gradcli.render import rich as table

    src = ("a = param([1.0, 2.0])\nb = a * a\nb.sum().backward()\n"
           "c = a.sin()\nwith no_grad():\n    a += 1\n")
    r = pipeline.run(src, record=True)
    nodes = {n.name: n for n in views.graph_view(r, _out(r, "c")).nodes}
    assert nodes["b"].saved[0].freed and not nodes["b"].saved[0].stale
    assert nodes["c"].saved[0].stale and not nodes["c"].saved[0].freed
    freed, stale = table._saved_text(nodes["b"].saved), table._saved_text(nodes["c"].saved)
    assert {str(s.style) for s in freed.spans} == {table.SAVED_FREED}
    assert {str(s.style) for s in stale.spans} == {table.SAVED_STALE}
    assert "red" not in table.SAVED_FREED and "red" in table.SAVED_STALE
    assert "self (modified)" in plain.graph(views.graph_view(r, _out(r, "c")))


def test_a_rich_diagnostic_does_not_load_a_syntax_highlighter():
    code = ("import sys\nfrom gradcli.launch import main\nsys.argv = ['gradcli', 'run', '-e', "
            "'x = tnah(1)', '--format', 'rich']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'pygments' not in sys.modules, 'pygments'\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": SRC}, check=False)
    assert r.returncode == 0, r.stderr
    assert b"x = tnah(1)" in r.stderr and b"did you mean 'tanh'?" in r.stderr


# -- check ---------------------------------------------------------------------------------------
def test_check_shows_the_worst_elements_of_a_mismatch():
    # the whole script re-run: finite differences go through the detach() autograd cuts
    r = invoke("check", str(SAMPLES / "detach.grad"), "--wrt", "x", "--rerun", "--format",
               "plain")
    assert r.exit_code == 4
    assert "worst elements:\nwrt  index  analytic      numeric       abs_err\n" \
           "x    [0]    3.000000e+00  5.000000e+00  2.000e+00\n" in r.stdout
    assert "detach(), no_grad or requires_grad=False" in r.stderr
    doc = json.loads(invoke("check", str(SAMPLES / "detach.grad"), "--wrt", "x", "--rerun",
                            "--format", "json").stdout)
    worst = doc["wrt"]["x"]["worst"][0]
    assert worst["index"] == [0] and worst["analytic"] == 3.0
    assert worst["numeric"] == pytest.approx(5.0)


def test_a_large_sum_is_not_a_false_mismatch():
    """Rounding in f grows with |f|: the step and the tolerance follow it (900 elements, f
    about 1e4: a MISMATCH before)."""
    src = "w = randn(30, 30, requires_grad=True)\nL = (w * w * w).sum() * 100\n"
    r = invoke("check", "-e", src, "--wrt", "w", "--format", "json", "--max-evals", "200")
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and doc["ok"], doc


def test_check_work_is_bounded_and_spread():
    from gradcli import gradcheck

    assert gradcheck.budget([10_000], 2_000) == [1_000]
    assert gradcheck.budget([3, 10_000, 10_000], 2_000) == [3, 498, 499]
    assert gradcheck.spread(10, 4).tolist() == [0, 3, 6, 9]
    src = "w = randn(50, 50, requires_grad=True)\nL = (w.tanh() * w).sum()\n"
    r = invoke("check", "-e", src, "--wrt", "w", "--max-evals", "40", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and doc["wrt"]["w"]["checked"] == 20
    assert "checked 20 of 2,500 elements of w, evenly spread" in r.stderr
    assert invoke("check", "-e", src, "--wrt", "w", "--max-evals", "1").exit_code == 2


def test_check_parses_the_script_once(monkeypatch):
    from gradcli.language import parser

    calls = []
    real = parser.parse
    monkeypatch.setattr(pipeline, "parse", lambda *a, **k: calls.append(1) or real(*a, **k))
    r = invoke("check", "-e", "w = [1.0, 2.0, 3.0]\nL = (w * w).sum()\n", "--wrt", "w")
    assert r.exit_code == 0 and len(calls) == 1


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_full_values_are_each_elements_number_nested_as_lists(dtype):
    """``grad``'s tensors in full: each element as ``plain.number`` writes it (float32 by its
    shortest form), nested like a Python list, for every shape and special value."""
    rng = np.random.default_rng(3)
    spread = rng.standard_normal((4, 3, 5)) * 10.0 ** rng.integers(-30, 30, (4, 3, 5))
    spread.flat[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.1, 123456789.0]
    with np.errstate(over="ignore"):
        cases = [spread.astype(dtype), np.asarray(-0.0, dtype), np.zeros((2, 0), dtype),
                 np.asarray([[0.5], [2.0]], dtype)]

    def nested(a):
        return (plain.number(a, dtype) if a.ndim == 0 else
                "[" + ", ".join(nested(row) for row in a) + "]")

    for a in cases:
        assert plain.full(a, dtype) == nested(a)
    assert plain.full(np.array([[True, False]]), "bool") == "[[True, False]]"
    assert plain.full(np.arange(3), "int64") == "[0, 1, 2]"


WIDE = """a_parameter_with_a_really_quite_long_name_0 = param([1.0, 2.0])
another_parameter_with_a_rather_long_name_1 = param([3.0, 4.0])
y = a_parameter_with_a_really_quite_long_name_0 * another_parameter_with_a_rather_long_name_1
y.mul_(2)
loss = sigmoid(y).sum()
loss.backward()
"""


@pytest.mark.parametrize("width", [60, 80])
def test_a_table_too_wide_even_without_values_cuts_names_and_drops_whole_columns(width):
    r = pipeline.run(WIDE, record=True)
    graph = _rich("graph", views.graph_view(r, _out(r, "loss")), width=width)
    lines = graph.splitlines()
    assert max(map(len, lines)) <= width, graph
    header = lines[1].split()
    # ids, ops, inputs and shapes are never squeezed: Rich would cut every column to a few cells
    assert header[:2] == ["id", "name"] and "inputs" in header and "shape" in header, graph
    for word in ("MulBackward0", "SigmoidBackward0", "SumBackward0", "(2,)", "0,1"):
        assert word in graph, (word, graph)
    # the long names are cut in the middle (head and tail kept), and the note says so
    assert "a_param" in graph and "_name_0" in graph, graph
    assert "a_parameter_with_a_really_quite_long_name_0" not in graph, graph
    if width == 80:  # room for the flags and saved tensors, wrapped at their words
        assert "req_grad" in graph and "result" in graph, graph
    note = next(line for line in lines if line.startswith("left out at"))
    assert f"left out at {width} columns: values" in note and "long names cut" in " ".join(lines)
    narrowest = _rich("graph", views.graph_view(r, _out(r, "loss")), width=40)
    assert max(map(len, narrowest.splitlines())) <= 40, narrowest
    plain_listing = _rich("graph", views.graph_view(r, _out(r, "loss")), width=200)
    assert "a_parameter_with_a_really_quite_long_name_0" in plain_listing
    assert "left out" not in plain_listing
