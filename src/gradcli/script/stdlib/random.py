"""Python's ``random`` module as a script imports it: CPython's own generator (the Mersenne
Twister and its methods), so that seeded draws are CPython's, one generator per run.

``random.seed(42); random.shuffle(words)`` runs CPython's ``Random.shuffle`` on the script's
list. The module's functions are the methods of the run's hidden generator, as CPython's are
of its ``random._inst``; an unseeded run's generator starts from the run's seed (``--seed``)
where CPython's takes the system's entropy (so does ``seed()`` and ``Random()``), so a run is
repeatable. ``random.Random(n)`` is a generator of the script's own. A method that draws ``n``
items counts ``n`` steps.
"""

from __future__ import annotations

import random as _python_random
from typing import Any

from ...api.types import TypeObject
from ...errors import ScriptError
from ..pyprotocols import needs_interpreter
from ..values import MAX_INT_BITS, MAX_SEQUENCE, too_long
from .support import python, run_state, spend

# the methods a script may call: the draws and the state, nothing that reads the system
_DRAWS = ("random", "uniform", "randint", "randrange", "choice", "gauss", "normalvariate",
          "lognormvariate", "expovariate", "triangular", "betavariate", "gammavariate",
          "paretovariate", "weibullvariate", "vonmisesvariate")
_METHODS = (*_DRAWS, "seed", "shuffle", "sample", "choices", "getrandbits", "getstate",
            "setstate")


class Random:
    """``random.Random(x)``: a generator of CPython's, the script's value."""

    __slots__ = ("python", "run_seed")
    script_type = "random.Random"
    script_attributes = frozenset(_METHODS)

    def __init__(self, run_seed: int, seed: Any = None) -> None:
        self.python = _python_random.Random()
        self.run_seed = run_seed
        self.seed(seed)

    def script_repr(self, printer: Any) -> str:
        return f"<random.Random object at {printer.address(self)}>"

    def seed(self, *args: Any, **kwargs: Any) -> None:
        """``seed(a=None, version=2)``; None is the run's seed."""
        if args[:1] == (None,) or not args and kwargs.get("a") is None:
            args, kwargs = (self.run_seed, *args[1:]), {k: v for k, v in kwargs.items()
                                                           if k != "a"}
        python(self.python.seed, *args, **kwargs)

    @needs_interpreter
    def shuffle(self, interp: Any, *args: Any, **kwargs: Any) -> None:
        """``shuffle(x)``: CPython's swaps, in place, a step per item."""
        python(self.python.shuffle, *args, **kwargs)
        spend(interp, len(args[0]))

    @needs_interpreter
    def sample(self, interp: Any, *args: Any, **kwargs: Any) -> list:
        """``sample(population, k, *, counts=None)``."""
        _check_size(args[1] if len(args) > 1 else kwargs.get("k"))
        out = python(self.python.sample, *args, **kwargs)
        spend(interp, len(out))
        return out

    @needs_interpreter
    def choices(self, interp: Any, *args: Any, **kwargs: Any) -> list:
        """``choices(population, weights=None, *, cum_weights=None, k=1)``."""
        _check_size(kwargs.get("k"))
        out = python(self.python.choices, *args, **kwargs)
        spend(interp, len(out))
        return out

    def getrandbits(self, k: Any) -> int:
        """``getrandbits(k)``, within the size of a script's ints."""
        if isinstance(k, int) and k > MAX_INT_BITS:
            raise ScriptError(f"integer too large (over {MAX_INT_BITS:,} bits, about 4,200 "
                              "digits)", kind="OverflowError")
        return python(self.python.getrandbits, k)

    def getstate(self) -> tuple:
        """``getstate()``: the generator's state, for ``setstate``."""
        return self.python.getstate()

    def setstate(self, state: Any) -> None:
        """``setstate(state)``."""
        python(self.python.setstate, state)


def _check_size(k: Any) -> None:
    if isinstance(k, int) and k > MAX_SEQUENCE:
        raise too_long(k)


def _draw(name: str) -> Any:
    def draw(self: Random, *args: Any, **kwargs: Any) -> Any:
        return python(getattr(self.python, name), *args, **kwargs)

    draw.__name__ = draw.__qualname__ = name
    draw.__doc__ = f"CPython's ``Random.{name}``."
    return draw


for _name in _DRAWS:
    setattr(Random, _name, _draw(_name))


def _generator(interp: Any) -> Random:
    """The run's hidden generator, seeded from the run's seed until the script seeds it."""
    return run_state(interp, "random", lambda: Random(interp.backend.seed))


def _init(self: Any, x: Any = None) -> Any:
    return x


_init.__qualname__ = "Random.__init__"  # what CPython's argument errors name


@needs_interpreter
def _new(interp: Any, *args: Any, **kwargs: Any) -> Random:
    """``random.Random(x=None)``."""
    return Random(interp.backend.seed, python(_init, None, *args, **kwargs))


def _function(name: str) -> Any:
    """``random.<name>``: the method of the run's generator."""
    method = getattr(Random, name)
    takes_interp = getattr(method, "needs_interpreter", False)

    @needs_interpreter
    def function(interp: Any, *args: Any, **kwargs: Any) -> Any:
        rng = _generator(interp)
        return method(rng, interp, *args, **kwargs) if takes_interp else \
            method(rng, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    return function


RANDOM_CLASS = TypeObject("random.Random", (Random,), _new)
Random.script_class = RANDOM_CLASS  # type: ignore[attr-defined]
MEMBERS: dict[str, Any] = {name: _function(name) for name in _METHODS}
MEMBERS["Random"] = RANDOM_CLASS

__all__ = ["MEMBERS", "Random"]
