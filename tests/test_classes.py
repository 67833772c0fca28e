"""Classes in scripts: the sandbox around them, custom autograd Functions in gradcli's views
(graph, dot, explain, trace), and what only gradcli has to say about them.

What classes, nn.Module subclasses and custom Functions compute and print is held to CPython
by tests/test_python_subset.py (tests/python/classes.py, dataclass_programs.py and the error
snippets) and to PyTorch by the corpus (tests/corpus/: the tutorials' Polynomial3,
LegendrePolynomial3, LinearFunction, the double-backward tutorial, module hooks, nanoGPT's
config, the error programs).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gradcli import cli, pipeline
from gradcli.analysis.trace import Tracer
from gradcli.errors import ScriptError, ScriptSyntaxError

runner = CliRunner()

RELU = """import torch


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * (x > 0).float()


w = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
h = MyReLU.apply(w * 2)
L = (h * h).sum()
"""


def run(source: str, **kw):
    out: list[str] = []
    result = pipeline.run(source, filename="prog.py", on_print=out.append, **kw)
    return result, "".join(out)


# ---- the sandbox -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("source", "name"), [
    ("class A:\n    pass\nx = A().__class__", "__class__"),
    ("class A:\n    pass\nx = A.__bases__", "__bases__"),
    ("class A:\n    pass\nx = A.__mro__", "__mro__"),
    ("x = object.__subclasses__()", "__subclasses__"),
    ("def f():\n    pass\nx = f.__globals__", "__globals__"),
    ("def f():\n    pass\nx = f.__code__", "__code__"),
    ("class A:\n    def m(self):\n        return self.m.__func__\nA().m()", "__func__"),
    ("x = __builtins__", "__builtins__"),
    ("class A:\n    pass\nx = vars(A()).__dict__", "__dict__"),
])
def test_names_that_reach_the_interpreter_do_not_lex(source: str, name: str) -> None:
    with pytest.raises(ScriptSyntaxError) as info:
        run(source)
    assert info.value.message == (f"gradcli does not give scripts '{name}': it reaches the "
                                  "interpreter's internals")


@pytest.mark.parametrize(("source", "kind", "message"), [
    ("class A:\n    pass\nx = getattr(A(), '__class__')", "AttributeError",
     "gradcli does not give scripts '__class__': it reaches the interpreter's internals"),
    ("class A:\n    pass\nsetattr(A, '__bases__', ())", "AttributeError",
     "gradcli does not give scripts '__bases__': it reaches the interpreter's internals"),
    ("class A:\n    pass\nx = hasattr(A, '__subclasses__')", "AttributeError",
     "gradcli does not give scripts '__subclasses__': it reaches the interpreter's internals"),
    ("class A:\n    pass\ndelattr(A(), '__dict__')", "AttributeError",
     "gradcli does not give scripts '__dict__': it reaches the interpreter's internals"),
    ("x = '{0.__class__.__mro__}'.format(1)", "AttributeError",
     "gradcli does not give scripts '__class__': it reaches the interpreter's internals"),
    ("x = type('A', (object,), {'f': 1})", "NotImplementedError",
     "gradcli does not make classes with type(name, bases, dict): write a class statement"),
    ("class A(type):\n    pass", "NotImplementedError",
     "gradcli does not support subclassing 'type'"),
    ("class A(int):\n    pass", "NotImplementedError",
     "gradcli does not support subclassing 'int'"),
    ("class A(metaclass=3):\n    pass", "NotImplementedError",
     "gradcli does not support class keywords ('metaclass=')"),
    ("class A:\n    def f(self):\n        return getattr(super(), '__self__')\nA().f()",
     "AttributeError",
     "gradcli does not give scripts '__self__': it reaches the interpreter's internals"),
])
def test_the_same_names_asked_for_at_run_time_are_refused(source: str, kind: str,
                                                          message: str) -> None:
    result, _ = run(source)
    assert isinstance(result.error, ScriptError)
    assert (result.error.kind, result.error.message) == (kind, message)


def test_a_modules_machinery_is_not_replaced_by_a_script() -> None:
    result, _ = run("import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n"
                    "        super().__init__()\n        self._parameters = {}\nM()")
    assert result.error.kind == "NotImplementedError"
    assert result.error.message == "gradcli does not let a script replace nn.Module's " \
        "'_parameters'"


def test_an_object_of_a_script_never_hands_the_interpreter_over() -> None:
    """A script's object whose attribute is named like gradcli's own markers is called as
    Python calls an object, never with the interpreter."""
    result, out = run("class A:\n    def __call__(self, *args):\n        return len(args)\n"
                      "a = A()\na.needs_interpreter = True\na.script_repr = 5\n"
                      "print(a(1, 2), str(a)[:11])")
    assert result.error is None and out == "2 <__main__.A\n"


# ---- custom Functions in the views -----------------------------------------------------------------
def test_graph_lists_the_custom_node_its_op_and_what_it_saved() -> None:
    res = runner.invoke(cli.app, ["graph", "-", "--format", "json"], input=RELU.replace(
        "import torch", "import torch", 1))
    doc = json.loads(res.stdout)
    node = next(n for n in doc["nodes"] if n["name"] == "h")
    assert (node["op"], node["grad_fn"]) == ("MyReLU", "MyReLUBackward")
    assert node["saved"] == [{"name": "saved_tensors[0]", "freed": False}]


def test_dot_draws_the_custom_node_and_its_saved_tensor() -> None:
    res = runner.invoke(cli.app, ["dot", "-", "--backward", "--show-saved"],
                        input=RELU + "L.backward()\n")
    assert res.exit_code == 0
    assert "<B>MyReLUBackward</B>" in res.stdout and "saved_tensors&#91;0&#93;" in res.stdout


def test_explain_names_the_function_on_its_edge_and_its_line() -> None:
    res = runner.invoke(cli.app, ["explain", "-", "--wrt", "w", "--of", "L", "--format",
                                  "json"], input=RELU)
    doc = json.loads(res.stdout)
    assert doc["grad"] == [0.0, 16.0, 24.0]
    edges = [e for p in doc["paths"] for e in p["edges"] if e["grad_fn"] == "MyReLUBackward"]
    assert edges and {(e["op"], e["line"]) for e in edges} == {("MyReLU", 17)}


def test_explain_carries_a_gradient_through_one_output_of_several() -> None:
    src = ("import torch\nclass Two(torch.autograd.Function):\n    @staticmethod\n"
           "    def forward(ctx, x):\n        return x * 2, x * 3\n    @staticmethod\n"
           "    def backward(ctx, ga, gb):\n        return ga * 2 + gb * 3\n"
           "w = torch.tensor([1.0, 2.0], requires_grad=True)\na, b = Two.apply(w)\n"
           "L = (a * b).sum()\n")
    res = runner.invoke(cli.app, ["explain", "-", "--wrt", "w", "--format", "json"], input=src)
    doc = json.loads(res.stdout)
    assert doc["grad"] == [12.0, 24.0] and doc["paths_total"] == 2
    contributions = sorted(p["contribution"] for p in doc["paths"])
    assert contributions == [[6.0, 12.0], [6.0, 12.0]]


def test_trace_shows_the_custom_node_and_the_ops_of_its_backward_at_their_lines() -> None:
    tracer = Tracer()
    result = pipeline.run(RELU + "L.backward()\n", filename="prog.py", record=True,
                          tracer=tracer)
    events = tracer.finish(result).events
    saves = [e for e in events if e.kind == "save" and e.grad_fn == "MyReLUBackward"]
    assert saves and saves[0].line == 17
    frees = [e for e in events if e.kind == "free" and e.grad_fn == "MyReLUBackward"]
    assert frees and frees[0].line == 19
    inside = [e.line for e in events if e.kind == "op" and e.phase == "backward"]
    assert inside and set(inside) == {13}  # the ops of MyReLU.backward, at its own line


def test_grad_and_check_run_the_functions_backward() -> None:
    res = runner.invoke(cli.app, ["grad", "-", "--wrt", "w", "--of", "L", "--format", "plain"],
                        input=RELU)
    assert res.exit_code == 0 and res.stdout.strip() == "dL/dw = [ 0., 16., 24.]"
    res = runner.invoke(cli.app, ["check", "-", "--wrt", "w", "--of", "L", "--format", "json",
                                  "--dtype", "float64"], input=RELU)
    assert json.loads(res.stdout)["ok"] is True


# ---- odds and ends --------------------------------------------------------------------------------
def test_export_refuses_a_class_statement() -> None:
    res = runner.invoke(cli.app, ["export", "-"], input="class A:\n    pass\nx = 1\n")
    assert res.exit_code == 2 and "cannot export a class statement" in res.output


def test_a_grad_script_may_define_classes_too() -> None:
    result = pipeline.run("class Affine:\n    def __init__(self, a):\n        self.a = a\n"
                          "    def __call__(self, x):\n        return self.a * x + 1\n"
                          "w = 3.0\nL = Affine(2.0)(w)\n", wrt=("w",))
    assert result.error is None and [float(g) for g in result.grad("L", ["w"])] == [2.0]


def test_a_method_is_a_call_of_its_own_in_diagnostics() -> None:
    result, _ = run("class A:\n    def f(self, x):\n        return x / 0\nA().f(1)\n")
    err = result.error
    assert (err.kind, err.message, err.span.line) == ("ZeroDivisionError", "division by zero", 3)
    assert [c.line for c in err.calls] == [4]
