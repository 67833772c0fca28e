"""The compiler: the program dataclasses it builds, their spans, and the static checks."""

from __future__ import annotations

import dataclasses

import pytest

from gradcli.language import program as P
from gradcli.errors import ScriptSyntaxError, Span
from gradcli.language.parser import parse


def text_at(source: str, span: Span) -> str:
    """The source text a span covers."""
    lines = source.split("\n")
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    first = lines[span.line - 1][span.column - 1 :]
    middle = lines[span.line : span.end_line - 1]
    last = lines[span.end_line - 1][: span.end_column - 1]
    return "\n".join([first, *middle, last])


def rejected(text: str) -> ScriptSyntaxError:
    with pytest.raises(ScriptSyntaxError) as info:
        parse(text)
    return info.value


# ---- the dataclasses --------------------------------------------------------------------------

NODES = [
    P.Number, P.String, P.Name, P.ListExpr, P.Unary, P.Binary, P.Compare, P.BoolOp, P.Call,
    P.Attribute, P.Slice, P.Subscript, P.Assign, P.AugAssign, P.ExprStmt, P.For, P.While, P.Break, P.Continue, P.If, P.With,
    P.FunctionDef, P.Return, P.Pass,
]  # fmt: skip


@pytest.mark.parametrize("cls", NODES)
def test_nodes_are_frozen_slotted_with_a_span(cls: type) -> None:
    params = cls.__dataclass_params__
    assert params.frozen and "__slots__" in vars(cls)
    assert [f.name for f in dataclasses.fields(cls)][-1] == "span"
    assert cls.__doc__ and "\n" not in cls.__doc__.strip()


def test_field_lists() -> None:
    def names(cls: type) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    assert names(P.Call) == ["func", "args", "kwargs", "span"]
    assert names(P.Assign) == ["target", "value", "literal", "span"]
    assert names(P.For) == ["var", "args", "body", "span"]
    assert names(P.If) == ["branches", "orelse", "span"]
    assert names(P.Program) == ["body", "source", "filename"]


def test_program_is_immutable() -> None:
    prog = parse("x = 1\n", "a.grad")
    with pytest.raises(dataclasses.FrozenInstanceError):
        prog.body[0].target = "y"  # type: ignore[misc]
    assert prog.filename == "a.grad" and prog.source == "x = 1\n"


def test_call_arguments_in_order() -> None:
    (stmt,) = parse("y = f(a, 2, dim=0, keepdim=True)\n").body
    call = stmt.value
    assert [a.id if isinstance(a, P.Name) else a.value for a in call.args] == ["a", 2]
    assert [(k, v.value) for k, v in call.kwargs] == [("dim", 0), ("keepdim", True)]
    assert isinstance(call.args, tuple) and isinstance(call.kwargs, tuple)


def test_method_call_is_call_of_attribute() -> None:
    (stmt,) = parse("L.backward(retain_graph=True)\n").body
    call = stmt.value
    assert isinstance(call, P.Call) and isinstance(call.func, P.Attribute)
    assert (call.func.value.id, call.func.attr) == ("L", "backward")


# ---- spans ------------------------------------------------------------------------------------

SRC = """\
x1 = 1; x2 = [1.0, -2.0]
y = (x1 + x2) * w.grad[0, 1:]
if y > 0 and not z:
    print('hi', y)
else:
    pass
def f(a, b):
    return a @ b
for i in range(3):
    y += f(x1,
           x2)
with no_grad():
    w -= 0.1 * w.grad
"""


def test_spans_cover_whole_nodes() -> None:
    prog = parse(SRC)
    b = prog.body
    at = lambda node: text_at(SRC, node.span)
    assert at(b[0]) == "x1 = 1" and at(b[1]) == "x2 = [1.0, -2.0]"
    assert at(b[1].value.items[1]) == "-2.0"
    assert at(b[2]) == "y = (x1 + x2) * w.grad[0, 1:]"
    mul = b[2].value
    assert at(mul) == "(x1 + x2) * w.grad[0, 1:]"
    assert at(mul.left) == "(x1 + x2)"  # parentheses belong to the node they group
    assert at(mul.right) == "w.grad[0, 1:]" and at(mul.right.value) == "w.grad"
    assert at(mul.right.index[1]) == "1:"
    cond = b[3]
    assert at(cond).startswith("if y > 0") and at(cond).endswith("pass")
    assert at(cond.branches[0][0]) == "y > 0 and not z"
    assert at(cond.branches[0][0].values[1]) == "not z"
    assert at(cond.branches[0][1][0]) == "print('hi', y)"
    assert at(b[4]) == "def f(a, b):\n    return a @ b"
    assert at(b[4].body[0]) == "return a @ b"
    loop = b[5]
    assert at(loop.body[0]) == "y += f(x1,\n           x2)"
    assert (loop.span.line, loop.span.end_line) == (9, 11)
    assert at(b[6].context) == "no_grad()"
    assert at(b[6].body[0]) == "w -= 0.1 * w.grad"


def test_names_point_at_their_text() -> None:
    prog = parse(SRC)
    seen = []

    def walk(node: object) -> None:
        if isinstance(node, P.Name):
            assert text_at(SRC, node.span) == node.id
            seen.append(node.id)
        if dataclasses.is_dataclass(node):
            for f in dataclasses.fields(node):
                walk(getattr(node, f.name))
        elif isinstance(node, tuple):
            for item in node:
                walk(item)

    walk(prog.body)
    assert {"x1", "x2", "w", "print", "f", "no_grad"} <= set(seen)  # For keeps only range args


# ---- static checks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "return 1\n",
        "return\n",
        "if x:\n    return 1\n",
        "for i in range(2):\n    pass\nelse_ = 1\nwith no_grad():\n    return\n",
        "for i in range(2):\n    if i:\n        pass\n    else:\n        return i\n",
    ],
)
def test_return_outside_function(text: str) -> None:
    assert rejected(text).message == "'return' outside function"


def test_return_inside_functions_is_fine() -> None:
    src = "def f(x):\n    if x:\n        return 1\n    for i in range(2):\n        return i\n"
    src += "    def g():\n        return\n    return g\n"
    (f,) = parse(src).body
    assert isinstance(f, P.FunctionDef) and isinstance(f.body[-1], P.Return)


def test_duplicate_parameters() -> None:
    err = rejected("def f(a, b, a):\n    pass\n")
    assert err.message == "duplicate argument 'a' in function definition"
    assert (err.span.line, err.span.column) == (1, 13)


def test_default_parameter_values() -> None:
    (f,) = parse("def f(a, b=1, c=2 * 3):\n  pass\n").body
    assert f.params == ("a", "b", "c") and len(f.defaults) == 2
    err = rejected("def f(a=1, b):\n  pass\n")
    assert err.message == "non-default argument follows default argument"
    assert (err.span.line, err.span.column) == (1, 12)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("for i in x:", "for loops iterate over range(...) only"),
        ("for i in [1, 2]:", "for loops iterate over range(...) only"),
        ("for i in x.range(3):", "for loops iterate over range(...) only"),
        ("for i in range:", "for loops iterate over range(...) only"),
        ("for i in range():", "range() in a for loop takes 1 to 3 positional arguments"),
        ("for i in range(1, 2, 3, 4):", "range() in a for loop takes 1 to 3 positional arguments"),
        ("for i in range(stop=3):", "range() in a for loop takes 1 to 3 positional arguments"),
    ],
)
def test_for_loops_need_range(header: str, message: str) -> None:
    err = rejected(header + "\n    pass\n")
    assert err.message == message
    assert (err.span.line, err.span.column) == (1, 10)


def test_for_range_arguments() -> None:
    (loop,) = parse("for k in range(n, 2 * n, -1):\n    pass\n").body
    assert loop.var == "k" and len(loop.args) == 3 and isinstance(loop.args[2], P.Unary)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("with x:", "'with' supports only no_grad() and enable_grad()"),
        ("with no_grad:", "'with' supports only no_grad() and enable_grad()"),
        ("with torch.no_grad():", "'with' supports only no_grad() and enable_grad()"),
        ("with open('f'):", "'with' supports only no_grad() and enable_grad()"),
        ("with no_grad(1):", "no_grad() takes no arguments"),
        ("with enable_grad(mode=True):", "enable_grad() takes no arguments"),
    ],
)
def test_with_contexts(header: str, message: str) -> None:
    err = rejected(header + "\n    pass\n")
    assert err.message == message and err.span.column == 6


def test_keyword_arguments() -> None:
    err = rejected("y = sum(x, dim=0, dim=1)\n")
    assert err.message == "keyword argument repeated: dim"
    assert (err.span.line, err.span.column) == (1, 19)
    err = rejected("y = f(a=1, b)\n")
    assert err.message == "positional argument follows keyword argument"
    assert err.span.column == 12


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("True = 1\n", "cannot assign to True"),
        ("False = 1\n", "cannot assign to False"),
        ("None += 1\n", "cannot assign to None"),
        ("1 = x\n", "invalid assignment target"),
        ("x.grad += 1\n", "invalid assignment target"),
    ],
)
def test_assignment_targets(text: str, message: str) -> None:
    assert rejected(text).message == message


def test_builtin_names_are_not_resolved_here() -> None:
    (stmt,) = parse("y = no_such_function(q)\n").body
    assert stmt.value.func.id == "no_such_function"
