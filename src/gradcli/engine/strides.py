"""PyTorch's strides, tracked so that ``reshape``/``view`` choose as PyTorch does.

Strides never change values; they decide grad_fn names (``ViewBackward0`` when ``reshape`` can
be a view, ``UnsafeViewBackward0`` after a copy) and ``view``'s error.  A tensor's ``_strides``
is None when it is contiguous, which is the common, free case.
"""

from __future__ import annotations

from collections.abc import Sequence


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides in elements, as ``torch.empty(shape).stride()``."""
    strides = []
    acc = 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(strides))


def strides_of(t: object) -> tuple[int, ...]:
    """The strides of a tensor, computing the contiguous ones when none are stored."""
    s = t._strides  # type: ignore[attr-defined]
    return s if s is not None else contiguous_strides(t.data.shape)  # type: ignore[attr-defined]


def normalise(shape: Sequence[int], strides: Sequence[int]) -> tuple[int, ...] | None:
    """None when ``strides`` are contiguous by PyTorch's rule (size-1 dims don't count)."""
    expected = 1
    for d, s in zip(reversed(shape), reversed(strides)):
        if d == 1:
            continue
        if s != expected:
            return tuple(strides)
        expected *= d
    return None


def view_strides(shape: Sequence[int], strides: Sequence[int],
                 new_shape: Sequence[int]) -> tuple[int, ...] | None:
    """Strides of ``new_shape`` as a view of (shape, strides), or None if a copy is needed.

    A port of ATen's ``computeStride``.
    """
    if not shape:
        return tuple(1 for _ in new_shape)
    numel = 1
    for d in shape:
        numel *= d
    if numel == 0:
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        if tensor_d == 0 or (
            shape[tensor_d - 1] != 1 and strides[tensor_d - 1] != tensor_numel * chunk_base
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def elementwise_strides(out_shape: Sequence[int],
                        operands: Sequence[tuple[Sequence[int], Sequence[int]]]) -> tuple | None:
    """Output strides of an elementwise op, as TensorIterator's ``reorder_dimensions`` picks.

    ``operands`` are (shape, strides) of the tensor inputs in argument order.
    """
    ndim = len(out_shape)
    bstrides = []
    for shape, strides in operands:
        if not shape:
            continue  # 0-d operands (wrapped numbers) do not vote
        lead = ndim - len(shape)
        bs = [0] * lead + [0 if shape[i] == 1 and out_shape[i + lead] != 1 else strides[i]
                           for i in range(len(shape))]
        bstrides.append(bs)
    if not bstrides:
        return None

    def should_swap(d0: int, d1: int) -> int:
        for bs in bstrides:
            s0, s1 = bs[d0], bs[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if out_shape[d0] > out_shape[d1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))  # perm[0] is the fastest-moving dimension
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            cmp = should_swap(perm[d0], perm[d1])
            if cmp > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif cmp < 0:
                break
    strides = [0] * ndim
    acc = 1
    for d in perm:
        strides[d] = acc
        acc *= max(out_shape[d], 1)
    return normalise(out_shape, strides)
