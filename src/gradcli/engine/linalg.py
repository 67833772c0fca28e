"""Matrix products as PyTorch dispatches them (ATen's ``_matmul_impl``): dot, mv, mm, bmm, and
``matmul`` of any dimensions, which folds batches into mm/mv or broadcasts them into bmm and
records the same views, copies and products as PyTorch; outer and kron as the ATen composites
they are (einsum: einsum.py); cdist, det, inv and solve."""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from . import dtypes as D
from . import kernels as K
from . import ops as O
from . import strides as layout
from .args import broadcast_check, broadcast_shape, check_numel, tensor_arg
from .context import current
from .dtypes import SCALAR_NAMES
from .record import apply, apply_inplace
from .shape import (
    _expand,
    contiguous,
    reshape,
    squeeze,
    t,
    transpose,
    unsqueeze,
    view,
)
from .tensor import Tensor


def matmul(input: Any, other: Any) -> Tensor:
    """``input @ other``: dot, mv, mm, unsqueeze-mm-squeeze, a fold into mm/mv, or bmm."""
    if input.__class__ is Tensor and other.__class__ is Tensor:  # 2-D @ 2-D or 1-D, in few calls
        sa, sb = input.data.shape, other.data.shape
        if len(sa) == 2 and sb and sa[1] == sb[0]:
            if len(sb) == 1:
                return apply(O.MV, (input, other))
            if len(sb) == 2 and sa[0] * sb[1] <= current().max_elements:
                return _mm(input, other)
    a, b = tensor_arg(input, "matmul"), tensor_arg(other, "matmul", "other", 2)
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise ScriptError(f"both arguments to matmul need to be at least 1D, but they are {da}D "
                          f"and {db}D")
    if da == 1 and db == 1:
        if a.shape[0] != b.shape[0]:
            raise ScriptError(
                f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                f"[{b.shape[0]}] to have the same number of elements, but got {a.shape[0]} and "
                f"{b.shape[0]} elements respectively")
        return apply(O.DOT, (a, b))
    if da == 2 and db == 1:
        return _mv(a, b)
    if da == 1 and db == 2:
        m = mm(unsqueeze(a, 0), b)
        # NOTE: PyTorch squeezes the product in place (squeeze_), so the result is at version 1.
        out = apply(O.SQUEEZE_SYM, (m,), {"shape": (m.shape[1],), "dim": 0})
        out._vc[0] = 1
        return out
    if da == 2 and db == 2:
        return mm(a, b)
    if _should_fold(a, b):
        return _folded(a, b)
    return _batched(a, b)


def _mT(x: Tensor) -> Tensor:
    return transpose(x, -2, -1)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """ATen's should_fold: fold the larger operand's batch into mm/mv rather than bmm."""
    a_larger = a.ndim >= b.ndim
    big, small = (a, b) if a_larger else (b, a)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:  # NOTE: PyTorch checks requires_grad, not the grad mode
        return True
    if a.ndim == 2:
        return False
    if big.numel() == 0:
        return True
    shape = list(big.shape)
    strides = list(layout.strides_of(big))
    if not a_larger:  # the batch is folded from big.mT
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _folded(a: Tensor, b: Tensor) -> Tensor:
    """(batch..., n, m) @ (m, p) as one mm on (batch*n, m), or the mirror image by transposes."""
    swap = b.ndim > a.ndim
    t1 = _mT(b) if swap else a
    t2 = (t(a) if a.ndim == 2 else a) if swap else b
    out_shape = list(t1.shape[:-1])
    rows = 1
    for d in out_shape:
        rows *= d
    folded = reshape(t1, rows, t1.shape[-1])
    if t2.ndim == 2:
        out_shape.append(t2.shape[1])
        out = _unsafe_view(mm(folded, t2), out_shape)
        return contiguous(_mT(out)) if swap else out
    return _unsafe_view(_mv(folded, t2), out_shape)


def _batched(a: Tensor, b: Tensor) -> Tensor:
    """Broadcast the batch dims, flatten them, one bmm, view the result back."""
    da, db = a.ndim, b.ndim
    n = a.shape[-2] if da > 1 else 1
    m1 = a.shape[-1]
    m2 = b.shape[-2] if db > 1 else b.shape[0]
    p = b.shape[-1] if db > 1 else 1
    batch_a, batch_b = a.shape[:max(da - 2, 0)], b.shape[:max(db - 2, 0)]
    if da == 3 and db == 3 and batch_a[0] != batch_b[0]:
        # NOTE: as ATen, a broadcast batch of one that requires grad goes the folding way
        if batch_a[0] == 1 and a.requires_grad:
            return matmul(squeeze(a, 0), b)
        if batch_b[0] == 1 and b.requires_grad:
            return matmul(a, squeeze(b, 0))
    batch = broadcast_shape(batch_a, batch_b)
    count = 1
    for d in batch:
        count *= d
    a3 = reshape(_expand(a, (*batch, n, m1)), count, n, m1)
    vector = db == 1
    b_exp = _expand(b, (*batch, m2) if vector else (*batch, m2, p))
    b3 = unsqueeze(reshape(b_exp, count, m2), 2) if vector else reshape(b_exp, count, m2, p)
    out_shape = list(batch) + ([n] if da > 1 else []) + ([p] if db > 1 else [])
    out = bmm(a3, b3)
    if vector:
        out = squeeze(out, -1)
    return _unsafe_view(out, out_shape)


def _unsafe_view(x: Tensor, shape: list[int]) -> Tensor:
    """ATen's ``_unsafe_view``: a reshape recorded as a copy (UnsafeViewBackward0)."""
    return apply(O.UNSAFE_VIEW, (x,), {"shape": tuple(shape)})


def _mv(a: Tensor, b: Tensor) -> Tensor:
    if a.shape[1] != b.shape[0]:
        raise ScriptError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                          f"{a.shape[1]}), vec ({b.shape[0]})")
    return apply(O.MV, (a, b))


def dot(input: Any, tensor: Any) -> Tensor:
    """Inner product of two 1-D tensors (DotBackward0)."""
    a, b = tensor_arg(input, "dot"), tensor_arg(tensor, "dot", "tensor", 2)
    if a.ndim != 1 or b.ndim != 1:
        raise ScriptError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return matmul(a, b)


def mv(input: Any, vec: Any) -> Tensor:
    """Matrix-vector product (MvBackward0)."""
    a, b = tensor_arg(input, "mv"), tensor_arg(vec, "mv", "vec", 2)
    if a.ndim != 2 or b.ndim != 1:
        raise ScriptError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    return matmul(a, b)


def mm(input: Any, mat2: Any) -> Tensor:
    """Matrix product of two 2-D tensors (MmBackward0)."""
    a, b = tensor_arg(input, "mm"), tensor_arg(mat2, "mm", "mat2", 2)
    if a.ndim != 2:
        raise ScriptError("self must be a matrix")
    if b.ndim != 2:
        raise ScriptError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise ScriptError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                          f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    check_numel((a.shape[0], b.shape[1]))
    return _mm(a, b)


def _mm(a: Tensor, b: Tensor) -> Tensor:
    """MmBackward0's node, with the operands' layouts (its gradients' products follow them)."""
    return apply(O.MM, (a, b), {"layouts": (O.column_major(a.data), O.column_major(b.data))})


def bmm(input: Any, mat2: Any) -> Tensor:
    """Batched matrix product of two 3-D tensors (BmmBackward0)."""
    a, b = tensor_arg(input, "bmm"), tensor_arg(mat2, "bmm", "mat2", 2)
    if a.ndim != 3:
        raise ScriptError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise ScriptError("batch2 must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise ScriptError("Expected size for first two dimensions of batch2 tensor to be: "
                          f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    check_numel((a.shape[0], a.shape[1], b.shape[2]))
    return apply(O.BMM, (a, b))


def linear(input: Any, weight: Any, bias: Any = None) -> Tensor:
    """``F.linear``: ``input @ weight.t() + bias`` as ATen's ``linear`` dispatches it: addmm for
    a matrix (or a contiguous input flattened to one), else matmul and an in-place add."""
    x = tensor_arg(input, "linear")
    w = tensor_arg(weight, "linear", "weight", 2)
    if bias is not None:
        tensor_arg(bias, "linear", "bias", 3)
    if x.ndim == 0 or w.ndim == 0:
        raise ScriptError("both arguments to linear need to be at least 1D, but they are "
                          f"{x.ndim}D and {w.ndim}D")
    wt = t(w)
    if bias is not None and (x.ndim == 2 or (x._strides is None and (x.ndim == 3
                                                                     or bias.ndim == 1))):
        if x.ndim == 2:
            return addmm(bias, x, wt)
        rows = 1
        for d in x.shape[:-1]:
            rows *= d
        out = addmm(bias, reshape(x, rows, x.shape[-1]), wt)
        return view(out, *x.shape[:-1], out.shape[1])
    out = matmul(x, wt)
    if bias is not None:  # ATen's linear adds the bias in place (the result is at version 1)
        broadcast_check(out, bias)
        out = apply_inplace(O.ADD, out, (bias,))
    return out


def addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """``torch.addmm(bias, mat1, mat2)`` with beta = alpha = 1 (AddmmBackward0)."""
    if mat1.ndim != 2:
        raise ScriptError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    if mat2.ndim != 2:
        raise ScriptError(f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise ScriptError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
                          f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    for name, a in (("self", bias), ("mat1", mat1)):
        if a.dtype is not mat2.dtype:
            raise ScriptError(f"{name} and mat2 must have the same dtype, but got "
                              f"{SCALAR_NAMES[a.dtype.name]} and "
                              f"{SCALAR_NAMES[mat2.dtype.name]}")
    shape = (mat1.shape[0], mat2.shape[1])
    check_numel(shape)
    # the kernel expands self to the result's shape, unrecorded (its gradient is summed back)
    have = tuple(bias.shape)
    if len(have) > 2 or any(h not in (s, 1) for h, s in zip(have[::-1], shape[::-1])):
        for i in range(1, len(have) + 1):
            if i <= 2 and have[-i] not in (shape[-i], 1):
                raise ScriptError(
                    f"The expanded size of the tensor ({shape[-i]}) must match the existing "
                    f"size ({have[-i]}) at non-singleton dimension {2 - i}.  Target sizes: "
                    f"{list(shape)}.  Tensor sizes: {list(have)}")
        raise ScriptError(f"expand(torch.{bias.dtype.legacy}{{{list(have)}}}, size="
                          f"{list(shape)}): the number of sizes provided (2) must be greater or "
                          f"equal to the number of dimensions in the tensor ({len(have)})")
    return apply(O.ADDMM, (bias, mat1, mat2),
                 {"layouts": (O.column_major(mat1.data), O.column_major(mat2.data))})


# --- products built of others (ATen's composites) -----------------------------------------------
def outer(input: Any, vec2: Any) -> Tensor:
    """Outer product of two vectors: ``input.reshape(-1, 1) * vec2`` (MulBackward0 over
    ViewBackward0), as ATen writes it."""
    a, b = tensor_arg(input, "outer"), tensor_arg(vec2, "outer", "vec2", 2)
    for name, v in (("self", a), ("vec2", b)):
        if v.ndim != 1:
            raise ScriptError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    check_numel((a.shape[0], b.shape[0]))
    return apply(O.MUL, (reshape(a, a.shape[0], 1), b))


def ger(input: Any, vec2: Any) -> Tensor:
    """``torch.ger``: the old name of ``outer``."""
    return outer(input, vec2)


def kron(input: Any, other: Any) -> Tensor:
    """Kronecker product: both operands viewed with interleaved unit dims, multiplied, viewed
    back (UnsafeViewBackward0 over MulBackward0), as ATen's KronImpl."""
    a, b = tensor_arg(input, "kron"), tensor_arg(other, "kron", "other", 2)
    nd = max(a.ndim, b.ndim)
    pa, pb = nd - a.ndim, nd - b.ndim
    a_shape, b_shape, out = [], [], []
    for i in range(nd):
        sa = a.shape[i - pa] if i >= pa else 1
        sb = b.shape[i - pb] if i >= pb else 1
        a_shape += [sa, 1]
        b_shape += [1, sb]
        out.append(sa * sb)
    check_numel(out)
    return _unsafe_view(apply(O.MUL, (_unsafe_view(a, a_shape), _unsafe_view(b, b_shape))), out)


# --- distances, determinants, inverses ----------------------------------------------------------
def cdist(x1: Any, x2: Any, p: Any = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """Euclidean distances between the rows of ``x1`` and ``x2`` (batches alike): the direct
    kernel (CdistBackward0), or past 25 rows ATen's matmul form (EuclideanDistBackward0, viewed)."""
    a, b = tensor_arg(x1, "cdist", "x1"), tensor_arg(x2, "cdist", "x2", 2)
    for name, t_ in (("X1", a), ("X2", b)):
        if t_.ndim < 2:
            raise ScriptError(f"cdist only supports at least 2D tensors, {name} got: {t_.ndim}D")
    if a.shape[-1] != b.shape[-1]:
        raise ScriptError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} "
                          f"X2: {b.shape[-1]}")
    if a.dtype is not b.dtype:
        raise ScriptError(f"expected scalar type {D.SCALAR_NAMES[a.dtype.name]} but found "
                          f"{D.SCALAR_NAMES[b.dtype.name]}")
    if not a.dtype.is_floating_point:
        raise ScriptError("cdist only supports floating-point dtypes, X1 got: "
                          f"{D.SCALAR_NAMES[a.dtype.name]}")
    if p != 2 or a.shape[:-2] != b.shape[:-2]:
        raise ScriptError("gradcli supports cdist with p=2 and operands of the same batch "
                          "shape only", kind="NotImplementedError")
    r1, r2 = a.shape[-2], b.shape[-2]
    out = (*a.shape[:-2], r1, r2)
    check_numel(out)
    mm_mode = {"use_mm_for_euclid_dist_if_necessary": r1 > 25 or r2 > 25,
               "use_mm_for_euclid_dist": True, "donot_use_mm_for_euclid_dist": False}
    if compute_mode not in mm_mode:
        raise ScriptError(f"{compute_mode} is not a valid value for compute_mode")
    if mm_mode[compute_mode]:
        return view(apply(O.EUCLIDEAN_DIST, (a, b)), *out)
    return apply(O.CDIST, (a, b), {"p": float(p)})


def _square(a: Tensor, name: str) -> None:
    if a.ndim < 2:
        raise ScriptError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise ScriptError(f"{name}: A must be batches of square matrices, but they are "
                          f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if not a.dtype.is_floating_point:
        raise ScriptError(f"{name}: Expected a floating point or complex tensor as input. Got "
                          f"{D.SCALAR_NAMES[a.dtype.name]}")


def det(input: Any) -> Tensor:
    """The determinant of a square matrix (or of each of a batch) from its LU factorisation
    (LinalgDetBackward0, which saves A, LU, pivots and the result, as PyTorch's)."""
    a = tensor_arg(input, "det", "A")
    _square(a, "linalg.det")
    be = a.backend
    # NOTE: PyTorch hands LAPACK the row-major A as a column-major matrix, so it factors A^T
    # (same determinant); its node saves that LU and those pivots
    nd = a.ndim
    lu, pivots = K.lu_factor(be.xp, be.xp.permute_dims(a.data, (*range(nd - 2), nd - 1, nd - 2)))
    return apply(O.LINALG_DET, (a, Tensor(lu, be), Tensor(pivots, be)))


def inv(input: Any) -> Tensor:
    """The inverse of a square matrix (or each of a batch) (LinalgInvExBackward0); PyTorch's
    error for a singular one."""
    a = tensor_arg(input, "inv", "A")
    _square(a, "linalg.inv")
    xp = a.backend.xp
    lu, _ = K.lu_factor(xp, a.data)
    n = a.shape[-1]
    for k in range(n):
        if bool(xp.any(lu[..., k, k] == 0)):
            raise ScriptError(f"linalg.inv: The diagonal element {k + 1} is zero, the inversion "
                              "could not be completed because the input matrix is singular.",
                              kind="_LinAlgError")
    return apply(O.LINALG_INV, (a,))


def inverse(input: Any) -> Tensor:
    """``torch.inverse``: ``torch.linalg.inv``."""
    return inv(input)


def solve(A: Any, B: Any, *, left: bool = True) -> Tensor:
    """X with A X = B (``left``) or X A = B (LinalgSolveExBackward0); PyTorch's error for a
    singular A."""
    a, b = tensor_arg(A, "linalg_solve", "A"), tensor_arg(B, "linalg_solve", "B", 2)
    _square(a, "linalg.solve")
    if a.dtype is not b.dtype:
        raise ScriptError("linalg.solve: Expected A and B to have the same dtype, but found A of "
                          f"type {D.SCALAR_NAMES[a.dtype.name]} and B of type "
                          f"{D.SCALAR_NAMES[b.dtype.name]} instead")
    n = a.shape[-1]
    rows = b.shape[0] if b.ndim == 1 else b.shape[-2] if left else b.shape[-1]
    if b.ndim == 0 or rows != n or (b.ndim > 1 and b.shape[:-2] != a.shape[:-2]):
        shown = f"{b.shape[0]}x1" if b.ndim == 1 else "x".join(str(d) for d in b.shape[-2:])
        raise ScriptError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                          f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {shown})")
    be = a.backend
    lu, pivots = K.lu_factor(be.xp, a.data)
    if bool(be.xp.any(be.xp.stack([lu[..., k, k] == 0 for k in range(n)]))):
        raise ScriptError("torch.linalg.solve: The solver failed because the input matrix is "
                          "singular.", kind="_LinAlgError")
    return apply(O.LINALG_SOLVE, (a, b, Tensor(lu, be), Tensor(pivots, be)), {"left": bool(left)})
