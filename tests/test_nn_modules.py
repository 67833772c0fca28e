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
    ("torch.optim.AdamW(m.parameters(), betas=(1.0, 0.9))", "ValueError"),
    ("torch.optim.RMSprop(m.parameters(), lr=-1.0)", "ValueError"),
    ("torch.optim.RMSprop(m.parameters(), capturable=True)", "NotImplementedError"),
    ("torch.optim.Adagrad(m.parameters(), lr_decay=-1)", "ValueError"),
    ("torch.optim.Adagrad(m.parameters(), fused=True)", "NotImplementedError"),
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


@pytest.mark.parametrize(("line", "message"), [  # PyTorch 2.13's messages
    ("torch.optim.AdamW(m.parameters(), lr=-0.5)", "Invalid learning rate: -0.5"),
    ("torch.optim.RMSprop(m.parameters(), alpha=-1.0)", "Invalid alpha value: -1.0"),
    ("torch.optim.RMSprop(m.parameters(), eps=-1.0, momentum=-1.0)", "Invalid epsilon value: -1.0"),
    ("torch.optim.RMSprop(m.parameters(), momentum=-1.0)", "Invalid momentum value: -1.0"),
    ("torch.optim.Adagrad(m.parameters(), weight_decay=-1)", "Invalid weight_decay value: -1"),
    ("torch.optim.Adagrad(m.parameters(), initial_accumulator_value=-1.0)",
     "Invalid initial_accumulator_value value: -1.0"),
])
def test_optimizer_arguments_are_checked_as_pytorch_checks_them(line: str, message: str) -> None:
    result, _ = run(line)
    assert result.error.kind == "ValueError"
    assert result.error.message == message


def test_adagrad_makes_its_state_with_the_optimizer_and_adamw_decays() -> None:
    """What PyTorch 2.13 prints (Adagrad's __init__ fills every parameter's state; AdamW's
    default weight decay is 0.01; RMSprop's states in its order, square_avg bumped twice)."""
    result, out = run(
        "opt = torch.optim.Adagrad(m.parameters(), initial_accumulator_value=0.5)\n"
        "print(len(opt.state), opt.state[m[0].bias])\n"
        "opt = torch.optim.RMSprop(m.parameters(), momentum=0.5, centered=True)\n"
        "m(x).sum().backward()\nopt.step()\n"
        "print(list(opt.state[m[0].bias]), opt.state[m[0].bias]['square_avg']._version)\n"
        "print(type(torch.optim.AdamW(m.parameters())).__name__, "
        "torch.optim.AdamW(m.parameters()).defaults['weight_decay'])")
    assert result.error is None
    assert out == ("2 {'step': tensor(0.), 'sum': tensor([0.5000, 0.5000])}\n"
                   "['step', 'square_avg', 'momentum_buffer', 'grad_avg'] 2\n"
                   "AdamW 0.01\n")


def test_isinstance_takes_the_optimizer_classes() -> None:
    """``isinstance(opt, torch.optim.Optimizer)`` (and a tuple with one) as Python answers it
    for PyTorch's classes; what is not a class still raises Python's TypeError."""
    result, out = run(
        "opt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
        "print(isinstance(opt, torch.optim.Optimizer), isinstance(opt, torch.optim.SGD), "
        "isinstance(opt, (torch.optim.Adam, int)), isinstance(3, torch.optim.Optimizer))")
    assert result.error is None
    assert out == "True True False False\n"
    result, _ = run("isinstance(m, torch.optim)")
    assert result.error.kind == "TypeError"


def test_a_misspelt_attribute_suggests_the_real_one() -> None:
    result, _ = run("m[0].wieght")
    assert result.error.hint == "did you mean 'weight'?"


def test_classes_are_the_scripts_types() -> None:
    result, out = run("print(type(m) is nn.Sequential, isinstance(m[0], nn.Module), "
                      "type(m[1]) is nn.Linear, nn.Linear)")
    assert result.error is None
    assert out == "True True False <class 'torch.nn.modules.linear.Linear'>\n"
