"""torch.nn modules in PyTorch programs: odd uses end in a positioned error of the script's, never
an internal one; what the modules print and compute is held to PyTorch by tools/engine_cases.py
(``nn_*``) and the corpus programs ``*_nn_*``."""

from __future__ import annotations

import pytest

from gradcli import pipeline
from gradcli.errors import ScriptError

PRELUDE = ("import torch\nfrom torch import nn\ntorch.manual_seed(0)\nx = torch.ones(2, 2)\n"
           "m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n")


def run(line: str):
    out: list[str] = []
    result = pipeline.run(PRELUDE + line + "\n", filename="prog.py", on_print=out.append)
    return result, "".join(out)


@pytest.mark.parametrize(("line", "kind"), [
    ("nn.Linear(2, 3)(5)", "TypeError"),
    ("nn.Sequential(1)", "TypeError"),
    ("m['a']", "TypeError"),
    ("len(nn.Linear(2, 2))", "TypeError"),
    ("for q in nn.Linear(2, 2): pass", "TypeError"),
    ("nn.Linear(-1, 2)", "RuntimeError"),
    ("nn.Linear(2.5, 2)", "TypeError"),
    ("nn.MSELoss(foo=1)", "TypeError"),
    ("nn.CrossEntropyLoss(None, None, -100, None, 'mean', 0.0, 1)", "TypeError"),
    ("m.train('yes')", "ValueError"),
    ("m.to('cuda')", "AssertionError"),
    ("m(x, x)", "TypeError"),
    ("m(inp=x)", "TypeError"),
    ("nn.Module()(x)", "NotImplementedError"),
    ("m[5]", "IndexError"),
    ("m[0] = 3", "TypeError"),
    ("m[0].weight = torch.ones(2, 2)", "TypeError"),
    ("m.foo = 3", "NotImplementedError"),
    ("m.share_memory()", "NotImplementedError"),
    ("m.load_state_dict(3)", "TypeError"),
    ("m.load_state_dict({'x': 1})", "RuntimeError"),
    ("m.register_buffer('a.b', x)", "KeyError"),
    ("m.add_module('0', 3)", "TypeError"),
    ("nn.ModuleList([1])", "TypeError"),
    ("nn.ModuleList()[0]", "IndexError"),
    ("nn.ModuleDict()['k']", "KeyError"),
    ("nn.ParameterList()(x)", "RuntimeError"),
    ("nn.Conv3d(1, 2, 3)", "NotImplementedError"),
    ("nn.init.trunc_normal_(x)", "NotImplementedError"),
    ("nn.init.xavier_uniform_(torch.ones(3))", "ValueError"),
    ("nn.init.kaiming_uniform_(x, mode='fan_avg')", "ValueError"),
    ("nn.init.calculate_gain('leaky_relu', 'a')", "ValueError"),
    ("m[0].wieght", "AttributeError"),
    ("nn.Linear(2, 2)(x.double())", "RuntimeError"),
    ("nn.BCELoss()(torch.tensor([0.5]), torch.tensor([2.0]))", "RuntimeError"),
    ("torch.optim.SGD(m, lr=0.1)", "TypeError"),
])
def test_misuse_is_a_script_error(line: str, kind: str) -> None:
    result, _ = run(line)
    assert isinstance(result.error, ScriptError)
    assert result.error.kind == kind, result.error.message
    assert result.error.span is not None and result.error.span.line == 6


def test_unsupported_names_say_so() -> None:
    result, _ = run("m.share_memory()")
    assert result.error.message == "gradcli does not support Sequential.share_memory yet"
    result, _ = run("nn.Transformer(2, 1)")
    assert result.error.message == "gradcli does not support torch.nn.Transformer yet"


def test_a_misspelt_attribute_suggests_the_real_one() -> None:
    result, _ = run("m[0].wieght")
    assert result.error.hint == "did you mean 'weight'?"


def test_classes_are_the_scripts_types() -> None:
    result, out = run("print(type(m) is nn.Sequential, isinstance(m[0], nn.Module), "
                      "type(m[1]) is nn.Linear, nn.Linear)")
    assert result.error is None
    assert out == "True True False <class 'torch.nn.modules.linear.Linear'>\n"
