"""exact/layernorm.py (layer_norm's forward and backward kernels) against a scalar port of
PyTorch's layer_norm_kernel.cpp and moments_utils.h: one lane and one element at a time, in the
C++ loops' order, with NumPy scalars for the single roundings and fused multiply-adds rounded
once from the exact Fraction (independent of fp.py's emulation and of the vectorised NumPy).
tools/compare_layer_norm.py holds the kernels to PyTorch itself (needs PyTorch)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from test_native import needs_lib, pure  # the C kernels' skip marker, the NumPy path

from gradcli.engine import RunContext, machine, use
from gradcli.engine.backend import get_backend, quiet, to_host
from gradcli.engine.exact import layernorm
from gradcli.engine.machine import Machine
from gradcli.engine.nn_layers import layer_norm
from gradcli.engine.tensor import Tensor


def _round(q: Fraction, dt: type) -> object:
    """``q`` rounded to nearest (ties to even) in ``dt``."""
    if dt is np.float64:
        return np.float64(q.numerator / q.denominator)  # int division: correctly rounded
    f = np.float32(q.numerator / q.denominator)
    if Fraction(float(f)) == q:
        return f
    if Fraction(float(f)) < q:
        lo, hi = f, np.nextafter(f, np.float32(np.inf))
    else:
        lo, hi = np.nextafter(f, np.float32(-np.inf)), f
    below, above = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if below != above:
        return lo if below < above else hi
    return lo if not int(lo.view(np.uint32)) & 1 else hi


def _fma(a: object, b: object, c: object) -> object:
    dt = type(a)
    return _round(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)), dt)


def _width(dt: type) -> int:
    return 32 // np.dtype(dt).itemsize


def ref_moments(row: list, dt: type) -> tuple:
    """RowwiseMoments of one row, lane by lane (the fused steps as measured: layernorm.py)."""
    w, size = _width(dt), len(row)
    n = size // w
    m = -(-n // 16)
    depth = 1 if m <= 2 else math.ceil(math.log2(m))
    zero = dt(0)
    stack = [[0, [zero] * w, [zero] * w] for _ in range(depth)]

    def add_vec(m0_add: int, m1_add: list, m2_add: list, into: list) -> None:
        m0, m1, m2 = into
        total = m0 + m0_add
        c = zero if total == 0 else dt(m0_add) / dt(total)
        for lane in range(w):
            delta = m1_add[lane] - m1[lane]
            p = c * delta
            m1[lane] = m1[lane] + p
            m2[lane] = _fma(delta, p * dt(m0), m2[lane] + m2_add[lane])
        into[0] = total

    for i in range(m):
        count = min(16, n - i * 16)
        m1, m2 = [zero] * w, [zero] * w
        for j in range(count):
            for lane in range(w):
                x = row[(i * 16 + j) * w + lane]
                d = x - m1[lane]
                m1[lane] = _fma(d, dt(1) / dt(j + 1), m1[lane])
                m2[lane] = _fma(d, x - m1[lane], m2[lane])
        add_vec(count, m1, m2, stack[0])
        mask, j = i + 1, 1
        while j < depth and mask & 1 == 0:
            add_vec(*stack[j - 1], stack[j])
            stack[j - 1] = [0, [zero] * w, [zero] * w]
            mask >>= 1
            j += 1
    for i in range(1, depth):
        add_vec(*stack[i], stack[0])
    m0, m1, m2 = 0, zero, zero
    for x in row[n * w:]:
        d = x - m1
        m0 += 1
        m1 = m1 + d / dt(m0)
        m2 = m2 + d * (x - m1)
    for lane in range(w):
        total = m0 + n
        c = zero if total == 0 else dt(n) / dt(total)
        delta = stack[0][1][lane] - m1
        m1 = _fma(c, delta, m1)
        m2 = m2 + _fma(delta * delta * c, dt(m0), stack[0][2][lane])
        m0 = total
    return m1, m2 / dt(size)


def _fold(acc: list, dt: type) -> object:
    if dt is np.float32:  # the AVX2 shuffles: lanes i and i ^ 4, then i ^ 2, then i ^ 1
        for k in (4, 2, 1):
            acc = [acc[i] + acc[i ^ k] for i in range(8)]
        return acc[0]
    total = acc[0]
    for v in acc[1:]:
        total = total + v
    return total


def ref_reduce(left: list, right: list | None, dt: type) -> object:
    """vec::map2_reduce_all (``acc + left * right``) / reduce_all over one row."""
    w, size = _width(dt), len(left)
    term = (lambda i: left[i]) if right is None else (lambda i: left[i] * right[i])
    if size < w:
        acc = term(0)
        for i in range(1, size):
            acc = acc + term(i)
        return acc
    acc = [term(i) for i in range(w)]
    full = size - size % w
    for d in range(w, full, w):
        acc = [acc[i] + term(d + i) for i in range(w)]
    for i in range(size - full):
        acc[i] = acc[i] + left[full + i] if right is None else \
            _fma(left[full + i], right[full + i], acc[i])
    return _fold(acc, dt)


def _row(rng: np.random.Generator, size: int, dt: type) -> np.ndarray:
    return (rng.standard_normal(size) * 3 + rng.uniform(-40, 40)).astype(dt)


SIZES = {np.float32: (1, 3, 8, 13, 130, 260, 600), np.float64: (1, 3, 4, 7, 67, 130, 300)}
CASES = [(dt, n) for dt, sizes in SIZES.items() for n in sizes]


@pytest.mark.parametrize(("dt", "size"), CASES)
def test_row_moments_follow_the_scalar_port(dt: type, size: int) -> None:
    """Chunks of 16 vectors, a cascade stack of 1, 2 and 3 levels, scalar tails."""
    rng = np.random.default_rng(size)
    rows = np.stack([_row(rng, size, dt) for _ in range(3)])
    mean, var = layernorm.row_moments(rows)
    for i in range(3):
        want = ref_moments(list(rows[i]), dt)
        assert (mean[i], var[i]) == want


@pytest.mark.parametrize(("dt", "size"), [(np.float32, 13), (np.float64, 67)])
@pytest.mark.parametrize("affine", ["", "w", "b", "wb"])
def test_forward_follows_the_scalar_port(dt: type, size: int, affine: str) -> None:
    rng = np.random.default_rng(7)
    x = np.stack([_row(rng, size, dt) for _ in range(2)]).reshape(2, 1, size)
    w = rng.standard_normal(size).astype(dt) if "w" in affine else None
    b = rng.standard_normal(size).astype(dt) if "b" in affine else None
    mean, rstd = layernorm.stats(x, 1, 1e-5)
    assert mean.shape == rstd.shape == (2, 1, 1)
    y = layernorm.forward(x, 1, w, b, mean, rstd)
    for i in range(2):
        m, v = ref_moments(list(x[i, 0]), dt)
        r = dt(1) / np.sqrt(v + dt(1e-5))
        assert (mean[i, 0, 0], rstd[i, 0, 0]) == (m, r)
        for j in range(size):
            t = x[i, 0, j] - m
            if b is None:
                want = t * r * (dt(1) if w is None else w[j]) + dt(0)
            else:
                want = _fma(t * r, w[j], b[j]) if w is not None else _fma(t, r, b[j])
            assert y[i, 0, j] == want


@pytest.mark.parametrize(("dt", "size"), [(np.float32, 5), (np.float32, 21),
                                          (np.float64, 3), (np.float64, 10)])
@pytest.mark.parametrize("with_weight", [False, True])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_backward_follows_the_scalar_port(dt: type, size: int, with_weight: bool,
                                          threads: int) -> None:
    rng = np.random.default_rng(size)
    rows = 5
    x = np.stack([_row(rng, size, dt) for _ in range(rows)])
    dy = rng.standard_normal((rows, size)).astype(dt)
    w = rng.standard_normal(size).astype(dt) if with_weight else None
    mean, rstd = layernorm.stats(x, 1, 1e-5)
    token = machine.activate(Machine("AVX2", threads))
    try:
        dx = layernorm.input_grad(dy, x, 1, w, mean, rstd)
        dw = layernorm.weight_grad(dy, x, 1, mean, rstd)
        db = layernorm.bias_grad(dy, 1)
    finally:
        machine.deactivate(token)
    scale = dt(1) / dt(size)
    chunk = -(-rows // min(threads, rows))  # at::parallel_for's split of the rows
    buf_w = [[dt(0)] * size for _ in range(threads)]
    buf_b = [[dt(0)] * size for _ in range(threads)]
    for i in range(rows):
        a, m = rstd[i, 0], mean[i, 0]
        g = [dt(1)] * size if w is None else list(w)
        if w is None:
            ds = ref_reduce(list(dy[i]), list(x[i]), dt)
            db_ = ref_reduce(list(dy[i]), None, dt)
        else:
            ds = ref_reduce([dy[i, j] * x[i, j] for j in range(size)], g, dt)
            db_ = ref_reduce(list(dy[i]), g, dt)
        b = _fma(db_, m, -ds) * a * a * a * scale
        c = _fma(-b, m, -(db_ * a * scale))
        for j in range(size):
            ady = a * dy[i, j] if w is None else a * dy[i, j] * g[j]
            assert dx[i, j] == _fma(b, x[i, j], ady) + c
        t = i // chunk
        for j in range(size):
            buf_w[t][j] = _fma(dy[i, j], _fma(a, x[i, j], -a * m), buf_w[t][j])
            buf_b[t][j] = buf_b[t][j] + dy[i, j]
    for j in range(size):
        want_w, want_b = dt(0), dt(0)
        for t in range(threads):
            want_w, want_b = want_w + buf_w[t][j], want_b + buf_b[t][j]
        assert (dw[j], db[j]) == (want_w, want_b)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_constant_rows_and_exact_statistics(dt: type) -> None:
    """A constant row: its mean exactly, variance 0, rstd inf without eps, the output beta."""
    x = np.full((2, 37), dt(2.5))
    mean, var = layernorm.row_moments(x)
    assert list(mean) == [2.5, 2.5] and list(var) == [0.0, 0.0]
    m, r = layernorm.stats(x, 1, 0.0)
    assert np.isinf(r).all()
    m, r = layernorm.stats(x, 1, 1e-5)
    beta = np.arange(37, dtype=dt)
    assert np.array_equal(layernorm.forward(x, 1, None, beta, m, r),
                          np.broadcast_to(beta, x.shape))


def _run(backend: str, dtype: str, x: np.ndarray, w: np.ndarray, b: np.ndarray) -> list:
    ctx = RunContext(get_backend(backend, dtype), warnings=[], machine=Machine("AVX2", 1))
    with use(ctx), quiet():
        ts = [Tensor(ctx.backend.asarray(a), ctx.backend).requires_grad_(True) for a in (x, w, b)]
        y = layer_norm(ts[0], (x.shape[-1],), ts[1], ts[2])
        (y * y).sum().backward()
        return [np.asarray(to_host(t.data)) for t in (y, *(t.grad for t in ts))]


def test_other_backends_keep_the_plain_formulas() -> None:
    """array_api_strict arrays take the Array API formulas, within a few ulps of NumPy's
    exact kernels."""
    pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((4, 17)), rng.standard_normal(17), rng.standard_normal(17)
    exact = _run("numpy", "float64", x, w, b)
    plain = _run("array_api_strict", "float64", x, w, b)
    for e, p in zip(exact, plain):
        np.testing.assert_allclose(p, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(0, 5), (3, 0), (0, 0), (2, 0, 3)])
def test_empty_inputs(dt: type, shape: tuple) -> None:
    """No rows, or rows of no elements (PyTorch: empty outputs, a NaN rstd for an empty row,
    zero gradients of weight and bias where there are no rows)."""
    x = np.ones(shape, dt)
    size = shape[-1]
    mean, rstd = layernorm.stats(x, 1, 1e-5)
    assert mean.shape == rstd.shape == shape[:-1] + (1,)
    if size == 0:
        assert np.isnan(rstd).all()
    y = layernorm.forward(x, 1, np.ones(size, dt), np.ones(size, dt), mean, rstd)
    assert y.shape == shape and y.dtype == dt
    db = layernorm.bias_grad(x, 1)
    assert db.shape == (size,) and not db.any()


# ---- the compiled loops (_native.c's layer_norm_*) against the NumPy code ----------------------

MACHINES = (Machine("AVX2", 1), Machine("DEFAULT", 1))


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit, but for which NaN (a NaN's payload is the compiler's choice of operand
    order, as in tests/test_native.py)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    nan = np.isnan(a)
    view = np.uint32 if a.dtype == np.float32 else np.uint64
    return bool(np.array_equal(nan, np.isnan(b))
                and np.array_equal(a.view(view)[~nan], b.view(view)[~nan]))


def _kernels(x: np.ndarray, k: int, w: object, b: object, dy: np.ndarray,
             eps: float = 1e-5) -> list:
    """Every public function's result, on the current machine."""
    mean, var = layernorm.row_moments(np.ascontiguousarray(x).reshape(
        math.prod(x.shape[:x.ndim - k]), math.prod(x.shape[x.ndim - k:])))
    m, r = layernorm.stats(x, k, eps)
    out = [mean, var, m, r, layernorm.forward(x, k, w, b, m, r)]
    if x.size:
        out += [layernorm.input_grad(dy, x, k, w, m, r), layernorm.weight_grad(dy, x, k, m, r),
                layernorm.bias_grad(dy, k)]
    return out


def _assert_same(x: np.ndarray, k: int, w: object, b: object, dy: np.ndarray,
                 machines: tuple = MACHINES, threads: tuple = (1,)) -> None:
    for base in machines:
        for t in threads:
            token = machine.activate(base.with_threads(t))
            try:
                got = _kernels(x, k, w, b, dy)
                with pure():
                    want = _kernels(x, k, w, b, dy)
            finally:
                machine.deactivate(token)
            for i, (g, e) in enumerate(zip(got, want)):
                assert _same(g, e), (base, t, i, x.shape)


ROW_LENGTHS = tuple(range(1, 71)) + (127, 128, 129, 257, 768, 1000)


@needs_lib
@pytest.mark.parametrize("size", ROW_LENGTHS)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_compiled_loops_follow_the_numpy_code(dt: type, size: int) -> None:
    """Every row length up to 70 (shorter than a vector, a vector and a tail, chunks of 16
    vectors) and longer rows (the cascade's levels), 0, 1, 3 and 64 rows, with and without
    weight and bias, fused and not, one to three threads' buffers."""
    rng = np.random.default_rng([size, np.dtype(dt).itemsize])
    for rows in (0, 1, 3, 64):
        x = (rng.standard_normal((rows, size)) * 3 + rng.uniform(-40, 40)).astype(dt)
        dy = rng.standard_normal((rows, size)).astype(dt)
        w, b = rng.standard_normal(size).astype(dt), rng.standard_normal(size).astype(dt)
        for affine in ("", "w", "b", "wb"):
            _assert_same(x, 1, w if "w" in affine else None, b if "b" in affine else None, dy,
                         threads=(1, 2, 3) if rows > 1 and affine in ("", "wb") else (1,))


@needs_lib
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_compiled_loops_take_any_layout(dt: type) -> None:
    """Transposed and sliced inputs and gradients, a strided weight and a broadcast bias,
    statistics over two dims, a dy of another dtype."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((9, 4, 21)).astype(dt).transpose(1, 0, 2)[:, :, 1:]
    dy = rng.standard_normal((4, 9, 40)).astype(dt)[:, :, ::2]
    w = rng.standard_normal(40).astype(dt)[::2]
    b = np.broadcast_to(dt(0.25), (20,))
    _assert_same(x, 1, w, b, dy, threads=(1, 2))
    _assert_same(x, 2, w.reshape(1, 20) * np.ones((9, 1), dt), None, dy, threads=(1, 3))
    _assert_same(x, 1, w, b, dy.astype(np.float32 if dt is np.float64 else np.float64))


@needs_lib
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("size", [3, 8, 13, 40, 300])
def test_compiled_loops_on_special_values(dt: type, size: int) -> None:
    """inf, NaN, signed zeros, the largest and the subnormal values in the input, the gradient
    and the weight and bias: the same values (NaNs as NaNs), and no warning."""
    rng = np.random.default_rng(size)
    info = np.finfo(dt)
    special = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, info.max, -info.max, info.tiny / 4,
                        info.max / 3], dt)
    rows = 12
    x = (rng.standard_normal((rows, size)) * 10).astype(dt)
    dy = rng.standard_normal((rows, size)).astype(dt)
    w, b = rng.standard_normal(size).astype(dt), rng.standard_normal(size).astype(dt)
    for r in range(rows - 3):  # a row each with a special value here and there, the last clean
        x[r, rng.integers(0, size, 2)] = special[r % len(special)]
        dy[r, rng.integers(0, size)] = special[(r + 3) % len(special)]
    x[rows - 3] = 0.0  # an all-zero row: rstd 1 / sqrt(eps)
    x[rows - 2] = -0.0
    w[0], b[-1] = -0.0, np.nan if size > 3 else 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for affine in ("", "w", "b", "wb"):
            _assert_same(x, 1, w if "w" in affine else None, b if "b" in affine else None, dy,
                         threads=(1, 2))
            big = np.full((2, size), info.max, dt)  # the variance overflows
            big[1, ::2] = -info.max
            _assert_same(big, 1, w if "w" in affine else None, b if "b" in affine else None,
                         np.full((2, size), info.max, dt))


@needs_lib
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_compiled_loops_on_overflowing_products(dt: type) -> None:
    """A product overflowing against an infinite addend of the other sign: NaN in fp.py's fused
    multiply-add of float64 (its plain arithmetic for non-finite operands), and in the loops."""
    rng = np.random.default_rng(11)
    info = np.finfo(dt)
    x = rng.standard_normal((4, 37)).astype(dt)
    w = np.full(37, info.max, dt)
    b = np.where(np.arange(37) % 2, dt(-np.inf), dt(np.inf)).astype(dt)
    dy = np.full((4, 37), info.max / 2, dt)
    dy[1, ::3] = -np.inf
    huge = x * (info.max / 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _assert_same(x, 1, w, b, dy, threads=(1, 2))
        _assert_same(huge, 1, w, None, dy)
    if dt is np.float64:
        m, r = layernorm.stats(x, 1, 1e-5)
        assert np.isnan(layernorm.forward(x, 1, w, b, m, r)).any()
