"""PyTorch's CPU random number generator (``at::CPUGeneratorImpl``), bit for bit, on NumPy.

A ``Generator`` is an mt19937 engine seeded as PyTorch seeds it, the Box-Muller value PyTorch
caches between normal draws, and the distributions of ``torch.rand``, ``randn``, ``randint``,
``randperm``, ``normal``, ``uniform_``, ``normal_``, ``bernoulli``, ``exponential_`` and
``multinomial`` with PyTorch's algorithms (aten/src/ATen/CPUGeneratorImpl.cpp,
core/MT19937RNGEngine.h, native/cpu/DistributionTemplates.h, native/TensorFactories.cpp,
native/Distributions.cpp, native/cpu/MultinomialKernel.cpp; the arithmetic is in
``distributions``).  The engine is std::mt19937 (``MT19937`` below): its first few thousand
words are twisted here with a few array operations, the rest made by NumPy's ``MT19937`` bit
generator (std::mt19937 in C, whose ``random_raw`` words are PyTorch's ``random()`` words
given the same state), so every draw is vectorised and ``numpy.random`` (8 ms to import) is
loaded only by a program that draws many numbers.  Arrays come back on the host; the backend
moves them to a device.

Method names and arguments follow PyTorch's; the script surface calls them with the run's
generator (``Backend.generator``) or a ``torch.Generator`` object's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

from ..errors import ScriptError
from . import distributions as dist
from .dtypes import SCALAR_NAMES
from .exact import native
from .exact.select import topk_order

DEFAULT_SEED = 67280421310721  # c10::detail::default_rng_seed_val: torch.Generator()'s seed
STATE_SIZE = 5056  # bytes of torch.Generator.get_state() (CPUGeneratorImplState)
_N = 624  # MERSENNE_STATE_N
_RANDPERM_SMALL = 0xFFFFFFFF // 20  # randperm_cpu: below this n, Fisher-Yates on random()
_FILL_ROWS = 4096  # 16-element blocks per piece of a large normal fill (measured best)

# CPUGeneratorImplState, the layout of get_state()'s bytes (x86-64, little-endian).
_STATE_DTYPE = numpy.dtype({
    "names": ["seed", "left", "seeded", "next", "state", "normal_x", "normal_y", "normal_rho",
              "normal_is_valid", "next_float_normal_sample", "is_next_float_normal_sample_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", _N), "<f8", "<f8", "<f8", "<i4", "<f4", "u1"],
    "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
    "itemsize": STATE_SIZE,
})
_LOG1P = dist.libm("log1p")  # the C library's, as std::log1p
_FLOATS = {"float16": numpy.float16, "float32": numpy.float32, "float64": numpy.float64}
_C_NAMES = {numpy.float16: "c10::Half", numpy.float32: "float", numpy.float64: "double"}
_LIMIT_NAMES = {numpy.float16: "Half", numpy.float32: "Float", numpy.float64: "Double"}


def _cpp(x: float) -> str:
    """A double as C++'s ``operator<<`` prints it in PyTorch's messages (``%g``)."""
    return f"{x:g}"


def _float_dtype(dtype: Any) -> Any:
    name = numpy.dtype(dtype).name
    if name not in _FLOATS:
        raise ValueError(f"a floating dtype (float16, float32 or float64) is needed, not {name}")
    return _FLOATS[name]


def _numel(shape: Sequence[int]) -> int:
    return math.prod(int(d) for d in shape)


_M = 397  # MERSENNE_STATE_M
_MATRIX_A = numpy.uint32(0x9908B0DF)
_UPPER = numpy.uint32(0x80000000)
_LOWER = numpy.uint32(0x7FFFFFFF)
_OWN_TWISTS = 8  # blocks of 624 words a generator twists itself before NumPy's C takes over


def _seed_key(seed: int) -> Any:
    """mt19937's state after init_genrand(seed mod 2**32): the 624 words PyTorch seeds with."""
    key = [seed & 0xFFFFFFFF]
    for i in range(1, _N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return numpy.array(key, dtype=numpy.uint32)


def _mix(y: Any, source: Any) -> Any:
    """One step of the twist for each word: ``source ^ (y >> 1) ^ (y odd ? MATRIX_A : 0)``."""
    return source ^ (y >> 1) ^ ((y & 1) * _MATRIX_A)


class MT19937:
    """std::mt19937 (at::mt19937): 624 words of state and the position of the next word.

    A generator starts by twisting its own state (the tempered outputs kept beside it, so a
    draw of a few words is a slice); once it has drawn more than ``_OWN_TWISTS`` blocks it is
    a program that draws many numbers, and NumPy's ``MT19937`` (C) takes its state over.
    """

    __slots__ = ("_key", "_np", "_out", "_pos", "_twists")

    def __init__(self, key: Any, pos: int = _N) -> None:
        self._key = numpy.array(key, dtype=numpy.uint32)
        self._pos = pos  # 624: the next word twists the state first
        self._out = _temper(self._key)
        self._twists = 0
        self._np: Any = None  # NumPy's bit generator, once it holds the state

    @property
    def key(self) -> Any:
        """The 624 state words (uint32)."""
        return self._key if self._np is None else self._np.state["state"]["key"]

    @property
    def pos(self) -> int:
        """How many words of the current state were drawn (624: all)."""
        return self._pos if self._np is None else int(self._np.state["state"]["pos"])

    def _twist(self) -> None:
        """mt19937's generate step on the whole state, in the four runs that depend only on
        words already final (i + M wraps to words the run before made)."""
        k = self._key
        k[:_N - _M] = _mix((k[:_N - _M] & _UPPER) | (k[1:_N - _M + 1] & _LOWER), k[_M:])
        for lo, hi in ((_N - _M, 2 * (_N - _M)), (2 * (_N - _M), _N - 1)):
            k[lo:hi] = _mix((k[lo:hi] & _UPPER) | (k[lo + 1:hi + 1] & _LOWER),
                            k[lo + _M - _N:hi + _M - _N])
        k[_N - 1] = _mix((k[_N - 1] & _UPPER) | (k[0] & _LOWER), k[_M - 1])
        self._pos = 0
        self._out = _temper(k)
        self._twists += 1

    def random_raw(self, n: int) -> Any:
        """The next ``n`` 32-bit outputs (tempered words), as uint64 like NumPy's."""
        if self._np is not None:
            return self._np.random_raw(n)
        pos = self._pos
        if n <= _N - pos:  # within the current block: most draws
            self._pos = pos + n
            return self._out[pos:pos + n].copy()
        if self._twists + (n - (_N - pos) + _N - 1) // _N > _OWN_TWISTS:
            self._np = numpy.random.MT19937(0)
            self._np.state = {"bit_generator": "MT19937", "state": {"key": self._key,
                                                                    "pos": pos}}
            return self._np.random_raw(n)
        parts = [self._out[pos:]]
        left = n - (_N - pos)
        while left:
            self._twist()
            take = min(left, _N)
            parts.append(self._out[:take])
            self._pos = take
            left -= take
        return numpy.concatenate(parts)


def _temper(key: Any) -> Any:
    """mt19937's output function on each state word, as uint64."""
    y = key ^ (key >> 11)
    y ^= (y << 7) & numpy.uint32(0x9D2C5680)
    y ^= (y << 15) & numpy.uint32(0xEFC60000)
    y ^= y >> 18
    return y.astype(numpy.uint64)


def check_rate(lambd: float) -> None:
    """exponential_'s check of its rate (made before the dtype's)."""
    if not lambd > 0.0:
        raise ScriptError(f"exponential_ expects lambda > 0.0, but found lambda={_cpp(lambd)}")


def check_seed(seed: int) -> int:
    """A seed as torch.manual_seed keeps it: [-2**63, 2**64), negatives wrapping to uint64."""
    if not -(2 ** 63) <= seed < 2 ** 64:
        raise ScriptError("Overflow when unpacking long long", kind="ValueError")
    return seed % 2 ** 64


class Generator:
    """One PyTorch CPU generator: mt19937 plus the cached Box-Muller sample."""

    __slots__ = ("_bits", "_fresh", "_normal32", "_normal64", "_seed")

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.manual_seed(seed)

    # --- state ----------------------------------------------------------------------------
    def manual_seed(self, seed: int) -> Generator:
        """Restart from ``seed`` (CPUGeneratorImpl::set_current_seed); returns self, as torch."""
        self._seed = check_seed(int(seed))
        self._bits = MT19937(_seed_key(self._seed))
        self._fresh = True  # no word drawn since seeding (only get_state can tell)
        self._normal64: float | None = None  # next_double_normal_sample
        self._normal32: float | None = None  # next_float_normal_sample (no CPU kernel uses it)
        return self

    def initial_seed(self) -> int:
        """The seed given to the last manual_seed (as an unsigned 64-bit number)."""
        return self._seed

    def get_state(self) -> Any:
        """The 5056 bytes of ``torch.Generator.get_state()`` as a uint8 array."""
        pos = self._bits.pos
        rec = numpy.zeros((), dtype=_STATE_DTYPE)
        rec["seed"], rec["seeded"], rec["state"] = self._seed, 1, self._bits.key
        # at::mt19937 twists when --left reaches 0 and then reads state[next++]
        if pos == _N:
            rec["left"], rec["next"] = 1, 0 if self._fresh else _N
        else:
            rec["left"], rec["next"] = _N + 1 - pos, pos
        if self._normal64 is not None:
            rec["normal_is_valid"], rec["normal_y"] = 1, self._normal64
        if self._normal32 is not None:
            rec["is_next_float_normal_sample_valid"] = 1
            rec["next_float_normal_sample"] = self._normal32
        return numpy.frombuffer(rec.tobytes(), dtype=numpy.uint8).copy()

    def set_state(self, state: Any) -> None:
        """Restore bytes from ``get_state`` (this generator's or PyTorch's)."""
        raw = numpy.asarray(state, dtype=numpy.uint8).reshape(-1)
        if raw.size != STATE_SIZE:
            raise ScriptError(f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found "
                              f"the input RNG state size to be {raw.size}")
        rec = raw.view(_STATE_DTYPE)[0]
        left, nxt = int(rec["left"]), int(rec["next"])
        valid = rec["seeded"] != 0 and 0 < left <= _N and nxt <= _N
        # NOTE: a word source that twists after `left - 1` words from state[next] is the
        # engine NumPy has only when left = 625 - next (every state get_state makes).
        if not valid or (left != 1 and left != _N + 1 - nxt):
            raise ScriptError("Invalid mt19937 state")
        self._seed = int(rec["seed"])
        self._bits = MT19937(rec["state"].astype(numpy.uint32), _N if left == 1 else nxt)
        self._fresh = left == 1 and nxt == 0
        self._normal64 = float(rec["normal_y"]) if rec["normal_is_valid"] else None
        self._normal32 = (float(rec["next_float_normal_sample"])
                          if rec["is_next_float_normal_sample_valid"] else None)

    # --- raw words --------------------------------------------------------------------------
    def _words(self, n: int) -> Any:
        """The next ``n`` 32-bit engine outputs, as uint64."""
        if n:
            self._fresh = False
        return self._bits.random_raw(n)

    def random(self, n: int) -> Any:
        """``n`` calls of CPUGeneratorImpl::random(): uint32 words."""
        return self._words(n).astype(numpy.uint32)

    def random64(self, n: int) -> Any:
        """``n`` calls of CPUGeneratorImpl::random64(): the first word of each pair is high."""
        w = self._words(2 * n)
        return (w[0::2] << numpy.uint64(32)) | w[1::2]

    # --- distributions ------------------------------------------------------------------------
    def uniform(self, shape: Sequence[int], dtype: Any = "float32", low: float = 0.0,
                high: float = 1.0) -> Any:
        """``torch.rand`` (low=0, high=1) and ``Tensor.uniform_(low, high)``: [low, high)."""
        ft = _float_dtype(dtype)
        info = numpy.finfo(ft)
        for value, what in ((low, "from"), (high, "to")):
            if not float(info.min) <= value <= float(info.max):
                raise ScriptError(f"{what} is out of bounds for {_C_NAMES[ft]}")
        if low > high:
            raise ScriptError(f"uniform_ expects to return a [from, to) range, but found "
                              f"from={_cpp(low)} > to={_cpp(high)}")
        if high - low > float(info.max):
            raise ScriptError(f"uniform_ expects to-from <= std::numeric_limits<"
                              f"{_LIMIT_NAMES[ft]}>::max(), but found to={_cpp(high)} and "
                              f"from={_cpp(low)} which result in to-from to exceed the limit")
        n = _numel(shape)
        # float16 draws in float32 (PyTorch's opmath type) and rounds at the end
        if ft is numpy.float64:
            x = dist.unit_float64(self.random64(n))
        else:
            x = dist.unit_float32(self._words(n))
        return dist.uniform(x, low, high, ft).reshape(tuple(shape))

    def normal(self, shape: Sequence[int] | None, dtype: Any = "float32", mean: Any = 0.0,
               std: Any = 1.0, contiguous: bool = True) -> Any:
        """``torch.randn``, ``torch.normal(mean, std, size)``, ``Tensor.normal_(mean, std)``.

        Sizes of 16 and more (contiguous) take PyTorch's 16-at-a-time fill; smaller ones, and
        ``contiguous=False`` (an in-place draw into a strided view, whose values PyTorch
        writes in memory order), the one-at-a-time Box-Muller that caches its second value.
        A ``mean`` or ``std`` array gives torch.normal's tensor forms, of their broadcast
        shape (``shape`` is not used): normal(0, std) + mean, or normal(0, 1) * std + mean,
        as PyTorch computes them.
        """
        ft = _float_dtype(dtype)
        if ft is numpy.float16:
            # NOTE: PyTorch's float16 normal_fill rounds every step to float16 around the C
            # library's float logf/sinf/cosf, which Python cannot call element-wise
            raise ScriptError("gradcli draws normal random numbers as PyTorch does in float32 "
                              "and float64 only, not float16", kind="NotImplementedError")
        if isinstance(mean, numpy.ndarray) or isinstance(std, numpy.ndarray):
            return self._normal_arrays(ft, mean, std)
        if not std >= 0.0:
            raise ScriptError(f"normal expects std >= 0.0, but found std {_cpp(std)}")
        n = _numel(shape)
        shape = tuple(shape)
        if n >= 16 and contiguous:
            return self._normal_fill(n, ft, mean, std).reshape(shape)
        return self._normal_serial(n, mean, std).astype(ft).reshape(shape)

    def _normal_fill(self, n: int, ft: Any, mean: float, std: float) -> Any:
        """normal_fill: n uniforms (16 more when n % 16), transformed 16 at a time."""
        extra = 16 if n % 16 else 0
        if ft is numpy.float32:
            u = dist.unit_float32(self._words(n + extra))
        else:
            u = dist.unit_float64(self.random64(n + extra))
        full = n - n % 16
        blocks = numpy.concatenate([u[:full], u[n:]]).reshape(-1, 16)
        fill = dist.fill32 if ft is numpy.float32 else dist.fill64
        normals = numpy.empty_like(blocks)
        for i in range(0, len(blocks), _FILL_ROWS):  # in pieces that stay in the CPU's cache
            normals[i:i + _FILL_ROWS] = fill(blocks[i:i + _FILL_ROWS], mean, std)
        normals = normals.reshape(-1)
        if not extra:
            return normals
        # the last 16 elements are redrawn, overwriting the end of the last full block
        return numpy.concatenate([normals[:n - 16], normals[full:]])

    def _normal_serial(self, n: int, mean: float, std: float) -> Any:
        """n draws of at::normal_distribution<double>, using and leaving the cached value."""
        vals = numpy.empty(n, dtype=numpy.float64)
        start = 0
        if n and self._normal64 is not None:
            vals[0], self._normal64, start = self._normal64, None, 1
        m = n - start
        pairs = (m + 1) // 2
        if pairs:
            w = self.random64(2 * pairs)
            cos, sin = dist.box_muller_pairs(dist.unit_float64(w[0::2]), dist.unit_float64(w[1::2]))
            vals[start:] = numpy.stack([cos, sin], axis=1).reshape(-1)[:m]
            if m % 2:
                self._normal64 = float(sin[-1])
        return dist.affine64(vals, float(mean), float(std), serial=True)

    def _normal_arrays(self, ft: Any, mean: Any, std: Any) -> Any:
        """torch.normal with a tensor mean or std (normal_out_impl's three forms)."""
        if isinstance(std, numpy.ndarray):
            if std.size and not (std >= 0).all():
                raise ScriptError("normal expects all elements of std >= 0.0")
            shape = numpy.broadcast_shapes(numpy.shape(mean), std.shape)
            out = self.normal(shape, ft)
            return (out * std.astype(ft) + numpy.asarray(mean, dtype=ft)).astype(ft)
        if not std >= 0.0:
            raise ScriptError(f"normal expects std >= 0.0, but found std {_cpp(std)}")
        return (self.normal(mean.shape, ft, 0.0, std) + mean.astype(ft)).astype(ft)

    def randint(self, low: int, high: int, shape: Sequence[int]) -> Any:
        """``torch.randint(low, high, size)``: int64 in [low, high)."""
        for v in (low, high):
            if not -(2 ** 63) <= v < 2 ** 63:
                raise ScriptError("Overflow when unpacking long long", kind="ValueError")
        if low >= high:
            raise ScriptError(f"random_ expects 'from' to be less than 'to', but got "
                              f"from={low} >= to={high}")
        n = _numel(shape)
        span = high - low
        # NOTE: uniform_int_from_to_distribution takes random64() from a range of 2**28 on in
        # PyTorch's public builds ("allow approx 5% skew"; 2**32 only under FBCODE_CAFFE2).
        w = self.random64(n) if span >= 2 ** 28 else self._words(n)  # a new array: ours to write
        w %= numpy.uint64(span)
        if low:
            w += numpy.uint64(low % 2 ** 64)  # wraps as C++'s
        out = w.view(numpy.int64)
        return out if len(shape) == 1 else out.reshape(tuple(shape))

    def randperm(self, n: int) -> Any:
        """``torch.randperm(n)``: int64, Fisher-Yates as randperm_cpu does it."""
        if n < 0:
            raise ScriptError(f"Trying to create tensor with negative dimension {n}: [{n}]")
        if n < _RANDPERM_SMALL:
            if n <= 1:
                return numpy.arange(n, dtype=numpy.int64)
            i = numpy.arange(n - 1, dtype=numpy.uint64)
            picks = self._words(n - 1) % (numpy.uint64(n) - i) + i
            if native.lib is not None:  # the swaps as a C loop
                out = numpy.arange(n, dtype=numpy.int64)
                native.lib.permute(out, picks.view(numpy.int64), False)
                return out
            perm = list(range(n))
            for a, b in enumerate(picks.tolist()):
                perm[a], perm[b] = perm[b], perm[a]
            return numpy.array(perm, dtype=numpy.int64)
        # NOTE: for n this large PyTorch switches to the "inside-out" shuffle on random64()
        # (a uniform pick when n is near 2**32); a loop per element, but n is huge anyway.
        picks = self.random64(n) % numpy.arange(1, n + 1, dtype=numpy.uint64)
        out = numpy.empty(n, dtype=numpy.int64)
        if native.lib is not None:
            native.lib.permute(out, picks.view(numpy.int64), True)
            return out
        for i, z in enumerate(picks.tolist()):
            out[i] = out[z]
            out[z] = i
        return out

    def bernoulli(self, p: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
        """``torch.bernoulli(p)`` (an array of probabilities) and ``Tensor.bernoulli_(p)``.

        A float ``p`` draws one 53-bit uniform per element (bernoulli_scalar's default kernel;
        PyTorch on Intel CPUs with MKL uses MKL's own stream instead).  An array ``p`` draws
        per element with p's precision: float64 from random64(), float32 from random().
        The result has ``dtype`` (default: p's, or float32 for a float ``p``).
        """
        if not isinstance(p, numpy.ndarray):
            if not 0 <= p <= 1:
                raise ScriptError(f"bernoulli_ expects p to be in [0, 1], but got p={_cpp(p)}")
            out_shape = tuple(shape or ())
            u = dist.unit_float64(self.random64(_numel(out_shape)))
            return (u < p).astype(dtype or numpy.float32).reshape(out_shape)
        probs = numpy.broadcast_to(p, tuple(shape) if shape is not None else p.shape)
        flat = probs.reshape(-1)
        bad = numpy.flatnonzero(~((flat >= 0) & (flat <= 1)))
        if bad.size:  # PyTorch checks each p as it draws: the ones before the bad one drew
            self._bernoulli_draws(flat[:bad[0]])
            raise ScriptError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                              "(Could this error message be improved?  If so, please report "
                              "an enhancement request to PyTorch.)")
        hits = self._bernoulli_draws(flat)
        return hits.astype(dtype or p.dtype).reshape(probs.shape)

    def _bernoulli_draws(self, flat: Any) -> Any:
        if flat.dtype == numpy.float64:
            return dist.unit_float64(self.random64(flat.size)) < flat
        return dist.unit_float32(self._words(flat.size)) < flat.astype(numpy.float32)

    def exponential(self, shape: Sequence[int], dtype: Any = "float32",
                    lambd: float = 1.0) -> Any:
        """``Tensor.exponential_(lambd)``: ``-1 / lambd * log1p(-u)`` in float64 for a 53-bit
        uniform ``u`` per element (exponential_kernel's CPU path), rounded to ``dtype``."""
        check_rate(lambd)
        u = dist.unit_float64(self.random64(_numel(shape)))
        x = (-1.0 / lambd) * _LOG1P(-u)
        ft = _float_dtype(dtype)
        if ft is numpy.float16:  # static_cast<Half>(double) goes through float
            x = x.astype(numpy.float32)
        return x.astype(ft).reshape(tuple(shape))

    def multinomial(self, probs: Any, n_sample: int, replacement: bool,
                    draw_order: Any = None) -> Any:
        """``torch.multinomial`` of a 1-D or 2-D float array of weights: int64 indices.

        Without replacement, or for one sample, PyTorch divides the weights by exponential
        draws (one per weight, in memory order: ``draw_order`` ranks a strided tensor's
        elements) and takes the argmax or the top ``n_sample`` (Distributions.cpp).  With
        replacement it walks each row's cumulative sums, in the weights' own precision (float
        for half types), and binary-searches one 53-bit uniform per sample
        (cpu/MultinomialKernel.cpp).  The checks and their order are PyTorch's.
        """
        if probs.ndim not in (1, 2):
            raise ScriptError("prob_dist must be 1 or 2 dim")
        if probs.dtype.kind != "f":
            raise ScriptError(f"multinomial only supports floating-point dtypes for input, got: "
                              f"{SCALAR_NAMES[probs.dtype.name]}")
        if n_sample <= 0:
            raise ScriptError("cannot sample n_sample <= 0 samples")
        if not replacement and n_sample > probs.shape[-1]:
            raise ScriptError("cannot sample n_sample > prob_dist.size(-1) samples without "
                              "replacement")
        rows = probs.reshape(1, -1) if probs.ndim == 1 else probs
        out_shape = (n_sample,) if probs.ndim == 1 else (rows.shape[0], n_sample)
        if rows.size == 0:
            return numpy.zeros(out_shape, dtype=numpy.int64)
        if not replacement or n_sample == 1:
            with numpy.errstate(invalid="ignore"):
                if not (rows.max() < math.inf and rows.min() >= 0):
                    raise ScriptError("probability tensor contains either `inf`, `nan` or "
                                      "element < 0")
            if not rows.any(axis=1).all():
                raise ScriptError("invalid multinomial distribution (sum of probabilities <= 0)")
            q = self.exponential((probs.size,), probs.dtype)
            if draw_order is not None:
                q = q[draw_order.reshape(-1)]
            with numpy.errstate(divide="ignore", invalid="ignore"):
                q = rows / q.reshape(rows.shape)
            if n_sample == 1:
                picked = q.argmax(axis=1).reshape(-1, 1)
            else:
                picked = numpy.array([topk_order(r.tolist(), n_sample, True) for r in q],
                                     dtype=numpy.int64)
            return picked.reshape(out_shape)
        acc = numpy.float64 if probs.dtype == numpy.float64 else numpy.float32
        out = numpy.empty((rows.shape[0], n_sample), dtype=numpy.int64)
        for i, row in enumerate(rows.astype(acc)):
            bad = numpy.flatnonzero(~(row >= 0) | ~numpy.isfinite(row))
            if bad.size:
                entry = "< 0" if not row[bad[0]] >= 0 else "= infinity or NaN"
                raise ScriptError(f"invalid multinomial distribution (encountering probability "
                                  f"entry {entry})")
            cum = numpy.cumsum(row, dtype=acc)  # left to right, rounded at each step
            total = cum[-1]
            if not total > 0:
                raise ScriptError("invalid multinomial distribution (sum of probabilities <= 0)")
            cum = cum / total
            cum[-1] = 1
            u = dist.unit_float64(self.random64(n_sample))
            out[i] = numpy.searchsorted(cum.astype(numpy.float64), u, side="left")
        return out.reshape(out_shape)
