"""PyTorch's CPU quick-select (``quick_select_template`` in ATen's Sorting.cpp, after
Sedgewick 1978): which of several equal values ``kthvalue`` reports depends on its swaps.

Pure Python over a host list: the engine runs it only for the slices whose k-th value is
tied, where the index is not the stable sort's.
"""

from __future__ import annotations


def _greater(x: float, y: float) -> bool:
    """ATen's ``gt_or_nan``: NaN sorts above everything."""
    return (x != x and y == y) or x > y  # noqa: PLR0124 - NaN tests


def quick_select_index(values: list, k: int) -> int:
    """The original position of the element quick-select leaves at ``k`` (0-based)."""
    arr = list(values)
    idx = list(range(len(arr)))

    def swap(i: int, j: int) -> None:
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:  # one element
            return idx[k]
        if hi == lo + 1:  # two elements
            if _greater(arr[lo], arr[hi]):
                swap(lo, hi)
            return idx[k]
        swap((lo + hi) >> 1, lo + 1)  # median of three as the pivot
        if _greater(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if _greater(arr[lo], arr[hi]):
            swap(lo, hi)
        if _greater(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        pivot = arr[lo]
        while True:
            i += 1
            while _greater(pivot, arr[i]):
                i += 1
            j -= 1
            while _greater(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
