"""``numpy.random`` for a script: NumPy's own generators, so seeded draws are NumPy's bit for bit.

Each run has its own: ``np.random.seed``, ``randn`` ... use the run's legacy ``RandomState``
(``numpy_values.NumpyState``), never the process's, so two runs share nothing and a program
without a seed repeats (it starts from ``--seed``; NumPy's would start from the operating
system's entropy, as ``default_rng()`` and ``RandomState()`` without a seed would: here they
draw from ``--seed`` and how many came before). ``default_rng(seed)`` gives a
``RandomGenerator``: NumPy's ``Generator`` with its drawing methods, each with the size of its
draws checked before it draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from .numpy_arrays import broadcast_elements, shape_of
from .numpy_values import NumpyFunction, argument, run, state
from .types import TypeObject

Rule = Callable[[tuple, dict], int]


def _size(i: int, params: int = 0, per: Callable[[tuple, dict], int] | None = None) -> Rule:
    """Draws of a method whose ``size`` is at position ``i``: that shape (times ``per``, the
    length of one draw: a multivariate normal's dimension), else the broadcast of its first
    ``params`` parameters."""
    def rule(a: tuple, k: dict) -> int:
        size = a[i] if len(a) > i else k.get("size")
        if size is None:
            n = broadcast_elements(*a[:params]) if params else 1
        elif isinstance(size, (int, np.integer)):
            n = max(int(size), 0)
        elif isinstance(size, (tuple, list)) and all(isinstance(d, (int, np.integer))
                                                     for d in size):
            n = math.prod(max(int(d), 0) for d in size)
        else:
            return 0
        return n * (per(a, k) if per is not None else 1)
    return rule


def _dims(a: tuple, k: dict) -> int:
    """``rand(2, 3)``: the sizes one by one."""
    if all(isinstance(d, (int, np.integer)) for d in a):
        return math.prod(max(int(d), 0) for d in a)
    return 0


def _choice(a: tuple, k: dict) -> int:
    """Draws, or the whole population that a draw without replacement permutes."""
    n = _size(1)(a, k)
    population = a[0] if a else k.get("a")
    replace = a[2] if len(a) > 2 else k.get("replace", True)
    if isinstance(population, (int, np.integer)) and not replace:
        return max(n, int(population))
    return n


def _length_of(i: int, name: str) -> Callable[[tuple, dict], int]:
    return lambda a, k: (shape_of(a[i] if len(a) > i else k.get(name)) or (1,))[0]


def _permutation(a: tuple, k: dict) -> int:
    x = a[0] if a else k.get("x")
    return max(int(x), 0) if isinstance(x, (int, np.integer)) else 0


# name: the size rule of each draw (None: no larger than its argument)
DRAWS: dict[str, Rule | None] = {
    "random": _size(0), "standard_normal": _size(0), "standard_exponential": _size(0),
    "normal": _size(2, 2), "uniform": _size(2, 2), "exponential": _size(1, 1),
    "poisson": _size(1, 1), "binomial": _size(2, 2), "beta": _size(2, 2),
    "gamma": _size(2, 2), "lognormal": _size(2, 2), "laplace": _size(2, 2),
    "logistic": _size(2, 2), "geometric": _size(1, 1), "choice": _choice,
    "permutation": _permutation,
    "multivariate_normal": _size(2, per=_length_of(0, "mean")),
    "multinomial": _size(2, per=_length_of(1, "pvals")),
}
GENERATOR = {**DRAWS, "integers": _size(2, 2), "permuted": None}
LEGACY = {**DRAWS, "randint": _size(2, 2), "random_sample": _size(0), "rand": _dims,
          "randn": _dims}


def _shuffle(get: Callable[[], Any], label: str) -> Callable[..., None]:
    def shuffle(x: Any, *args: Any, **kwargs: Any) -> None:
        """Shuffle ``x`` in place: an array, or a list of any values (NumPy swaps its items)."""
        x = x if x.__class__ is list else argument(x)
        run(get().shuffle, (x, *(argument(a) for a in args)),
            {k: argument(v) for k, v in kwargs.items()}, label)
    return shuffle


def _unseeded_seed() -> np.random.SeedSequence:
    """What ``default_rng()`` or ``RandomState()`` without a seed draws from: ``--seed``,
    and how many unseeded ones the run made before."""
    s = state()
    s.unseeded += 1
    return np.random.SeedSequence(s.seed, spawn_key=(s.unseeded,))


class _Drawing:
    """A NumPy generator as a script holds it: the drawing methods of ``methods`` only."""

    __slots__ = ("generator",)
    methods: ClassVar[dict[str, Rule | None]] = {}

    def __init__(self, generator: Any) -> None:
        self.generator = generator

    def __getattr__(self, name: str) -> Any:
        methods = type(self).methods
        if name not in methods:
            raise AttributeError(name)
        if name == "shuffle":
            return _shuffle(lambda: self.generator, f"{self.script_type}.shuffle")
        return NumpyFunction(name, getattr(self.generator, name), methods[name],
                             owner=self.generator)

    def script_str(self, printer: Any) -> str:
        """``Generator(PCG64)``, as NumPy prints it."""
        return str(self.generator)

    def script_repr(self, printer: Any) -> str:
        """``Generator(PCG64) at 0x7F...``, NumPy's repr with the run's address."""
        return repr(self.generator).replace(f"{id(self.generator):X}",
                                            printer.address(self)[2:].upper())


class RandomGenerator(_Drawing):
    """``np.random.default_rng(seed)``."""

    __slots__ = ()
    script_type = "numpy.random._generator.Generator"
    methods: ClassVar[dict[str, Rule | None]] = {**GENERATOR, "shuffle": None}
    script_attributes = frozenset(methods)


class RandomState(_Drawing):
    """``np.random.RandomState(seed)``: the legacy generator as an object."""

    __slots__ = ()
    script_type = "numpy.random.mtrand.RandomState"
    methods: ClassVar[dict[str, Rule | None]] = {**LEGACY, "shuffle": None, "seed": None}
    script_attributes = frozenset(methods)


def default_rng(seed: Any = None) -> RandomGenerator:
    """``np.random.default_rng(seed)``: NumPy's PCG64 generator."""
    seed = _unseeded_seed() if seed is None else argument(seed)
    return RandomGenerator(run(np.random.default_rng, (seed,), {}, "numpy.random.default_rng",
                               result=False))


def random_state(seed: Any = None) -> RandomState:
    """``np.random.RandomState(seed)``: NumPy's MT19937 generator."""
    if seed is None:
        made = np.random.RandomState(np.random.MT19937(_unseeded_seed()))
    else:
        made = run(np.random.RandomState, (argument(seed),), {}, "numpy.random.RandomState",
                   result=False)
    return RandomState(made)


def seed(seed: Any = None) -> None:
    """``np.random.seed(seed)``: restart the run's legacy generator (from ``--seed`` when no
    seed is given)."""
    value = state().seed % 2 ** 32 if seed is None else argument(seed)
    run(state().legacy.seed, (value,), {}, "numpy.random.seed")


def _legacy(name: str, rule: Rule | None) -> NumpyFunction:
    def draw(*args: Any, **kwargs: Any) -> Any:
        return getattr(state().legacy, name)(*args, **kwargs)

    return NumpyFunction(name, draw, rule, dtype_at=3 if name == "randint" else None,
                         label=f"numpy.random.{name}")


def random_members() -> dict[str, Any]:
    """The members of ``numpy.random``."""
    members: dict[str, Any] = {name: _legacy(name, rule) for name, rule in LEGACY.items()}
    members.update({
        "seed": seed, "shuffle": _shuffle(lambda: state().legacy, "numpy.random.shuffle"),
        "default_rng": default_rng,
        "Generator": TypeObject("numpy.random._generator.Generator", (RandomGenerator,)),
        "RandomState": TypeObject("numpy.random.mtrand.RandomState", (RandomState,),
                                  random_state),
    })
    return members


__all__ = ["GENERATOR", "LEGACY", "RandomGenerator", "RandomState", "default_rng",
           "random_members", "random_state", "seed"]
