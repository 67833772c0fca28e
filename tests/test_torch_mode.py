"""PyTorch-program mode (SPEC §7): when a script is one, what it may import, its namespace,
its default dtype, and what ``gradcli run`` prints for it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli import pipeline
from gradcli.cli import app
from gradcli.errors import ScriptSyntaxError


def run(source: str, filename: str = "prog.py", **kw):
    out: list[str] = []
    result = pipeline.run(source, filename=filename, on_print=out.append, **kw)
    return result, "".join(out)


@pytest.mark.parametrize(("source", "filename", "mode"), [
    ("x = 1\n", "prog.py", "torch"),
    ("x = 1\n", "prog.grad", "grad"),
    ("import torch\nx = 1\n", "<eval>", "torch"),
    ("from torch import nn\nx = 1\n", "s.grad", "torch"),
    ("'''A docstring.'''\nimport math\nimport torch.nn.functional as F\n", "<stdin>", "torch"),
    ("import math\nx = 1\n", "s.grad", "grad"),
    ("x = 1\nimport torch\n", "s.grad", "grad"),
])
def test_which_scripts_are_pytorch_programs(source: str, filename: str, mode: str) -> None:
    result, _ = run(source, filename)
    assert result.mode == mode and result.error is None


def test_literals_are_python_values_and_the_default_dtype_is_float32() -> None:
    result, out = run("import torch\nx = 2\ny = [1.5, 2]\nt = torch.tensor([1.0, 2.0])\n"
                      "print(type(x), y, t.sum())\n")
    assert result.error is None
    assert result.bindings["x"] == 2 and result.bindings["y"] == [1.5, 2]
    assert result.bindings["t"].backend.dtype_name == "float32"
    assert out.startswith("<class 'int'> [1.5, 2]")
    grad = pipeline.run("x = 2", filename="s.grad")
    assert grad.bindings["x"].backend.dtype_name == "float64"  # a grad script's leaf
    forced = pipeline.run("import torch\nt = torch.ones(2)\n", filename="p.py", dtype="float64")
    assert forced.bindings["t"].backend.dtype_name == "float64"


def test_bare_builtins_are_not_there_in_a_pytorch_program() -> None:
    for name in ("tanh", "param", "seed", "load", "grad", "no_grad"):
        result, _ = run(f"import torch\ny = {name}\n")
        assert result.error.kind == "NameError", name
        assert result.error.message == f"name '{name}' is not defined"


@pytest.mark.parametrize(("source", "kind", "message"), [
    ("import pandas as pd\n", "ImportError", "gradcli does not support importing 'pandas'"),
    ("import torch.utils.checkpoint\n", "ImportError",
     "gradcli does not support torch.utils.checkpoint yet"),
    ("from os import path\n", "ImportError", "gradcli does not support importing 'os'"),
    ("from torch import frobnicate\n", "ImportError",
     "cannot import name 'frobnicate' from 'torch'"),
    ("from torch import fft\n", "NotImplementedError", "gradcli does not support torch.fft yet"),
    ("def f():\n    import pandas\n", "ImportError", "gradcli does not support importing 'pandas'"),
])
def test_imports_gradcli_lacks_are_refused_before_anything_runs(source: str, kind: str,
                                                               message: str) -> None:
    with pytest.raises(ScriptSyntaxError) as info:
        pipeline.run("print('never')\n" + source, filename="prog.py")
    err = info.value
    assert (err.kind, err.message) == (kind, message)
    assert err.span.line == 2 or source.startswith("def")
    if err.kind == "ImportError" and "importing" in message:
        assert "torch.nn.functional" in err.hint and "math" in err.hint


def test_supported_imports_bind_the_modules() -> None:
    source = ("import torch\nimport torch.nn.functional as F\nfrom torch import nn, optim\n"
              "import torch.nn as nn2\nfrom torch.autograd import grad\nimport math\n"
              "from math import pi, sqrt as root\nfrom torch.autograd.functional import *\n"
              "print(F is torch.nn.functional, nn is nn2, grad is torch.autograd.grad,\n"
              "      root(16.0), pi == math.pi, torch.nn.functional.relu is F.relu)\n")
    result, out = run(source)
    assert result.error is None and out == "True True True 4.0 True True\n"


def test_torch_version_is_the_reproduced_pytorchs() -> None:
    """Tutorials start with print(torch.__version__); the dunder names that reach the
    interpreter's internals do not lex."""
    result, out = run("import torch\nprint(torch.__version__)\n")
    assert result.error is None and out == "2.13.0+cpu\n"
    with pytest.raises(ScriptSyntaxError, match="gradcli does not give scripts '__dict__'"):
        run("import torch\nprint(torch.__dict__)\n")


@pytest.mark.parametrize(("expr", "kind", "message", "hint"), [
    ("torch.frobnicate", "AttributeError", "module 'torch' has no attribute 'frobnicate'", None),
    ("torch.tanhh", "AttributeError", "module 'torch' has no attribute 'tanhh'",
     "did you mean 'tanh'?"),
    ("torch.nn.functional.rellu", "AttributeError",
     "module 'torch.nn.functional' has no attribute 'rellu'", "did you mean 'relu'?"),
    ("torch.fft", "NotImplementedError", "gradcli does not support torch.fft yet", None),
    ("torch.ones(2).frobnicate", "AttributeError", "'Tensor' object has no attribute 'frobnicate'",
     None),
    ("torch.ones(2).stft", "NotImplementedError", "gradcli does not support Tensor.stft yet",
     None),
    ("math.factorial(5)", "NotImplementedError", "gradcli does not support math.factorial yet",
     None),
])
def test_unknown_names_in_modules(expr: str, kind: str, message: str, hint: str | None) -> None:
    result, _ = run(f"import torch\nimport math\ny = {expr}\n")
    err = result.error
    assert (err.kind, err.message, err.span.line) == (kind, message, 3)
    if hint:
        assert err.hint == hint


def test_devices_cpu_only_with_pytorchs_cpu_build_message() -> None:
    ok = ("import torch\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
          "x = torch.ones(2, device=device).to(device).cpu()\n"
          "print(device, repr(device), x.device, x.is_cuda, torch.zeros(1, device='cpu'))\n")
    result, out = run(ok)
    assert result.error is None
    assert out == "cpu device(type='cpu') cpu False tensor([0.])\n"
    for bad in ("torch.ones(2, device='cuda')", "torch.ones(2).cuda()",
                "torch.ones(2).to('cuda:0')", "torch.randn(2, device=torch.device('cuda'))"):
        result, _ = run(f"import torch\nx = {bad}\n")
        assert (result.error.kind, result.error.message) == \
            ("AssertionError", "Torch not compiled with CUDA enabled"), bad
    result, _ = run("import torch\nx = torch.device('gpu')\n")
    assert result.error.message.startswith("Expected one of cpu, cuda,")


def test_grad_mode_objects_as_context_managers_and_decorators() -> None:
    source = """import torch
x = torch.tensor(2.0, requires_grad=True)
@torch.no_grad()
def f(t):
    return t * 2
@torch.no_grad
def g(t):
    return t * 3
@torch.enable_grad()
def h(t):
    return t * 4
print(f(x).requires_grad, g(x).requires_grad, torch.is_grad_enabled())
with torch.no_grad():
    print(h(x).requires_grad, (x * 5).requires_grad)
prev = torch.set_grad_enabled(False)
print((x * 6).requires_grad)
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print((x * 7).requires_grad)
print((x * 8).requires_grad, f)
"""
    result, out = run(source)
    assert result.error is None
    lines = out.splitlines()
    assert lines[:5] == ["False False True", "True False", "False", "False",
                         lines[4]]
    assert lines[4].startswith("True <function f at 0x7f")


def test_autograd_errors_can_be_caught_and_printed() -> None:
    source = """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("caught:", str(e).split(".")[0])
try:
    (x * 2).backward()
except RuntimeError as e:
    print(type(e).__name__, e)
"""
    result, out = run(source)
    assert result.error is None
    assert out.splitlines() == [
        ("caught: Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed)"),
        "RuntimeError grad can be implicitly created only for scalar outputs"]


def test_tensor_attribute_assignment() -> None:
    source = """import torch
x = torch.tensor([1.0, 2.0])
x.requires_grad = True
y = (x ** 2).sum()
y.backward()
print(x.grad)
x.grad = None
print(x.grad, x.is_leaf)
x.requires_grad = False
print(x.requires_grad)
"""
    result, out = run(source)
    assert result.error is None and out == "tensor([2., 4.])\nNone True\nFalse\n"
    for bad, kind, message in [
        ("y.requires_grad = False", "RuntimeError", ("you can only change requires_grad flags of "
         "leaf variables. If you want to use a computed variable in a subgraph that doesn't "
         "require differentiation use var_no_grad = var.detach().")),
        ("x.requires_grad = 1", "RuntimeError", "requires_grad must be a bool"),
        ("x.grad = 3", "TypeError", ("assigned grad expected to be a Tensor or None but got grad "
         "of type int")),
        ("x.foo = 1", "NotImplementedError", ("gradcli does not support new attributes on "
         "tensors ('foo')")),
    ]:
        result, _ = run("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n" + bad)
        assert (result.error.kind, result.error.message) == (kind, message), bad


def test_iterating_a_tensor_gives_its_rows() -> None:
    result, out = run("import torch\nx = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\n"
                      "for row in x:\n    print(row)\na, b = x[0]\nprint(a, b, len(x))\n")
    assert result.error is None
    assert out == "tensor([1., 2.])\ntensor([3., 4.])\ntensor(1.) tensor(2.) 2\n"
    result, _ = run("import torch\nfor v in torch.tensor(1.0):\n    pass\n")
    assert (result.error.kind, result.error.message) == ("TypeError", ("iteration over a 0-d "
                                                                      "tensor"))


def test_tensor_format_specs_follow_tensor_format() -> None:
    result, out = run("import torch\nx = torch.tensor(3.14159, requires_grad=True)\n"
                      "print(f'{x:.2f} {x} {x!r:>30}', '{:.1f}'.format(x * 2), '%.3f' % x)\n")
    assert result.error is None
    # a 0-d tensor formats as its item, even with an empty spec (Tensor.__format__)
    assert out == "3.14 3.141590118408203 tensor(3.1416, requires_grad=True) 6.3 3.142\n"
    result, _ = run("import torch\ns = f'{torch.ones(2):.2f}'\n")
    assert (result.error.kind, result.error.message) == \
        ("TypeError", "unsupported format string passed to Tensor.__format__")


def test_wrt_and_set_in_a_pytorch_program() -> None:
    source = "import torch\nw = torch.tensor(2.0)\nn = 3\nL = w ** n\n"
    result = pipeline.run(source, filename="p.py", wrt=["w"], overrides={"w": 5, "n": 2})
    assert result.error is None
    assert result.bindings["n"] == 2 and result.bindings["w"].item() == 5.0
    assert result.bindings["w"].requires_grad  # --wrt marks the tensor bound to w
    assert result.grad("L", ["w"])[0].item() == 10.0


def test_run_prints_only_what_python_prints() -> None:
    runner = CliRunner()
    source = "import torch\nx = torch.ones(2)\nprint(x.sum(), end='')\nprint('!')\n"
    out = runner.invoke(app, ["run", "-e", source, "--format", "plain"])
    assert out.exit_code == 0 and out.stdout == "tensor(2.)!\n"
    grad_script = runner.invoke(app, ["run", "-e", "x = 1\nprint(x)", "--format", "plain"])
    assert "name" in grad_script.stdout.splitlines()[1]  # a grad script's bindings table
    doc = json.loads(runner.invoke(app, ["run", "-e", source, "--format", "json"]).stdout)
    assert doc["prints"] == ["tensor(2.)", "!"] and doc["bindings"]["x"]["dtype"] == "float32"
    assert doc["bindings"]["torch"] == {"type": "module", "value": "<module 'torch'>"}


def test_a_leafs_accumulategrad_lives_while_held_and_keeps_its_hooks() -> None:
    """The node holds the leaf, the leaf its node only weakly (no cycle), as in PyTorch: the
    same AccumulateGrad while the graph or a name holds it, and a hook registered before any op
    is still run (printed as PyTorch 2.13 prints it)."""
    result, out = run(
        "import torch\nw = torch.ones(2, requires_grad=True)\n"
        "w.register_hook(lambda g: print('hook', g))\n"
        "a = (w * 2).grad_fn.next_functions[0][0]\n"
        "b = (w * 3).grad_fn.next_functions[0][0]\n"
        "print(a is b, a.variable is w)\n(w * 4).sum().backward()\nprint(w.grad)\n")
    assert result.error is None
    assert out == "True True\nhook tensor([4., 4.])\ntensor([4., 4.])\n"


def test_print_options_are_the_runs_own() -> None:
    """torch.set_printoptions changes the rest of its run only: the next run, in this thread
    or another, prints with PyTorch's defaults."""
    import threading

    _, out = run("import torch\ntorch.set_printoptions(precision=1, sci_mode=True)\n"
                 "print(torch.tensor([1.25, 2.0]))\n")
    assert out == "tensor([1.2e+00, 2.0e+00])\n"
    seen: list[str] = []
    thread = threading.Thread(target=lambda: seen.append(
        run("import torch\nprint(torch.tensor([1.25, 2.0]))\n")[1]))
    thread.start()
    thread.join()
    assert seen == ["tensor([1.2500, 2.0000])\n"]
    assert run("import torch\nprint(torch.tensor([1.25, 2.0]))\n")[1] == "tensor([1.2500, 2.0000])\n"


@pytest.mark.parametrize(("options", "use", "kind", "message"), [
    ("precision=-1", 's = f"{x}"', "ValueError", "Format specifier missing precision"),
    ("threshold='x'", 'print("%s" % [x])', "TypeError",
     "'>' not supported between instances of 'int' and 'str'"),
])
def test_print_options_pytorch_cannot_use_fail_where_the_tensor_prints(options, use, kind,
                                                                       message) -> None:
    """PyTorch stores any option and fails when a tensor prints: Python's error, at that line."""
    result, _ = run(f"import torch\nx = torch.tensor([1.5, 2.0])\ntorch.set_printoptions({options})\n"
                    f"{use}\n")
    err = result.error
    assert err is not None and err.kind == kind and err.message == message
    assert err.exit_code == 1 and err.span.line == 4


def test_or_and_return_their_last_operand_untested():
    """``None or t`` is t without bool(t) (a tensor of several values has no truth value)."""
    result, out = run("import torch\nt = torch.tensor([1.0, 2.0])\nprint(None or t)\n"
                      "print(t is not None and t)\nprint(0 or 1 and t)\n")
    assert result.error is None
    assert out == "tensor([1., 2.])\n" * 3


@pytest.mark.parametrize(("call", "kind", "message"), [
    ("torch.reshape(torch.ones(2), -1)", "TypeError",
     "reshape(): argument 'shape' (position 2) must be tuple of ints, not int"),
    ("torch.view(torch.ones(2), -1)", "AttributeError", "module 'torch' has no attribute 'view'"),
])
def test_torch_functions_take_pytorchs_signatures(call, kind, message):
    result, _ = run(f"import torch\ny = {call}\n")
    assert (result.error.kind, result.error.message) == (kind, message)
    result, out = run("import torch\nprint(torch.reshape(torch.ones(2, 3), (3, 2)).shape)\n")
    assert out == "torch.Size([3, 2])\n"


def test_the_torch_module_has_only_pytorchs_names():
    from gradcli.api import namespace
    from gradcli.api.torch_names import NAMES

    assert not set(namespace._torch()) - NAMES["torch"]


# a tensor's operators give an operand they refuse to Python (PyTorch 2.13's messages)
_UNSUPPORTED = "unsupported operand type(s) for {}: '{}' and '{}'"
OPERAND_ERRORS = [
    *[(f"t {op} None", _UNSUPPORTED.format(op, "Tensor", "NoneType"))
      for op in ("+", "-", "*", "/", "//", "%", "@", "&", "|", "^", "<<", ">>")],
    *[(f"None {op} t", _UNSUPPORTED.format(op, "NoneType", "Tensor"))
      for op in ("+", "-", "*", "/", "//", "%", "@")],
    ("t ** None", _UNSUPPORTED.format("** or pow()", "Tensor", "NoneType")),
    ("None ** t", _UNSUPPORTED.format("** or pow()", "NoneType", "Tensor")),
    ("i * None", _UNSUPPORTED.format("*", "Tensor", "NoneType")),
    ("t + [1.0]", _UNSUPPORTED.format("+", "Tensor", "list")),
    ("t + {}", _UNSUPPORTED.format("+", "Tensor", "dict")),
    ("t - 'a'", _UNSUPPORTED.format("-", "Tensor", "str")),
    ("t @ 2", _UNSUPPORTED.format("@", "Tensor", "int")),
    ("t * print", _UNSUPPORTED.format("*", "Tensor", "builtin_function_or_method")),
    ("t + (lambda: 1)", _UNSUPPORTED.format("+", "Tensor", "function")),
    ("[1.0] + t", 'can only concatenate list (not "Tensor") to list'),
    ("'a' + t", 'can only concatenate str (not "Tensor") to str'),
    ("t * 'a'", "only integer tensors of a single element can be converted to an index"),
    ("t * [1]", "only integer tensors of a single element can be converted to an index"),
    ("t < None", "'<' not supported between instances of 'Tensor' and 'NoneType'"),
    *[(f"u {op}= None", _UNSUPPORTED.format(op + "=", "Tensor", "NoneType"))
      for op in ("+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>")],
]


@pytest.mark.parametrize(("code", "message"), OPERAND_ERRORS)
def test_operands_a_tensor_refuses_are_pythons_errors(code, message):
    result, _ = run(f"import torch\nt = torch.tensor([1.0, 2.0])\ni = torch.tensor([1, 2])\n"
                    f"u = t.clone()\n{code}\n")
    assert (result.error.kind, result.error.message) == ("TypeError", message)
    assert result.error.span.line == 5


def test_operands_python_completes_after_a_tensor_gives_up():
    """A one-element integer tensor is an index: ``t * [1]`` repeats the list, as in PyTorch;
    ``t == None`` is False."""
    result, out = run("import torch\nn = torch.tensor(2)\nprint(n * [1], [0] * n, "
                      "torch.ones(2) == None, torch.ones(2) != None)\n")
    assert result.error is None and out == "[1, 1] [0, 0] False True\n"


def test_inplace_methods_and_functions_are_pytorchs():
    """Each Tensor function of the op table has its in-place method where PyTorch has one, and
    torch.<name>_ is there for every in-place method PyTorch also has as a function."""
    from gradcli.api import namespace
    from gradcli.api.torch_names import NAMES
    from gradcli.engine import OPS, Tensor

    table = {op.name + "_" for op in OPS.values() if "Tensor" in op.surface}
    ours = {n for n in dir(Tensor) if n.endswith("_") and not n.startswith("_")}
    assert table & NAMES["torch.Tensor"] <= ours
    assert ours <= NAMES["torch.Tensor"]
    functions = {n for n in namespace._torch() if n.endswith("_") and not n.startswith("_")}
    assert {n for n in NAMES["torch"] if n in ours} <= functions


def test_sign_is_pytorchs_kernel():
    """(0 < a) - (a < 0): NaN and -0.0 give 0, a bool tensor is itself (PyTorch 2.13's output)."""
    result, out = run("import torch\nprint(torch.sign(torch.tensor([True, False])), "
                      "torch.sign(torch.tensor([-3, 0, 2])), torch.sign(torch.tensor("
                      "[float('nan'), -0.0, 0.0, -2.0])).tolist())\n")
    assert result.error is None
    assert out == "tensor([ True, False]) tensor([-1,  0,  1]) [0.0, 0.0, 0.0, -1.0]\n"


# what torch.tensor says of ragged and odd data (PyTorch 2.13's messages)
@pytest.mark.parametrize(("data", "kind", "message"), [
    ("[1.0, [2.0, 3.0]]", "TypeError", "must be real number, not list"),
    ("[[1, 2], 3]", "TypeError", "not a sequence"),
    ("[[1, 2], [3]]", "ValueError", "expected sequence of length 2 at dim 1 (got 1)"),
    ("[[[1]], [2]]", "TypeError", "not a sequence"),
    ("[[1, [2]], [3, 4]]", "TypeError", "'list' object cannot be interpreted as an integer"),
    ("[[1], []]", "ValueError", "expected sequence of length 1 at dim 1 (got 0)"),
    ("[1, 'a']", "TypeError", "new(): invalid data type 'str'"),
])
def test_tensor_data_errors_are_pytorchs(data, kind, message):
    result, _ = run(f"import torch\nt = torch.tensor({data})\n")
    assert (result.error.kind, result.error.message) == (kind, message)


def test_an_empty_dimension_reads_nothing_past_it():
    result, out = run("import torch\nprint(torch.tensor([[], [1]]).shape, torch.tensor([[]]))\n")
    assert result.error is None
    assert out == "torch.Size([2, 0]) tensor([], size=(1, 0))\n"


# PyTorch 2.13's answers for the elementwise ops on a bool tensor (its CPU kernels refuse some)
BOOL_OPS = "import torch\nb = torch.tensor([True, False])\nfor n in ['trunc', 'floor', 'ceil', 'round', 'frac', 'fix', 'neg', 'abs', 'sign', 'sqrt', 'exp', 'relu', 'sigmoid']:\n    try:\n        r = getattr(torch, n)(b)\n        print(n, 'OK', r)\n    except Exception as e:\n        print(n, type(e).__name__, e)\n"
BOOL_OPS_OUTPUT = 'trunc NotImplementedError "trunc_vml_cpu" not implemented for \'Bool\'\nfloor NotImplementedError "floor_vml_cpu" not implemented for \'Bool\'\nceil NotImplementedError "ceil_vml_cpu" not implemented for \'Bool\'\nround NotImplementedError "round_vml_cpu" not implemented for \'Bool\'\nfrac NotImplementedError "frac_cpu" not implemented for \'Bool\'\nfix NotImplementedError "trunc_vml_cpu" not implemented for \'Bool\'\nneg RuntimeError Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.\nabs NotImplementedError "abs_cpu" not implemented for \'Bool\'\nsign OK tensor([ True, False])\nsqrt OK tensor([1., 0.])\nexp OK tensor([2.7183, 1.0000])\nrelu RuntimeError Boolean inputs not supported for relu\nsigmoid OK tensor([0.7311, 0.5000])\n'


def test_elementwise_ops_on_bool_tensors_answer_as_pytorch():
    result, out = run(BOOL_OPS)
    assert result.error is None
    assert out == BOOL_OPS_OUTPUT


def test_a_warning_shows_once_per_line_that_raises_it() -> None:
    """Python's default filter: a loop reading a non-leaf's .grad warns once for that line;
    another line warns again."""
    result, _ = run("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"
                      "for i in range(3):\n    g = y.grad\ng = y.grad\n")
    assert result.error is None
    assert [(w.kind, w.span.line) for w in result.warnings] == [("UserWarning", 5),
                                                                ("UserWarning", 6)]
    assert result.warnings[0].message.startswith("The .grad attribute of a Tensor that is not")


@pytest.mark.parametrize(("line", "span"), [
    # the innermost call or operator that raised, as Python 3.11's traceback marks it
    ("print(torch.linalg.norm(B, 2))", (4, 7, 4, 30)),
    ("print(B.sum(torch.zeros(3) @ B))", (4, 13, 4, 31)),
    ("y = torch.tanh(B) + torch.ones(3) @ B", (4, 21, 4, 38)),
    ("B @ B", (4, 1, 4, 6)),
])
def test_an_error_in_a_nested_call_is_located_at_that_call(line: str, span: tuple) -> None:
    result = pipeline.run(f"import torch\nB = torch.ones(2, 3)\nx = 1\n{line}\n",
                          filename="prog.py")
    assert result.error is not None and result.error.kind == "RuntimeError"
    assert tuple(result.error.span) == span


def test_call_sites_are_the_call_expressions() -> None:
    """The "called from" notes mark the call itself, as Python's traceback does: a class made
    inside a function called inside a binary operation after a builtin's callback."""
    source = ("import torch\n\nclass M:\n    def __init__(self, n):\n"
              "        self.w = torch.ones(n) @ torch.ones(2, 3)\n\n"
              "def make(n):\n    return M(n)\n\n"
              "y = [1, 2]\nz = sorted(y, key=lambda v: v) + [make(3)]\n")
    err = pipeline.run(source, filename="prog.py").error
    assert tuple(err.span) == (5, 18, 5, 50)
    assert [tuple(s) for s in err.calls] == [(11, 35, 11, 42), (8, 12, 8, 16)]


def test_add_and_sub_take_alpha_as_atens_add_kernel() -> None:
    """``add``/``sub`` (functions, methods, in place) with ``alpha``: ``a + alpha * b`` rounded
    once (ATen's add kernel fuses it; a multiply then an add would round twice), AddBackward0
    and SubBackward0 with other's gradient times alpha, integers in integer arithmetic, and
    PyTorch's checks of alpha (messages recorded from PyTorch 2.13)."""
    from fractions import Fraction

    source = (
        "import torch\n"
        "a = torch.tensor([1.0, -0.5369532108306885, 3.0], requires_grad=True)\n"
        "b = torch.tensor([1e-8, 0.581118106842041, -2.0], requires_grad=True)\n"
        "y = torch.add(a, b, alpha=0.7)\n"
        "z = a.sub(b, alpha=3)\n"
        "(y + z).sum().backward()\n"
        "i = torch.arange(4)\n"
        "j = i.add(i, alpha=3)\n"
        "w = torch.zeros(2, 3)\n"
        "w.add_(torch.ones(3), alpha=-0.5)\n"
        "w.sub_(1.5, alpha=2)\n"
        "msgs = []\n"
        "for f in (lambda: i.add(i, alpha=0.5), lambda: a.add(b, alpha=True)):\n"
        "    try:\n"
        "        f()\n"
        "    except RuntimeError as e:\n"
        "        msgs.append(str(e))\n")
    result, _ = run(source)
    assert result.error is None, result.error
    get = result.bindings.get
    y, a, b = get("y").data, get("a").data, get("b").data
    alpha = np.float32(0.7)
    for k in range(3):
        exact = Fraction(float(a[k])) + Fraction(float(alpha)) * Fraction(float(b[k]))
        assert y[k] == np.float32(float(exact))  # one rounding
    assert y[1] != a[1] + alpha * b[1]  # (where two roundings differ)
    assert get("y").grad_fn.name() == "AddBackward0" and get("z").grad_fn.name() == "SubBackward0"
    assert get("a").grad.data.tolist() == [2.0, 2.0, 2.0]
    assert get("b").grad.data.tolist() == pytest.approx([0.7 - 3] * 3)
    assert get("j").data.tolist() == [0, 4, 8, 12] and get("j").data.dtype == np.int64
    assert get("w").data.tolist() == [[-3.5] * 3] * 2
    assert get("msgs") == [
        "For integral input tensors, argument alpha must not be a floating point number.",
        "Boolean alpha only supported for Boolean results."]
