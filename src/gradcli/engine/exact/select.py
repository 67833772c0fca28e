"""The order in which PyTorch's CPU sorting kernels leave equal values: ATen's quick-select
(``quick_select_template``, kthvalue), libstdc++'s std::sort (sort, argsort, mode),
std::partial_sort and std::nth_element (topk).  Which of several equal values a kernel reports
depends on their swaps, so they are ported step by step.

Pure Python over host lists: the engine runs them only for the slices where equal values make
the order differ from a stable sort's (engine/kernels.py).
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


# --- libstdc++'s std::sort, std::nth_element and std::partial_sort ------------------------------
# PyTorch's CPU sort (not stable=True) and topk call these on (value, index) pairs compared by
# value, so the order of equal values is theirs.  Ported from libstdc++'s stl_algo.h and
# stl_heap.h; ``less`` is the comparator, lists are sorted in place between ``lo`` and ``hi``.
_THRESHOLD = 16


def _insertion_sort(a: list, lo: int, hi: int, less: object) -> None:
    if lo == hi:
        return
    for i in range(lo + 1, hi):
        if less(a[i], a[lo]):
            v = a[i]
            a[lo + 1:i + 1] = a[lo:i]
            a[lo] = v
        else:
            _unguarded_linear_insert(a, i, less)


def _unguarded_linear_insert(a: list, last: int, less: object) -> None:
    v = a[last]
    nxt = last - 1
    while less(v, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = v


def _move_median_to_first(a: list, result: int, x: int, y: int, z: int, less: object) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            m = y
        elif less(a[x], a[z]):
            m = z
        else:
            m = x
    elif less(a[x], a[z]):
        m = x
    elif less(a[y], a[z]):
        m = z
    else:
        m = y
    a[result], a[m] = a[m], a[result]


def _unguarded_partition(a: list, first: int, last: int, pivot: int, less: object) -> int:
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _partition_pivot(a: list, lo: int, hi: int, less: object) -> int:
    _move_median_to_first(a, lo, lo + 1, lo + (hi - lo) // 2, hi - 1, less)
    return _unguarded_partition(a, lo + 1, hi, lo, less)


def _adjust_heap(a: list, first: int, hole: int, length: int, value: object,
                 less: object) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length & 1 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _make_heap(a: list, lo: int, hi: int, less: object) -> None:
    length = hi - lo
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, lo, parent, length, a[lo + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a: list, lo: int, hi: int, result: int, less: object) -> None:
    value = a[result]
    a[result] = a[lo]
    _adjust_heap(a, lo, 0, hi - lo, value, less)


def _heap_select(a: list, lo: int, mid: int, hi: int, less: object) -> None:
    _make_heap(a, lo, mid, less)
    for i in range(mid, hi):
        if less(a[i], a[lo]):
            _pop_heap(a, lo, mid, i, less)


def _sort_heap(a: list, lo: int, hi: int, less: object) -> None:
    while hi - lo > 1:
        hi -= 1
        _pop_heap(a, lo, hi, hi, less)


def partial_sort(a: list, lo: int, mid: int, hi: int, less: object) -> None:
    """std::partial_sort."""
    _heap_select(a, lo, mid, hi, less)
    _sort_heap(a, lo, mid, less)


def _introsort_loop(a: list, lo: int, hi: int, depth: int, less: object) -> None:
    while hi - lo > _THRESHOLD:
        if depth == 0:
            partial_sort(a, lo, hi, hi, less)
            return
        depth -= 1
        cut = _partition_pivot(a, lo, hi, less)
        _introsort_loop(a, cut, hi, depth, less)
        hi = cut


def std_sort(a: list, lo: int, hi: int, less: object) -> None:
    """std::sort (introsort, then insertion sort)."""
    if hi - lo <= 1:
        return
    _introsort_loop(a, lo, hi, 2 * ((hi - lo).bit_length() - 1), less)
    if hi - lo > _THRESHOLD:
        _insertion_sort(a, lo, lo + _THRESHOLD, less)
        for i in range(lo + _THRESHOLD, hi):
            _unguarded_linear_insert(a, i, less)
    else:
        _insertion_sort(a, lo, hi, less)


def nth_element(a: list, lo: int, nth: int, hi: int, less: object) -> None:
    """std::nth_element (introselect)."""
    if lo == hi or nth == hi:
        return
    depth = 2 * ((hi - lo).bit_length() - 1)
    while hi - lo > 3:
        if depth == 0:
            _heap_select(a, lo, nth + 1, hi, less)
            a[lo], a[nth] = a[nth], a[lo]
            return
        depth -= 1
        cut = _partition_pivot(a, lo, hi, less)
        if cut <= nth:
            lo = cut
        else:
            hi = cut
    _insertion_sort(a, lo, hi, less)


def _ascending(x: tuple, y: tuple) -> bool:
    """PyTorch's ascending order: NaN last."""
    return (x[0] == x[0] and y[0] != y[0]) or x[0] < y[0]


def _descending(x: tuple, y: tuple) -> bool:
    """PyTorch's descending order: NaN first."""
    return (x[0] != x[0] and y[0] == y[0]) or x[0] > y[0]


def sort_order(values: list, descending: bool) -> list[int]:
    """The positions in the order PyTorch's (not stable) CPU sort leaves them."""
    pairs = [(v, i) for i, v in enumerate(values)]
    std_sort(pairs, 0, len(pairs), _descending if descending else _ascending)
    return [i for _, i in pairs]


def topk_order(values: list, k: int, largest: bool, sorted_: bool = True) -> list[int]:
    """The positions of the k values PyTorch's CPU topk returns, in its order."""
    pairs = [(v, i) for i, v in enumerate(values)]
    n, less = len(pairs), _descending if largest else _ascending
    if k == 0:
        return []
    if k * 64 <= n:
        partial_sort(pairs, 0, k, n, less)
    else:
        nth_element(pairs, 0, k - 1, n, less)
        if sorted_:
            std_sort(pairs, 0, k - 1, less)
    return [i for _, i in pairs[:k]]


def mode_of(values: list) -> tuple[float, int]:
    """PyTorch's CPU mode of one slice: std::sort by value (plain ``<``), then the last element
    of the first longest run."""
    pairs = [(v, i) for i, v in enumerate(values)]
    std_sort(pairs, 0, len(pairs), lambda x, y: x[0] < y[0])
    mode, where, run, best = pairs[0][0], pairs[0][1], 0, 0
    for i, (v, at) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or v != pairs[i + 1][0]:
            if run > best:
                mode, where, best = v, at, run
            run = 0
    return mode, where
