"""The Python subset against CPython itself: the same text, run by both, prints the same.

A PyTorch program that touches no tensor is plain Python, so CPython (running this test) is
the oracle: every program of tests/python/ and every snippet below runs through ``exec`` and
through gradcli's PyTorch-program mode, and their stdout, and their uncaught error (type,
message, line), must be equal. No PyTorch is needed.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli import pipeline

ROOT = Path(__file__).resolve().parent
PROGRAMS = sorted((ROOT / "python").glob("*.py"))


def cpython(source: str) -> tuple[str, tuple | None]:
    """What CPython prints, and its uncaught error as (type, message, innermost line); NumPy
    beside it for tests/test_numpy.py."""
    out = io.StringIO()
    err = None
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(source, "prog.py", "exec"), {"__name__": "__main__"})  # noqa: S102
        except Exception as exc:  # noqa: BLE001 - the program's error is the answer
            line = None
            tb = exc.__traceback__
            while tb is not None:
                if tb.tb_frame.f_code.co_filename == "prog.py":
                    line = tb.tb_lineno
                tb = tb.tb_next
            message = repr(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
            cls = type(exc)  # a library's class as a traceback names it: numpy.linalg.LinAlgError
            kind = cls.__qualname__ if cls.__module__ in ("builtins", "__main__") else \
                f"{cls.__module__}.{cls.__qualname__}"
            err = (kind, message, line)
    return out.getvalue(), err


def gradcli(source: str) -> tuple[str, tuple | None]:
    """What gradcli prints for the same program, and its error."""
    out: list[str] = []
    result = pipeline.run(source, filename="prog.py", on_print=out.append)
    assert result.mode == "torch"
    e = result.error
    return "".join(out), None if e is None else (e.kind, e.message, e.span.line)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_programs_print_what_cpython_prints(path: Path) -> None:
    source = path.read_text()
    assert gradcli(source) == cpython(source)


SNIPPETS = [
    # unpacking
    "a, b = 1", "a, b = [1, 2, 3]", "a, b, c = [1, 2]", "a, *b, c = [1]", "a, = 1",
    "first, *rest = 'abc'\nprint(first, rest)",
    # indexing and keys
    "x = [1][5]", "x = {}['k']", "x = {}[[1]]", "x = (1, 2)[5]", "x = 'ab'[9]",
    "t = (1, 2)\nt[0] = 3", "s = 'ab'\ns[0] = 'x'", "x = {1: 2}\ndel x[3]", "del undefined",
    "x = [1, 2]\nx[5] = 1", "x = [1, 2]\nx['a'] = 1",
    # operators
    "x = 1 + 'a'", "x = 'a' - 1", "x = None * 2", "x = 0.1 * None", "x = [1] * 'a'",
    "x = 1 / 0", "x = 1 // 0", "x = 1 % 0", "x = 1 < 'a'", "x = -'a'", "x = ~1.5",
    "x = 1\nx += 'a'", "x = []\nx += 5", "x = 2.0 ** 10000", "x = None ** 2",
    "x = 1\nx **= None", "x = 1 + print", "x = [1.0] + (1,)", "x = 'a' + len",
    "print(7 // -2, -7 % 3, 2 ** -2, 3 & 6, 3 | 6, 3 ^ 6, 1 << 3, -16 >> 2, ~0, not 0)",
    # names, calls, functions
    "x = undefined_name", "def f():\n    y = x\n    x = 1\nf()", "def f(a):\n    pass\nf()",
    "def f(a):\n    pass\nf(1, 2)", "def f(a):\n    pass\nf(b=1)", "def f(a, *, k):\n    pass\nf(1)",
    "def f(a):\n    pass\nf(1, a=2)", "x = 5\nx()", "g = lambda: 1 / 0\ng()",
    "def f():\n    return undefined_in_f\nf()", "x = [i / 0 for i in range(3)]",
    "def outer():\n    k = 2\n    return [k * i for i in range(3)]\nprint(outer())",
    "def counter():\n    global n\n    n = n + 1\nn = 0\ncounter()\ncounter()\nprint(n)",
    # built-ins
    "x = len(5)", "x = int('x')", "x = float([1])", "x = iter(5)", "x = max([])", "x = min()",
    "x = sum(['a'], '')", "x = sorted([1, 'a'])", "x = chr(-1)", "x = next(iter([]))",
    "x = dict([1])", "x = {[1]: 2}", "x = {[1]}", "x = range(1.5)", "x = range(1, 2, 0)",
    "x = list(1)", "x = tuple(None)", "for i in 5:\n    pass", "x = isinstance(1, 2)",
    "x = hex(1.5)", "x = round('a')", "x = abs('a')", "x = int(float('inf'))",
    "x = int(float('nan'))", "x = divmod(1, 0)", "x = pow(2, 3, 0)", "print(1, sep=2)",
    "print(1, end=3)", "x = getattr(1, 'nope')",
    # methods
    "x = [].pop()", "x = [1].index(5)", "x = 'abc'.index('z')", "x = 'abc'.join([1])",
    "x = ' '.join(5)", "x = [1].sort(key=5)", "x = (1).foo", "x = [1]\nx.foo",
    "x = [1]\nx.foo = 1", "x = {'a': 1}\nx.items().foo", "d = {}\nd.update(5)",
    "print((7).bit_length(), (2.5).is_integer(), 'a-b'.partition('-'), [3, 1].copy())",
    # formatting
    "x = '%d' % 'a'", "x = '%s %s' % (1,)", "x = '%s' % (1, 2)", "x = '{}{}'.format(1)",
    "x = '{0}{}'.format(1, 2)", "x = '{a}'.format(b=1)", "x = f'{1:zz}'",
    "x = format([1], '>5')", "x = f'{[1]:>4}'", "print(f'{None!r:>6}|{[1, 2]}|{(1,)!s}')",
    # exceptions
    "raise ValueError('bad thing')", "raise KeyError('k')", "raise RuntimeError", "raise 5",
    "raise", "assert 1 == 2, 'nope'", "assert False",
    "try:\n    1 / 0\nexcept ValueError:\n    pass",
    "try:\n    1 / 0\nfinally:\n    print('fin')",
    "try:\n    x = 1\nexcept 5:\n    pass\nraise ValueError",
    "try:\n    raise ValueError('a')\nexcept ValueError as e:\n    raise",
    "try:\n    raise ValueError('a')\nexcept ValueError as e:\n    raise TypeError('b') from e",
    "try:\n    raise ValueError('a')\nexcept ValueError as e:\n    pass\nprint(e)",
    "try:\n    int('x')\nexcept (TypeError, ValueError) as e:\n    print(type(e), e.args)",
    # classes: their errors as CPython words them
    "class A:\n    def f(self, x):\n        pass\nA().f()",
    "class A:\n    def f(self, x):\n        pass\nA().f(1, 2)",
    "class A:\n    def f(self, x):\n        pass\nA().f(y=1)",
    "class A:\n    pass\nA(1)", "class A:\n    pass\nA().x", "class A:\n    pass\nA.x",
    "class B:\n    def __init__(self, n):\n        self.n = n\nB()",
    "class B:\n    def __init__(self, n):\n        self.n = n\nB(1, 2)",
    "class B:\n    def __init__(self, n):\n        self.n = n\nB(m=1)",
    "class B:\n    def __init__(self):\n        return 3\nB()",
    "class P:\n    @property\n    def v(self):\n        return 1\nP().v = 2",
    "class P:\n    @property\n    def v(self):\n        return 1\ndel P().v",
    "class A:\n    pass\nlen(A())", "class A:\n    pass\nA()[0]", "class A:\n    pass\nA()()",
    "class A:\n    pass\niter(A())", "class A:\n    pass\nA()[0] = 1",
    "class A:\n    pass\nx = A() + 1", "class A:\n    pass\nx = 1 + A()",
    "class A:\n    pass\nx = A() < A()", "class A:\n    pass\nx = -A()",
    "class A:\n    pass\nx = 1 in A()", "class A:\n    pass\nfor i in A():\n    pass",
    "class A:\n    pass\ndel A().x",
    "class E:\n    def __eq__(self, o):\n        return True\nx = {E()}",
    "class E:\n    def __eq__(self, o):\n        return True\nx = hash(E())",
    "class R:\n    def __repr__(self):\n        return 1\nx = repr(R())",
    "class R:\n    def __str__(self):\n        return None\nprint(R())",
    "class L:\n    def __len__(self):\n        return -1\nx = len(L())",
    "class L:\n    def __len__(self):\n        return 'a'\nx = len(L())",
    "class T:\n    def __bool__(self):\n        return 1\nx = bool(T())",
    "class I:\n    def __iter__(self):\n        return 1\nx = iter(I())",
    "class S:\n    def f(self):\n        return super().g()\nS().f()",
    "def f():\n    return super()\nf()",
    "class A:\n    def __init__(self):\n        super().__init__(1)\nA()",
    "x = object(1)", "x = object().x", "o = object()\no.x = 1",
    "class A:\n    pass\nx = issubclass(1, A)",
    "class A:\n    pass\nx = issubclass(A, 1)", "class A:\n    pass\nx = super(A, 1)",
    "class X:\n    pass\nclass Y(X):\n    pass\nclass Z(X, Y):\n    pass",
    "class A(object, 3):\n    pass", "class A:\n    pass\nsetattr(A(), 1, 2)",
    "def outer():\n    def inner(a):\n        pass\n    inner()\nouter()",
    "class A:\n    def m(self):\n        def g(a):\n            pass\n        g()\nA().m()",
    "class N:\n    pass\nprint(N.__name__, N().__doc__, type(N()).__name__, N.__doc__)",
    "class N:\n    pass\nx = N().__name__",
    "class M(Exception):\n    pass\nraise M('boom')",
    "class K:\n    x = 1\n    def f(self):\n        return x\nK().f()",
]


@pytest.mark.parametrize("source", SNIPPETS)
def test_snippets_fail_and_print_as_cpython(source: str) -> None:
    assert gradcli(source) == cpython(source)


@pytest.mark.parametrize(("source", "kind"), [
    ("x = 2 ** 100000", "OverflowError"),
    ("x = 'a' * 10**9", "MemoryError"),
    ("x = [0] * 10**9", "MemoryError"),
    ("x = 1 << 10**8", "OverflowError"),
    ("x = f'{1:1000000000}'", "MemoryError"),
    ("x = '%1000000000d' % 1", "MemoryError"),
    ("x = '%*d' % (10**9, 1)", "MemoryError"),
    ("x = '{:{}}'.format(1, 10**9)", "MemoryError"),
    ("x = list(range(10**8))", "MemoryError"),
    ("x = sorted(range(10**12))", "MemoryError"),
    ("a, *b = range(10**9)", "MemoryError"),
    ("x = 'ab'.replace('a', 'a' * 10**6)", "MemoryError"),
    ("x = 'a'.center(10**9)", "MemoryError"),
])
def test_what_python_would_build_too_big_is_refused(source: str, kind: str) -> None:
    """SPEC §6: the only places where gradcli and CPython part ways on plain Python."""
    _, err = gradcli(source)
    assert err is not None and err[0] == kind


@pytest.mark.parametrize("source", [
    "x = sum(range(10**12))",
    "x = [i for i in range(10**12)]",
    "x = max(i for i in range(10**12))",
    "for i in range(10**12):\n    pass",
    "x = any(i < 0 for i in range(10**12))",
])
def test_long_loops_inside_builtins_meet_the_step_limit(source: str) -> None:
    result = pipeline.run(source, filename="prog.py", max_steps=10_000)
    assert result.error is not None and "step limit" in result.error.message


def test_the_step_limit_cannot_be_caught() -> None:
    source = "while True:\n    try:\n        pass\n    except Exception:\n        pass\n"
    result = pipeline.run(source, filename="prog.py", max_steps=1000)
    assert "step limit" in result.error.message


def test_addresses_are_stable_within_a_run_and_distinct() -> None:
    out: list[str] = []
    pipeline.run("def f():\n    pass\ng = lambda: 1\nprint(f, g, f)", filename="prog.py",
                 on_print=out.append)
    a, b, c = out[0].strip().split("> <")
    assert a.startswith("<function f at 0x7f") and a + ">" == "<" + c
    assert b.startswith("function <lambda> at 0x7f") and a[-12:] != b[-12:]


def test_deeply_nested_values_fail_cleanly_and_still_render() -> None:
    """A tuple or dict nested 30,000 deep: print is CPython's RecursionError, and the run's
    document still renders (deep parts shown as [...])."""
    import json

    from gradcli import views
    from gradcli.render import json as render

    source = ("t = ()\nfor i in range(30000):\n    t = (t,)\nd = {}\nfor i in range(30000):\n"
              "    d = {'a': d}\nprint(t)\n")
    result = pipeline.run(source, filename="prog.py", max_steps=10**6)
    assert (result.error.kind, result.error.span.line) == ("RecursionError", 7)
    doc = render.run_doc(views.bindings_view(result), result.prints, result.warnings,
                         result.error)
    assert json.loads(render.dumps(doc))["bindings"]["d"]["type"] == "dict"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.integers(-10**6, 10**6), st.integers(), st.floats(),
                                    st.sampled_from([0, 0.0, -0.0, 1e308, 10**3000])),
                          st.sampled_from(["+", "-", "*", "/", "//", "%"]),
                          st.one_of(st.integers(-50, 50), st.integers(), st.floats(),
                                    st.sampled_from([0, 0.0, -0.0, 1e308, 10**3000]))),
                min_size=1, max_size=6))
def test_arithmetic_of_python_numbers_is_pythons(terms: list) -> None:
    """``a op b`` of two Python numbers (the interpreter's own path for them): Python's value,
    each printed as CPython prints it, and its ZeroDivisionError or OverflowError the same,
    an int past the script's size limit refused as ``arith`` refuses it."""
    lines = [f"print({a!r} {op} {b!r})" for a, op, b in terms]
    source = "\n".join(line.replace("inf", "float('inf')").replace("nan", "float('nan')")
                       for line in lines) + "\n"
    out, err = gradcli(source)
    expected_out, expected_err = cpython(source)
    if err is not None and err[1].startswith("integer too large"):
        assert expected_out.startswith(out)  # the script's own limit, not Python's
        return
    assert (out, err) == (expected_out, expected_err)
