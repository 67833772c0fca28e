"""float32 ``dot``, ``mv`` and ``mm`` in the order MKL adds on the recording machine.

PyTorch hands float32 products to MKL (``sdot``, ``sgemv``, ``sgemm``), whose kernels are closed.
Their order of additions was read off torch 2.13 + MKL 2024.2 on the recording machine by the
FPRev method (one product +2**40, another -2**40, ones elsewhere: the result counts the terms
added after the two cancel, which gives every pair's place in the summation tree), and whether
each product is fused into its sum by trying both on random data.  Measured, not documented:
``tests/test_numerics.py`` holds these rules to torch's recorded answers, and shapes outside
them fall back to NumPy's matmul (OpenBLAS), which the tests measure too.

* ``dot``: 16 lanes (8 or 4 for short vectors) of plain multiply-adds, a tail of 8, then 4,
  then single elements into the first lanes, the lanes folded by 128-bit quarters, then
  ``(l0 + l2) + (l1 + l3)``; float64 (ddot) the same in 8, 4 or 2 lanes.
* ``mv`` (and ``mm`` with one column): rows four at a time, each a dot product in 4 lanes after a
  head of 1-4 elements; the remaining rows a head of 4, vectors of 8 lanes (4 for every second
  such row once there are at least 20 terms) over whole blocks of 8 terms, the fold, then the
  tail in order.
* ``mm``: each element a sequential sum over k, its products fused (one FMA each) in the
  row blocks of a matrix at least 4 rows tall and 12 columns wide, plain multiply-adds otherwise;
  with the second matrix transposed and 4 to 8 columns, four sums over k by k mod 4, folded.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .fp import fma32, fma64, fma_add

F32 = np.float32


def _madd(acc: Any, a: Any, b: Any, fused: bool) -> Any:
    return fma32(a, b, acc) if fused else acc + a * b


def _fold4(lanes: Any) -> Any:
    """(l0 + l2) + (l1 + l3) over the last axis."""
    return (lanes[..., 0] + lanes[..., 2]) + (lanes[..., 1] + lanes[..., 3])


def dot(x: Any, y: Any) -> Any:
    """MKL's sdot/ddot of the last axes of ``x`` and ``y``."""
    return _ddot(x, y) if x.dtype == np.float64 else _sdot(x, y)


def _sdot(x: Any, y: Any) -> Any:
    k = x.shape[-1]
    if k < 4:
        acc = np.zeros(x.shape[:-1], F32)
        for i in range(k):
            acc = acc + x[..., i] * y[..., i]
        return acc
    width = 4 if k < 8 else 8 if k < 16 else 16
    acc = x[..., :width] * y[..., :width]
    i = width
    while i + width <= k:
        acc = acc + x[..., i:i + width] * y[..., i:i + width]
        i += width
    for w in (8, 4):
        if w < width and i + w <= k:
            acc[..., :w] = acc[..., :w] + x[..., i:i + w] * y[..., i:i + w]
            i += w
    for j in range(i, k):
        acc[..., 0] = acc[..., 0] + x[..., j] * y[..., j]
    while acc.shape[-1] > 4:  # the 128-bit quarters added in order
        acc = np.concatenate([acc[..., :4] + acc[..., 4:8], acc[..., 8:]], axis=-1)
    return _fold4(acc)


def _ddot(x: Any, y: Any) -> Any:
    """ddot: 8 lanes (4 or 2 for short vectors); the tail two lanes at a time, then one, into
    the first lanes (of the 8, or of the 4 already folded to 2); the 128-bit pairs folded in
    order, then l0 + l1."""
    k = x.shape[-1]
    if k < 2:
        return x[..., 0] * y[..., 0] if k else np.zeros(x.shape[:-1], np.float64)
    width = 2 if k < 4 else 4 if k < 8 else 8
    acc = x[..., :width] * y[..., :width]
    i = width
    while i + width <= k:
        acc = acc + x[..., i:i + width] * y[..., i:i + width]
        i += width
    if width == 4:
        acc = acc[..., :2] + acc[..., 2:]
    while i + 2 <= k:
        acc[..., :2] = acc[..., :2] + x[..., i:i + 2] * y[..., i:i + 2]
        i += 2
    if i < k:
        acc[..., 0] = acc[..., 0] + x[..., i] * y[..., i]
    while acc.shape[-1] > 2:
        acc = np.concatenate([acc[..., :2] + acc[..., 2:4], acc[..., 4:]], axis=-1)
    return acc[..., 0] + acc[..., 1]


# Up to this many outputs a sequential sum is one np.add.accumulate over the (m, k, n) products
# (strictly in order, as a prefix sum must be); past it, a loop over k costs less than the
# accumulate's traffic.
_ACCUMULATE_OUTPUTS = 256


def _seq(a: Any, b: Any, fused: bool) -> Any:
    """Each output element summed over k in order: a (m, k) @ b (k, n)."""
    acc = np.zeros((a.shape[0], b.shape[1]), F32)
    if not fused:
        if a.shape[1] and a.shape[0] * b.shape[1] <= _ACCUMULATE_OUTPUTS:
            # the running sum starts at the first product, not at +0: adding +0 at the end
            # turns an all-(-0) sum into the +0 that 0 + p0 + ... gives, and changes no other
            return np.add.accumulate(a[:, :, None] * b[None, :, :], axis=1)[:, -1] + acc
        for t in range(a.shape[1]):
            acc = acc + a[:, t:t + 1] * b[t:t + 1, :]
        return acc
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    for t in range(a.shape[1]):  # fma32, with the products (exact in float64) made once
        acc = fma_add(a64[:, t:t + 1] * b64[t:t + 1, :], acc)
    return acc


def _lanes4(a: Any, b: Any) -> Any:
    """Four sequential sums over k by k mod 4, folded (l0 + l2) + (l1 + l3)."""
    lanes = [_seq(a[:, lane::4], b[lane::4], False) for lane in range(4)]
    return (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])


def _gemv_blocks(a: Any, x: Any) -> Any:
    """sgemv's four-row blocks: a head of h = k - 4 * floor((k - 1) / 4) terms in lane 0, then
    four lanes over the rest, folded (l0 + l2) + (l1 + l3)."""
    k = a.shape[1]
    if k <= 4:
        return _seq(a, x[:, None], False)[:, 0]
    h = k - 4 * ((k - 1) // 4)
    head = np.zeros(a.shape[0], F32)
    for i in range(h):
        head = head + a[:, i] * x[i]
    lanes = []
    for lane in range(4):
        acc = head if lane == 0 else a[:, h + lane] * x[h + lane]
        for i in range(h + lane + (4 if lane else 0), k, 4):
            acc = acc + a[:, i] * x[i]
        lanes.append(acc)
    return (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])


def _gemv_row(a: Any, x: Any, odd: bool) -> Any:
    """One of sgemv's remaining rows (``a`` is that row, 1-D)."""
    k = a.shape[0]
    if k <= 11:
        return _seq(a[None, :], x[:, None], False)[0, 0]
    width = 4 if odd and k >= 20 else 8
    head = F32(0)
    for i in range(4):
        head = head + a[i] * x[i]
    nvec = (k - 4) // 8 * (8 // width)  # the body covers whole 8-term blocks either way
    lanes = a[4:4 + width] * x[4:4 + width]
    lanes[0] = head + lanes[0]
    for v in range(1, nvec):
        s = 4 + v * width
        lanes = lanes + a[s:s + width] * x[s:s + width]
    if width == 8:
        lanes = lanes[:4] + lanes[4:]
    acc = _fold4(lanes)
    for i in range(4 + nvec * width, k):
        acc = acc + a[i] * x[i]
    return acc


def mv(a: Any, x: Any) -> Any:
    """MKL's sgemv: ``a`` (m, k) row-major times ``x`` (k,)."""
    m = a.shape[0]
    full = m - m % 4
    out = np.empty(m, F32)
    if full:
        out[:full] = _gemv_blocks(a[:full], x)
    for r, i in enumerate(range(full, m)):
        out[i] = _gemv_row(a[i], x, r % 2 == 1)
    return out


def mm(a: Any, b: Any, a_transposed: bool = False, b_transposed: bool = False) -> tuple:
    """MKL's sgemm for a (m, k) @ b (k, n): (the product, whether a measured rule covers the
    shape).  Outside the rules each element is summed in order with plain multiply-adds, the
    likeliest order (81% of elements where no rule applies, against 62% for NumPy's)."""
    m, k = a.shape
    n = b.shape[1]
    if b_transposed:  # each element a dot of two rows (grad @ mat2.t() in mm's backward)
        if k <= 3:
            return _seq(a, b, False), True
        if n >= 16 and m >= 4:
            return _seq(a, b, True), m % 4 == 0
        if 4 <= n <= 8 and m >= 2 and k % 4 == 0:
            return _lanes4(a, b), True
        return _seq(a, b, False), False
    if m == 1 or n in (2, 3, 4, 8) or (n == 1 and a_transposed):
        return _seq(a, b, False), True
    if n == 1:
        if m >= 4:
            return mv(np.ascontiguousarray(a), b[:, 0])[:, None], True
        return _seq(a, b, False), k <= 8
    if n < 12:
        return _seq(a, b, False), k < 8
    if m <= 3:
        return _seq(a, b, False), n % 4 == 0
    full = m - m % 4
    if full < m < 12 and not (n < 20 and 3 < k <= 16):  # the last rows of a short matrix
        return _seq(a, b, False), False
    return _seq(a, b, True), True


# Larger products are left to NumPy: the rules were measured up to about 100 x 100 x 100 (MKL
# blocks bigger ones differently), and the sequential emulation would cost seconds there.
MAX_WORK = 1 << 21  # m * n * k


def matmul(a: Any, b: Any) -> tuple | None:
    """``torch.matmul`` of float32 arrays of 1 or 2 dimensions: (result, measured rule?), or
    None past MAX_WORK."""
    if a.ndim == 2 and b.ndim == 2 and a.shape[0] * a.shape[1] * b.shape[1] > MAX_WORK:
        return None
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b), True
    if a.ndim == 2 and b.ndim == 1:
        if _transposed(a):
            return _seq(a, b[:, None], False)[:, 0], True
        return mv(np.ascontiguousarray(a), b), True
    if a.ndim == 1:  # unsqueeze(0), mm, squeeze(0)
        out, ok = mm(a[None, :], b, False, _transposed(b))
        return out[0], ok
    out, ok = mm(a, b, _transposed(a), _transposed(b))
    return out, ok


MAX_K64 = 4096  # a step per k: longer sums are left to NumPy


def matmul64(a: Any, b: Any) -> Any:
    """``torch.matmul`` of float64 matrices and matrix-vector products (MKL's dgemm/dgemv),
    or None past MAX_WORK.  Their blocking is not measured: each element is summed over k in
    order, fused where ``b`` is passed transposed (``grad @ mat2.t()`` in mm's backward), as
    sgemm does for such products.  This is the likeliest order on the fixture's cases (mm
    88%, mv 55%, mm's gradients 89% of elements bit-equal, against 63%, 45% and 87% for NumPy's
    OpenBLAS), and, unlike OpenBLAS's, it does not change with the host's CPU."""
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    m, k = a2.shape
    n = b2.shape[1]
    if m * n * k > MAX_WORK or k > MAX_K64:
        return None
    fused = _transposed(b2) and not _transposed(a2)
    if k and not fused:
        acc = _seq(a2, b2, False)  # float64 from the first product on
    else:
        acc = np.zeros((m, n), np.float64)
        for t in range(k):
            acc = fma64(a2[:, t:t + 1], b2[t:t + 1, :], acc)
    if a.ndim == 1:
        acc = acc[0]
    return acc[..., 0] if b.ndim == 1 else acc


def _transposed(x: Any) -> bool:
    """Whether PyTorch passes ``x`` to BLAS transposed: column-major but not row-major (any
    other layout is copied to a row-major matrix first)."""
    return x.ndim == 2 and not x.flags.c_contiguous and x.flags.f_contiguous
