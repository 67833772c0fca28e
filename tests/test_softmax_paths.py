"""The fast paths of the float32 softmax kernels against their step-by-step forms.

log_softmax and cross_entropy run on SLEEF's ``expf``/``logf`` in float64 lanes (each fused
multiply-add a float64 sum rounded to float32, checked once for double rounding), on a
vectorised nll_loss cascade and on one float64 difference for the backward's fused multiply-add.
tests/test_numerics.py holds them to PyTorch's bits on its fixtures; here each is held to the
form it replaces (every FMA settled on its own by fp.fma32, ATen's loop one row at a time) on
many more inputs, the rare values and the fallbacks included.
"""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine.exact import fp, reduce, sleef, softmaxes

F32 = np.float32


def _bits(x):
    return np.asarray(x).tobytes()


def _exp_inputs(rng):
    wide = rng.uniform(-110, 105, 100_000).astype(F32)
    scaled = (rng.standard_normal(100_000) * 10.0 ** rng.integers(-44, 2, 100_000)).astype(F32)
    edges = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, 0.3465, 0.3466, 0.5, -0.5, 88.7, 88.73,
                      100.0, 100.00001, -103.97, -104.0, -104.00001, -87.34, np.inf, -np.inf,
                      np.nan], F32)
    return wide, scaled, edges


def test_expf_lanes_are_the_settled_steps():
    rng = np.random.default_rng(11)
    for d in _exp_inputs(rng):
        for chunk in (d, d[:864], d[:27], d[:1]):
            with np.errstate(all="ignore"):
                fast = sleef._expf_lanes(chunk)
                settled = sleef._expf(chunk)
            if fast is not None:  # None: a double rounding to settle, the settled steps run
                assert _bits(fast) == _bits(settled)
            assert _bits(sleef.expf(chunk)) == _bits(settled)


def test_expf_lanes_fall_back_where_a_sum_is_on_a_midpoint():
    d = np.array([0x3E704800, 0x3F000000], np.uint32).view(F32)  # 0.2346...: a float64 sum
    with np.errstate(all="ignore"):                                # on a float32 midpoint
        assert sleef._expf_lanes(d) is None
        assert _bits(sleef.expf(d)) == _bits(sleef._expf(d))


def test_expf_lanes_round_a_subnormal_sum_that_is_a_float32():
    d = np.array([1e-40, -1e-45, 0.5], F32)  # s * s * u + s with s subnormal: s in float64,
    with np.errstate(all="ignore"):           # which the cast rounds exactly (fp.cast32)
        fast = sleef._expf_lanes(d)
        assert fast is not None
        assert _bits(fast) == _bits(sleef._expf(d))


def test_logf_lanes_are_the_settled_steps():
    rng = np.random.default_rng(12)
    normal = rng.integers(0x00800000, 0x7F000000, 200_000, dtype=np.uint64).astype(np.uint32)
    sums = rng.uniform(1, 64, 100_000).astype(F32)
    powers = (F32(1.5) * 2.0 ** rng.integers(-125, 126, 5_000)).astype(F32)
    for d in (normal.view(F32), sums, powers, np.nextafter(powers, F32(0))):
        for chunk in (d, d[:32], d[:3]):
            with np.errstate(all="ignore"):
                fast = sleef._logf_lanes(chunk)
                settled = sleef._logf(chunk, fp.fma32, fp.fma32)
            if fast is not None:
                assert _bits(fast) == _bits(settled)
            assert _bits(sleef.logf(chunk)) == _bits(settled)


def _aten_nll_loop(terms, kept):
    """nll_loss_out_frame's loop, one row at a time."""
    zero = terms.dtype.type(0)
    partial = [zero] * 8
    for b in range(terms.shape[0]):
        if not kept[b]:
            continue
        partial[0] = partial[0] - terms[b]
        for j in range(7):
            if b & (15 << (4 * j)):
                break
            partial[j + 1] = partial[j + 1] + partial[j]
            partial[j] = zero
    total = zero
    for p in partial:
        total = total + p
    return total


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_cascade_is_atens_loop(dtype):
    rng = np.random.default_rng(13)
    for n in (*range(40), 63, 64, 65, 100, 255, 256, 257, 300):
        for trial in range(3):
            t = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 30)).astype(dtype)
            if n and trial == 1:
                t[rng.random(n) < 0.3] = -0.0
                t[rng.integers(0, n)] = np.inf
            if n and trial == 2:
                t[rng.integers(0, n)] = np.nan
            kept = np.ones(n, bool) if trial != 1 else rng.random(n) > 0.1
            with np.errstate(all="ignore"):
                assert _bits(reduce.nll_cascade(t, kept)) == _bits(_aten_nll_loop(t, kept))


def test_fused_subtraction_is_fma32():
    rng = np.random.default_rng(14)
    for trial in range(400):
        r, k = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        b = rng.random((r, k)).astype(F32) ** int(rng.integers(1, 40))
        if trial % 3 == 0:  # cross_entropy's gradient: one value per row
            a = np.zeros((r, k), F32)
            a[np.arange(r), rng.integers(0, k, r)] = F32(-1.0 / int(rng.integers(1, 100)))
        elif trial % 3 == 1:
            a = (rng.standard_normal((r, k)) * 10.0 ** int(rng.integers(-45, 5))).astype(F32)
        else:
            a = rng.standard_normal((r, k)).astype(F32)
            a.reshape(-1)[rng.integers(0, r * k)] = (np.nan, np.inf, -0.0)[trial // 3 % 3]
        c = softmaxes.reduce_all_sum(a)[:, None]
        with np.errstate(all="ignore"):
            assert _bits(softmaxes._msub(a, b, c)) == _bits(fp.fma32(-b, c, a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_kernels_give_row_major_results(dtype):
    """Every softmax kernel's result is row-major, as PyTorch's is: a matrix product taking it
    as an operand passes gemm its layout, so a transposed view there (softmax over a leading
    dimension once was) changes which sums MKL runs (float64 weight gradients 1 ulp off)."""
    from gradcli.engine.exact import blas

    rng = np.random.default_rng(3)
    for shape in ((16, 2), (3, 4, 5), (7,), (2, 1, 9)):
        x = rng.standard_normal(shape).astype(dtype)
        g = rng.standard_normal(shape).astype(dtype)
        for dim in range(len(shape)):
            y = softmaxes.softmax(x, dim)
            outs = (y, softmaxes.log_softmax(x, dim), softmaxes.softmax_backward(g, y, dim),
                    softmaxes.log_softmax_backward(g, np.log(y), dim))
            assert all(o.flags.c_contiguous for o in outs), (shape, dim)
    y = softmaxes.softmax(rng.standard_normal((16, 2)), 0)
    left = rng.standard_normal((1, 16))
    assert blas.mm(left, y).tobytes() == blas.mm(left, y.copy()).tobytes()


def _walk(total, inner, lanes):
    """_vec_softmax's loop as ATen writes it: each thread's range walked a vector at a time
    where one fits in the inner row and the range, else to the row's or the range's end."""
    from gradcli.engine.exact.iterator import thread_ranges

    out = np.zeros(total, bool)
    for begin, end in thread_ranges(total, None, 0):
        idx = begin
        while idx < end:
            inner_idx = idx % inner
            if inner_idx + lanes <= inner and idx + lanes <= end:
                out[idx:idx + lanes] = True
                idx += lanes
            else:
                idx += (end - idx) if idx + lanes > end else (inner - inner_idx)
    return out


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_softmax_vector_positions_are_atens_walk(threads):
    from gradcli.engine import machine

    token = machine.activate(machine.Machine("AVX2", threads))
    try:
        for outer in (1, 2, 3, 17, 64):
            for inner in (1, 2, 7, 8, 9, 16, 17, 64, 100, 1000):
                for lanes in (4, 8, 16):
                    assert np.array_equal(softmaxes._vector_positions(outer * inner, inner, lanes),
                                          _walk(outer * inner, inner, lanes)), (outer, inner, lanes)
    finally:
        machine.deactivate(token)
