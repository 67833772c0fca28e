"""``torch.utils.data`` as PyTorch's Python code runs it, in-process: ``Dataset`` (which a
script's class may derive from), ``TensorDataset``, ``Subset``, ``random_split``, the samplers
and ``DataLoader`` with PyTorch's default collation.

The random draws are PyTorch's, in PyTorch's order: each iteration over a loader first draws its
``_base_seed`` (one int64 ``random_()`` from the loader's generator, or the run's), then, at the
first batch, a shuffling loader's ``RandomSampler`` draws a seed from the run's generator (unless
it was given one) for a new generator whose ``randperm`` orders the samples.  Worker processes are
not made: ``num_workers`` is accepted and the batches are loaded in the run's process (a dataset
that draws random numbers in ``__getitem__`` draws from the run's generator, not from per-worker
seeds).
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterator
from typing import Any

from ..engine import FUNCTIONS
from ..engine.context import current
from ..engine.dtypes import DTYPES
from ..engine.indexing import getitem
from ..engine.tensor import Tensor
from ..errors import ScriptError
from .creation import tensor
from .nn_parameter import binding, typename
from .random import Generator as ApiGenerator
from .types import TypeObject

_RANDPERM_OVERLOADS = (
    " * (int n, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
    " * (int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")
_RANDOM_OVERLOADS = (" * (*, torch.Generator generator = None)\n"
                     " * (int from, int to, *, torch.Generator generator = None)\n"
                     " * (int to, *, torch.Generator generator = None)\n")


def _engine(generator: Any, call: str, got: str, overloads: str) -> Any:
    """The engine generator of ``generator`` (the run's when None), or PyTorch's error for a
    value that is not a torch.Generator."""
    if generator is None:
        return current().backend.generator
    if isinstance(generator, ApiGenerator):
        return generator.engine
    raise ScriptError(f"{call}() received an invalid combination of arguments - got ({got}"
                      f"generator={typename(generator)}{'' if got else ', '}), but expected one "
                      f"of:\n{overloads}", kind="TypeError")


def _random_int64(generator: Any) -> int:
    """``torch.empty((), dtype=torch.int64).random_(generator=generator).item()``: a 64-bit
    word modulo 2**63."""
    return int(_engine(generator, "random_", "", _RANDOM_OVERLOADS).random64(1)[0]) % (1 << 63)


def _randperm(n: int, generator: Any) -> list[int]:
    """``torch.randperm(n, generator=generator).tolist()``."""
    return [int(i) for i in _engine(generator, "randperm", "int, ", _RANDPERM_OVERLOADS)
            .randperm(n)]


class _Protocols:
    """len(), x[i] and iteration for a script (``script_sequence``), with Python's errors
    where the class lacks them."""

    script_sequence = True
    script_class: TypeObject

    def script_repr(self, printer: Any) -> str:
        """``<torch.utils.data.dataset.Subset object at 0x…>``."""
        return f"<{type(self).script_class.qualname} object at {printer.address(self)}>"

    def __getitem__(self, index: Any) -> Any:
        raise ScriptError(f"'{type(self).script_type}' object is not subscriptable",
                          kind="TypeError")

    def __setitem__(self, index: Any, value: Any) -> None:
        raise ScriptError(f"'{type(self).script_type}' object does not support item "
                          "assignment", kind="TypeError")

    def __len__(self) -> int:
        raise ScriptError(f"object of type '{type(self).script_type}' has no len()",
                          kind="TypeError")


# -- datasets -------------------------------------------------------------------------------------
class Dataset(_Protocols):
    """``torch.utils.data.Dataset``: a script's class derives from it and defines
    ``__getitem__`` (and usually ``__len__``)."""

    script_subclassable = True  # a script's class may derive from it (script/classes.py)
    script_attributes: frozenset[str] = frozenset()

    def __getitem__(self, index: Any) -> Any:
        raise ScriptError("Subclasses of Dataset should implement __getitem__.",
                          kind="NotImplementedError")

    def script_member(self, name: str) -> Any:
        """An attribute a script's subclass has not set: Python's AttributeError."""
        raise ScriptError(f"'{type(self).script_type}' object has no attribute '{name}'",
                          kind="AttributeError")

    def script_setattr(self, name: str, value: Any) -> None:
        """``self.name = value`` in a script's subclass: an attribute of the instance."""
        object.__setattr__(self, name, value)

    def script_delattr(self, name: str) -> None:
        """``del self.name``."""
        if name not in self.__dict__:
            raise ScriptError(f"'{type(self).script_type}' object has no attribute '{name}'",
                              kind="AttributeError")
        del self.__dict__[name]

    def __add__(self, other: Any) -> ConcatDataset:
        """``a + b``: the samples of ``a`` then those of ``b``."""
        return ConcatDataset([self, other])

    def __iter__(self) -> Iterator[Any]:
        """Python's iteration by ``__getitem__``: 0, 1, ... until an IndexError."""
        for i in itertools.count():
            try:
                item = self[i]
            except IndexError:
                return
            except ScriptError as err:
                if err.kind == "IndexError":
                    return
                raise
            yield item


class TensorDataset(Dataset):
    """``TensorDataset(*tensors)``: sample ``i`` is ``(t[i] for t in tensors)``."""

    script_attributes = frozenset({"tensors"})

    def __init__(self, *tensors: Any) -> None:
        for t in tensors:
            if not isinstance(t, Tensor):
                raise ScriptError(f"'{typename(t)}' object has no attribute 'size'",
                                  kind="AttributeError")
        if not tensors:
            raise ScriptError("tuple index out of range", kind="IndexError")
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise ScriptError("Size mismatch between tensors", kind="AssertionError")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(getitem(t, index) for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset):
    """``Subset(dataset, indices)``: the samples of ``dataset`` at ``indices``."""

    script_attributes = frozenset({"dataset", "indices"})

    def __init__(self, dataset: Any, indices: Any) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """``ConcatDataset(datasets)``: the datasets' samples one after the other."""

    script_attributes = frozenset({"datasets", "cumulative_sizes"})

    def __init__(self, datasets: Any) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ScriptError("datasets should not be an empty iterable", kind="AssertionError")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __getitem__(self, idx: Any) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ScriptError("absolute value of index should not exceed dataset length",
                                  kind="ValueError")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]


def random_split(dataset: Any, lengths: Any, generator: Any = None) -> list[Subset]:
    """Split ``dataset`` into non-overlapping Subsets of the given lengths (or fractions),
    the samples shuffled by ``randperm`` on ``generator`` (the run's by default)."""
    lengths = list(lengths)
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ScriptError(f"Fraction at index {i} is not between 0 and 1",
                                  kind="ValueError")
            sizes.append(math.floor(n * frac))
        for i in range(n - sum(sizes)):  # the remainder, round-robin
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, length in enumerate(lengths):
            if length == 0:
                current().warn(f"Length of split at index {i} is 0. This might result in an "
                               "empty dataset.", category="UserWarning")
    if sum(lengths) != n:
        raise ScriptError("Sum of input lengths does not equal the length of the input "
                          "dataset!", kind="ValueError")
    indices = _randperm(sum(lengths), generator)
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


# -- samplers -------------------------------------------------------------------------------------
class SequentialSampler(_Protocols):
    """The indices 0 .. len(data_source) - 1 in order."""

    script_attributes = frozenset({"data_source"})

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(_Protocols):
    """The indices in a random order: ``randperm`` on a generator seeded from the run's (or on
    ``generator``), drawn when the first index is asked for."""

    script_attributes = frozenset({"data_source", "replacement", "num_samples", "generator"})

    def __init__(self, data_source: Any, replacement: bool = False, num_samples: Any = None,
                 generator: Any = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise ScriptError("replacement should be a boolean value, but got replacement="
                              f"{replacement}", kind="TypeError")
        if replacement:
            raise ScriptError("RandomSampler(replacement=True) is not supported by gradcli",
                              kind="NotImplementedError")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ScriptError("num_samples should be a positive integer value, but got "
                              f"num_samples={self.num_samples}", kind="ValueError")

    @property
    def num_samples(self) -> int:
        """``len(data_source)`` unless given."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = ApiGenerator().manual_seed(_random_int64(None))
        for _ in range(self.num_samples // n):
            yield from _randperm(n, generator)
        yield from _randperm(n, generator)[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(_Protocols):
    """Lists of ``batch_size`` indices from ``sampler`` (the last shorter unless
    ``drop_last``)."""

    script_attributes = frozenset({"sampler", "batch_size", "drop_last"})

    def __init__(self, sampler: Any, batch_size: Any, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ScriptError("batch_size should be a positive integer value, but got "
                              f"batch_size={batch_size}", kind="ValueError")
        if not isinstance(drop_last, bool):
            raise ScriptError("drop_last should be a boolean value, but got drop_last="
                              f"{drop_last}", kind="ValueError")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


# -- collation ------------------------------------------------------------------------------------
_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                  "lists; found {}")


def default_collate(batch: Any) -> Any:
    """PyTorch's default_collate: tensors stacked, numbers made tensors (float64 for floats),
    strings kept, dicts and sequences collated field by field (a tuple's fields as a list)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return FUNCTIONS["stack"](list(batch), 0)
    if isinstance(elem, float):
        return tensor(list(batch), dtype=DTYPES["float64"])
    if isinstance(elem, int):
        return tensor(list(batch))
    if isinstance(elem, str):
        return batch
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, (tuple, list)):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise ScriptError("each element in list of batch should be of equal size")
        return [default_collate(samples) for samples in zip(*batch)]  # each field a tuple
    raise ScriptError(_COLLATE_ERROR.format(f"<class '{typename(elem)}'>"), kind="TypeError")


def default_convert(data: Any) -> Any:
    """What a loader without batching (``batch_size=None``) yields: the sample, its tuples
    made lists, field by field."""
    if isinstance(data, dict):
        return {key: default_convert(v) for key, v in data.items()}
    if isinstance(data, (tuple, list)):
        return [default_convert(d) for d in data]
    return data


# -- the loader -----------------------------------------------------------------------------------
class DataLoader(_Protocols):
    """``DataLoader(dataset, batch_size=1, shuffle=None, ...)``: the dataset's samples in
    batches (in order, or shuffled with PyTorch's draws), collated by ``collate_fn``."""

    script_attributes = frozenset({"dataset", "batch_size", "drop_last", "sampler",
                                   "batch_sampler", "num_workers", "collate_fn", "generator"})

    def __init__(self, dataset: Any, batch_size: Any = 1, shuffle: Any = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Any = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Any = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: Any = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ScriptError("num_workers option should be non-negative; use num_workers=0 to "
                              "disable multiprocessing.", kind="ValueError")
        if timeout < 0:
            raise ScriptError("timeout option should be non-negative", kind="ValueError")
        self.dataset = dataset
        self.num_workers = num_workers
        self.generator = generator
        if sampler is not None and shuffle:
            raise ScriptError("sampler option is mutually exclusive with shuffle",
                              kind="ValueError")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ScriptError("batch_sampler option is mutually exclusive with batch_size, "
                                  "shuffle, sampler, and drop_last", kind="ValueError")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ScriptError("batch_size=None option disables auto-batching and is mutually "
                              "exclusive with drop_last", kind="ValueError")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else \
                SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.collate_fn = collate_fn if collate_fn is not None else \
            default_collate if batch_sampler is not None else default_convert

    def __iter__(self) -> Iterator[Any]:
        _random_int64(self.generator)  # _BaseDataLoaderIter's _base_seed
        indices = iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)
        collate = self.collate_fn
        for index in indices:
            if self.batch_sampler is not None:
                yield binding(collate, [self.dataset[i] for i in index])
            else:
                yield binding(collate, self.dataset[index])

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


def _type(name: str, place: str, cls: type) -> TypeObject:
    cls.script_type = name
    cls.script_class = TypeObject(f"torch.utils.data.{place}.{name}", (cls,),
                                  lambda *args, **kwargs: binding(cls, *args, **kwargs))
    return cls.script_class


DATA: dict[str, Any] = {
    "Dataset": _type("Dataset", "dataset", Dataset),
    "TensorDataset": _type("TensorDataset", "dataset", TensorDataset),
    "Subset": _type("Subset", "dataset", Subset),
    "ConcatDataset": _type("ConcatDataset", "dataset", ConcatDataset),
    "DataLoader": _type("DataLoader", "dataloader", DataLoader),
    "SequentialSampler": _type("SequentialSampler", "sampler", SequentialSampler),
    "RandomSampler": _type("RandomSampler", "sampler", RandomSampler),
    "BatchSampler": _type("BatchSampler", "sampler", BatchSampler),
    "random_split": random_split,
    "default_collate": default_collate,
    "default_convert": default_convert,
}

__all__ = ["DATA", "BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "RandomSampler",
           "SequentialSampler", "Subset", "TensorDataset", "random_split"]
