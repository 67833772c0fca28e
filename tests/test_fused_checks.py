"""The float32 fused multiply-add checks of exact/fp.py and unary.tanh_backward against their
earlier definitions (kept here as the reference) and against rational arithmetic, on the
inputs that make them work: sums on float32 midpoints, in float32's subnormal range, next to
2**-126, zeros of both signs, infinities and NaNs with payloads; and kernels.py's float64
fused ops against rational arithmetic at the ties that decide them."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.engine import machine
from gradcli.engine.exact import fp, unary

F32, F64 = np.float32, np.float64
_MID, _LOW, _TINY = np.uint64(1 << 28), np.uint64((1 << 29) - 1), 2.0 ** -126


# --- the earlier definitions -------------------------------------------------------------------
def old_rounds_once(s: Any) -> bool:
    s = np.asarray(s).reshape(-1)
    if not s.size:
        return True
    low = s.view(np.uint64) & _LOW
    low ^= _MID
    if np.count_nonzero(low) != low.size:
        return False
    mag = np.abs(s)
    smallest = np.minimum.reduce(mag)
    if smallest >= _TINY:
        return True
    if 0 < smallest:
        return False
    return not np.count_nonzero((mag < _TINY) & (mag != 0))


def old_fma32(a: Any, b: Any, c: Any) -> Any:
    p = np.multiply(np.asarray(a, F32), np.asarray(b, F32), dtype=F64)
    c = np.asarray(c, F32)
    s = p + c
    with np.errstate(over="ignore"):
        out = s.astype(F32)
    if not old_rounds_once(s):
        s = np.asarray(s)
        with np.errstate(all="ignore"):
            bb = s - p
            err = (p - (s - bb)) + (c - bb)
        risky = fp._flagged(s)
        risky &= err != 0
        if risky.any():
            out = fp._settle(p, np.asarray(c).astype(F64), s, out, risky)
    return out


def old_fused_add(base: Any, a: Any, b: Any) -> Any:
    s = np.multiply(a, b, dtype=F64)
    if s.shape == base.shape:
        np.add(base, s, out=s)
    else:
        s = base.astype(F64) + s
    with np.errstate(over="ignore"):
        out = s.astype(F32)
    return out if old_rounds_once(s) else None


def old_tanh_backward(grad: Any, y: Any) -> Any:
    return np.asarray(grad, y.dtype) * old_fma32(-y, y, y.dtype.type(1))


def exact32(a: float, b: float, c: float) -> Any:
    """a * b + c rounded once to float32, by rational arithmetic (finite operands; a zero's
    sign as IEEE arithmetic gives it)."""
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    return fp._round_f32(exact) if exact else F32(a * b + c)


def bits(x: Any) -> bytes:
    return np.asarray(x, F32).tobytes()


def fma_bits(x: Any, a: Any, b: Any, c: Any) -> bytes:
    """``bits`` of fma32(a, b, c)'s result ``x``, a NaN made of two NaNs read as the default
    NaN: two NaN operands, or a NaN ``c`` added to an invalid product (0 * inf). Which one's
    payload it carries is the compiler's choice (NumPy's float32 to float64 multiply takes the
    second's, the compiled kernels the first's), and no printed value shows it."""
    x = np.array(x, F32)
    with np.errstate(all="ignore"):
        product = np.multiply(a, b, dtype=np.float64)
    two = np.isnan(a) & np.isnan(b) | np.isnan(product) & np.isnan(c)
    x[np.broadcast_to(two, x.shape)] = F32(np.nan)
    return x.tobytes()


# --- adversarial operands ----------------------------------------------------------------------
def adversarial(rng: np.random.Generator, n: int) -> tuple[Any, Any, Any]:
    """Operands whose float64 sums land on float32 midpoints (just off the exact sums, either
    side), in the subnormal range, next to 2**-126, and special values, with plain ones."""
    r = rng.standard_normal(n).astype(F32) * F32(2.0) ** rng.integers(-20, 20, n).astype(F32)
    ulp = np.spacing(np.abs(r)).astype(F64)
    # a * b = +-ulp/2 * (1 - 2**-46): r + a * b rounds in float64 onto the tie next to r
    k = np.log2(ulp / 2).astype(int)
    a = (np.ldexp(1 + 2.0 ** -23, k) * rng.choice([-1.0, 1.0], n)).astype(F32)
    b = np.full(n, 1 - 2.0 ** -23, F32)
    c = r.copy()
    kind = rng.integers(0, 9, n)
    # exact midpoints (a * b exactly half an ulp)
    exact = kind == 1
    b[exact] = 1
    a[exact] = (np.ldexp(1.0, k[exact]) * np.sign(a[exact])).astype(F32)
    # subnormal sums: a float32 subnormal addend, a tiny product
    sub = kind == 2
    c[sub] = (rng.integers(-(1 << 23), 1 << 23, sub.sum()) * 2.0 ** -149).astype(F32)
    a[sub] = (rng.standard_normal(sub.sum()) * 2.0 ** -70).astype(F32)
    b[sub] = (rng.standard_normal(sub.sum()) * 2.0 ** -70).astype(F32)
    # and a * b = +-2**-150 * (1 - 2**-46): onto a subnormal tie, just off it
    tie = sub & (rng.random(n) < 0.5)
    a[tie] = (2.0 ** -75 * (1 + 2.0 ** -23) * rng.choice([-1.0, 1.0], tie.sum())).astype(F32)
    b[tie] = F32(2.0 ** -75 * (1 - 2.0 ** -23))
    # next to 2**-126: the largest subnormal plus a bit, the midpoint below 2**-126
    near = kind == 3
    c[near] = F32(2.0 ** -126 - 2.0 ** -149)
    a[near] = F32(2.0 ** -75)
    b[near] = (rng.integers(1, 1 << 10, near.sum()) * 2.0 ** -84).astype(F32)
    # cancellation: c = -round(a * b), the rest below float32
    canc = kind == 4
    a[canc] = rng.standard_normal(canc.sum()).astype(F32)
    b[canc] = rng.standard_normal(canc.sum()).astype(F32)
    c[canc] = (-(a[canc].astype(F64) * b[canc])).astype(F32)
    # zeros of both signs, infinities, NaNs with payloads
    special = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 3e38, 2.0 ** -149], F32)
    nans = np.array([0x7FC00001, 0xFFC00002, 0x7FA00003], np.uint32).view(F32)
    special = np.concatenate([special, nans])
    sp = kind == 5
    a[sp] = rng.choice(special, sp.sum())
    b[sp] = rng.choice(special, sp.sum())
    c[sp] = rng.choice(special, sp.sum())
    plain = kind == 6
    a[plain], b[plain], c[plain] = (rng.standard_normal((3, plain.sum())).astype(F32))
    return a, b, c


SEEDS = st.integers(0, 2 ** 32 - 1)


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.sampled_from([1, 3, 17, 64, 500]), st.integers(0, 8))
def test_fma32_is_the_earlier_fma32(seed: int, n: int, only: int) -> None:
    rng = np.random.default_rng(seed)
    a, b, c = adversarial(rng, n)
    if only:  # arrays of one kind only, so that the whole-array checks pass or fail on it
        keep = rng.integers(0, 9, n) == only
        a, b, c = a[keep], b[keep], c[keep]
    with np.errstate(all="ignore"):
        assert fma_bits(fp.fma32(a, b, c), a, b, c) == fma_bits(old_fma32(a, b, c), a, b, c)
        for x, y, z in list(zip(a, b, c))[:20]:  # NumPy scalars: 0-d results (a NumPy scalar,
            new, old = fp.fma32(x, y, z), old_fma32(x, y, z)  # or a settled 0-d array)
            assert np.shape(new) == np.shape(old) == ()
            assert fma_bits(new, x, y, z) == fma_bits(old, x, y, z)


@settings(max_examples=20, deadline=None)
@given(SEEDS)
def test_fma32_rounds_once_on_adversarial_operands(seed: int) -> None:
    a, b, c = adversarial(np.random.default_rng(seed), 300)
    with np.errstate(all="ignore"):
        got = fp.fma32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        if np.isfinite(x) and np.isfinite(y) and np.isfinite(z):
            want = exact32(float(x), float(y), float(z))
            assert bits(g) == bits(want), (x, y, z)


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.sampled_from([(1,), (3,), (64,), (20, 64)]), st.booleans(), st.integers(0, 8))
def test_fused_add_is_the_earlier_one_where_it_answers(seed: int, shape: tuple, scalar: bool,
                                                        only: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    a, b, c = adversarial(rng, n)
    if only:
        keep = rng.integers(0, 9, n) == only
        a, b, c = (np.resize(v[keep], n) if keep.any() else v for v in (a, b, c))
    a, b, c = (v.reshape(shape) for v in (a, b, c))
    if scalar:  # the optimizers' 0-d coefficient
        a = np.asarray(a.reshape(-1)[0])
    with np.errstate(all="ignore"):
        new, old, want = fp.fused_add(c, a, b), old_fused_add(c, a, b), old_fma32(a, b, c)
    if old is not None:  # the earlier check passed: so does the new one, with the same bits
        assert new is not None and bits(new) == bits(old)
    if new is not None:  # and where only the new one passes, its bits are the fused result's
        want = np.array(np.broadcast_to(want, np.shape(new)))  # (a NaN's payload aside:
        nan = np.isnan(want)  # fused_add adds the base first, fma32 the product)
        assert np.array_equal(np.isnan(new), nan)
        assert bits(new[~nan]) == bits(want[~nan])


def test_fused_add_keeps_the_coefficients_nan_payload() -> None:
    a = np.asarray(np.array(0x7FC00001, np.uint32).view(F32))
    b = np.full(3, np.array(0xFFC00002, np.uint32).view(F32))
    base = np.zeros(3, F32)
    with np.errstate(all="ignore"):
        assert bits(fp.fused_add(base, a, b)) == bits(old_fused_add(base, a, b))


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.integers(1, 8), st.integers(0, 8))
def test_fused_runs_check_as_before(seed: int, count: int, only: int) -> None:
    """Fused.exact is True wherever the earlier check was, and where only it is True, each
    run's result is fma32's."""
    rng = np.random.default_rng(seed)
    run = fp.Fused((50,), count)
    outs, refs, old_ok = [], [], True
    for _ in range(count):
        a, b, c = adversarial(rng, 50)
        if only:
            keep = rng.integers(0, 9, 50) == only
            a, b, c = (np.resize(v[keep], 50) if keep.any() else v for v in (a, b, c))
        with np.errstate(all="ignore"):
            outs.append(run.fma(a, b, c))
            refs.append(old_fma32(a, b, c))
            s = np.multiply(a, b, dtype=F64) + c
        old_ok = old_ok and bool(old_rounds_once(s))
    with np.errstate(all="ignore"):
        ok = run.exact()
    if old_ok:
        assert ok
    if ok:
        assert b"".join(bits(o) for o in outs) == b"".join(bits(r) for r in refs)


@pytest.mark.parametrize("seed", range(6))
def test_rounds_once_is_the_earlier_test(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n in (1, 2, 5, 64, 1000):
        a, b, c = adversarial(rng, n)
        with np.errstate(all="ignore"):
            s = np.multiply(a, b, dtype=F64) + c
        assert fp.rounds_once(s) == old_rounds_once(s)
        for kind in range(9):
            part = s[rng.integers(0, 9, n) == kind]
            assert fp.rounds_once(part) == old_rounds_once(part)


def test_the_cast_reports_underflow_here() -> None:
    """cast32's subnormal test is the cast's floating-point status (else the slow test)."""
    assert fp._FLAGS
    edge = np.array([1.0, 2.0 ** -126 - 2.0 ** -150])  # the midpoint below 2**-126: flagged
    assert fp.cast32(edge) is None
    up = np.array([1.0, 2.0 ** -126 - 2.0 ** -151])  # rounds up to 2**-126, past the midpoint
    assert bits(fp.cast32(up)) == bits(np.array([1.0, 2.0 ** -126]))
    exact = np.array([1.0, 3 * 2.0 ** -149, -0.0, 0.0])  # float32 subnormals already
    assert bits(fp.cast32(exact)) == bits(exact.astype(F32))


def tanh_outputs(rng: np.random.Generator, n: int) -> Any:
    """A trained net's tanh outputs: saturated (1 - 2**-24, 1 - 2**-21 ...), small, exact
    powers of two, and special values."""
    y = np.tanh(rng.standard_normal(n) * 4).astype(F32)
    kind = rng.integers(0, 6, n)
    y[kind == 1] = (1 - rng.integers(1, 64, (kind == 1).sum()) * 2.0 ** -24).astype(F32)
    y[kind == 2] = (rng.standard_normal((kind == 2).sum()) * 2.0 ** -rng.integers(
        3, 30, (kind == 2).sum())).astype(F32)
    y[kind == 3] = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, 0.125, 2.0 ** -12, np.nan, 3.0,
                                        np.inf, 1e20], F32), (kind == 3).sum())
    y[kind == 4] *= F32(-1)
    return y


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.sampled_from([(1,), (7,), (32, 200), (3, 1, 5)]), st.booleans())
def test_tanh_backward_is_the_earlier_one(seed: int, shape: tuple, saturated: bool) -> None:
    rng = np.random.default_rng(seed)
    y = tanh_outputs(rng, int(np.prod(shape))).reshape(shape)
    if saturated:  # only saturated and exact values: the midpoints that need no settling
        y = np.where(np.abs(y) >= 0.125, y, F32(1 - 2.0 ** -24))
    grad = rng.standard_normal(shape).astype(F32)
    with np.errstate(all="ignore"):
        got, want = unary.tanh_backward(grad, y), old_tanh_backward(grad, y)
    # -y * y of a NaN y: a NaN of two NaN operands, read as the default NaN as in fma_bits
    # (NumPy's own loops give either sign by the array's size; the compiled one, -y's)
    two_nans = np.isnan(y)
    assert bits(np.where(two_nans, F32(np.nan), got)) == bits(np.where(two_nans, F32(np.nan), want))


def test_one_minus_square_rounds_once_up_to_one() -> None:
    """tanh_backward's NOTE on a sample (tools/check_tanh_backward.py checks every float32):
    for 1/8 <= |y| <= 1 the float64 1 - y * y is exact; below, never on a float32 midpoint."""
    lo, hi = np.array([0.125, 1.0], F32).view(np.uint32)
    y = np.arange(lo, hi + 1, 97, dtype=np.uint32).view(F32)
    y = np.concatenate([y, np.array([1.0, 1 - 2.0 ** -24, 0.125], F32)])
    p = np.multiply(-y, y, dtype=F64)
    assert np.array_equal((p + 1.0) - 1.0, p)  # exact (s - 1 is, by Sterbenz)
    y = np.arange(0, lo, 101, dtype=np.uint32).view(F32)
    s = np.multiply(-y, y, dtype=F64) + 1.0
    assert not np.any((s.view(np.uint64) & _LOW) == _MID)


def test_tanh_backward_settles_midpoints_beyond_the_bound() -> None:
    """y beyond [1/8, 1] (an explicit tanh_backward's) whose 1 - y * y lies on a float32
    midpoint: settled by fma32, the fused results."""
    rng = np.random.default_rng(7)
    y = np.exp(rng.uniform(0, np.log(4096), 2_000_000)).astype(F32)
    s = np.multiply(-y, y, dtype=F64) + 1.0
    y = y[(s.view(np.uint64) & _LOW) == _MID][:200]
    assert y.size > 100
    y[::2] *= -1
    y = np.concatenate([y, np.tanh(np.linspace(-3, 3, 50, dtype=F32))])  # and plain ones
    got = unary.tanh_backward(np.ones_like(y), y)
    want = [exact32(-float(v), float(v), 1.0) for v in y]
    assert bits(got) == bits(np.array(want, F32))
    assert bits(got) == bits(old_tanh_backward(np.ones_like(y), y))
    assert machine.current().fma


# --- float64: the optimizers' and lerp's fused multiply-adds (kernels.py) ----------------------
# base + a * b whose float64 sum of the rounded product lies on a midpoint that the product's
# error term decides (found by search): Dekker's product and Knuth's sum, added once, round the
# error term away and land on the wrong side; one correctly rounded fma does not
_TIES64 = [(1.0, 6.78221752667776e-17, 1.6369616873214543),
           (1.0, 8.743381960063679e-17, 1.2697867137638703),
           (1.0, 1.0665237867214062e-16, 1.0409735239361946)]


@pytest.mark.parametrize("pure", [False, True])
def test_float64_fused_ops_round_once_at_ties(pure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """kernels.add_scaled and madd (Adam's lerp and addcmul, SGD's update, in float64) on an
    FMA machine: each element ``base + a * b`` rounded once, as the CPU's fma gives it, at the
    ties above and on random operands; with the compiled kernels and without them."""
    from gradcli.engine import kernels
    from gradcli.engine.exact import native

    if pure:
        monkeypatch.setattr(native, "lib", None)
    rng = np.random.default_rng(5)
    base = np.array([t[0] for t in _TIES64] + list(rng.standard_normal(200)))
    a = np.array([t[1] for t in _TIES64] + list(rng.standard_normal(200)))
    b = np.array([t[2] for t in _TIES64] + list(rng.standard_normal(200) * 1e-3))
    want = np.array([float(Fraction(x) + Fraction(y) * Fraction(z)) for x, y, z in zip(base, a, b)])
    token = machine.activate(machine.Machine("AVX2", 1))
    try:
        assert np.array_equal(kernels.madd(np, base, a, b), want)
        for k, alpha in enumerate((a[0], 0.5, -1e-3)):
            got = kernels.add_scaled(np, base, float(alpha), b)
            exact = [float(Fraction(x) + Fraction(float(alpha)) * Fraction(z))
                     for x, z in zip(base, b)]
            assert np.array_equal(got, exact), k
    finally:
        machine.deactivate(token)
