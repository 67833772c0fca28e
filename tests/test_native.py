"""The compiled exact kernels (engine/exact/_native.c) against the NumPy code they stand in for:
the same bits on random bit patterns, the ranges the kernels see and the special values.

The rest of the suite runs whichever path the install has (the compiled one on any machine
with a C compiler); these tests run both, so the NumPy path (the fallback, and the
definition) stays held to PyTorch's bits through the compiled one.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.engine import autograd, record
from gradcli.engine.exact import fp, native, sleef, sleef64
from gradcli.language import parser

F32, F64 = np.float32, np.float64
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the NumPy references on NaN, inf
LIB = native.lib
needs_lib = pytest.mark.skipif(LIB is None, reason="gradcli's C kernels are not built here "
                               "(no C compiler at install time, or GRADCLI_PURE is set)")

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1.1754942e-38,
                    1.1754944e-38, 3.4028235e38, -3.4028235e38, 1.0, -1.0, 2.0, 0.75, 1.5,
                    0.7499999, 1.4999999, -104.0, -103.99999, 100.0, 100.00001, 88.72284,
                    -87.33655, 0.5, 1e-20, 2.0 ** 126, 2.0 ** 127, 2.5e38, -1.0000001,
                    -0.99999994, 1e38, 1.0000001e38, 88.72283, -16.635532, -16.63553],
                   F32)


@contextmanager
def pure() -> Iterator[None]:
    """The NumPy path for the duration."""
    saved = native.lib
    native.lib = None
    try:
        yield
    finally:
        native.lib = saved


def bits(x: object) -> np.ndarray:
    a = np.asarray(x)
    return a.view(np.uint32 if a.dtype == F32 else np.uint64)


def same(a: object, b: object) -> bool:
    """Bit for bit, but for which NaN: a NaN from two NaN operands takes either's payload, as
    the compiler orders a commutative multiply (neither is seen in a printed value)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b)) and np.array_equal(bits(a)[~nan], bits(b)[~nan]))


def random_floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """float32 values from random bit patterns (every exponent, NaNs and infinities included)."""
    return rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(F32)


def test_built_where_a_compiler_is() -> None:
    """A machine with a C compiler builds the kernels, the parser's loop, the backward's loop
    and recording's common calls at install (each is optional: a failed build would leave every user on the slower path
    without a word)."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if os.environ.get("GRADCLI_PURE") or not shutil.which(compiler):
        pytest.skip("GRADCLI_PURE is set, or no C compiler on this machine")
    assert LIB is not None
    assert parser._lalr is not None
    assert autograd._loop is not None
    assert record._compiled is not None


@needs_lib
@pytest.mark.parametrize("name", ["expf", "logf", "log1pf", "expm1f"])
@pytest.mark.parametrize("seed", range(3))
def test_sleef_functions_match_the_numpy_port(name: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    fn = getattr(sleef, name)
    spread = {"expf": (-110, 110), "logf": (0, 10), "log1pf": (-1, 10), "expm1f": (-20, 90)}[name]
    for x in (random_floats(rng, 200_000), rng.uniform(*spread, 200_000).astype(F32),
              rng.standard_normal((64, 27)).astype(F32), SPECIAL, F32(0.3), np.array(2.0, F32)):
        compiled = fn(x)
        with pure():
            numpy_ = fn(x)
        assert same(compiled, numpy_), name
        assert compiled.dtype == F32 and compiled.shape == np.shape(x)


SPECIAL64 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, -5e-324,
                      2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
                      -1.7976931348623157e308, 1.0, -1.0, 2.0, 0.5, 0.75, 1.5, 4 / 3,
                      0.7499999999999999, 1.4999999999999998, 709.782711149557429,
                      709.7827111495575, 709.78271289338397, -745.1332191019412,
                      -745.1332191019411, -1000.0, -1000.0000000000001, 1e-300, 1e300,
                      -1.0000000000000002, -0.9999999999999999, 709.782712893384, -36.7,
                      -36.736800569677101, -36.74, 1e307, 1e308, 1e-8, -9.999999999999999e-09,
                      2.5, 2.5000000000000004, -2.4999999999999996, 6.0, 5.999999999999999])


@needs_lib
@pytest.mark.parametrize("name", ["exp", "log", "log1p", "expm1", "erf"])
@pytest.mark.parametrize("seed", range(3))
def test_sleef64_functions_match_the_numpy_port(name: str, seed: int) -> None:
    """sleef64's exp, log, log1p, expm1 and erf in one C loop against their NumPy port: random
    bit patterns (NaN payloads, subnormals, infinities), the ranges a log_softmax, a softplus
    or a GELU sees, the thresholds."""
    rng = np.random.default_rng(seed)
    fn, port = getattr(sleef64, name), getattr(sleef64, "_" + name)
    spread = {"exp": (-760, 720), "log": (0, 10), "log1p": (-1, 10), "expm1": (-40, 712),
              "erf": (-7, 7)}[name]
    for x in (rng.integers(0, 2 ** 64, 200_000, dtype=np.uint64).view(F64),
              rng.uniform(*spread, 200_000), np.exp(rng.uniform(-745, 709, 100_000)),
              rng.standard_normal((64, 27)), SPECIAL64, F64(0.3), np.array(2.0),
              rng.standard_normal((16, 12)).T):
        compiled = fn(x)
        assert same(compiled, port(x)), name
        assert compiled.dtype == F64 and compiled.shape == np.shape(x)


@needs_lib
def test_sleef_functions_take_strided_arrays() -> None:
    x = np.random.default_rng(1).standard_normal((16, 12)).astype(F32)
    for view in (x.T, x[::2, 1::3], x[:, 0]):
        for name in ("expf", "logf"):
            compiled = getattr(sleef, name)(view)
            with pure():
                assert same(compiled, getattr(sleef, name)(view))


@needs_lib
@pytest.mark.parametrize("seed", range(3))
def test_fma32_and_fma_add_match_the_numpy_emulation(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 100_000
    cases = [tuple(random_floats(rng, n) for _ in range(3))]
    a, b = rng.standard_normal(n).astype(F32), rng.standard_normal(n).astype(F32)
    cases.append((a, b, (-(a.astype(F64) * b)).astype(F32)))  # cancellation, midpoints
    cases.append((a * F32(1e-20), b * F32(1e-19), (rng.standard_normal(n) * 1e-38).astype(F32)))
    cases.append((a[:7].reshape(7, 1)[:, 0], F32(0.5), b[:7]))  # a scalar operand broadcast
    cases.append((F32(3.0), F32(0.1), F32(-0.3)))  # 0-d: a NumPy scalar, as the emulation's
    for a, b, c in cases:
        compiled = fp.fma32(a, b, c)
        with pure():
            numpy_ = fp.fma32(a, b, c)
        assert same(compiled, numpy_)
        assert type(compiled) is type(numpy_)
        p = np.multiply(a, b, dtype=F64)
        compiled = fp.fma_add(p, np.asarray(c, F32))
        with pure():
            numpy_ = fp.fma_add(p, np.asarray(c, F32))
        assert same(compiled, numpy_)


@needs_lib
@pytest.mark.parametrize("seed", range(3))
def test_fma64_matches_the_numpy_emulation(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 50_000
    raw = [random_floats(rng, n).astype(F64) * rng.uniform(0.5, 2, n) for _ in range(3)]
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    for a_, b_, c_ in (raw, (a, b, -(a * b)), (a * 1e-160, b * 1e-160, a * 1e-300),
                       (a[:5], 0.5, b[:5])):
        compiled = fp.fma64(a_, b_, c_)
        with pure():
            numpy_ = fp.fma64(a_, b_, c_)
        assert same(compiled, numpy_)
    assert fp.fma64(0.1, 0.2, -0.02) == F64(float(Fraction(0.1) * Fraction(0.2)
                                                     - Fraction(0.02)))


def test_fma64_gives_an_exact_zero_the_ieee_sign_on_every_path() -> None:
    """``a * b + c`` whose value is zero: -0 only for a -0 product and a -0 addend (IEEE's sum
    of zeros), +0 for any other zero sum and for an exact cancellation, as the C library's fma
    gives it; on the NumPy path (arrays and scalars) and the compiled one.  (The NumPy path gave
    +0 for ``fma64(-1, 0, -0)``: a float64 log_softmax's gradient of a -0 grad.)"""
    values = (0.0, -0.0, 1.0, -1.0, 2.0, -0.5)
    triples = [(a, b, c) for a in values for b in values for c in values]
    a, b, c = (np.array(v, F64) for v in zip(*triples))
    expected = a * b + c  # every product exact: the sum rounded once
    assert np.signbit(expected).any() and (expected == 0).sum() > 20  # (the cases are there)
    for path in (pure, nullcontext):
        with path():
            assert same(fp.fma64(a, b, c), expected), path
            for i, (x, y, z) in enumerate(triples):
                assert same(fp.fma64_scalar(x, y, z), expected[i]), (path, x, y, z)


def test_fma64_of_zero_dimensional_arrays_rounds_once_on_the_numpy_path() -> None:
    """0-d float64 arrays (NumPy's arithmetic on them gives scalars): a 0-d result, rounded
    once, where the rounding to odd has to move the sum (the NumPy path, compiled or not)."""
    a, b, c = 0.294132496655526, 0.02842224131579679, 0.5467129866124469
    with pure():
        got = fp.fma64(np.asarray(a), np.asarray(b), np.asarray(c))
        assert np.shape(got) == ()
        assert same(got, F64(float(Fraction(a) * Fraction(b) + Fraction(c))))


@needs_lib
@pytest.mark.parametrize("seed", range(3))
def test_sleef64_polynomials_match_the_term_by_term_path(seed: int) -> None:
    """sleef64._poly in one C loop (native.poly64) against its Python recursion, one fma64 a
    term: every polynomial of the module, powers of random and special values (infinities,
    NaN, huge, tiny), 1 to 4 powers, a one-element power broadcast, a 0-d one."""
    from gradcli.engine.exact import sleef64

    rng = np.random.default_rng(seed)
    polys = [v for k, v in vars(sleef64).items() if k.endswith("_POLY")]
    assert len(polys) >= 6
    x = np.concatenate([random_floats(rng, 3000).astype(F64),
                        [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e300, -1e-300]])
    for coeffs in polys:
        for powers in ((x, x * x, x ** 4, x ** 8), (x[:5], x[:5] * 2, x[:5] * 4),
                       (x[:6], np.ones(1), x[:6]), (np.float64(0.3),) * 4,
                       (np.asarray(0.7),) * 4):
            if len(powers) < 4 and len(coeffs) > 5:
                continue  # x**8 needed
            compiled = sleef64._poly(powers, coeffs)
            with pure():
                python = sleef64._poly(powers, coeffs)
            assert np.shape(compiled) == np.shape(python) and same(compiled, python)


@needs_lib
def test_fused_kernels_take_the_operands_shapes_as_numpy_broadcasts_them() -> None:
    """The C loops broadcast one-element operands only: the result has the shape the larger
    operands share (the longest one-element shape when there are none: a 0-d one for
    scalars); other shapes, and a one-element operand of more dimensions, are the NumPy
    path's (None).  Strided and other-dtype operands are copied first."""
    x = np.arange(6.0).reshape(2, 3)
    cases = [((x, x, x), (2, 3)), ((x, F64(2.0), 1.0), (2, 3)), ((x, np.ones((1, 1)), x), (2, 3)),
             ((0.5, F64(2.0), 1.0), ()), ((np.ones(1), 2.0, np.ones((1, 1))), (1, 1)),
             ((x.T.copy().T, x[:, ::-1], x.astype(F32)), (2, 3)),
             ((x, np.ones(3), x), None), ((x, np.ones((1, 1, 1)), x), None),
             ((x, x.T, x), None)]
    for (a, b, c), shape in cases:
        got = native.fma64(a, b, c)
        assert (got is None) if shape is None else (got.shape == shape and same(
            got, np.asarray(np.asarray(a, F64) * np.asarray(b, F64) + np.asarray(c, F64))))


@needs_lib
@settings(max_examples=300, deadline=None)
@given(st.floats(width=32), st.floats(width=32), st.floats(width=32))
def test_fma32_rounds_once(a: float, b: float, c: float) -> None:
    """Against exact rational arithmetic, where the result is finite."""
    got = fp.fma32(F32(a), F32(b), F32(c))
    if all(np.isfinite((a, b, c))) and np.isfinite(got):
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        with pure():
            assert same(got, fp.fma32(F32(a), F32(b), F32(c)))
        error = abs(Fraction(float(got)) - exact)
        for neighbour in (np.nextafter(got, F32(-np.inf)), np.nextafter(got, F32(np.inf))):
            if np.isfinite(neighbour):  # (the largest float's neighbour is infinite)
                assert error <= abs(Fraction(float(neighbour)) - exact)


def test_gradcli_pure_turns_the_kernels_off() -> None:
    import subprocess
    import sys

    code = "from gradcli.engine.exact import native; print(native.lib is None)"
    env = {**os.environ, "GRADCLI_PURE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=False)
    assert out.stdout.strip() == "True", out.stderr


@needs_lib
@pytest.mark.parametrize("dtype", [F32, F64])
def test_blas_calls_match_the_ctypes_calls(dtype: type) -> None:
    """mm, mv and bmm through the compiled call and through ctypes: the same MKL routine with
    the same arguments, so the same bits, for every layout blas.py passes (row- and
    column-major operands, single rows and columns, strided vectors, expanded batches)."""
    from gradcli.engine.exact import blas, libmkl

    if libmkl.library() is None:
        pytest.skip("MKL is not installed here")
    rng = np.random.default_rng(7)
    shapes = [(1, 1, 1), (1, 5, 1), (3, 1, 4), (32, 30, 200), (200, 32, 27), (5, 7, 1)]
    for m, k, n in shapes:
        a = rng.standard_normal((m, k)).astype(dtype)
        b = rng.standard_normal((k, n)).astype(dtype)
        for x, y in ((a, b), (np.asfortranarray(a), b), (a, np.asfortranarray(b)),
                     (a, b[:, ::-1][:, ::-1]), (np.ascontiguousarray(a.T).T, b)):
            compiled = blas.mm(x, y)
            with pure():
                assert compiled.tobytes() == blas.mm(x, y).tobytes()
        v = rng.standard_normal(2 * k).astype(dtype)[::2]
        for x in (a, np.asfortranarray(a)):
            compiled = blas.mv(x, v)
            with pure():
                assert compiled.tobytes() == blas.mv(x, v).tobytes()
    for bs, rows, k, cols in [(64, 8, 8, 8), (2, 30, 40, 50), (3, 1, 20, 30), (3, 20, 30, 1),
                              (5, 9, 1, 9), (1, 10, 10, 10)]:
        a = rng.standard_normal((bs, rows, k)).astype(dtype)
        b = rng.standard_normal((bs, k, cols)).astype(dtype)
        for x in (a, np.swapaxes(np.swapaxes(a, 1, 2).copy(), 1, 2)):
            for y in (b, np.swapaxes(np.swapaxes(b, 1, 2).copy(), 1, 2),
                      np.broadcast_to(b[:1], b.shape)):  # an expanded batch: stride 0
                compiled = blas.bmm(x, y)
                with pure():
                    assert compiled.tobytes() == blas.bmm(x, y).tobytes(), (bs, rows, k, cols)


@needs_lib
@pytest.mark.parametrize("dtype", [F32, F64])
def test_addmm_is_gemm_adding_the_product_into_the_bias(dtype: type) -> None:
    """blas.mm's ``add`` (F.linear's addmm): the result starts as the bias, broadcast, and MKL's
    gemm adds the product into it (beta = 1), as ATen's addmm_impl_cpu_ calls it (dgemm's sums
    then differ from the product rounded and the bias added); through the compiled call and
    ctypes alike, and the bias itself, signed zeros kept, for an empty product."""
    from gradcli.engine.exact import blas, libmkl

    if libmkl.library() is None:
        pytest.skip("MKL is not installed here")
    rng = np.random.default_rng(11)
    for m, k, n in [(1, 1, 1), (64, 20, 64), (32, 64, 3), (7, 33, 5), (5, 9, 1), (1, 12, 30)]:
        x = rng.standard_normal((m, k)).astype(dtype)
        w = rng.standard_normal((n, k)).astype(dtype)
        for shape in ((n,), (1, n), (m, 1), (m, n)):
            bias = rng.standard_normal(shape).astype(dtype)
            got = blas.mm(x, w.T, add=bias)
            with pure():
                assert got.tobytes() == blas.mm(x, w.T, add=bias).tobytes()
            # the row-major result as gemm's column-major C^T = W X^T, C first set to the bias
            c = np.ascontiguousarray(np.broadcast_to(bias, (m, n)))
            want = blas.gemm(True, False, n, m, k, w, k, x, k, 1.0, c, n)
            assert got.tobytes() == want.tobytes(), (m, k, n, shape)
    empty = blas.mm(np.zeros((2, 0), dtype), np.zeros((0, 3), dtype),
                    add=np.array([-0.0, 1.5, -2.0], dtype))
    assert same(empty, np.array([[-0.0, 1.5, -2.0]] * 2, dtype))


@needs_lib
def test_vml_calls_match_the_ctypes_calls() -> None:
    """VML's functions through the compiled call and through ctypes: arrays (contiguous or
    not, empty) and NumPy scalars, float32 and float64, the same bits and types."""
    from gradcli.engine.exact import libmkl, vml

    if libmkl.library() is None:
        pytest.skip("MKL is not installed here")
    rng = np.random.default_rng(3)
    values = [rng.standard_normal((32, 200)).astype(F32), rng.standard_normal(7),
              rng.standard_normal((5, 4)).T, np.zeros(0, F32), F64(0.3), F32(0.7), F32(-1e-40),
              SPECIAL]
    for x in values:
        for name in ("tanh", "exp", "log", "sqrt", "sin", "erf"):
            with np.errstate(all="ignore"):
                compiled = vml.call(name, x)
                with pure():
                    ctypes_ = vml.call(name, x)
            assert type(compiled) is type(ctypes_)
            assert np.asarray(compiled).tobytes() == np.asarray(ctypes_).tobytes(), name


@needs_lib
@pytest.mark.parametrize("dtype", [F32, F64])
def test_c_library_loops_match_the_ctypes_calls(dtype: type) -> None:
    """clib.call looped in C and through ctypes element by element: the same C function, so
    the same values (NaN or not: a signalling NaN's payload may differ after ctypes' float
    conversions); scalars stay scalars."""
    from gradcli.engine.exact import clib

    rng = np.random.default_rng(11)
    x = np.concatenate([random_floats(rng, 20_000), SPECIAL]).astype(dtype)
    y = rng.standard_normal(x.size).astype(dtype)
    with np.errstate(all="ignore"):
        for name in ("exp", "log", "log1p", "expm1", "sin", "cos", "asinh", "acosh", "erf"):
            compiled = clib.call(name, x)
            with pure():
                assert same(compiled, clib.call(name, x)), name
        for name in ("pow", "atan2", "hypot"):
            compiled = clib.call(name, y, x)
            with pure():
                assert same(compiled, clib.call(name, y, x)), name
        compiled = clib.call("log1p", dtype(0.25))
        with pure():
            reference = clib.call("log1p", dtype(0.25))
    assert type(compiled) is type(reference) and compiled == reference


@needs_lib
def test_normal_fill_steps_match_the_numpy_port() -> None:
    """avx_mathfun's log256_ps and sincos256_ps in C and in NumPy (distributions.py), on the
    uniforms Box-Muller gives them, random bit patterns and special values; and the float32
    normals a generator draws with both."""
    from gradcli.engine import distributions as dist
    from gradcli.engine.generator import Generator

    rng = np.random.default_rng(5)
    uniforms = (rng.integers(0, 2 ** 24, 100_000) * 2.0 ** -24).astype(F32)
    for x in (uniforms, random_floats(rng, 100_000), SPECIAL):
        with np.errstate(all="ignore"):
            logs, (sins, coss) = dist.log256(np.abs(x)), dist.sincos256(x)
            with pure():
                assert same(logs, dist.log256(np.abs(x)))
                s, c = dist.sincos256(x)
                assert same(sins, s) and same(coss, c)
    for shape in ((3,), (100,), (1000, 7)):
        compiled = Generator().normal(shape, "float32")
        with pure():
            assert same(compiled, Generator().normal(shape, "float32"))


@needs_lib
def test_randperm_shuffles_match_the_python_loops() -> None:
    """randperm's Fisher-Yates through the C loop and the Python one; the inside-out shuffle
    (PyTorch's for n of 214 million and more) on small picks against generator.py's loop."""
    from gradcli.engine.generator import Generator

    for n in (0, 1, 2, 5, 1000, 60_000):
        compiled = Generator().randperm(n)
        with pure():
            assert np.array_equal(compiled, Generator().randperm(n))
    rng = np.random.default_rng(9)
    n = 5000
    picks = rng.integers(0, np.arange(1, n + 1))  # z in [0, i], as random64() % (i + 1)
    out = np.empty(n, np.int64)
    LIB.permute(out, picks.astype(np.int64), True)
    want = np.empty(n, np.int64)
    for i, z in enumerate(picks.tolist()):
        want[i] = want[z]
        want[z] = i
    assert np.array_equal(out, want)
    with pytest.raises(ValueError):
        LIB.permute(np.arange(3), np.array([5]), False)


@needs_lib
@pytest.mark.parametrize("capability", ["AVX512", "AVX2"])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_log_softmax_rows_match_the_numpy_kernels(capability: str, dtype: type) -> None:
    """log_softmax over the last dimension and its backward, float32 and float64, in C and in
    NumPy: rows shorter and longer than a vector, with tails, special values, on both
    capabilities whose lanes (16 and 8 floats, 8 and 4 doubles) the loops take."""
    from gradcli.engine import machine
    from gradcli.engine.exact import softmaxes
    from gradcli.engine.machine import Machine

    rng = np.random.default_rng(13)
    token = machine.activate(Machine(capability, 1))
    try:
        for rows, n in ((1, 1), (3, 5), (32, 27), (64, 3), (7, 16), (5, 33), (2, 100), (4, 8)):
            x = (rng.standard_normal((rows, n)) * 4).astype(dtype)
            if rows > 2:
                x[1, 0], x[2, -1] = np.inf, -np.inf
                x[0, :] = np.nan if n > 3 else x[0, :]
            g = rng.standard_normal((rows, n)).astype(dtype)
            g[-1, 0] = -0.0
            with np.errstate(all="ignore"):
                y = softmaxes.log_softmax(x, -1)
                back = softmaxes.log_softmax_backward(g, y, -1)
                with pure():
                    assert same(y, softmaxes.log_softmax(x, -1)), (rows, n)
                    assert same(back, softmaxes.log_softmax_backward(g, y, -1)), (rows, n)
    finally:
        machine.deactivate(token)


@needs_lib
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_cascade_sums_match_the_numpy_loops(threads: int) -> None:
    """reduce.py's sums and means through the C loop and through NumPy: full reductions
    (short rows, long ones past the grain size, split between threads), columns of dense
    matrices, other axes and transposed layouts, float32 and float64, special values."""
    from gradcli.engine import machine
    from gradcli.engine.exact import reduce
    from gradcli.engine.machine import Machine

    rng = np.random.default_rng(17)
    cases = [((64,), None), ((7,), None), ((1,), None), ((5000,), None), ((70_001,), None),
             ((32, 200), (0,)), ((32, 27), (0,)), ((64, 3), (1,)), ((3, 4, 5), (1,)),
             ((200, 300), (0, 1)), ((33, 17), (0,)), ((1, 5), (0,)), ((4096, 3), (0,)),
             ((2, 40_000), (1,)), ((6, 5, 4), (0, 2))]
    token = machine.activate(Machine("AVX512", threads))
    try:
        for dtype in (F32, F64):
            for shape, axes in cases:
                x = rng.standard_normal(shape).astype(dtype)
                flat = x.reshape(-1)
                flat[rng.integers(0, flat.size, 3)] = [-0.0, np.inf, np.nan][:min(3, flat.size)]
                for y in (x, x.T):
                    ax = None if axes is None else tuple(y.ndim - 1 - a for a in axes) \
                        if y is not x else axes
                    compiled = reduce.sum_(y, ax), reduce.mean(y, ax)
                    with pure():
                        numpy_ = reduce.sum_(y, ax), reduce.mean(y, ax)
                    assert same(compiled[0], numpy_[0]) and same(compiled[1], numpy_[1]), \
                        (dtype, shape, axes)
                    assert type(compiled[0]) is type(numpy_[0])
                zeros = -np.zeros(shape, dtype)  # an all -0 sum is +0, as the kernels'
                assert same(reduce.sum_(zeros, axes), np.zeros_like(reduce.sum_(zeros, axes)))
    finally:
        machine.deactivate(token)


@pytest.mark.parametrize("compiled", [True, False])
def test_row_sums_of_dense_matrices_take_the_iterators_route(compiled: bool) -> None:
    """sum_'s shortcut for the last axis of a dense matrix equals the general route's loop
    (iteration_dims, _loop, the output's strides) it stands in for, both dims written."""
    from gradcli.engine.exact import reduce

    if compiled and LIB is None:
        pytest.skip("gradcli's C kernels are not built here")
    rng = np.random.default_rng(29)
    with nullcontext() if compiled else pure():
        for dtype in (F32, F64):
            for m, n in [(2, 2), (3, 7), (5, 8), (17, 9), (64, 64), (100, 127), (2, 1000),
                         (31, 257), (64, 511)]:
                x = (rng.standard_normal((m, n)) * 10.0 ** rng.integers(-4, 5, (m, n)))
                x = x.astype(dtype)
                x[0, 0], x[-1, -1] = -0.0, np.inf
                dims = reduce.iteration_dims(x.shape, x.strides, {1}, x.itemsize)
                expected = np.zeros(m, dtype)
                expected[...] = reduce._loop(x, dims, x.itemsize)
                for axes in ((1,), (-1,)):
                    assert same(reduce.sum_(x, axes), expected), (dtype, m, n)
                    assert same(reduce.sum_(x, axes, keepdims=True), expected.reshape(m, 1))


@needs_lib
def test_welford_rows_match_the_numpy_loop() -> None:
    """var/std along dims through C's WelfordOps loop and through moments.py's NumPy loop:
    rows of other lengths and strides (transposed, every other element), kept dims on either
    side, corrections past the count, float32 and float64, special values."""
    from gradcli.engine.exact import moments

    rng = np.random.default_rng(31)
    cases = [((64, 64), (1,)), ((64, 64), (0,)), ((32, 200), (0,)), ((5, 7, 9), (1,)),
             ((5, 7, 9), (0, 2)), ((3, 1000), (1,)), ((4, 1), (1,)), ((6, 5), (1,))]
    for dtype in (F32, F64):
        for shape, axes in cases:
            x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape)).astype(dtype)
            x.reshape(-1)[:3] = [-0.0, np.nan, np.inf][:x.size]
            for y in (x, np.asfortranarray(x), x[..., ::2]):
                for correction in (0, 1, 2, 70):
                    for take_sqrt in (False, True):
                        got = moments.var_std(y, axes, correction, False, take_sqrt)
                        with pure():
                            expected = moments.var_std(y, axes, correction, False, take_sqrt)
                        assert same(got, expected), (dtype, shape, axes, correction)


@needs_lib
def test_order_two_norm_rows_match_the_numpy_steps() -> None:
    """The order-2 norm's row kernel in C and in norms.py: rows shorter than a vector, tails
    of fewer and more than four, with and without fused tails, float32 and float64, values
    whose squares overflow and underflow, special values."""
    from gradcli.engine.exact import norms

    rng = np.random.default_rng(37)
    for dtype in (F32, F64):
        for size in (1, 3, 4, 5, 7, 8, 9, 12, 13, 15, 16, 17, 31, 100, 4099):
            rows = rng.standard_normal((3, size)) * 10.0 ** rng.integers(-25, 25, (3, size))
            rows = rows.astype(dtype)
            rows[0, 0], rows[-1, -1] = -0.0, (np.nan if size % 2 else np.inf)
            for fused in (False, True):
                got = norms._lastdim_rows(rows, fused)
                with pure():
                    expected = norms._lastdim_rows(rows, fused)
                assert same(got, expected), (dtype, size, fused)


@needs_lib
def test_nll_cascade_matches_the_python_loop() -> None:
    """nll_loss's eight-level sum in C and in reduce.py (the loop, and its whole-array form
    for up to 256 kept rows): lengths across the level boundaries, ignored rows, special
    values, float32 and float64."""
    from gradcli.engine.exact import reduce

    rng = np.random.default_rng(23)
    for n in (0, 1, 2, 16, 17, 32, 256, 257, 4097, 70_000):
        for dtype in (F32, F64):
            terms = rng.standard_normal(n).astype(dtype)
            terms[:3] = [-0.0, np.inf, 0.0][:min(3, n)]
            for kept in (np.ones(n, bool), rng.random(n) < 0.7, (rng.random(2 * n) < 0.5)[::2]):
                compiled = reduce.nll_cascade(terms, kept)
                with pure():
                    numpy_ = reduce.nll_cascade(terms, kept)
                assert same(compiled, numpy_) and compiled.shape == numpy_.shape == ()


@needs_lib
def test_tanh_backward_matches_the_numpy_path() -> None:
    """float32 tanh_backward (grad * (1 - y * y), the difference fused on an FMA capability)
    in C and in NumPy: tanh's own outputs, random bit patterns (beyond [-1, 1], where the
    NumPy path settles midpoints one by one), special values, a one-element grad broadcast."""
    from gradcli.engine import machine
    from gradcli.engine.exact import unary
    from gradcli.engine.machine import Machine

    rng = np.random.default_rng(29)
    token = machine.activate(Machine("AVX2", 1))
    try:
        ys = [np.tanh(rng.standard_normal(50_000) * 3).astype(F32), random_floats(rng, 50_000),
              SPECIAL, np.tanh(rng.standard_normal((32, 200))).astype(F32)]
        for y in ys:
            grads = [rng.standard_normal(y.shape).astype(F32), np.asarray(F32(-0.5)),
                     np.broadcast_to(F32(2.0), y.shape)]
            for g in grads:
                compiled = unary.tanh_backward(g, y)
                with pure():
                    assert same(compiled, unary.tanh_backward(g, y))
    finally:
        machine.deactivate(token)


@needs_lib
@pytest.mark.parametrize("dtype", [F32, F64])
def test_threshold_backward_matches_where(dtype: type) -> None:
    """relu's gradient (threshold_backward) in C against NumPy's ``where(x <= t, 0, grad)``:
    random values and bit patterns, NaN and signed zeros in x and in grad, thresholds other
    than 0, a grad that is a broadcast view; and the NumPy path where the C loop declines
    (mixed dtypes, a threshold float32 cannot hold)."""
    from gradcli.engine import kernels

    rng = np.random.default_rng(31)
    xs = [rng.standard_normal((64, 64)).astype(dtype), random_floats(rng, 10_000).astype(dtype),
          SPECIAL.astype(dtype), np.zeros((0, 3), dtype)]
    for x in xs:
        for g in (rng.standard_normal(x.shape).astype(dtype), np.broadcast_to(dtype(-0.0), x.shape),
                  random_floats(rng, x.size).astype(dtype).reshape(x.shape)):
            for t in (0.0, -0.0, 0.5, -1e30, 1e40, float("nan")):
                got = kernels.threshold_backward(np, g, x, t)
                with np.errstate(all="ignore"):
                    want = np.where(x <= t, 0.0, g)
                assert same(got, want), (x.shape, t)
    x = rng.standard_normal(5).astype(F32)
    assert kernels.threshold_backward(np, x.astype(F64), x, 0.0).dtype == F64  # where's dtype


@needs_lib
def test_nll_gradient_scatter_matches_the_numpy_path() -> None:
    """NllLossBackward0's plain gradient (reduce.nll_grad) scattered in C and by NumPy's fancy
    indexing: ignored rows (the default -100 and a class), targets out of range, mean and sum,
    float32 and float64 losses and total weights, a NaN gradient, no rows."""
    from gradcli.engine.exact import reduce

    rng = np.random.default_rng(37)
    for rows, classes in ((32, 27), (1, 1), (0, 5), (64, 3)):
        target = rng.integers(-2, classes + 2, rows)
        for ignore in (-100, 0, 1):
            for dtype in (F32, F64):
                for grad in (np.asarray(dtype(1.0)), np.asarray(dtype(-0.25)),
                             np.asarray(dtype(np.nan))):
                    for mean in (True, False):
                        tw = np.asarray(dtype(max(rows, 1) * 0.75))
                        compiled = reduce.nll_grad(grad, target, tw, (rows, classes), ignore,
                                                   mean)
                        with pure():
                            numpy_ = reduce.nll_grad(grad, target, tw, (rows, classes), ignore,
                                                     mean)
                        assert same(compiled, numpy_), (rows, classes, ignore, dtype, mean)


@needs_lib
def test_scatter_add_matches_numpy_add_at() -> None:
    """An indexing's gradient (IndexBackward0's scatter-add) in C and by numpy.add.at: the
    same additions in the same order, duplicates included, float32 and float64, values from
    random bit patterns (NaN, infinities, -0); a position out of range is an error, not a
    write."""
    from gradcli.engine.exact import reduce

    rng = np.random.default_rng(23)
    for dtype in (F32, F64):
        for size, count in ((1, 5), (7, 0), (27, 960), (300, 4000), (5, 1000)):
            positions = rng.integers(0, size, count).astype(np.int64)
            values = random_floats(rng, count).astype(dtype) if dtype is F32 else \
                rng.standard_normal(count) * 10.0 ** rng.integers(-300, 300, count)
            values[::7] = -0.0
            for pos, vals in ((positions, values), (positions[::-1], values[::-1])):
                compiled = reduce.scatter_add(size, pos, vals)
                with pure():
                    numpy_ = reduce.scatter_add(size, pos, vals)
                assert same(compiled, numpy_), (dtype, size, count)
    with pytest.raises(IndexError):
        LIB.scatter_add(np.zeros(3, F32), np.array([3], np.int64), np.ones(1, F32), False)


@needs_lib
def test_nll_forward_and_targets_match_the_numpy_path() -> None:
    """nll_loss's forward without weights in one C loop (each kept row's term at its target,
    cascaded) against the op's NumPy formula, and the targets' count and bounds check against
    _target_weights' NumPy code, through F.nll_loss and F.cross_entropy: ignored rows, rows
    across the cascade's levels, float32 and float64, mean and sum, a target out of range."""
    import gradcli

    rng = np.random.default_rng(41)
    programs = []
    for rows, classes in ((32, 27), (1, 1), (300, 5), (4097, 3)):
        for ignore in (-100, 0, 2):
            for dtype in ("float32", "float64"):
                x = (rng.standard_normal((rows, classes)) * 3).round(3).tolist()
                t = rng.integers(0, classes, rows)
                t[: rows // 3] = ignore if ignore < classes else t[: rows // 3]
                for reduction in ("mean", "sum"):
                    programs.append(
                        "import torch\nimport torch.nn.functional as F\n"
                        f"x = torch.tensor({x}, dtype=torch.{dtype}, requires_grad=True)\n"
                        f"t = torch.tensor({t.tolist()})\n"
                        f"a = F.nll_loss(x, t, ignore_index={ignore}, reduction='{reduction}')\n"
                        f"b = F.cross_entropy(x, t, ignore_index={ignore}, "
                        f"reduction='{reduction}')\n(a + b).backward()\n"
                        "print(a.item(), b.item(), x.grad.sum().item())\n")
    programs.append("import torch\nimport torch.nn.functional as F\n"
                    "F.cross_entropy(torch.zeros(3, 4), torch.tensor([1, 4, 0]))\n")
    for source in programs:
        compiled = gradcli.run(source, filename="p.py")
        with pure():
            numpy_ = gradcli.run(source, filename="p.py")
        assert compiled.prints == numpy_.prints
        assert str(compiled.error) == str(numpy_.error)
    assert "Target 4 is out of bounds." in str(compiled.error)
