"""PyTorch's CPU random numbers, bit for bit (engine/generator.py against recorded answers).

``tests/fixtures/torch/random.json`` (tools/record_random.py) holds programs of steps and what
PyTorch 2.13 answered at each one; every program is replayed here on ``Generator`` and each
answer must have the same bits.  Then grad scripts that draw random numbers must print what the
PyTorch program they stand for prints, and the exact arithmetic the kernels rely on is checked
against fractions.
"""

from __future__ import annotations

import hashlib
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradcli import pipeline
from gradcli.api import random
from gradcli.engine import distributions as dist
from gradcli.engine import dtypes, machine
from gradcli.engine import generator as gen_module
from gradcli.engine.backend import from_namespace, get_backend, memory_order
from gradcli.engine.context import RunContext, use
from gradcli.engine.exact import fp, native
from gradcli.engine.generator import DEFAULT_SEED, STATE_SIZE, Generator
from gradcli.engine.machine import Machine
from gradcli.errors import ScriptError, UsageError

FIXTURE = json.loads(
    (Path(__file__).parent / "fixtures" / "torch" / "random.json").read_text())
CASES = FIXTURE["cases"]


# ------------------------------------------------------------------------- replaying the steps
# The tensor inputs of the recorded programs (tools/record_random.py builds the same ones).


def probabilities(n: int, dtype: str) -> np.ndarray:
    return ((np.arange(n) * 0.6180339887498949) % 1.0).astype(dtype)


def weights(size: list[int], s: dict[str, Any]) -> np.ndarray:
    n = math.prod(size)
    w = (probabilities(n, "float64") + 0.01).astype(s["dtype"])
    for i in s.get("zeros", ()):
        w[i] = 0
    if "bad" in s:
        w[s["bad"]] = np.nan
    w = w.reshape(size)
    if "bad_row" in s:
        w[s["bad_row"]] *= -1
    return w


def means(n: int, dtype: str) -> np.ndarray:
    return (np.arange(n) * 0.25 - 1.0).astype(dtype)


def stds(n: int, dtype: str) -> np.ndarray:
    return (np.arange(n) * 0.05 + 0.1).astype(dtype)


def encode(arr: np.ndarray) -> dict[str, Any]:
    """The fixture's form of a tensor answer (see tools/record_random.py)."""
    arr = np.ascontiguousarray(arr)
    raw = arr.tobytes()
    out: dict[str, Any] = {"dtype": str(arr.dtype), "shape": list(arr.shape)}
    if arr.size <= 16:
        out["hex"] = raw.hex()
    else:
        k = 8 * arr.itemsize
        out.update(sha256=hashlib.sha256(raw).hexdigest(), head=raw[:k].hex(),
                   tail=raw[-k:].hex(), sum=float(arr.astype(np.float64).sum()))
    return out


def replay(s: dict[str, Any], gens: dict[str | None, Generator], saved: dict[str, Any]) -> Any:
    """Do one recorded step on gradcli's generators; its answer."""
    g = gens.get(s.get("gen"))
    op, size, dtype = s["op"], s.get("size"), s.get("dtype", "float32")
    if op == "manual_seed":
        g.manual_seed(s["seed"])
        return None
    if op == "initial_seed":
        return g.initial_seed()
    if op == "generator":
        gens[s["name"]] = Generator() if s.get("seed") is None else Generator(s["seed"])
        return None
    if op == "get_state":
        return {"sha256": hashlib.sha256(g.get_state().tobytes()).hexdigest()}
    if op == "save_state":
        saved[s["name"]] = g.get_state()
        return None
    if op == "set_state":
        g.set_state(saved[s["name"]])
        return None
    if op == "rand":
        return g.uniform(size, dtype)
    if op == "randn":
        return g.normal(size, dtype)
    if op == "normal":
        return g.normal(size, dtype, s["mean"], s["std"])
    if op in ("normal_", "uniform_"):
        if s.get("transposed"):  # a (rows, cols) view of (cols, rows) storage: memory order
            n = math.prod(size)
            flat = g.normal((n,), dtype, s["mean"], s["std"], contiguous=False) \
                if op == "normal_" else g.uniform((n,), dtype, s["low"], s["high"])
            return flat.reshape(size[::-1]).T
        if op == "normal_":
            return g.normal(size, dtype, s["mean"], s["std"])
        return g.uniform(size, dtype, s["low"], s["high"])
    if op == "normal_tensor":
        n, kind = s["n"], s["kind"]
        mean = means(n, dtype) if kind in ("mean", "both") else s["mean"]
        sign = 1 if s["std"] >= 0 else -1
        std = sign * stds(n, dtype) if kind in ("std", "both") else s["std"]
        return g.normal(None, dtype, mean, std)
    if op == "randint":
        return g.randint(s["low"], s["high"], size)
    if op == "randperm":
        return g.randperm(s["n"])
    if op == "bernoulli":
        p = probabilities(size[0], dtype)
        if "bad" in s:
            p[s["bad"]] = 1.5
        return g.bernoulli(p)
    if op == "bernoulli_":
        if "p_size" in s:
            p = np.broadcast_to(probabilities(s["p_size"][-1], s["p_dtype"]), s["p_size"])
            return g.bernoulli(p, size, dtype)
        return g.bernoulli(s["p"], size, dtype)
    if op == "exponential_":
        if s.get("transposed"):  # a (rows, cols) view of (cols, rows) storage: memory order
            return g.exponential((math.prod(size),), dtype, s["lambd"]).reshape(size[::-1]).T
        return g.exponential(size, dtype, s["lambd"])
    if op == "multinomial":
        if s.get("transposed"):
            w, order = weights(size[::-1], s).T, memory_order(tuple(size), (1, size[0]))
        else:
            w, order = weights(size, s), None
        return g.multinomial(w, s["n"], s["replacement"], order)
    raise AssertionError(f"unknown step {op}")


VARIANTS = json.loads((Path(__file__).parent / "fixtures" / "torch" / "random_variants.json")
                      .read_text())


@pytest.mark.parametrize(("capability", "case"),
                         [(v["cpu_capability"], c) for v in VARIANTS.values() for c in v["cases"]],
                         ids=lambda x: x["name"] if isinstance(x, dict) else x)
def test_matches_pytorch_on_other_capabilities(capability: str, case: dict[str, Any]) -> None:
    """The draws PyTorch's AVX2 and DEFAULT kernels make differently (DEFAULT's float32 normal
    fill, its unfused uniform and normal_distribution), on the emulated capability."""
    token = machine.activate(Machine(capability, 2))
    try:
        test_matches_pytorch(case)
    finally:
        machine.deactivate(token)


def test_the_variants_cover_the_capabilities() -> None:
    assert set(VARIANTS) == {"avx2", "default"}
    assert len(VARIANTS["default"]["cases"]) > 100  # its normals and uniforms differ


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_pytorch(case: dict[str, Any]) -> None:
    gens: dict[str | None, Generator] = {None: Generator()}
    saved: dict[str, Any] = {}
    for i, s in enumerate(case["steps"]):
        where = f"step {i}: {s['op']}"
        if "error" in s:
            with pytest.raises(ScriptError) as info:
                replay(s, gens, saved)
            assert (info.value.kind, info.value.message) == \
                (s["error"]["type"], s["error"]["message"]), where
            continue
        answer = replay(s, gens, saved)
        if isinstance(answer, np.ndarray):
            assert encode(answer) == s["result"], where
        else:
            assert answer == s.get("result"), where


def test_the_fixture_covers_the_brief() -> None:
    """Sizes 0 to 10,000 around the 16-element blocks, both dtypes, every function."""
    steps = [s for c in CASES for s in c["steps"]]
    for op in ("rand", "randn", "normal", "normal_", "uniform_", "bernoulli", "bernoulli_"):
        for dtype in ("float32", "float64"):
            sizes = {s["size"][0] for s in steps if s["op"] == op and s.get("dtype") == dtype
                     and len(s.get("size", [])) == 1}
            assert {0, 1, 15, 16, 17, 31, 33, 1000, 4097, 10000} <= sizes, (op, dtype)
    assert {s["n"] for s in steps if s["op"] == "randperm"} >= {0, 1, 2, 17, 10000}
    assert any(s["op"] == "randn" and s["size"] == [] for s in steps)  # 0-d
    assert sum("error" in s for s in steps) >= 15


# ------------------------------------------------------------------------ grad scripts' draws


@pytest.mark.parametrize("case", FIXTURE["prints"], ids=lambda c: f"{c['dtype']}:{c['script']!r}")
def test_grad_scripts_print_what_pytorch_prints(case: dict[str, Any]) -> None:
    """`seed(n)` and rand/randn in a grad script are torch.manual_seed and torch's draws."""
    result = pipeline.run(case["script"], dtype=case["dtype"])
    assert result.error is None, result.error
    assert "\n".join(result.prints).splitlines() == case["prints"]


def test_seed_option_is_manual_seed() -> None:
    want = FIXTURE["prints"][0]
    assert want["script"].startswith("seed(3)\n")
    script = want["script"].removeprefix("seed(3)\n")
    assert "\n".join(pipeline.run(script, seed=3).prints).splitlines() == want["prints"]
    assert pipeline.run(script, seed=3 + 2 ** 32).prints == pipeline.run(script, seed=3).prints
    with pytest.raises(UsageError, match="--seed"):
        pipeline.run(script, seed=2 ** 64)


def test_seed_out_of_range_in_a_script_is_pytorchs_error() -> None:
    result = pipeline.run("seed(-2**63 - 1)\n")
    assert (result.error.kind, result.error.message) == \
        ("ValueError", "Overflow when unpacking long long")


def test_reseeding_keeps_the_generator_object() -> None:
    """torch.default_generator stays the same object across torch.manual_seed."""
    be = get_backend("numpy", "float32", seed=5)
    g = be.generator
    assert g.initial_seed() == 5
    be.reseed(-1)
    assert be.generator is g and g.initial_seed() == 2 ** 64 - 1 and be.seed == 2 ** 64 - 1


def test_other_array_namespaces_get_the_same_numbers() -> None:
    xp = pytest.importorskip("array_api_strict")
    with use(RunContext(from_namespace(xp, "float64", seed=7))):
        got = np.asarray(random.randn(5).data)
    assert np.array_equal(got, Generator(7).normal((5,), "float64"))


# ---------------------------------------------------------------------------- the engine itself


def test_mt19937_is_the_standards_engine() -> None:
    """C++ [rand.predef]: the 10000th output of mt19937 seeded 5489 is 4123659995."""
    assert Generator(5489).random(10000)[-1] == 4123659995


def test_random64_is_two_words_high_first() -> None:
    words = Generator(1).random(4).astype(np.uint64)
    assert Generator(1).random64(2).tolist() == [
        int(words[0]) << 32 | int(words[1]), int(words[2]) << 32 | int(words[3])]


def test_default_seed_is_torch_generators() -> None:
    assert Generator().initial_seed() == DEFAULT_SEED == FIXTURE["default_generator_seed"]


def test_set_state_refuses_what_pytorch_refuses() -> None:
    g = Generator(3)
    with pytest.raises(ScriptError, match=f"Expected a CPUGeneratorImplState of size {STATE_SIZE}"
                                          " but found the input RNG state size to be 12"):
        g.set_state(np.zeros(12, dtype=np.uint8))
    state = g.get_state()
    state[8:12] = 0  # left = 0
    with pytest.raises(ScriptError, match="Invalid mt19937 state"):
        g.set_state(state)


def test_float16_normal_is_refused_not_approximated() -> None:
    """PyTorch's float16 randn rounds each step around C's logf/sinf/cosf: not reproduced."""
    with pytest.raises(ScriptError, match="float32 and float64 only") as info:
        Generator(0).normal((20,), "float16")
    assert info.value.kind == "NotImplementedError"
    with use(RunContext(get_backend("numpy", "float32"))):
        with pytest.raises(ScriptError, match="not float16"):
            random.randn(3, dtype=dtypes.FLOAT16)
        assert random.rand(3, dtype=dtypes.FLOAT16).data.dtype == np.float16


def test_large_randperm_is_the_inside_out_shuffle(monkeypatch: pytest.MonkeyPatch) -> None:
    """n >= 2**32 / 20 (too large to record) takes randperm_cpu's random64() shuffle."""
    monkeypatch.setattr(gen_module, "_RANDPERM_SMALL", 0)
    n = 300
    got = Generator(9).randperm(n)
    g, want = Generator(9), [0] * n
    for i in range(n):  # the C++ loop of randperm_cpu, one random64() at a time
        z = int(g.random64(1)[0]) % (i + 1)
        want[i] = i
        want[i] = want[z]
        want[z] = i
    assert got.tolist() == want


# ------------------------------------------------------------------------- exact arithmetic

RNG = np.random.default_rng(0)


def _exact_f32(a: float, b: float, c: float) -> np.float32:
    return fp._round_f32(Fraction(a) * Fraction(b) + Fraction(c))


@pytest.mark.parametrize("scale", [1.0, 1e-20, 1e-36, 1e30])
def test_fma32_rounds_once(scale: float) -> None:
    a = (RNG.standard_normal(4000) * scale).astype(np.float32)
    b = RNG.standard_normal(4000).astype(np.float32)
    c = (RNG.standard_normal(4000) * scale).astype(np.float32)
    # halfway cases: c cancels most of a*b, so the float64 sum is inexact near float32 ties
    c[:1000] = (-(a[:1000].astype(np.float64) * b[:1000])).astype(np.float32)
    got = fp.fma32(a, b, c)
    want = np.array([_exact_f32(float(x), float(y), float(z)) for x, y, z in zip(a, b, c)])
    assert got.tobytes() == want.astype(np.float32).tobytes()


def test_fma32_double_rounding_case() -> None:
    """a*b + c that float64 rounds onto a float32 midpoint: fma32 rounds toward the rest."""
    # a*b = -2**-24 + 2**-70 and c = 1 + 2**-23: the sum 1 + 2**-24 + 2**-70 is just above
    # the float32 tie 1 + 2**-24, which float64 rounds it onto (and float32 then to even, 1.0)
    a, b = np.float32(-(2.0 ** -24) * (1 + 2.0 ** -23)), np.float32(1 - 2.0 ** -23)
    c = np.float32(1 + 2.0 ** -23)
    assert np.float32(float(a) * float(b) + float(c)) == 1.0
    assert _exact_f32(float(a), float(b), float(c)) == np.float32(1 + 2.0 ** -23)
    assert fp.fma32(np.array([a]), b, c)[0] == np.float32(1 + 2.0 ** -23)


@pytest.mark.parametrize("scale", [1.0, 1e-150, 1e150])
def test_fma64_rounds_once(scale: float) -> None:
    a = RNG.standard_normal(3000) * scale
    b = RNG.standard_normal(3000)
    c = RNG.standard_normal(3000) * scale
    c[:1000] = -(a[:1000] * b[:1000])  # the product's lost bits decide these
    got = fp.fma64(a, b, c)
    want = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    assert got.tolist() == want


def test_float32_kernels_need_no_fma_care_on_a_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """tools/check_fill32.py checks all 2**24 inputs; here a sample, every fused step checked."""
    k = np.unique(RNG.integers(0, 2 ** 24, 1 << 15).astype(np.uint64))
    u = dist.unit_float32(k)
    fast, same = dist.kernel_fma32, []

    def checked(a: Any, b: Any, c: Any) -> Any:
        exact = fp.fma32(a, b, c)
        same.append(exact.tobytes() == fast(a, b, c).tobytes())
        return exact

    monkeypatch.setattr(dist, "kernel_fma32", checked)
    monkeypatch.setattr(native, "lib", None)  # the NumPy port's steps (the C loops repeat them)
    dist.log256(np.float32(1) - u)
    dist.sincos256(dist.TWO_PI32 * u)
    assert len(same) == 19 and all(same)


@pytest.mark.parametrize("size", [5, 5000])
@pytest.mark.parametrize("name", ["log", "log1p", "sin", "cos"])
def test_libm_is_the_c_librarys(name: str, size: int) -> None:
    """The float64 kernels' log/log1p/sin/cos give Python's math results (the C library's),
    small arrays one by one, larger ones through NumPy's ufunc if it agrees."""
    x = RNG.random(size)
    x = 1 - x if name == "log" else -x if name == "log1p" else 2 * math.pi * x
    got = dist.libm(name)(x)
    assert got.tolist() == [getattr(math, name)(v) for v in x.tolist()]


@pytest.mark.parametrize("seed", [0, 1, 2 ** 32 - 1, 2 ** 32 + 7, DEFAULT_SEED])
def test_seeding_is_init_genrand(seed: int) -> None:
    """The 624 words PyTorch seeds mt19937 with are NumPy's RandomState's (init_genrand)."""
    want = np.random.RandomState(seed & 0xFFFFFFFF).get_state(legacy=False)["state"]["key"]
    assert gen_module._seed_key(seed).tolist() == want.tolist()


def test_the_engine_draws_numpys_mt19937_words_from_any_state() -> None:
    """Twisted here (the first blocks) or by NumPy's MT19937 (after them): the same words and
    the same state after, from random states at every position."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        key = rng.integers(0, 2 ** 32, 624, dtype=np.uint64).astype(np.uint32)
        pos = int(rng.integers(0, 625))
        mine = gen_module.MT19937(key, pos)
        ref = np.random.MT19937(0)
        ref.state = {"bit_generator": "MT19937", "state": {"key": key.copy(), "pos": pos}}
        for n in [0, 1, 623, 625, *rng.integers(0, 2000, 3).tolist(), 1, 4000, 5, 700]:
            got, want = mine.random_raw(n), ref.random_raw(n)
            assert got.dtype == want.dtype and got.tolist() == want.tolist()
            assert mine.key.tolist() == ref.state["state"]["key"].tolist()
            assert mine.pos == ref.state["state"]["pos"]
        assert mine._np is not None  # 8,000 words or more: NumPy's engine took over
