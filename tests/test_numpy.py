"""``import numpy as np`` in a PyTorch program (SPEC §7): NumPy's values as a script's values.

NumPy-only programs run here under CPython beside the installed NumPy, which is the oracle
(what it prints is what that version prints: ``np.float64(1.5)`` under NumPy 2); the programs
that mix NumPy with tensors are in the corpus, against PyTorch's recorded output. The rest pins
what only gradcli does: per-run generators and print options, the element limit, the sandbox.
"""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest
from test_python_subset import cpython  # CPython, with the installed NumPy beside it

from gradcli import pipeline
from gradcli.api.creation import BYTE_ORDER_MSG, NEGATIVE_STRIDES_MSG, NOT_WRITABLE_MSG
from gradcli.api.numpy_values import ARRAY_WRAP_MSG, DEFAULT_PRINT, NUMPY_2
from gradcli.engine.conversions import NUMPY_GRAD_MSG


def run(source: str, **kw):
    out: list[str] = []
    result = pipeline.run(source, filename="prog.py", on_print=out.append, **kw)
    return result, "".join(out)


def gradcli(source: str) -> tuple[str, tuple | None]:
    result, out = run(source)
    e = result.error
    return out, None if e is None else (e.kind, e.message, e.span.line)


def error(source: str, **kw):
    result, _ = run(source, **kw)
    assert result.error is not None, source
    return result.error


# ---------------------------------------------------------------- NumPy's own answers

SNIPPETS = [
    # making data, printing it (str, repr, in containers, f-strings, %)
    "x = np.linspace(-1, 1, 7)\nprint(x)\nprint(repr(x), [x[0], x.sum()], (x.max(),))",
    "a = np.arange(12).reshape(3, 4)\nprint(a, a.T, a.shape, a.ndim, a.size, a.dtype, len(a))",
    "print(np.zeros((2, 3)), np.ones(3, dtype=np.int32), np.eye(2), np.full((2,), 7.5))",
    "print(np.array([[1, 2], [3, 4]], dtype=float), np.array(3.0), np.array([True, False]))",
    "print(repr(np.float64(1.5)), repr(np.int64(3)), repr(np.float32(0.1)), np.float32(0.1))",
    "x = np.array([0.5, 1.25])\nprint(f'{x}|{x[0]:.3f}|{x.mean():8.2e}', '%.2f %s' % (x[1], x))",
    "print(np.arange(2000), np.linspace(0, 1, 1001)[-3:], np.array([1e-10, 1e10]))",
    "print(type(np.ones(2)), type(np.float64(1)), np.float32, np.ndarray, np.dtype('int8'))",
    "print(repr(np.ones(2).dtype), np.ones(2).dtype == np.float64, np.int64 == np.int64)",
    "print(np.ones(2).astype(np.float32).dtype.name, np.ones(2).astype('int8'), np.pi, np.e)",
    # arithmetic, broadcasting, math
    "x = np.arange(6.0).reshape(2, 3)\nprint(x + 1, 2 * x, x - x.mean(axis=0), x / 2, -x, +x)",
    "x = np.arange(1, 5)\nprint(x ** 2, 2 ** x, x // 3, x % 3, x @ x, x > 2, ~(x > 2), x & 1)",
    "x = np.array([0.0, 1.0, 4.0])\nprint(np.sqrt(x), np.exp(x), np.sin(x), np.tanh(x))",
    "x = np.array([1.0, 2.0])\nprint(np.maximum(x, 1.5), np.clip(x, 0, 1.5), np.where(x > 1, x, 0))",
    ("a = np.arange(6.0).reshape(2, 3)\nprint(a.sum(), a.sum(axis=0), np.mean(a, 1), a.std(),"
    " a.var(), a.min(), a.argmax(), np.cumsum(a), a.prod(), np.median(a))"),
    "a = np.ones((2, 3))\nb = np.arange(3.0)\nprint(a @ b, np.dot(a, b), np.outer(b, b), a * b)",
    "print(np.float64(1.5) + 1, np.float32(1.5) * 2, np.int64(7) // 2, 3 - np.float64(0.5))",
    "x = 1.0\nx -= np.float64(0.25)\ny = np.ones(2)\ny *= 3\ny += np.arange(2)\nprint(x, y)",
    ("print(abs(np.float64(-2.5)), round(np.float64(2.567), 2), round(np.float64(2.5)),"
    " float(np.float32(0.5)), int(np.int64(3)), abs(np.array([-1, 2])))"),
    "print(np.linalg.norm(np.array([3.0, 4.0])), np.linalg.inv(np.array([[2.0, 0], [0, 4]])))",
    # shapes and joins
    "a = np.arange(4)\nprint(np.concatenate([a, a]), np.stack([a, a], axis=1), np.vstack([a, a]))",
    ("a = np.arange(6)\nprint(a.reshape(2, -1), a.reshape(3, 2).flatten(), a[None, :].shape,"
    " np.expand_dims(a, 0).shape, a.reshape(2, 3).transpose(), np.squeeze(a[None]))"),
    # indexing, assignment, iteration
    "a = np.arange(10)\nprint(a[2], a[-1], a[2:5], a[::3], a[[0, 2]], a[a > 6], a[np.int64(1)])",
    "a = np.arange(12).reshape(3, 4)\nprint(a[1, 2], a[:, 1], a[1:, ::2], a[[0, 2], [1, 3]])",
    "a = np.zeros(4)\na[1] = 5\na[2:] = [7, 8]\na[a > 6] = -1\nprint(a)",
    "for row in np.arange(6).reshape(3, 2):\n    print(row, row.sum(), len(row))",
    "print(list(np.arange(3)), sum(np.arange(4)), max(np.array([3, 9, 2])), sorted(np.array([3, 1])))",
    "print([v * 2 for v in np.array([1.5, 2.5])], dict(zip(['a', 'b'], np.arange(2))))",
    "print(2 in np.arange(3), 7 in np.arange(3), [0, 1][np.int64(1)], range(np.int64(3)))",
    "x = np.array([1.0, 2.0])\nprint(x.tolist(), x.item(0), np.array(5).item(), x.copy() is x)",
    "if np.float64(0.5) > 0:\n    print('yes')\nprint(bool(np.array([0.0])), not np.array([1]))",
    ("print(isinstance(np.ones(1), np.ndarray), isinstance(np.float64(1), float),"
    " isinstance(np.float32(1), float), type(np.ones(1)) is np.ndarray)"),
    # seeded draws, as NumPy draws them
    "np.random.seed(0)\nprint(np.random.randn(3), np.random.rand(2, 2), np.random.randint(0, 9, 4))",
    ("np.random.seed(1)\nprint(np.random.normal(2, 3, size=3), np.random.uniform(), "
    "np.random.choice(5, 3), np.random.permutation(4), np.random.random(2))"),
    ("rng = np.random.default_rng(42)\nprint(rng.normal(size=3), rng.integers(0, 10, 4),"
    " rng.random(), rng.uniform(1, 2, (2,)), rng.choice([1.5, 2.5]), rng.permutation(3))"),
    ("rng = np.random.default_rng(0)\nx = [1, 2, 3, 4]\nrng.shuffle(x)\na = np.arange(5)\n"
    "rng.shuffle(a)\nprint(x, a, rng, str(rng))"),
    "r = np.random.RandomState(3)\nprint(r.randn(2), r.randint(5, size=3), r.rand())",
    "np.random.seed(5)\nx = list(range(6))\nnp.random.shuffle(x)\nprint(x)",
    "np.set_printoptions(precision=3, suppress=True)\nprint(np.array([1.23456789, 1e-9]))",
    # NumPy's errors
    "x = np.ones(3) + np.ones(4)", "x = np.ones(3)[5]", "x = np.ones(3).reshape(2, 2)",
    "if np.array([1, 2]):\n    pass", "x = np.sum(np.ones(2), axis=3)",
    "x = np.linalg.inv(np.zeros((2, 2)))", "x = float(np.array([1.0, 2.0]))",
    "for v in np.array(1.0):\n    pass", "x = len(np.array(1.0))", "x = np.arange(3) @ 2",
    "x = np.float_", "x = np.ones(2).nope", "x = np.ones(2)\nx[0] = 'a'",
    "try:\n    np.linalg.inv(np.zeros((2, 2)))\nexcept ValueError as e:\n    print('caught', e)",
    "x = f'{np.ones(2):.2f}'", "x = np.zeros(2, dtype='float9')",
    # complex results (numpy.fft) and their parts
    ("from numpy.fft import rfft2, irfft2\nx = np.arange(12.0).reshape(3, 4)\nf = rfft2(x)\n"
     "print(f, f.dtype, abs(f), f.real, f.imag, np.angle(f[0]), f.conj()[0, 1], np.conj(f[1]))\n"
     "print(irfft2(f, x.shape), np.allclose(irfft2(f, x.shape), x), f[0, 0], type(f[0, 0]))"),
    ("f = np.fft.fft(np.array([1.0, 2.0, 0.5]), 4)\nprint(f, np.fft.ifft(f), np.fft.rfft("
     "np.ones(4)), np.fft.irfft(np.ones(3)), np.fft.fftfreq(4), np.fft.rfftfreq(5, d=0.5))"),
    ("f = np.fft.fftn(np.eye(3))\nprint(np.fft.fftshift(np.arange(5)), f * 2 + 1, f.sum(), "
     "np.fft.ifftn(f).real, np.zeros(2, dtype=np.complex128), np.real(f[0]), np.imag(f[0]))"),
    "x = np.fft.fft(np.ones(2))\nprint(x < 1)", "x = np.fft.irfft2(np.ones(3))",
    # a script's classes holding and meeting NumPy's values
    ("class Vec:\n    scale = np.array([1.0, 2.0])\n    def __init__(self, v):\n"
     "        self.v = np.asarray(v, dtype=float)\n    def __add__(self, other):\n"
     "        return Vec(self.v + (other.v if isinstance(other, Vec) else other))\n"
     "    def __radd__(self, other):\n        return Vec(other + self.v)\n"
     "    def __mul__(self, k):\n        return Vec(self.v * k * Vec.scale)\n"
     "    def __repr__(self):\n        return f'Vec({self.v})'\n"
     "a = Vec([1, 2])\nprint(a + a, a + np.float64(0.5), np.float64(0.5) + a, a * np.int64(2),"
     " a + np.ones(2), Vec.scale.sum())\n"
     "for f in (lambda: a - np.ones(2), lambda: np.float64(1) - a, lambda: a - np.int64(1)):\n"
     "    try:\n        f()\n    except TypeError as e:\n        print(e)"),
    ("from dataclasses import dataclass\n@dataclass\nclass Config:\n    lr: float = 0.1\n"
     "    mean: float = np.float64(0.5)\nc = Config(lr=np.float32(0.25))\n"
     "print(c, c.mean * 2, c == Config(lr=np.float32(0.25)))"),
]


@pytest.mark.parametrize("source", SNIPPETS)
def test_numpy_prints_and_fails_as_numpy_does(source: str) -> None:
    program = "import numpy as np\n" + source
    with np.printoptions(**DEFAULT_PRINT):  # CPython runs it in this process: a snippet's
        expected = cpython(program)  # np.set_printoptions must not reach the next one's
    assert gradcli(program) == expected


def test_printing_is_the_installed_numpys_scalar_repr() -> None:
    """NumPy 2 writes np.float64(1.5); 1.26 wrote 1.5: gradcli prints what the installed
    NumPy prints (no version's text is gradcli's own)."""
    _, out = run("import numpy as np\nprint([np.float64(1.5), np.float32(2), np.int64(3)])")
    assert out == f"[{np.float64(1.5)!r}, {np.float32(2)!r}, {np.int64(3)!r}]\n"
    assert ("np.float64(1.5)" in out) == NUMPY_2


# ---------------------------------------------------------------- runs are their own

def test_the_process_global_random_state_is_never_touched() -> None:
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    result, _ = run("import numpy as np\nnp.random.seed(0)\nx = np.random.randn(5)\n")
    assert result.error is None
    assert (np.random.get_state()[1] == before).all()
    assert np.array_equal(result.bindings["x"], np.random.RandomState(0).randn(5))


def test_an_unseeded_run_repeats_and_starts_from_the_runs_seed() -> None:
    source = "import numpy as np\nx = np.random.rand(3)\ng = np.random.default_rng()\n" \
             "y = g.random(2)\nz = np.random.default_rng().random(2)\n"
    first, _ = run(source)
    again, _ = run(source)
    other, _ = run(source, seed=7)
    assert np.array_equal(first.bindings["x"], again.bindings["x"])
    assert np.array_equal(first.bindings["x"], np.random.RandomState(0).rand(3))
    assert np.array_equal(other.bindings["x"], np.random.RandomState(7).rand(3))
    assert np.array_equal(first.bindings["y"], again.bindings["y"])
    assert not np.array_equal(first.bindings["y"], first.bindings["z"])  # two generators


def test_concurrent_runs_do_not_share_a_generator() -> None:
    """Each run draws its own seeded sequence, whatever the other thread does meanwhile."""
    source = "import numpy as np\nnp.random.seed({s})\nxs = [np.random.rand() for _ in range(400)]\n"
    results: dict[int, list] = {}

    def work(seed: int) -> None:
        results[seed] = run(source.format(s=seed))[0].bindings["xs"]

    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 2, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in (1, 2):
        assert results[s] == list(np.random.RandomState(s).rand(400))


def test_print_options_belong_to_the_run() -> None:
    opts = np.get_printoptions()
    np.set_printoptions(precision=2)  # the host's (a notebook's) options do not reach a run
    try:
        _, out = run("import numpy as np\nprint(np.array([1/3]))\nnp.set_printoptions(precision=4)"
                     "\nprint(np.array([1/3]), np.get_printoptions()['precision'])")
        assert out == "[0.33333333]\n[0.3333] 4\n"
        _, out = run("import numpy as np\nprint(np.array([1/3]))")
        assert out == "[0.33333333]\n"
    finally:
        np.set_printoptions(**opts)


# ---------------------------------------------------------------- tensors and arrays

def test_from_numpy_and_numpy_share_memory_and_not_the_version_counter() -> None:
    result, out = run(
        "import numpy as np\nimport torch\nn = np.ones(3)\nt = torch.from_numpy(n)\n"
        "n[0] = 5\nprint(t, t._version)\nt.add_(1)\nprint(n, t._version)\nm = t.numpy()\n"
        "m[1] = -1\nprint(t, m is n, m.dtype)\ns = torch.tensor(2.0)\nv = s.numpy()\ns += 1\n"
        "print(v, torch.ones(2, dtype=torch.int64).numpy().dtype)\n")
    assert result.error is None
    assert out == ("tensor([5., 1., 1.], dtype=torch.float64) 0\n[6. 2. 2.] 1\n"
                   "tensor([ 6., -1.,  2.], dtype=torch.float64) False float64\n3.0 int64\n")


def test_torch_tensor_copies_and_keeps_numpys_dtype_and_strides() -> None:
    result, out = run(
        "import numpy as np\nimport torch\nn = np.arange(6.0).reshape(2, 3)\nt = torch.tensor(n.T)\n"
        "n[0, 0] = 9\nprint(t[0, 0], t.dtype, t.stride(), torch.from_numpy(n.T).stride())\n"
        "print(torch.tensor(np.float32(1.5)).dtype, torch.tensor([np.float64(1), 2.0]).dtype,"
        " torch.tensor(np.int32(1)).dtype, torch.as_tensor(n).dtype, torch.Tensor(n).dtype)\n")
    assert result.error is None
    assert out == ("tensor(0., dtype=torch.float64) torch.float64 (1, 3) (1, 3)\n"
                   "torch.float32 torch.float64 torch.int32 torch.float64 torch.float32\n")


def test_the_legacy_constructors_take_an_arrays_memory_in_their_dtype() -> None:
    """``torch.Tensor(a)`` and ``t.new(a)`` share a float32 array's memory (PyTorch's legacy
    constructor) and convert another dtype; ``t.new`` is in ``t``'s dtype."""
    result, out = run(
        "import numpy as np\nimport torch\na = np.ones(2, dtype=np.float32)\nb = np.ones(2)\n"
        "t = torch.Tensor(a)\nu = torch.ones(1).new(a)\nv = torch.Tensor(b)\n"
        "w = torch.ones(1, dtype=torch.float64).new(a)\na[0] = 5\nb[0] = 7\nprint(t, u, v, w)\n"
        "x = torch.ones(2, dtype=torch.int64)\nprint(x.new([1.7, 2]), x.new(2, 3).shape, "
        "x.new().shape, torch.Tensor(np.int64(2)).shape, torch.LongTensor(np.arange(2.5)))\n")
    assert result.error is None, result.error
    assert out == ("tensor([5., 1.]) tensor([5., 1.]) tensor([1., 1.]) "
                   "tensor([1., 1.], dtype=torch.float64)\n"
                   "tensor([1, 2]) torch.Size([2, 3]) torch.Size([0]) torch.Size([2]) "
                   "tensor([0, 1, 2])\n")


def test_a_complex_array_to_a_real_tensor_keeps_its_real_part_and_warns_once() -> None:
    from gradcli.api.creation import COMPLEX_TO_REAL_MSG

    result, out = run(
        "import numpy as np\nimport torch\nf = np.fft.fft(np.array([1.0, 2.0]))\n"
        "print(torch.ones(1).new(f), torch.tensor(f, dtype=torch.float64), "
        "torch.as_tensor(f, dtype=torch.float32))\n")
    assert result.error is None, result.error
    assert out == "tensor([ 3., -1.]) tensor([ 3., -1.], dtype=torch.float64) tensor([ 3., -1.])\n"
    assert [(w.kind, w.message, w.span.line) for w in result.warnings] == [
        ("UserWarning", COMPLEX_TO_REAL_MSG, 4)]


def test_a_complex_value_made_real_warns_as_numpy_does() -> None:
    result, out = run("import numpy as np\nf = np.fft.fft(np.array([1.0, 2.0, 3.0]))\n"
                      "print(float(f[1]), int(f[1]))\nprint(f.astype(np.float32))\n"
                      "print(np.float64(f[2]))\n")
    assert result.error is None, result.error
    assert out == "-1.5 -1\n[ 6.  -1.5 -1.5]\n-1.5\n"
    message = "Casting complex values to real discards the imaginary part"
    assert [(w.kind, w.message, w.span.line) for w in result.warnings] == [
        ("ComplexWarning", message, 3), ("ComplexWarning", message, 4),
        ("ComplexWarning", message, 5)]


def test_np_array_of_a_tensor_warns_as_numpy_2_does_with_pytorchs_array() -> None:
    """``torch.Tensor.__array__`` takes no ``copy`` keyword: NumPy 2 warns when ``np.array``
    or ``np.copy`` asks for one, and cannot honour ``copy=False``."""
    from gradcli.api.numpy_values import ARRAY_COPY_MSG, NO_COPY_MSG

    result, out = run("import numpy as np\nimport torch\nt = torch.ones(2)\na = np.array(t)\n"
                      "b = np.asarray(t)\nc = np.copy(t)\nd = np.array(t, copy=None)\n"
                      "e = np.array([t, t])\nprint(a, c, d, e.shape)\nf = np.array(t, copy=False)\n")
    assert out == "[1. 1.] [1. 1.] [1. 1.] (2, 2)\n"
    assert (result.error.kind, result.error.message, result.error.span.line) == (
        "ValueError", NO_COPY_MSG, 10)
    assert [(w.kind, w.message, w.span.line) for w in result.warnings] == (
        [("DeprecationWarning", ARRAY_COPY_MSG, n) for n in (4, 6, 10)] if NUMPY_2 else [])


def test_numpy_scalars_are_numbers_to_pytorch() -> None:
    result, out = run("import numpy as np\nimport torch\nx = torch.ones(2)\n"
                      "print(x * np.float64(2), np.float32(3) - x, torch.full((1,), np.int64(4)),"
                      " x.clamp(max=np.float64(0.5)), torch.zeros(np.int64(2)), x[np.int64(0)])")
    assert result.error is None
    assert out == ("tensor([2., 2.]) tensor([2., 2.]) tensor([4]) tensor([0.5000, 0.5000]) "
                   "tensor([0., 0.]) tensor(1.)\n")


@pytest.mark.parametrize(("source", "kind", "message"), [
    ("t = torch.ones(2, requires_grad=True)\nn = t.numpy()", "RuntimeError", NUMPY_GRAD_MSG),
    ("t = torch.ones(2, requires_grad=True)\nn = np.array(t)", "RuntimeError", NUMPY_GRAD_MSG),
    ("t = torch.from_numpy([1, 2])", "TypeError", "expected np.ndarray (got list)"),
    ("t = torch.from_numpy(np.float64(1))", "TypeError",
     "expected np.ndarray (got numpy.float64)"),
    ("t = torch.from_numpy(np.arange(3)[::-1])", "ValueError", NEGATIVE_STRIDES_MSG),
    ("t = torch.tensor(np.arange(3)[::-1])", "ValueError", NEGATIVE_STRIDES_MSG),
    ("t = torch.from_numpy(np.ones(2, dtype='>f8'))", "ValueError", BYTE_ORDER_MSG),
    ("t = torch.from_numpy(np.ones(2, dtype='uint16'))", "NotImplementedError",
     "gradcli does not support uint16 tensors yet"),
    ("t = torch.from_numpy(np.fft.fft(np.ones(2)))", "NotImplementedError",
     "gradcli does not support complex128 tensors yet"),
    ("c = np.fft.fft(np.ones(3))[0]\nx = torch.ones(2) * c", "NotImplementedError",
     "gradcli does not support complex128 tensors yet"),
    ("c = np.fft.fft(np.ones(3))[0]\nx = torch.full((2,), c)", "NotImplementedError",
     "gradcli does not support complex128 tensors yet"),
    ("x = torch.ones(2)\nx[0] = np.fft.fft(np.ones(3))[0]", "NotImplementedError",
     "gradcli does not support complex128 tensors yet"),
    ("t = torch.ones(2).new(3.0)", "TypeError", "new(): data must be a sequence (got float)"),
    ("t = torch.Tensor(np.float64(1))", "TypeError",
     "new(): data must be a sequence (got numpy.float64)"),
    ("t = torch.ones(2).new(torch.ones(2))", "NotImplementedError",
     "gradcli does not support Tensor.new(tensor) yet"),
    ("t = torch.sin(np.ones(2))", "TypeError",
     "sin(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
    ("t = torch.ones(2)\nt[:] = np.ones(2)", "TypeError",
     "can't assign a numpy.ndarray to a torch.FloatTensor"),
    ("x = np.ones(2) - torch.ones(2)", "TypeError",
     "unsupported operand type(s) for -: 'numpy.ndarray' and 'Tensor'"),
    ("x = np.ones(2) ** torch.ones(2)", "TypeError",
     "unsupported operand type(s) for ** or pow(): 'numpy.ndarray' and 'Tensor'"),
    ("x = torch.ones(2) < np.ones(2)", "TypeError",
     "'<' not supported between instances of 'Tensor' and 'numpy.ndarray'"),
    ("x = torch.ones(2, requires_grad=True) * np.ones(2)", "RuntimeError", NUMPY_GRAD_MSG),
    ("x = np.mean(torch.ones(2))", "NotImplementedError",
     "gradcli does not support a tensor as numpy.mean's argument yet"),
])
def test_tensor_and_array_errors_are_pytorchs(source: str, kind: str, message: str) -> None:
    err = error("import numpy as np\nimport torch\n" + source)
    assert (err.kind, err.message) == (kind, message)
    assert err.span.line == source.count("\n") + 3


def test_a_tensor_in_a_ufunc_or_operator_comes_back_a_tensor_as_in_pytorch() -> None:
    result, out = run("import numpy as np\nimport torch\nt = torch.ones(2)\nn = np.arange(2.0)\n"
                      "print(t + n, np.sin(t), n / t, t == n, n == t, np.isnan(t))\n")
    assert result.error is None
    assert out == ("tensor([1., 2.], dtype=torch.float64) tensor([0.8415, 0.8415]) "
                   "tensor([0., 1.], dtype=torch.float64) tensor([False,  True]) "
                   "tensor([False,  True]) tensor([0, 0], dtype=torch.uint8)\n")
    wrap = [w.message for w in result.warnings if w.kind == "DeprecationWarning"]
    assert wrap == ([ARRAY_WRAP_MSG] if NUMPY_2 else [])  # once for the line, as Python warns


def test_from_numpy_of_a_read_only_array_warns_once() -> None:
    result, _ = run("import numpy as np\nimport torch\nb = np.broadcast_to(np.ones(1), (3,))\n"
                    "t = torch.from_numpy(b)\nu = torch.from_numpy(b)\n")
    assert [(w.kind, w.message, w.span.line) for w in result.warnings] == [
        ("UserWarning", NOT_WRITABLE_MSG, 4)]


# ---------------------------------------------------------------- limits and the sandbox

@pytest.mark.parametrize(("source", "message"), [
    ("x = np.zeros(10**9)", "numpy.zeros would make an array of 1,000,000,000 elements"),
    ("x = np.ones((10**5, 10**5))", "numpy.ones would make an array of 10,000,000,000 elements"),
    ("x = np.arange(0, 1e12)", "numpy.arange would make an array of 1,000,000,000,000 elements"),
    ("x = np.linspace(0, 1, 10**10)", ("numpy.linspace would make an array of 10,000,000,000 "
                                       "elements")),
    ("x = np.eye(10**5)", "numpy.eye would make an array of 10,000,000,000 elements"),
    ("x = np.ones(10**4)[:, None] * np.ones(10**4)", ("'*' would make an array of 100,000,000 "
                                                      "elements")),
    ("a = np.ones(10**4)\nx = a[:, None] < a", "'<' would make an array of 100,000,000 elements"),
    ("a = np.ones(10**4)\nx = np.outer(a, a)", ("numpy.outer would make an array of 100,000,000 "
                                              "elements")),
    ("x = np.tile(np.ones(10), 10**8)", ("numpy.tile would make an array of 1,000,000,000 "
                                        "elements")),
    ("x = np.ones(10).repeat(10**8)", ("numpy.ndarray.repeat would make an array of "
                                      "1,000,000,000 elements")),
    ("a = np.ones(10**4)\nx = np.concatenate([a] * 10**4)", ("numpy.concatenate would make an "
                                                            "array of 100,000,000 elements")),
    ("a = np.ones((10**4, 10))\nx = a[np.zeros(2 * 10**6, dtype=int)]", ("indexing would make "
                                                                       "an array of 20,000,000 "
                                                                       "elements")),
    ("x = np.random.rand(10**5, 10**5)", ("numpy.random.rand would make an array of "
                                         "10,000,000,000 elements")),
    ("x = np.random.default_rng(0).normal(size=(10**9,))", ("numpy.random._generator.Generator."
                                                           "normal would make an array of "
                                                           "1,000,000,000 elements")),
    ("x = np.random.choice(10**10, 3, replace=False)", ("numpy.random.choice would make an array "
                                                       "of 10,000,000,000 elements")),
    ("x = np.array(range(10**9))", ("range(0, 1000000000) would make an array of 1,000,000,000 "
                                   "elements")),
    ("x = np.full(10**6, 'a' * 100)", ("numpy.full would make an array of 1,000,000 elements of "
                                      "400 bytes")),
    ("x = np.fft.fft(np.ones(3), 10**8)", ("numpy.fft.fft would make an array of 100,000,000 "
                                          "elements")),
    ("x = np.fft.irfft2(np.ones((2, 3)), s=(10**4, 10**4))", ("numpy.fft.irfft2 would make an "
                                                             "array of 100,000,000 elements")),
    ("x = np.fft.fftfreq(10**8)", ("numpy.fft.fftfreq would make an array of 100,000,000 "
                                  "elements")),
])
def test_arrays_over_the_element_limit_are_refused_before_numpy_makes_them(source: str,
                                                                           message: str) -> None:
    err = error("import numpy as np\n" + source, max_elements=10**7)
    assert (err.kind, err.message) == ("RuntimeError",
                                       f"{message}, over the limit of 10,000,000 elements")
    assert err.hint == "raise it with --max-elements if you mean it"


def test_the_limit_is_the_runs_option() -> None:
    assert run("import numpy as np\nx = np.zeros(2000)", max_elements=2000)[0].error is None
    err = error("import numpy as np\nx = np.zeros(2001)", max_elements=2000)
    assert err.message.endswith("over the limit of 2,000 elements")


def test_lists_from_arrays_are_bounded_as_a_scripts_lists() -> None:
    err = error("import numpy as np\nx = np.zeros(2_000_000).tolist()")
    assert (err.kind, err.message) == ("MemoryError", ("numpy.ndarray.tolist would make a list of "
                                       "2,000,000 numbers, over the limit of 1,000,000"))
    err = error("import numpy as np\nx = [0] * np.int64(10**9)")
    assert err.kind == "MemoryError" and "over the limit of 1,000,000" in err.message


def test_iterating_an_array_takes_a_step_per_item() -> None:
    err = error("import numpy as np\ns = sum(np.zeros(5000))", max_steps=1000)
    assert err.message == "the script ran more than 1,000 statements (step limit)"


FILE_HINT = "make the data in the script (np.array, np.random ...)"


@pytest.mark.parametrize(("source", "name"), [
    ("np.load('x.npy')", "numpy.load"), ("np.save('x', np.ones(1))", "numpy.save"),
    ("np.savetxt('x', np.ones(1))", "numpy.savetxt"), ("np.loadtxt('x')", "numpy.loadtxt"),
    ("np.genfromtxt('x')", "numpy.genfromtxt"), ("np.fromfile('x')", "numpy.fromfile"),
    ("np.ones(1).tofile('x')", "numpy.ndarray.tofile"), ("np.ones(1).dump('x')",
                                                        "numpy.ndarray.dump"),
    ("x = np.lib", "numpy.lib"), ("x = np.ctypeslib", "numpy.ctypeslib"),
    ("np.memmap('x')", "numpy.memmap"),
])
def test_file_access_is_refused(tmp_path, monkeypatch, source: str, name: str) -> None:
    monkeypatch.chdir(tmp_path)
    err = error("import numpy as np\n" + source)
    assert (err.kind, err.message, err.hint) == (
        "PermissionError", f"{name} reads or writes files: gradcli's scripts have no file access",
        FILE_HINT)
    assert err.span.line == 2
    assert list(tmp_path.iterdir()) == []


def test_a_refused_name_is_refused_at_its_import() -> None:
    from gradcli.errors import ScriptSyntaxError

    with pytest.raises(ScriptSyntaxError) as info:
        pipeline.run("print('never')\nfrom numpy import save\n", filename="prog.py")
    assert (info.value.kind, info.value.message, info.value.span.line) == (
        "PermissionError", ("numpy.save reads or writes files: gradcli's scripts have no file "
        "access"), 2)


@pytest.mark.parametrize(("source", "kind", "message"), [
    ("x = np.array([1, None])", "TypeError",
     "gradcli's NumPy arrays hold numbers and booleans: dtype('O') is not supported"),
    ("x = np.array(['a', 'b'])", "TypeError",
     "gradcli's NumPy takes numbers, lists and arrays, not strings inside lists"),
    ("x = np.array('text')", "TypeError",
     "gradcli's NumPy arrays hold numbers and booleans: dtype('<U4') is not supported"),
    ("x = np.zeros(3, dtype='U5')", "TypeError",
     "gradcli's NumPy arrays hold numbers and booleans: dtype('<U5') is not supported"),
    ("x = np.zeros(3, dtype=str)", "TypeError",
     "gradcli's NumPy arrays hold numbers and booleans, not str"),
    ("x = np.array(print)", "TypeError",
     "gradcli's NumPy takes numbers, lists and arrays, not 'builtin_function_or_method'"),
    ("x = np.array([{}])", "TypeError",
     "gradcli's NumPy takes numbers, lists and arrays, not 'dict'"),
    ("x = np.ones(2).astype('datetime64[s]')", "TypeError",
     "gradcli's NumPy arrays hold numbers and booleans: dtype('<M8[s]') is not supported"),
    ("x = np.polynomial", "NotImplementedError", "gradcli does not support numpy.polynomial yet"),
    ("x = np.fft.hfft2", "AttributeError", "module 'numpy.fft' has no attribute 'hfft2'"),
    ("x = np.ones(2).resize", "NotImplementedError",
     "gradcli does not support numpy.ndarray.resize yet"),
    ("x = np.vectorize", "NotImplementedError", "gradcli does not support numpy.vectorize yet"),
    ("np.set_printoptions(formatter={})", "NotImplementedError",
     "gradcli does not support numpy.set_printoptions(formatter=...) yet"),
    ("x = np.ones(2).base", "NotImplementedError", "gradcli does not support numpy.ndarray.base yet"),
])
def test_only_numbers_and_the_listed_names(source: str, kind: str, message: str) -> None:
    err = error("import numpy as np\n" + source)
    assert (err.kind, err.message) == (kind, message)


def test_numpys_floating_point_warnings_are_pythons_and_the_engines_stay_silent() -> None:
    result, _ = run("import numpy as np\nimport torch\nx = np.log(np.zeros(1))\n"
                    "y = torch.log(torch.zeros(1))\nz = np.float64(1) / 0\nw = np.ones(1) / 0\n")
    assert result.error is None
    assert [(w.kind, w.message, w.span.line) for w in result.warnings] == [
        ("RuntimeWarning", "divide by zero encountered in log", 3),
        ("RuntimeWarning", "divide by zero encountered in scalar divide", 5),
        ("RuntimeWarning", "divide by zero encountered in divide", 6)]


def test_a_program_without_numpy_never_loads_its_machinery() -> None:
    code = ("import sys\nfrom gradcli import pipeline\n"
            "pipeline.run('import torch\\nx = torch.ones(2) * 2\\nprint(x)', filename='p.py')\n"
            "print(sorted(m for m in sys.modules if 'gradcli.api.numpy' in m))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_arrays_show_in_every_output_format() -> None:
    from typer.testing import CliRunner

    from gradcli.cli import app

    source = "import numpy as np\nimport torch\nx = np.arange(3.0)\nw = torch.tensor(x, " \
             "requires_grad=True)\ny = (w * w).sum()\n"
    got = CliRunner().invoke(app, ["run", "-", "--format", "json"], input=source)
    assert got.exit_code == 0
    assert '"x": {\n      "type": "numpy.ndarray",\n      "value": "array([0., 1., 2.])"' in \
        got.stdout
    got = CliRunner().invoke(app, ["grad", "-", "--wrt", "w", "--format", "plain"], input=source)
    assert got.stdout == "dy/dw = [0., 2., 4.]\n"  # as PyTorch prints the tensor
