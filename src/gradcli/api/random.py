"""Random tensors, as PyTorch draws them: the surface over ``engine.generator``.

``torch.manual_seed``, ``torch.Generator``, ``rand``/``randn``/``randint``/``randperm``/``normal``
and the ``*_like`` forms, ``bernoulli`` and ``multinomial``, and the in-place draws
``uniform_``, ``normal_``, ``random_``, ``bernoulli_``, ``exponential_`` (recorded as PyTorch's
UniformBackward0, ... whose gradient is zero).  Every draw
comes from the run's default generator (``Backend.generator``) or a ``Generator`` passed as
``generator=``, with PyTorch's algorithms, so the numbers are PyTorch's for the same seed.
"""

from __future__ import annotations

from typing import Any

from ..engine import dtypes as D
from ..engine import ops as O
from ..engine.args import check_device, is_number, tensor_arg, type_name, typed_arg
from ..engine.backend import memory_order, to_host
from ..engine.context import current
from ..engine.dtypes import to_dtype
from ..engine.generator import Generator as _Engine
from ..engine.generator import check_rate
from ..engine.record import apply_inplace
from ..engine.tensor import Tensor, vmap_from
from ..errors import ScriptError
from .creation import _float_dtype, _shape, _size, leaf


class Generator:
    """``torch.Generator()``: an independent stream (seed 67280421310721 until manual_seed)."""

    __slots__ = ("engine",)

    def __init__(self, device: Any = "cpu") -> None:
        check_device(device)
        self.engine = _Engine()

    def manual_seed(self, seed: int) -> Generator:
        """Restart from ``seed``; returns the generator, as PyTorch."""
        self.engine.manual_seed(_seed_arg(seed))
        return self

    def initial_seed(self) -> int:
        """The seed of the last manual_seed."""
        return self.engine.initial_seed()

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at 0x{id(self):x}>"


class _DefaultGenerator(Generator):
    """``torch.default_generator`` and what ``torch.manual_seed`` returns: the run's own."""

    __slots__ = ()

    def __init__(self) -> None:
        self.engine = current().backend.generator

    def manual_seed(self, seed: int) -> Generator:
        current().backend.reseed(_seed_arg(seed))
        return self


def _seed_arg(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScriptError(f"manual_seed expected a long, but got {type_name(seed)}",
                          kind="TypeError")
    return seed


def manual_seed(seed: Any) -> Generator:
    """``torch.manual_seed(n)``: restart the run's generator."""
    current().backend.reseed(_seed_arg(seed))
    return _DefaultGenerator()


def initial_seed() -> int:
    """``torch.initial_seed()``: the run's seed."""
    return current().backend.generator.initial_seed()


def _engine(generator: Any, fn: str) -> Any:
    if generator is None:
        return current().backend.generator
    if isinstance(generator, Generator):
        return generator.engine
    raise ScriptError(f"{fn}(): argument 'generator' must be torch.Generator, not "
                      f"{type_name(generator)}", kind="TypeError")


def _drawn(t: Tensor, *inputs: Any) -> Tensor:
    """A draw made inside a vmap is batched with randomness="different" (PyTorch draws for
    the whole batch) or when it reads a batched tensor."""
    level = current().vmap
    if level is not None:
        if level.randomness == "different":
            level.mark(t)
        else:
            vmap_from(t, *inputs)
    return t


def _same_randomness(*inputs: Any) -> None:
    """PyTorch's refusal of randomness="same" for a draw from a batched tensor."""
    level = current().vmap
    if level is not None and level.randomness == "same" and \
            any(level.holds(t) for t in inputs if t.__class__ is Tensor):
        raise ScriptError("Vmap does not currently support same randomness with a batched "
                          "tensor input. Please file an issue with functorch")


def _to_backend(host: Any, dtype: Any) -> Any:
    be = current().backend
    return be.astype(be.xp.asarray(host), dtype)


# --- new tensors --------------------------------------------------------------------------------
def rand(*shape: Any, size: Any = None, generator: Any = None, dtype: Any = None,
         device: Any = None, requires_grad: bool = False) -> Tensor:
    """Uniform [0, 1) samples."""
    check_device(device)
    dt = _float_dtype(dtype, "check_uniform_bounds")
    host = _engine(generator, "rand").uniform(_size(_shape(shape, size)), dt.name)
    return _drawn(leaf(_to_backend(host, dt), requires_grad))


def randn(*shape: Any, size: Any = None, generator: Any = None, dtype: Any = None,
          device: Any = None, requires_grad: bool = False) -> Tensor:
    """Standard normal samples."""
    check_device(device)
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    host = _engine(generator, "randn").normal(_size(_shape(shape, size)), dt.name)
    return _drawn(leaf(_to_backend(host, dt), requires_grad))


def randint(*args: Any, size: Any = None, generator: Any = None, dtype: Any = None,
            device: Any = None, requires_grad: bool = False) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: int64 unless ``dtype``."""
    check_device(device)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        args, size = args[:-1], args[-1]
    if size is None or len(args) not in (1, 2) or not all(_is_int(a) for a in args):
        raise ScriptError("randint() takes (high, size) or (low, high, size) with int bounds "
                          "and a tuple of ints", kind="TypeError")
    low, high = (0, args[0]) if len(args) == 1 else args
    dt = to_dtype(dtype) if dtype is not None else D.INT64
    host = _engine(generator, "randint").randint(int(low), int(high), _size((tuple(size),)))
    return _drawn(leaf(_to_backend(host, dt), requires_grad))


def randperm(n: Any, generator: Any = None, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of 0..n-1 (int64 unless ``dtype``)."""
    check_device(device)
    if not _is_int(n):
        raise ScriptError(f"randperm(): argument 'n' must be int, not {type_name(n)}",
                          kind="TypeError")
    dt = to_dtype(dtype) if dtype is not None else D.INT64
    _size((n,))
    host = _engine(generator, "randperm").randperm(int(n))
    return _drawn(leaf(_to_backend(host, dt), requires_grad))


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None,
           dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``normal(mean, std, size)`` of numbers, or elementwise with tensor mean and/or std."""
    check_device(device)
    gen = _engine(generator, "normal")
    if is_number(mean) and is_number(std):
        if size is None:
            raise ScriptError("normal() received an invalid combination of arguments - got "
                              "(float, float), but expected a size", kind="TypeError")
        dt = _float_dtype(dtype, "normal_kernel_cpu")
        host = gen.normal(_size((tuple(size),)), dt.name, float(mean), float(std))
        return _drawn(leaf(_to_backend(host, dt), requires_grad))
    ref = mean if mean.__class__ is Tensor else tensor_arg(std, "normal", "std", 2)
    dt = ref.dtype
    _same_randomness(mean, std)
    m = to_host(mean.data) if mean.__class__ is Tensor else float(mean)
    s = to_host(std.data) if std.__class__ is Tensor else float(std)
    return _drawn(leaf(_to_backend(gen.normal(None, dt.name, m, s), dt), requires_grad),
                  mean, std)


def _like(input: Any, dtype: Any, name: str) -> tuple[Tensor, D.DType]:
    x = tensor_arg(input, name)
    return x, to_dtype(dtype) if dtype is not None else x.dtype


def rand_like(input: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """Uniform samples of ``input``'s shape and dtype."""
    x, dt = _like(input, dtype, "rand_like")
    return rand(*x.shape, dtype=dt, device=device, requires_grad=requires_grad)


def randn_like(input: Any, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """Normal samples of ``input``'s shape and dtype."""
    x, dt = _like(input, dtype, "randn_like")
    return randn(*x.shape, dtype=dt, device=device, requires_grad=requires_grad)


def bernoulli(input: Any, p: Any = None, *, generator: Any = None) -> Tensor:
    """0/1 draws with the probabilities in ``input`` (or a number ``p``)."""
    x = tensor_arg(input, "bernoulli")
    gen = _engine(generator, "bernoulli")
    if p is not None:
        host = gen.bernoulli(float(p), x.shape, x.dtype.name)
    else:
        _same_randomness(x)
        host = gen.bernoulli(to_host(x.data))
    return _drawn(leaf(_to_backend(host, x.dtype), False), x)


def multinomial(input: Any, num_samples: Any, replacement: Any = False, *,
                generator: Any = None) -> Tensor:
    """``num_samples`` indices per row of the weights ``input`` (1-D or 2-D), int64."""
    return _multinomial(tensor_arg(input, "multinomial"), num_samples, replacement, generator, 2)


def multinomial_method(self: Tensor, num_samples: Any, replacement: Any = False, *,
                       generator: Any = None) -> Tensor:
    """``Tensor.multinomial``: ``torch.multinomial(self, ...)``."""
    return _multinomial(self, num_samples, replacement, generator, 1)


def _multinomial(x: Tensor, num_samples: Any, replacement: Any, generator: Any,
                 pos: int) -> Tensor:
    """``pos``: the position of ``num_samples`` in the call, for binding errors."""
    typed_arg("multinomial", "num_samples", num_samples, int, pos)
    typed_arg("multinomial", "replacement", replacement, bool, pos + 1)
    gen = _engine(generator, "multinomial")
    order = memory_order(x.shape, x._strides) if x._strides is not None else None
    host = gen.multinomial(to_host(x.data), num_samples, replacement, order)
    return leaf(_to_backend(host, D.INT64), False)


# --- in-place draws -----------------------------------------------------------------------------
def _fill_drawn(op: Any, x: Tensor, draw: Any) -> Tensor:
    """Write ``draw(count, contiguous)``'s values into ``x`` in memory order (as PyTorch fills a
    strided tensor), as the in-place op ``op``."""
    level = current().vmap
    if level is not None:
        level.check_fill(x)
    be = x.backend
    n = x.numel()
    if x._strides is None:
        values = _to_backend(draw((n,), True), x.dtype)
        values = be.xp.reshape(values, tuple(x.shape))
    else:  # a transposed or sliced view: its elements in memory order get the draws in order
        host = draw((n,), False)
        values = _to_backend(host[memory_order(x.shape, x._strides)], x.dtype)
    return apply_inplace(op, x, (), {"values": values})


def _float_args(fn: str, **args: Any) -> None:
    """PyTorch's binding error for a bound that is not a number (checked before the dtype)."""
    for pos, (name, v) in enumerate(args.items(), 1):
        if not isinstance(v, (int, float, Tensor)):
            raise ScriptError(f"{fn}(): argument '{name}' (position {pos}) must be float, not "
                              f"{type(v).__name__}", kind="TypeError")


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with uniform samples from [a, b)."""
    _float_args("uniform_", **{"from": a, "to": b})
    gen = _engine(generator, "uniform_")
    dt = _float_dtype(self.dtype, "check_uniform_bounds")
    return _fill_drawn(O.UNIFORM_, self,
                       lambda shape, contiguous: gen.uniform(shape, dt.name, float(a), float(b)))


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *,
            generator: Any = None) -> Tensor:
    """Fill with normal samples."""
    _float_args("normal_", mean=mean, std=std)
    gen = _engine(generator, "normal_")
    dt = _float_dtype(self.dtype, "normal_kernel_cpu")
    return _fill_drawn(O.NORMAL_, self, lambda shape, contiguous: gen.normal(
        shape, dt.name, float(mean), float(std), contiguous=contiguous))


def random_(self: Tensor, *args: Any, generator: Any = None) -> Tensor:
    """``random_(to)`` or ``random_(from, to)``: integers in [from, to)."""
    if len(args) not in (1, 2) or not all(_is_int(a) for a in args):
        raise ScriptError("random_() takes (to) or (from, to) integers here; gradcli does not "
                          "support random_() without bounds", kind="TypeError")
    low, high = (0, args[0]) if len(args) == 1 else args
    gen = _engine(generator, "random_")
    op = O.RANDOM_TO if len(args) == 1 else O.RANDOM_FROM_TO
    return _fill_drawn(op, self, lambda shape, contiguous: gen.randint(int(low), int(high), shape))


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill with 0/1 draws of probability ``p`` (a number or a tensor)."""
    gen = _engine(generator, "bernoulli_")
    if p.__class__ is Tensor:
        probs = to_host(p.data)
        return _fill_drawn(O.BERNOULLI_TENSOR, self, lambda shape, contiguous: gen.bernoulli(
            probs, tuple(self.shape), self.dtype.name).reshape(-1))
    return _fill_drawn(O.BERNOULLI_SCALAR, self, lambda shape, contiguous: gen.bernoulli(
        float(p), shape, self.dtype.name))


def exponential_(self: Tensor, lambd: Any = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with exponential samples of rate ``lambd``."""
    _float_args("exponential_", lambd=lambd)
    gen = _engine(generator, "exponential_")
    check_rate(float(lambd))
    if not self.dtype.is_floating_point:
        raise ScriptError("Exponential distribution is a continuous probability distribution. "
                          f"dtype must be a floating point but you specified "
                          f"{D.SCALAR_NAMES[self.dtype.name]}")
    return _fill_drawn(O.EXPONENTIAL_, self, lambda shape, contiguous: gen.exponential(
        shape, self.dtype.name, float(lambd)))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


FUNCTIONS = {fn.__name__: fn for fn in (rand, randn, randint, randperm, normal, rand_like,
                                         randn_like, bernoulli, multinomial, manual_seed,
                                         initial_seed)}
FUNCTIONS["Generator"] = Generator
METHODS = {fn.__name__: fn for fn in (uniform_, normal_, random_, bernoulli_, exponential_)}
METHODS["multinomial"] = multinomial_method
