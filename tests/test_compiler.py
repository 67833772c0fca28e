"""The compiler: the program dataclasses it builds, their spans, and the static checks."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from gradcli.errors import ScriptSyntaxError, Span
from gradcli.language import program as P
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
    P.CallUnpack, P.Attribute, P.Slice, P.Subscript, P.Tuple, P.Starred, P.DictExpr, P.SetExpr,
    P.CompFor, P.Comprehension, P.Params, P.Lambda, P.FormattedValue, P.FString, P.IfExp,
    P.Assign, P.AssignTo, P.AugAssign, P.AugAssignTo, P.ExprStmt, P.For, P.While, P.Break,
    P.Continue, P.If, P.With, P.FunctionDef, P.Return, P.Pass, P.Handler, P.Try, P.Raise,
    P.Assert, P.Delete, P.Global, P.Import, P.ImportFrom, P.ClassDef, P.Annotation, P.SuperCall,
]  # fmt: skip


@pytest.mark.parametrize("cls", NODES)
def test_nodes_are_frozen_slotted_with_a_span(cls: type) -> None:
    names = list(cls.__match_args__)
    assert names[-1] == "span" and "__slots__" in vars(cls)
    assert cls.__doc__ and "\n" not in cls.__doc__.strip()
    node = cls(*range(len(names)))
    for name in names:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(node, name, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(node, name)
    with pytest.raises(AttributeError):
        node.extra = 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("cls", NODES)
def test_nodes_behave_as_frozen_dataclasses(cls: type) -> None:
    """Values, repr, equality, hash, copy and pickle as dataclass(frozen=True) gives them."""
    names = list(cls.__match_args__)
    ref = dataclasses.make_dataclass(cls.__name__, names, frozen=True, slots=True)
    values = [(i, f"v{i}") for i in range(len(names))]
    node, same, other = cls(*values), cls(*values), cls(*values[:-1], (9, "x"))
    assert [getattr(node, n) for n in names] == values
    assert repr(node) == repr(ref(*values))
    assert node == same and hash(node) == hash(same) and node != other
    assert node != ref(*values) and node != tuple(values)
    assert copy.copy(node) == node and copy.deepcopy(node) == node
    assert pickle.loads(pickle.dumps(node)) == node
    with pytest.raises(TypeError):
        cls(*values, 0)


def test_field_lists() -> None:
    def names(cls: type) -> list[str]:
        return list(cls.__match_args__)

    assert names(P.Call) == ["func", "args", "kwargs", "span"]
    assert names(P.Assign) == ["target", "value", "literal", "span"]
    assert names(P.For) == ["target", "iter", "body", "orelse", "span"]
    assert names(P.FunctionDef) == ["name", "params", "body", "decorators", "span"]
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
        if isinstance(node, P._Node):
            for f in node.__match_args__:
                walk(getattr(node, f))
        elif isinstance(node, tuple):
            for item in node:
                walk(item)

    walk(prog.body)
    assert {"x1", "x2", "w", "print", "f", "no_grad", "i", "range"} <= set(seen)


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
    assert f.params.names == ("a", "b", "c") and len(f.params.defaults) == 2
    err = rejected("def f(a=1, b):\n  pass\n")
    assert err.message == "non-default argument follows default argument"
    assert (err.span.line, err.span.column) == (1, 12)


def test_star_parameters_and_keyword_only() -> None:
    (f,) = parse("def f(a, b=1, *rest, k, m=2, **kw) -> int:\n  pass\n").body
    p = f.params
    assert (p.names, p.vararg, p.kwonly, p.kwarg) == (("a", "b"), "rest", ("k", "m"), "kw")
    assert p.kw_defaults[0] is None and p.kw_defaults[1].value == 2
    (g,) = parse("def g(*, k):\n  pass\n").body
    assert g.params.vararg is None and g.params.kwonly == ("k",)


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("def f(*): pass\n", "named arguments must follow bare *", 7),
        ("def f(**k, a): pass\n", "arguments cannot follow var-keyword argument", 12),
        ("def f(*a, *b): pass\n", "* argument may appear only once", 11),
        ("lambda *: 1\n", "named arguments must follow bare *", 8),
        ("lambda a, a: 1\n", "duplicate argument 'a' in function definition", 11),
    ],
)
def test_parameter_errors_are_cpythons(text: str, message: str, column: int) -> None:
    err = rejected(text)
    assert err.message == message and err.span.column == column


def test_for_loops_take_any_iterable_and_targets() -> None:
    (loop,) = parse("for i, (x, *y) in enumerate(zip(a, b)):\n    pass\nelse:\n    z = 1\n").body
    assert isinstance(loop.target, P.Tuple) and isinstance(loop.target.items[1], P.Tuple)
    assert isinstance(loop.target.items[1].items[1], P.Starred)
    assert isinstance(loop.iter, P.Call) and loop.orelse[0].target == "z"
    assert rejected("for f() in x:\n    pass\n").message == "cannot assign to function call"


def test_with_takes_any_context_and_a_target() -> None:
    (w,) = parse("with torch.no_grad() as g, enable_grad():\n    pass\n").body
    assert isinstance(w.context, P.Call) and w.target.id == "g"
    inner = w.body[0]
    assert isinstance(inner, P.With) and inner.target is None


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
        ("None += 1\n", "'None' is an illegal expression for augmented assignment"),
        ("1 = x\n", "cannot assign to literal here. Maybe you meant '==' instead of '='?"),
        ("f() = 1\n", ("cannot assign to function call here. Maybe you meant '==' instead of "
         "'='?")),
        ("a + b = 1\n", "cannot assign to expression here. Maybe you meant '==' instead of '='?"),
        ("x < y = 1\n", "cannot assign to comparison"),
        ("lambda: 1 = 2\n", "cannot assign to lambda"),
        ("(a for a in b) = 1\n", "cannot assign to generator expression"),
        ("[x for x in y] = 1\n", ("cannot assign to list comprehension here. Maybe you meant '==' "
         "instead of '='?")),
        ("*a = 1\n", "starred assignment target must be in a list or tuple"),
        ("a, *b, *c = x\n", "multiple starred expressions in assignment"),
        ("a, b += 1\n", "'tuple' is an illegal expression for augmented assignment"),
        ("f() += 1\n", "'function call' is an illegal expression for augmented assignment"),
        ("del f()\n", "cannot delete function call"),
        ("del 1\n", "cannot delete literal"),
        ("(a, b): int = 1\n", "only single target (not tuple) can be annotated"),
        ("x = *a\n", "can't use starred expression here"),
    ],
)
def test_assignment_targets(text: str, message: str) -> None:
    assert rejected(text).message == message


def test_assignment_forms() -> None:
    a, b, c, d, e, note, f = parse("a = b = 1\nx, y = 1, 2\nx.grad = None\nx[0] += 1\n"
                                   "w.data -= g\nn: int = 3\n").body
    assert isinstance(a, P.AssignTo) and [t.id for t in a.targets] == ["a", "b"] and a.literal
    assert isinstance(b, P.AssignTo) and isinstance(b.targets[0], P.Tuple) and not b.literal
    assert isinstance(c.targets[0], P.Attribute) and c.targets[0].attr == "grad"
    assert isinstance(d, P.AugAssignTo) and isinstance(d.target, P.Subscript) and d.op == "+"
    assert isinstance(e, P.AugAssignTo) and e.op == "-"
    assert isinstance(f, P.Assign) and f.target == "n" and f.literal
    # the annotation is a statement of its own (a class body keeps it: dataclasses read it)
    assert isinstance(note, P.Annotation) and note.target == "n" and note.annotation.id == "int"
    (alone,) = parse("m: float\n").body
    assert isinstance(alone, P.Annotation) and alone.target == "m"
    (attr,) = parse("x.y: int = 1\n").body  # only a simple name's annotation is kept
    assert isinstance(attr, P.AssignTo)


def test_calls_with_unpacking() -> None:
    (s,) = parse("f(a, *b, k=1, **kw)\n").body
    call = s.value
    assert isinstance(call, P.CallUnpack) and isinstance(call.args[1], P.Starred)
    assert [k for k, _ in call.kwargs] == ["k", None]
    assert rejected("f(**k, *a)\n").message == ("iterable argument unpacking follows keyword "
                                                "argument unpacking")
    assert rejected("f(**k, b)\n").message == ("positional argument follows keyword argument "
                                               "unpacking")
    assert rejected("f(x for x in y, 1)\n").message == "Generator expression must be parenthesized"
    (g,) = parse("sum(x * x for x in xs if x)\n").body
    assert g.value.args[0].kind == "gen" and len(g.value.args[0].generators[0].ifs) == 1


def test_try_except_forms() -> None:
    (t,) = parse("try:\n  a\nexcept (A, B) as e:\n  b\nexcept C:\n  c\nexcept:\n  d\n"
                 "else:\n  e\nfinally:\n  f\n").body
    assert [h.name for h in t.handlers] == ["e", None, None] and t.handlers[2].type is None
    assert t.orelse[0].value.id == "e" and t.finalbody[0].value.id == "f"
    err = rejected("try:\n pass\nexcept:\n pass\nexcept E:\n pass\n")
    assert err.message == "default 'except:' must be last" and err.span.line == 3


def test_imports() -> None:
    a, b = parse("import torch.nn.functional as F, math\nfrom torch.autograd import (grad,\n"
                 "    Variable as V)\n").body
    assert a.names == (("torch.nn.functional", "F"), ("math", None))
    assert b.module == "torch.autograd" and b.names == (("grad", None), ("Variable", "V"))
    assert (b.span.line, b.span.end_line) == (2, 3)


def test_global_after_assignment() -> None:
    assert rejected("def f():\n  x = 1\n  global x\n").message == \
        "name 'x' is assigned to before global declaration"


def test_builtin_names_are_not_resolved_here() -> None:
    (stmt,) = parse("y = no_such_function(q)\n").body
    assert stmt.value.func.id == "no_such_function"
