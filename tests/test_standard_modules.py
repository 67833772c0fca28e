"""The standard modules of SPEC §7 (script/stdlib/): what CPython running in this process cannot
show (tests/python/standard_modules.py holds the rest to CPython): sys's exit status and argv,
the run's own random generator, the step and size limits inside the modules' functions, and
matplotlib.pyplot accepted and not drawn. Texts are CPython 3.11's and PyTorch 2.13's."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gradcli import cli, pipeline

runner = CliRunner()


def run(source: str, **kw):
    out: list[str] = []
    result = pipeline.run(source, filename="prog.py", on_print=out.append, **kw)
    return result, "".join(out)


def cli_run(tmp_path, source: str, *extra: str):
    path = tmp_path / "prog.py"
    path.write_text(source)
    return runner.invoke(cli.app, ["run", str(path), "--format", "plain", *extra])


# ---- sys ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("call", "code", "stderr"), [
    ("sys.exit()", 0, ""), ("sys.exit(0)", 0, ""), ("sys.exit(3)", 3, ""),
    ("sys.exit(True)", 1, ""), ("sys.exit(-1)", 255, ""), ("sys.exit('bye')", 1, "bye\n"),
    ("raise SystemExit(2)", 2, ""), ("raise SystemExit", 0, ""),
    ("raise SystemExit('no more', 1)", 1, "('no more', 1)\n"),
])
def test_sys_exit_ends_the_run_with_pythons_status(tmp_path, call, code, stderr):
    r = cli_run(tmp_path, f"import sys\nprint('before')\n{call}\nprint('after')\n")
    assert (r.exit_code, r.stdout, r.stderr) == (code, "before\n", stderr)


def test_system_exit_is_caught_by_its_class_not_by_exception(tmp_path):
    src = ("import sys\ntry:\n    sys.exit(4)\nexcept SystemExit as e:\n    print('caught', e)\n"
           "try:\n    sys.exit(5)\nexcept Exception:\n    print('not this')\n")
    r = cli_run(tmp_path, src)
    assert (r.exit_code, r.stdout) == (5, "caught 4\n")


def test_sys_argv_names_the_script_and_belongs_to_the_run():
    src = "import sys\nprint(sys.argv)\nsys.argv.append('x')\nfrom sys import argv\nprint(argv)\n"
    for _ in range(2):  # the second run starts from its own argv
        result, out = run(src)
        assert result.error is None and out == "['prog.py']\n['prog.py', 'x']\n"


@pytest.mark.parametrize(("call", "kind", "message"), [
    ("sys.stdout.write(5)", "TypeError", "write() argument must be str, not int"),
    ("sys.stdout.write()", "TypeError", "TextIOWrapper.write() takes exactly one argument (0 given)"),
    ("sys.exit(1, 2)", "TypeError", "exit expected at most 1 argument, got 2"),
    ("sys.path", "AttributeError", "module 'sys' has no attribute 'path'"),
    ("sys.stdout.fileno()", "AttributeError",
     "'_io.TextIOWrapper' object has no attribute 'fileno'"),
])
def test_sys_has_argv_exit_and_stdout_write_only(call, kind, message):
    result, _ = run(f"import sys\n{call}\n")
    assert (result.error.kind, result.error.message) == (kind, message)


def test_stdout_write_is_the_scripts_output():
    result, out = run("import sys\nn = sys.stdout.write('a\\nb')\nprint('', n)\nsys.stdout.flush()\n")
    assert result.error is None and out == "a\nb 3\n" and result.prints[0] == "a\nb"


# ---- random -------------------------------------------------------------------------------------
def test_random_is_cpythons_generator_per_run():
    import random

    seeded = "import random\nrandom.seed(5)\nprint(random.random())\n"
    unseeded = "import random\nprint(random.random(), random.random())\n"
    _, first = run(unseeded)
    run(seeded)  # another run's seeding leaves the next run's generator alone
    _, again = run(unseeded)
    assert first == again == f"{random.Random(0).random()} {_second(0)}\n"
    _, out = run(unseeded, seed=7)  # an unseeded run starts from the run's seed
    assert out == f"{random.Random(7).random()} {_second(7)}\n"
    _, out = run("import random\nrandom.seed(3)\nrandom.seed()\nprint(random.random())\n")
    assert out == f"{random.Random(0).random()}\n"  # seed() again: the run's seed
    assert run(seeded)[1] == f"{random.Random(5).random()}\n"


def _second(seed: int) -> float:
    import random

    r = random.Random(seed)
    r.random()
    return r.random()


@pytest.mark.parametrize(("call", "kind", "message"), [
    ("random.sample(range(10**7), 2 * 10**6)", "MemoryError",
     "a string or list of 2,000,000 elements is over the limit of 1,000,000"),
    ("random.choices([1], k=10**7)", "MemoryError",
     "a string or list of 10,000,000 elements is over the limit of 1,000,000"),
    ("random.getrandbits(10**6)", "OverflowError",
     "integer too large (over 14,000 bits, about 4,200 digits)"),
    ("random.Random(1, 2)", "TypeError",
     "Random.__init__() takes from 1 to 2 positional arguments but 3 were given"),
    ("random.SystemRandom()", "AttributeError", "module 'random' has no attribute 'SystemRandom'"),
])
def test_random_within_the_limits_and_without_the_system(call, kind, message):
    result, _ = run(f"import random\n{call}\n")
    assert (result.error.kind, result.error.message) == (kind, message)


def test_a_shuffle_counts_a_step_per_item():
    src = "import random\nxs = list(range(5000))\nrandom.shuffle(xs)\n"
    assert run(src, max_steps=20_000)[0].error is None
    assert "step limit" in run(src, max_steps=8_000)[0].error.message


# ---- the limits inside the modules' functions ---------------------------------------------------
@pytest.mark.parametrize("code", [
    "import itertools\nprint(list(itertools.islice(itertools.count(), 10**12, 10**12 + 1)))",
    "import itertools\nfor x in itertools.dropwhile(lambda x: True, itertools.count()):\n    pass",
    "import functools\nfunctools.reduce(lambda a, b: a, range(10**12))",
    "import collections\nc = collections.Counter(x for x in range(10**12))",
    "import functools\n@functools.lru_cache(maxsize=None)\ndef f(n):\n    while n:\n        pass\nf(1)",
])
def test_long_work_inside_a_module_meets_the_step_limit(code):
    result, _ = run(code + "\n", max_steps=2_000)
    assert result.error is not None and "step limit" in result.error.message


@pytest.mark.parametrize("code", [
    "import collections, itertools\nc = collections.Counter()\nc.update(itertools.count())",
    "import collections, itertools\nd = collections.deque()\nd.extend(itertools.repeat(0))",
    "import itertools\nx = itertools.product([1], repeat=10**7)",
])
def test_what_a_module_builds_is_as_large_as_a_list_may_be(code):
    result, _ = run(code + "\n")
    assert result.error.kind == "MemoryError"


def test_a_scripts_function_given_to_a_module_is_called_by_the_interpreter():
    """A reducer's error is the script's, at its line inside the function."""
    src = ("import functools\ndef f(a, b):\n    return a / b\n"
           "print(functools.reduce(f, [1, 2, 0]))\n")
    result, _ = run(src)
    assert (result.error.kind, result.error.message, result.error.span.line) == \
        ("ZeroDivisionError", "float division by zero", 3)


# ---- matplotlib.pyplot --------------------------------------------------------------------------
PLOT = ("import torch\nimport matplotlib.pyplot as plt\nx = torch.linspace(0, 1, 5)\n"
        "fig, ax = plt.subplots()\nline, = ax.plot(x, x * 2)\nax.set_title('t')\n"
        "plt.plot(x, x)\nplt.show()\nprint('after the plot')\n")


def test_pyplot_is_accepted_not_drawn_with_one_note(tmp_path):
    r = cli_run(tmp_path, PLOT)
    assert (r.exit_code, r.stdout) == (0, "after the plot\n")
    assert r.stderr == ("gradcli: note: matplotlib.pyplot is not drawn by gradcli: its calls "
                        "do nothing (the first on line 4)\n")
    assert cli_run(tmp_path, PLOT, "--quiet").stderr == ""


def test_pyplot_refuses_a_tensor_that_requires_grad_as_matplotlib_does():
    src = "import torch\nfrom matplotlib import pyplot as plt\nx = torch.ones(3, requires_grad=True)\n" \
          "plt.plot(x.detach(), x.detach())\nplt.plot(x, x * 2)\n"
    result, _ = run(src)
    assert (result.error.kind, result.error.span.line) == ("RuntimeError", 5)
    assert result.error.message == ("Can't call numpy() on Tensor that requires grad. Use "
                                    "tensor.detach().numpy() instead.")


def test_pyplot_has_pyplots_names_only():
    result, _ = run("import matplotlib.pyplot as plt\nplt.plott([1])\n")
    assert (result.error.kind, result.error.message) == (
        "AttributeError", "module 'matplotlib.pyplot' has no attribute 'plott'")
    assert result.error.hint == "did you mean 'plot'?"


def test_an_import_outside_spec_7_names_what_is_supported():
    with pytest.raises(Exception) as info:
        run("import torch\nimport os\n")
    err = info.value
    assert (err.kind, err.message, err.span.line) == (
        "ImportError", "gradcli does not support importing 'os'", 2)
    for name in ("random", "itertools", "functools", "collections", "typing", "sys", "time",
                 "matplotlib.pyplot"):
        assert name in err.hint


# ---- loading ------------------------------------------------------------------------------------
def test_a_standard_module_is_loaded_when_a_script_first_uses_it():
    import subprocess
    import sys

    probe = ("import sys\nfrom gradcli import pipeline\nfiles = ('random', 'collections', 'pyplot')\n"
             "def loaded():\n    return [f for f in files if f'gradcli.script.stdlib.{f}' in sys.modules]\n"
             "before = loaded()\n"
             "pipeline.run('import torch\\nprint(torch.ones(1))\\n', filename='a.py', on_print=print)\n"
             "middle = loaded()\n"
             "pipeline.run('from collections import Counter\\nprint(Counter(\"aab\"))\\n', "
             "filename='b.py', on_print=print)\n"
             "print(before, middle, loaded())\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[] [] ['collections']"
    assert "Counter({'a': 2, 'b': 1})" in out.stdout
