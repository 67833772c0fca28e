"""``dot``, ``mv`` and ``mm`` of float32 and float64 arrays as PyTorch computes them: MKL's BLAS,
called with the arguments ATen passes.

The order in which sgemm adds a product's terms depends on the shape, the operands' layout
(which argument is transposed, the leading dimensions) and the threads, so the same library
(libmkl.py) is called as ATen calls it:

* ``dot``: ``sdot``/``ddot`` (Blas.cpp ``dot_impl``).
* ``mv``: ``sgemv``/``dgemv`` with ``'n'`` for a column-major matrix, else ``'t'`` over its
  row-major form (Blas.cpp ``addmv_out_cpu``).
* ``mm``: ``sgemm``/``dgemm`` (LinearAlgebra.cpp ``addmm_impl_cpu_``): a row-major result is
  computed transposed (C^T = B^T A^T, the operands swapped), each operand passed transposed or
  not by its strides, or copied to row-major when neither layout fits; the leading dimensions
  of degenerate sizes normalised as ``cpublas::gemm`` does.

Without MKL these return NumPy's products (another order of additions: PyTorch itself uses
another library then).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .. import machine
from . import libmkl, native

_COL_MAJOR, _NO_TRANS, _TRANS = 102, 111, 112  # mkl_cblas.h
_I, _P, _F, _D = ctypes.c_int, ctypes.c_void_p, ctypes.c_float, ctypes.c_double
# CBLAS's column-major forms take the arguments of the Fortran routines ATen calls, by value
_SIGNATURES = {
    "cblas_sdot": (_F, [_I, _P, _I, _P, _I]),
    "cblas_ddot": (_D, [_I, _P, _I, _P, _I]),
    "cblas_sgemv": (None, [_I, _I, _I, _I, _F, _P, _I, _P, _I, _F, _P, _I]),
    "cblas_dgemv": (None, [_I, _I, _I, _I, _D, _P, _I, _P, _I, _D, _P, _I]),
    "cblas_sgemm": (None, [_I, _I, _I, _I, _I, _I, _F, _P, _I, _P, _I, _F, _P, _I]),
    "cblas_dgemm": (None, [_I, _I, _I, _I, _I, _I, _D, _P, _I, _P, _I, _D, _P, _I]),
}
_functions: dict[str, Any] = {}


def _fn(name: str) -> Any:
    """MKL's ``name``, with its argument and result types set once, and MKL told the run's
    thread count."""
    libmkl.configure(machine.current())
    libmkl.calls += 1
    fn = _functions.get(name)
    if fn is None:
        fn = getattr(libmkl.library(), name)
        if name in _SIGNATURES:
            fn.restype, fn.argtypes = _SIGNATURES[name]
        _functions[name] = fn
    return fn


def _strides(x: Any) -> tuple[int, ...]:
    return tuple(s // x.itemsize for s in x.strides)


def dot(x: Any, y: Any) -> Any:
    """``torch.dot`` of two 1-D arrays of one float dtype: a scalar of that dtype."""
    if libmkl.library() is None:
        return x.dtype.type(np.dot(x, y))
    x, y = _positive(x), _positive(y)
    n = x.shape[0]
    incx, incy = (1, 1) if n == 1 else (_strides(x)[0], _strides(y)[0])
    fn = _fn("cblas_sdot" if x.dtype == np.float32 else "cblas_ddot")
    return x.dtype.type(fn(n, _address(x), incx, _address(y), incy))


def _positive(v: Any) -> Any:
    """A vector BLAS can walk: PyTorch's strides are never negative or zero for n > 1."""
    return v if v.shape[0] <= 1 or v.strides[0] > 0 else np.ascontiguousarray(v)


def mv(a: Any, x: Any) -> Any:
    """``torch.mv``: ``a`` (m, k) times ``x`` (k,)."""
    if libmkl.library() is None:
        return np.matmul(a, x)
    m, k = a.shape
    out = np.zeros(m, a.dtype)
    x = _positive(x) if x.strides[0] else np.ascontiguousarray(x)
    size = a.itemsize
    s0, s1 = a.strides
    s0, s1 = s0 // size, s1 // size
    if s0 == 1 and (k == 1 or s1 >= max(1, m)):
        trans, rows, cols, lda = "n", m, k, s1
    elif s1 == 1 and (m == 1 or s0 >= max(1, k)):
        trans, rows, cols, lda = "t", k, m, s0
    else:
        a = np.ascontiguousarray(a)
        trans, rows, cols, lda = "t", k, m, k
    if cols == 1:
        lda = rows  # gemv<float>: if (n == 1) lda = m
    libmkl.configure(machine.current())
    libmkl.calls += 1
    fn, one, zero, address = _GEMV[size]
    if native.lib is not None:
        native.lib.gemv(address, size == 8, _COL_MAJOR, _TRANS if trans == "t" else _NO_TRANS,
                        rows, cols, a, max(lda, 1), x, x.strides[0] // size or 1, out, 1)
        return out
    fn(_COL_MAJOR, _TRANS if trans == "t" else _NO_TRANS, rows, cols, one, _P(_address(a)),
       max(lda, 1), _P(_address(x)), x.strides[0] // size or 1, zero,
       _P(_addressof(_from_buffer(out))), 1)
    return out


def mm(m1: Any, m2: Any, add: Any = None) -> Any:
    """``torch.mm``: ``m1`` (m, k) @ ``m2`` (k, n) into a new row-major (m, n) array; with
    ``add`` (broadcast to (m, n)), ``torch.addmm(add, m1, m2)``: the result starts as ``add``
    and gemm adds the product into it (beta = 1), as addmm_impl_cpu_ calls it (dgemm's sums
    then differ from the product's rounded and added: measured on MKL's AVX2 and AVX512 code;
    sgemm's do not)."""
    rows, k = m1.shape
    cols = m2.shape[1]
    if libmkl.library() is None:
        return np.matmul(m1, m2) if add is None else np.matmul(m1, m2) + add
    if k == 0 or rows == 0 or cols == 0:  # (addmm of an empty product: ``add`` as it is)
        out = np.zeros((rows, cols), m1.dtype)
        if add is not None:
            np.copyto(out, add)
        return out
    out = np.empty((rows, cols), m1.dtype)  # beta = 0: gemm writes C without reading it
    if add is not None:
        np.copyto(out, add)
    # the result, row-major: (cols, 1) strides; addmm_impl_cpu_ takes it as column-major (its
    # stride 1 first) only when it is one column wide, else computes it transposed
    transpose_c = cols != 1
    if transpose_c:  # row-major: compute C^T = m2^T m1^T
        m1, m2 = m2, m1
        m, n = cols, rows
    else:
        m, n = rows, cols
    size = out.itemsize
    a, transpose_a = _operand(m1, m, k, transpose_c, size)
    b, transpose_b = _operand(m2, k, n, transpose_c, size)
    sa, sb = a.strides, b.strides
    lda = sa[1 if transpose_a == transpose_c else 0] // size
    ldb = sb[1 if transpose_b == transpose_c else 0] // size
    ldc = cols if transpose_c else 1  # c's strides (cols, 1), seen as column-major
    # cpublas's normalize_last_dims (_normalize_last_dims), inline: this runs for every product
    if n == 1:
        ldc = m
    if transpose_a:
        if m == 1:
            lda = k
    elif k == 1:
        lda = m
    if transpose_b:
        if k == 1:
            ldb = n
    elif n == 1:
        ldb = k
    libmkl.configure(machine.current())
    libmkl.calls += 1
    fn, one, zero, address = _GEMM[size]
    ta, tb = _TRANS if transpose_a else _NO_TRANS, _TRANS if transpose_b else _NO_TRANS
    if native.lib is not None:  # the same call from C: no ctypes conversions
        native.lib.gemm(address, size == 8, _COL_MAJOR, ta, tb, m, n, k, a, lda, b, ldb, out, ldc,
                        0.0 if add is None else 1.0)
        return out
    fn(_COL_MAJOR, ta, tb, m, n, k, one, _P(_address(a)), lda, _P(_address(b)), ldb,
       zero if add is None else one, _P(_addressof(_from_buffer(out))), ldc)
    return out


_from_buffer, _addressof = ctypes.c_char.from_buffer, ctypes.addressof


def _address(x: Any) -> int:
    """The address of ``x``'s first element: through the buffer protocol for a writable
    row-major array (a quarter of ``x.ctypes.data``'s cost) or column-major one (its
    transpose is row-major, at the same address), else ``x.ctypes.data``."""
    flags = x.flags
    if flags.writeable:
        if flags.c_contiguous:
            return _addressof(_from_buffer(x))
        if flags.f_contiguous:
            return _addressof(_from_buffer(x.T))
    return x.ctypes.data


class _Untyped(dict):
    """item size -> (MKL's ``cblas_?<name>`` without argument types, alpha 1 and beta 0 in its
    type, the function's address), made on first use: an untyped ctypes call converts its
    arguments at C speed (ints as C ints, the pointers and scalars given typed), about half a
    typed call's cost; the compiled kernels (native.py) call the address itself."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def __missing__(self, size: int) -> tuple:
        scalar = _F if size == 4 else _D
        # the library's item access: a function pointer of its own, not _fn's typed one
        fn = libmkl.library()[("cblas_s" if size == 4 else "cblas_d") + self.name]
        fn.restype = None
        self[size] = entry = (fn, scalar(1.0), scalar(0.0), ctypes.cast(fn, _P).value)
        return entry


_GEMM, _GEMV, _GEMM_BATCH = _Untyped("gemm"), _Untyped("gemv"), _Untyped("gemm_batch")


def _operand(x: Any, lead: int, other: int, transpose_c: bool, size: int) -> tuple[Any, bool]:
    """(the array to pass, transposed?) for an operand of ``mm`` whose result is seen
    transposed (``transpose_c``) or not: as is when its layout fits, else a row-major copy."""
    if transpose_c:
        s1, s0 = x.strides
    else:
        s0, s1 = x.strides
    if s0 == size and s1 // size >= max(1, lead):
        return x, False
    if s1 == size and s0 // size >= max(1, other):
        return x, True
    return np.ascontiguousarray(x), not transpose_c


def _col_major(x: Any, rows: int, cols: int, ld: int) -> Any:
    """The rows x cols column-major matrix of leading dimension ``ld`` stored in ``x``."""
    return x.reshape(-1)[:ld * cols].reshape(cols, ld)[:, :rows].T


def gemm(ta: bool, tb: bool, m: int, n: int, k: int, a: Any, lda: int, b: Any, ldb: int,
         beta: float, c: Any, ldc: int) -> Any:
    """cpublas::gemm as ATen calls it (column-major, alpha 1): ``C = op(A) op(B) + beta C``
    on contiguous arrays; a new array for C."""
    out = np.array(c, copy=True)
    if k == 0 or out.size == 0:
        return out if beta else np.zeros_like(out)
    if libmkl.library() is None:  # NumPy's product of the same matrices
        op_a = _col_major(a, k, m, lda).T if ta else _col_major(a, m, k, lda)
        op_b = _col_major(b, n, k, ldb).T if tb else _col_major(b, k, n, ldb)
        c_new = op_a @ op_b + (beta * _col_major(out, m, n, ldc) if beta else 0)
        out.reshape(-1)[:ldc * n].reshape(n, ldc)[:, :m] = c_new.T
        return out
    lda, ldb, ldc = _normalize_last_dims(ta, tb, m, n, k, lda, ldb, ldc)
    _fn("cblas_sgemm" if out.dtype == np.float32 else "cblas_dgemm")(
        _COL_MAJOR, _TRANS if ta else _NO_TRANS, _TRANS if tb else _NO_TRANS, m, n, k, 1.0,
        a.ctypes.data, lda, b.ctypes.data, ldb, beta, out.ctypes.data, ldc)
    return out


def _normalize_last_dims(ta: bool, tb: bool, m: int, n: int, k: int, lda: int, ldb: int,
                         ldc: int) -> tuple[int, int, int]:
    """cpublas's normalize_last_dims: the leading dimensions BLAS expects for degenerate
    sizes (a single row or column)."""
    if n == 1:
        ldc = m
    if ta:
        if m == 1:
            lda = k
    elif k == 1:
        lda = m
    if tb:
        if k == 1:
            ldb = n
    elif n == 1:
        ldb = k
    return lda, ldb, ldc


def matmul(a: Any, b: Any) -> Any:
    """``torch.matmul`` of float32 or float64 arrays of 1 or 2 dimensions, as ATen routes it:
    dot, mv, ``unsqueeze(0) @ b``, or mm."""
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    if a.ndim == 2 and b.ndim == 1:
        return mv(a, b)
    if a.ndim == 1:  # unsqueeze(0): strides (k * s, s)
        row = np.lib.stride_tricks.as_strided(a, (1, a.shape[0]), (a.shape[0] * a.strides[0],
                                                                   a.strides[0]))
        return mm(row, b)[0]
    return mm(a, b)


_BMM_SMALL = 400  # k * rows * cols under which ATen's own loop multiplies (bmm_out_or_baddbmm_)


def bmm(b1: Any, b2: Any) -> Any:
    """``torch.bmm``: (bs, rows, k) @ (bs, k, cols), as ATen's ``bmm_out_or_baddbmm_`` does it:
    small products in its own loop (each element a sum over k in order, from 0), larger ones
    by MKL's batched gemm when each matrix is row- or column-major, else an mm per batch."""
    bs, rows, k = b1.shape
    cols = b2.shape[2]
    out = np.zeros((bs, rows, cols), b1.dtype)
    if out.size == 0 or k == 0:
        return out
    if k * rows * cols < _BMM_SMALL:
        for t in range(k):
            out = out + b1[:, :, t:t + 1] * b2[:, t:t + 1, :]
        return out
    if libmkl.library() is None or not (_batch_items_ok(b1) and _batch_items_ok(b2)):
        for i in range(bs):
            out[i] = mm(b1[i], b2[i])
        return out
    s1, s2 = _strides(b1), _strides(b2)
    ta = s2[1] == 1 and s2[2] >= k  # baddbmm_with_gemm_: mat2 is A, mat1 is B
    tb = s1[1] == 1 and s1[2] >= rows
    m, n = cols, rows
    lda, ldb, ldc = s2[2 if ta else 1], s1[2 if tb else 1], cols
    if bs == 1:
        return mm(b1[0], b2[0])[None]
    # cpublas::gemm_batched_with_stride: normalize_last_dims, then MKL's batched gemm
    lda, ldb, ldc = _normalize_last_dims(ta, tb, m, n, k, lda, ldb, ldc)
    size = b1.itemsize
    if native.lib is not None:  # the same call from C, the matrices' addresses made there
        native.lib.gemm_batch(_GEMM_BATCH[size][3], size == 8, _TRANS if ta else _NO_TRANS,
                              _TRANS if tb else _NO_TRANS, m, n, k, b2, lda, s2[0], b1, ldb,
                              s1[0], out, ldc, rows * cols, bs)
        return out
    a_ptrs = _batch_pointers(_address(b2), s2[0] * size, bs)
    b_ptrs = _batch_pointers(_address(b1), s1[0] * size, bs)
    c_ptrs = _batch_pointers(_address(out), rows * cols * size, bs)
    scalar = _F if out.dtype == np.float32 else _D
    fn = _fn("cblas_sgemm_batch" if out.dtype == np.float32 else "cblas_dgemm_batch")

    def one(v: Any, kind: Any = _I) -> Any:
        return ctypes.byref(kind(v))

    fn(_I(_COL_MAJOR), one(_TRANS if ta else _NO_TRANS), one(_TRANS if tb else _NO_TRANS),
       one(m), one(n), one(k), one(1.0, scalar), a_ptrs, one(lda), b_ptrs, one(ldb),
       one(0.0, scalar), c_ptrs, one(ldc), _I(1), one(bs))
    return out


def _batch_pointers(base: int, step: int, count: int) -> Any:
    """The ``count`` matrices' addresses ``base + i * step`` (a step of 0: an expanded batch)
    as a C array of pointers."""
    return (_P * count)(*([base] * count if step == 0 else range(base, base + count * step,
                                                                 step)))


def _batch_items_ok(t: Any) -> bool:
    """ATen's batch_items_contiguous_or_transposed."""
    _, r, c = t.shape
    s = _strides(t)
    return (s[2] == 1 and (r == 1 or s[1] >= c)) or (s[1] == 1 and (c == 1 or s[2] >= r))
