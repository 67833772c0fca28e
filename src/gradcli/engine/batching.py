"""vmap's levels: which tensors of a per-sample run are batched, and its random draws.

``torch.func.vmap`` (api/vmap.py) runs the function once per sample and stacks the results.
A ``VmapLevel`` is entered around those runs: it stands in ``RunContext.recorder``'s place, as a
dual level does (engine/forward.py), and marks every op's result that reads a batched tensor, so
that ``.item()``, ``bool()`` and printing of a batched tensor raise PyTorch's errors, an in-place
write of a batched value into an unbatched tensor fails as in PyTorch, and ``out_dims=None``
can tell a batched output.  It also stands in the backend's generator's place: with
``randomness="error"`` a draw raises, with ``"same"`` the first sample draws and the others
reuse its values, with ``"different"`` the first sample of a chunk draws the whole chunk's
values at once (shape ``(chunk, *shape)``, as PyTorch's batched draw) and each sample takes its
row.  Levels nest (``vmap(vmap(f))``): each keeps a link to the level around it.
"""

from __future__ import annotations

from typing import Any

import numpy

from ..errors import ScriptError
from . import distributions as dist
from .exact.iterator import VMAP
from .tensor import Tensor

_EMPTY: dict = {}
RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap")
INPLACE_RANDOM_ERROR = (
    "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will appear "
    "like same randomness. If this is necessary for your usage, please file an issue with "
    "functorch.")
SETITEM_ERROR = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor "
    "`other` in extra_args that has more elements than `self`. This happened due to `other` "
    "being vmapped over but `self` not being vmapped over in a vmap. Please try to use "
    "out-of-place operators instead of inplace arithmetic. If said operator is being called "
    "inside the PyTorch framework, please file a bug report instead.")
# draws whose values depend only on a shape: (the shape's position among the arguments)
_SHAPED = {"uniform": 0, "normal": 0, "randint": 2, "bernoulli": 1, "exponential": 0}


class VmapLevel:
    """One running vmap: its batched tensors and its draws (module docstring)."""

    def __init__(self, ctx: Any, randomness: str) -> None:
        self.ctx = ctx
        self.randomness = randomness
        self.outer = ctx.vmap
        self.func_depth = ctx.func_depth  # the torch.func transforms running around it
        self.prev = ctx.recorder
        self.batched: dict[int, Tensor] = {}
        # the arrays of batched tensors (for the kernels that PyTorch's batching rules change:
        # a product of two batched matrices is a bmm) and the nodes that made batched tensors
        # (a saved output unpacked by a backward formula is batched too)
        self.arrays: dict[int, Any] = {}
        self.nodes: dict[int, Any] = {}
        self.chunk = 1  # the running chunk's size and this sample's place in it
        self.row = 0
        self.draws: list = []  # the chunk's draws, in the order the first sample made them
        self.count = 0  # draws made by this sample so far
        self.index = 0  # the running sample
        self.generator: Any = None

    # --- entering and leaving ---------------------------------------------------------------
    def enter(self) -> None:
        """Make this level current: the run's recorder and generator go through it."""
        ctx = self.ctx
        ctx.vmap = self
        ctx.recorder = self
        self.token = VMAP.set(self)
        backend = ctx.backend
        self.generator = backend.generator
        backend._generator = _Draws(self, self.generator)

    def exit(self) -> None:
        """Put back the recorder, generator and level this one stood in front of."""
        ctx = self.ctx
        ctx.vmap = self.outer
        ctx.recorder = self.prev
        VMAP.reset(self.token)
        ctx.backend._generator = self.generator

    def sample(self, index: int, row: int, chunk: int) -> None:
        """Sample ``index`` begins: row ``row`` of a chunk of ``chunk`` samples."""
        if row == 0 and self.randomness == "different":
            self.draws = []
        self.index = index
        self.row = row
        self.chunk = chunk
        self.count = 0

    def repeating(self) -> bool:
        """Whether the function runs again for a later sample (of this level or one around
        it): PyTorch runs it once, so its prints are written by the first sample only."""
        level: VmapLevel | None = self
        while level is not None:
            if level.index:
                return True
            level = level.outer
        return False

    # --- batched tensors --------------------------------------------------------------------
    def mark(self, t: Tensor) -> None:
        self.batched[id(t)] = t
        self.arrays[id(t.data)] = t.data
        if t.grad_fn is not None:
            self.nodes[id(t.grad_fn)] = t.grad_fn

    def holds(self, t: Any) -> bool:
        """Whether ``t`` is batched at this level."""
        return id(t) in self.batched

    def __call__(self, out: Tensor, op: Any, args: tuple, inplace: bool,
                 params: dict = _EMPTY) -> None:
        """The engine's report of one op: pass it on, then mark its result when it reads a
        batched tensor."""
        if self.prev is not None:
            self.prev(out, op, args, inplace, params)
        batched = self.batched
        if id(out) in batched:
            return
        for a in args:
            if a.__class__ is Tensor and id(a) in batched:
                if inplace:
                    self._unbatched_write(out, op, args)
                self.mark(out)
                return

    def _unbatched_write(self, out: Tensor, op: Any, args: tuple) -> None:
        """PyTorch's error for an in-place op that writes batched values into ``out``."""
        if "copy" in op.name or "index_put" in op.name:
            raise ScriptError(SETITEM_ERROR)
        shapes = [tuple(a.shape) for a in args if a.__class__ is Tensor]
        nd = max(len(s) for s in shapes)
        dims = [1] * nd
        for s in shapes:
            for k, n in enumerate(s, nd - len(s)):
                dims[k] = n if dims[k] == 1 else dims[k]
        raise ScriptError(f"output with shape {list(out.shape)} doesn't match the broadcast "
                          f"shape {[self.chunk, *dims]}")

    # --- draws ------------------------------------------------------------------------------
    def check_fill(self, t: Tensor) -> None:
        """PyTorch's refusal of different draws written in place into an unbatched tensor."""
        if self.randomness == "different" and id(t) not in self.batched:
            raise ScriptError(INPLACE_RANDOM_ERROR)

    def _take(self, batch: Any, one: Any) -> Any:
        """This sample's values of its next draw: ``one()`` made once ("same"), or row
        ``self.row`` of ``batch(chunk)`` made at the chunk's first sample ("different")."""
        k = self.count
        self.count += 1
        if self.randomness == "same":
            if k >= len(self.draws):
                self.draws.append(one())
            return self.draws[k].copy()
        if k >= len(self.draws):
            self.draws.append(batch(self.chunk))
        return self.draws[k][self.row].copy()

    def draw(self, gen: Any, name: str, args: tuple, kwargs: dict) -> Any:
        """One of the generator's draws, as this level's randomness makes it."""
        if self.randomness == "error":
            raise ScriptError(RANDOM_ERROR)
        args = list(args)
        if name == "normal":
            mean = args[2] if len(args) > 2 else kwargs.get("mean", 0.0)
            std = args[3] if len(args) > 3 else kwargs.get("std", 1.0)
            if isinstance(mean, numpy.ndarray) and not isinstance(std, numpy.ndarray):
                # normal(mean tensor, std): normal(0, std) of mean's shape, plus mean
                dtype = args[1] if len(args) > 1 else kwargs.get("dtype", "float32")
                base = self._take(
                    lambda c: gen.normal((c, *mean.shape), dtype, 0.0, std),
                    lambda: gen.normal(mean.shape, dtype, 0.0, std))
                return (base + mean.astype(base.dtype)).astype(base.dtype)
        if name == "bernoulli" and isinstance(args[0], numpy.ndarray):
            return self._bernoulli(gen, *args, **kwargs)
        if name == "randperm":
            return self._take(lambda c: numpy.stack([gen.randperm(*args) for _ in range(c)]),
                              lambda: gen.randperm(*args))
        where = _SHAPED.get(name)
        numbers = [*args[2:4], kwargs.get("mean", 0.0), kwargs.get("std", 0.0)] \
            if name == "normal" else args[:1] if name == "bernoulli" else []
        if where is None or len(args) <= where or args[where] is None or \
                not all(isinstance(v, (int, float)) for v in numbers):
            raise ScriptError(f"gradcli does not support randomness='{self.randomness}' for "
                              "this random operation inside vmap yet",
                              kind="NotImplementedError")
        shape = tuple(args[where])

        def make(lead: tuple) -> Any:
            args[where] = (*lead, *shape)
            return getattr(gen, name)(*args, **kwargs)
        return self._take(lambda c: make((c,)), lambda: make(()))

    def _bernoulli(self, gen: Any, p: Any, shape: Any = None, dtype: Any = None) -> Any:
        """bernoulli of a probability array: one uniform per element compared with it (the
        generator's way), the uniforms drawn as the level's randomness says."""
        probs = numpy.broadcast_to(p, tuple(shape) if shape is not None else p.shape)
        flat = probs.reshape(-1)
        if not ((flat >= 0) & (flat <= 1)).all():
            return gen.bernoulli(p, shape, dtype)  # its error
        n = flat.size

        def units(count: int) -> Any:
            if flat.dtype == numpy.float64:
                return dist.unit_float64(gen.random64(count))
            return dist.unit_float32(gen._words(count))
        u = self._take(lambda c: units(c * n).reshape(c, n), lambda: units(n))
        low = flat if flat.dtype == numpy.float64 else flat.astype(numpy.float32)
        return (u < low).astype(dtype or p.dtype).reshape(probs.shape)


class _Draws:
    """The backend's generator while a vmap runs: draws go through the level."""

    def __init__(self, level: VmapLevel, generator: Any) -> None:
        self._level = level
        self._generator = generator

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._generator, name)
        if name in _SHAPED or name in ("randperm", "multinomial", "random", "random64",
                                       "random_raw"):
            def drawn(*args: Any, **kwargs: Any) -> Any:
                return self._level.draw(self._generator, name, args, kwargs)
            return drawn
        return attr
