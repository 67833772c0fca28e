"""The numeric kernels the op table's forwards and formulas call, with PyTorch's rounding.

On the NumPy backend each function runs the PyTorch-exact emulation in ``engine/exact`` (the
same order of additions, the same SLEEF and libm code, the same fused multiply-adds), so float32
and float64 results are PyTorch's bit for bit where tests/test_numerics.py says so.  On any other
Array API namespace, and for dtypes the emulation does not cover, each falls back to the plain
formula written with Array API calls.

``add_scaled``/``fused_add`` (the optimizers' ``add(a, b, alpha=s)``), ``lerp``, ``addcmul``:
PyTorch's AVX2 and AVX512 kernels compute ``a + alpha * b`` with a fused multiply-add, one
rounding, and so do these (Array API calls only); on the DEFAULT capability a multiply and an
add (engine/machine.py).
"""

from __future__ import annotations

import math
from typing import Any

from . import machine
from .backend import NDARRAY, exact_kernels, index_put, to_host
from .context import current
from .exact.select import mode_of, quick_select_index, sort_order, topk_order
from .tensor import batched_arrays


def _exact(xp: Any, *arrays: Any) -> Any:
    """The exact namespace when it can take these arrays, else None."""
    try:
        ex = exact_kernels(xp)
    except TypeError:  # an unhashable namespace object (create_graph's formulas): not NumPy
        return None
    return ex if ex is not None and ex.accepts(*arrays) else None


def linspace(xp: Any, start: float, end: float, steps: int, dtype: Any) -> Any:
    """``torch.linspace``: each value from the nearer end with one fused multiply-add."""
    ex = exact_kernels(xp)
    if ex is not None:
        return xp.asarray(ex.linspace(start, end, steps, dtype))
    return xp.linspace(start, end, steps, dtype=dtype)


def sum(xp: Any, x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``torch.sum``: PyTorch's cascade order of additions."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.sum_(x, _axes(axis), keepdims)
    return xp.sum(x, axis=axis, keepdims=keepdims)


def mean(xp: Any, x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``torch.mean``: the cascade sum divided by the count."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.mean(x, _axes(axis), keepdims)
    n = 1
    for i, d in enumerate(x.shape):
        if axis is None or i in _axes(axis):
            n *= d
    return xp.sum(x, axis=axis, keepdims=keepdims) / n


def nll_sum(xp: Any, terms: Any, kept: Any) -> Any:
    """``nll_loss``'s sum of the kept rows' terms, negated (its total weight, with the weights'
    signs flipped): ATen's eight-level cascade (exact/reduce.py)."""
    ex = _exact(xp, terms)
    if ex is not None:
        return xp.asarray(ex.nll_cascade(terms, kept))
    return -xp.sum(xp.where(kept, terms, xp.zeros_like(terms)))


def nll_forward(xp: Any, x: Any, target: Any, ignore_index: int) -> Any | None:
    """``nll_loss``'s reduced sum over (rows, classes) without class weights, by one C loop on
    the NumPy backend (exact/reduce.py); None elsewhere (the op's formula computes it)."""
    ex = _exact(xp, x)
    return None if ex is None else ex.nll_forward(x, target, ignore_index)


def nll_targets(xp: Any, labels: Any, ignore_index: int, classes: int) -> tuple | None:
    """(kept targets, the first kept one that is not a class or -1) of int64 ``labels`` by one
    C loop on the NumPy backend; None elsewhere."""
    ex = exact_kernels(xp)
    return None if ex is None else ex.nll_targets(labels, ignore_index, classes)


def scatter_add(xp: Any, shape: tuple, positions: Any, values: Any) -> Any:
    """Zeros of ``shape`` with ``values`` added at the flat ``positions`` (duplicates add up,
    in order): one C loop on the NumPy backend (exact/reduce.py), else ``index_put``."""
    ex = _exact(xp, values)
    if ex is not None:
        return ex.scatter_add(shape, positions, values)
    flat = index_put(xp, xp.zeros((math.prod(shape),), dtype=values.dtype),
                     xp.reshape(positions, (-1,)), xp.reshape(values, (-1,)), True)
    return xp.reshape(flat, shape)


def nll_grad(xp: Any, grad: Any, target: Any, total_weight: Any, shape: tuple,
             ignore_index: int, mean: bool) -> Any:
    """NllLossBackward0's gradient of a reduced loss over (rows, classes) without class weights
    by one scatter on the NumPy backend (exact/reduce.py); None elsewhere (the op table's
    formula then computes it)."""
    ex = _exact(xp, grad, total_weight)
    if ex is None:
        return None
    return ex.nll_grad(grad, target, total_weight, shape, ignore_index, mean)


def batch_norm_stats(xp: Any, x: Any, eps: float, momentum: float, running_mean: Any,
                     running_var: Any) -> tuple[Any, Any]:
    """native_batch_norm's training statistics (mean and invstd, per channel), the running
    ones (writable arrays or None) updated in place as PyTorch's kernel updates them."""
    ex = _exact(xp, x)
    axes = (0, *range(2, x.ndim))
    n = 1
    for a in axes:
        n *= x.shape[a]
    if ex is not None:
        mean, var_sum = ex.batchnorm.collect_stats(x)
        return mean, ex.batchnorm.invstd_and_update(mean, var_sum, n, eps, momentum,
                                                     running_mean, running_var)
    mean = xp.mean(x, axis=axes)
    centred = x - xp.reshape(mean, (1, -1) + (1,) * (x.ndim - 2))
    var_sum = xp.sum(centred * centred, axis=axes)
    for stat, value in ((running_mean, mean), (running_var, var_sum / max(n - 1, 1))):
        if stat is not None:
            stat[...] = value * momentum + stat * (1 - momentum)
    return mean, 1.0 / xp.sqrt(var_sum / n + eps)


def batch_norm(xp: Any, x: Any, mean: Any, invstd: Any, weight: Any, bias: Any) -> Any:
    """``x * alpha + beta`` per channel, ``alpha = invstd * weight``, ``beta = bias - mean *
    alpha`` (PyTorch's fused multiply-adds on the NumPy backend)."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.batchnorm.transform(x, mean, invstd, weight, bias)
    alpha = invstd if weight is None else invstd * weight
    beta = -mean * alpha if bias is None else bias - mean * alpha
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return x * xp.reshape(alpha, shape) + xp.reshape(beta, shape)


def layer_norm_stats(xp: Any, x: Any, k: int, eps: float) -> tuple[Any, Any]:
    """native_layer_norm's row statistics over the last ``k`` dims (mean and rstd, shaped
    (*lead, 1, ...)): PyTorch's RowwiseMoments on the NumPy backend."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.layernorm.stats(x, k, eps)
    axes = tuple(range(x.ndim - k, x.ndim))
    mu = mean(xp, x, axes, True)
    centred = x - mu
    return mu, 1.0 / xp.sqrt(mean(xp, centred * centred, axes, True) + eps)


def layer_norm(xp: Any, x: Any, k: int, weight: Any, bias: Any, mean: Any, rstd: Any) -> Any:
    """``((x - mean) * rstd) * weight + bias`` (PyTorch's fused multiply-adds on the NumPy
    backend)."""
    ex = _exact(xp, x, mean, rstd, *(t for t in (weight, bias) if t is not None))
    if ex is not None:
        return ex.layernorm.forward(x, k, weight, bias, mean, rstd)
    out = (x - mean) * rstd
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def layer_norm_backward(xp: Any, which: int, grad: Any, x: Any, weight: Any, mean: Any,
                        rstd: Any, k: int) -> Any:
    """PyTorch's layer_norm backward kernel's gradient of input (0), weight (1) or bias (2)
    over the last ``k`` dims, or None where the exact kernel does not apply (the caller's
    formulas then)."""
    ex = _exact(xp, grad, x, mean, rstd, *(() if weight is None else (weight,)))
    if ex is None or not x.size:
        return None
    if which == 0:
        return ex.layernorm.input_grad(grad, x, k, weight, mean, rstd)
    if which == 1:
        return ex.layernorm.weight_grad(grad, x, k, mean, rstd)
    return ex.layernorm.bias_grad(grad, k)


def batch_norm_eval_invstd(xp: Any, running_var: Any, eps: float) -> Any:
    """The forward's ``1 / sqrt(running_var + eps)`` in the running variance's dtype."""
    return 1.0 / xp.sqrt(running_var + xp.asarray(eps, dtype=running_var.dtype))


def batch_norm_backward(xp: Any, grad: Any, x: Any, weight: Any, mean: Any, invstd: Any,
                        training: bool, running_var: Any, eps: float) -> Any:
    """PyTorch's batch_norm backward kernel: (grad_input, grad_weight, grad_bias), or None
    where the exact kernel does not apply (the caller's formulas then)."""
    ex = _exact(xp, grad, x)
    if ex is None:
        return None
    return ex.batchnorm.backward(grad, x, weight, mean, invstd, training, running_var, eps)


def _window(x: Any, i: int, j: int, stride: tuple, dilation: tuple, out: tuple) -> Any:
    """The (N, C, oh, ow) elements of a padded image under kernel position (i, j)."""
    (sh, sw), (dh, dw), (oh, ow) = stride, dilation, out
    return x[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh,
             j * dw: j * dw + sw * (ow - 1) + 1: sw]


def _padded(xp: Any, x: Any, padding: tuple) -> Any:
    n, c, h, w = x.shape
    (ph, pw) = padding
    if not ph and not pw:
        return x
    out = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=x.dtype)
    out[:, :, ph:ph + h, pw:pw + w] = x
    return out


def conv2d(xp: Any, x: Any, w: Any, bias: Any, stride: tuple, padding: tuple, dilation: tuple,
           groups: int) -> Any:
    """A 2-d convolution (cross-correlation) of (N, C, H, W) by (O, C / groups, kh, kw): ATen's
    slow kernels' im2col and gemm on the NumPy backend (engine/exact/conv.py)."""
    ex = _exact(xp, x, w)
    if ex is not None:
        return ex.conv.conv2d(x, w, bias, stride, padding, dilation, groups)
    out = tuple((x.shape[2 + d] + 2 * padding[d] - dilation[d] * (w.shape[2 + d] - 1) - 1)
                // stride[d] + 1 for d in range(2))
    xp_ = _padded(xp, x, padding)
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    parts = []
    for g in range(groups):
        acc = xp.zeros((x.shape[0], out[0], out[1], og), dtype=x.dtype)
        for i in range(w.shape[2]):
            for j in range(w.shape[3]):
                win = _window(xp_[:, g * cg:(g + 1) * cg, ...], i, j, stride, dilation, out)
                acc = acc + xp.matmul(xp.permute_dims(win, (0, 2, 3, 1)),
                                      xp.permute_dims(w[g * og:(g + 1) * og, :, i, j], (1, 0)))
        parts.append(xp.permute_dims(acc, (0, 3, 1, 2)))
    y = parts[0] if groups == 1 else xp.concat(parts, axis=1)
    return y if bias is None else y + xp.reshape(bias, (1, -1, 1, 1))


def conv2d_input_grad(xp: Any, grad: Any, w: Any, shape: tuple, stride: tuple, padding: tuple,
                      dilation: tuple, groups: int) -> Any:
    """The gradient of a 2-d convolution's (N, C, H, W) input of ``shape``."""
    ex = _exact(xp, grad, w)
    if ex is not None:
        return ex.conv.conv2d_input_grad(grad, shape, w, stride, padding, dilation, groups)
    n, c, h, wd = shape
    (ph, pw), out = padding, tuple(grad.shape[2:])
    cg, og = c // groups, w.shape[0] // groups
    img = xp.zeros((n, c, h + 2 * ph, wd + 2 * pw), dtype=grad.dtype)
    for g in range(groups):
        gg = xp.permute_dims(grad[:, g * og:(g + 1) * og, ...], (0, 2, 3, 1))
        for i in range(w.shape[2]):
            for j in range(w.shape[3]):
                part = xp.matmul(gg, w[g * og:(g + 1) * og, :, i, j])  # (N, oh, ow, cg)
                (sh, sw), (dh, dw) = stride, dilation
                sel = (slice(None), slice(g * cg, (g + 1) * cg),
                       slice(i * dh, i * dh + sh * (out[0] - 1) + 1, sh),
                       slice(j * dw, j * dw + sw * (out[1] - 1) + 1, sw))
                img[sel] = img[sel] + xp.permute_dims(part, (0, 3, 1, 2))
    return img[:, :, ph:ph + h, pw:pw + wd]


def conv2d_weight_grad(xp: Any, grad: Any, x: Any, shape: tuple, stride: tuple, padding: tuple,
                       dilation: tuple, groups: int) -> Any:
    """The gradient of a 2-d convolution's (O, C / groups, kh, kw) weight of ``shape``."""
    ex = _exact(xp, grad, x)
    if ex is not None:
        return ex.conv.conv2d_weight_grad(grad, x, shape, stride, padding, dilation, groups)
    out = tuple(grad.shape[2:])
    xp_ = _padded(xp, x, padding)
    cg, og = shape[1], shape[0] // groups
    groups_out = []
    for g in range(groups):
        gg = xp.reshape(xp.permute_dims(grad[:, g * og:(g + 1) * og, ...], (1, 0, 2, 3)), (og, -1))
        rows = []
        for i in range(shape[2]):
            cols = []
            for j in range(shape[3]):
                win = _window(xp_[:, g * cg:(g + 1) * cg, ...], i, j, stride, dilation, out)
                win = xp.reshape(xp.permute_dims(win, (0, 2, 3, 1)), (-1, cg))
                cols.append(xp.matmul(gg, win))  # (og, cg)
            rows.append(xp.stack(cols, axis=-1))
        groups_out.append(xp.stack(rows, axis=-2))
    return groups_out[0] if groups == 1 else xp.concat(groups_out, axis=0)


def _axes(axis: Any) -> tuple | None:
    if axis is None:
        return None
    return tuple(axis) if isinstance(axis, tuple | list) else (axis,)


def matmul(xp: Any, a: Any, b: Any) -> Any:
    """``torch.matmul`` of vectors and matrices: float32 in MKL's order of additions."""
    if a.__class__ is NDARRAY and b.__class__ is NDARRAY and a.ndim == 2 and 0 < b.ndim <= 2 \
            and a.size and b.size and current().vmap is None:
        # a matrix times a matrix or a vector, outside vmap (every training step's products):
        # straight to blas.py's mm or mv, as ex.matmul would route them
        ex = exact_kernels(xp)
        if ex is not None and ex.accepts(a, b):
            return ex.blas.mm(a, b) if b.ndim == 2 else ex.blas.mv(a, b)
    if a.ndim <= 2 and b.ndim == 1 or a.ndim == 2 and b.ndim == 2:
        if batched_arrays(a, b):
            # NOTE: inside vmap, PyTorch's batching rules make a product of two batched
            # operands (mm, mv, dot) one bmm, whose sums and zeros differ from mm's and dot's
            left = a[None] if a.ndim == 2 else a[None, None]
            right = b[None] if b.ndim == 2 else b[None, :, None]
            out = bmm(xp, left, right)[0]
            return out if b.ndim == 2 else out[:, 0] if a.ndim == 2 else out[0, 0]
        if a.ndim == 1 and (batched_arrays(a) or batched_arrays(b)):
            # one batched vector: PyTorch's dot of a batch with a vector is an mv
            rows, vec = (a, b) if batched_arrays(a) else (b, a)
            return matmul(xp, rows[None], vec)[0]
    ex = _exact(xp, a, b)
    if ex is not None:
        out = ex.matmul(a, b)
        if out is not None:
            return out
    return xp.matmul(a, b)


def addmm(xp: Any, bias: Any, a: Any, b: Any) -> Any:
    """``torch.addmm(bias, a, b)`` of two matrices (F.linear's): on the NumPy backend MKL's
    gemm adding the product into the bias (blas.py's mm), as ATen's addmm; else the product
    plus the bias."""
    if a.__class__ is NDARRAY and b.__class__ is NDARRAY and bias.__class__ is NDARRAY \
            and current().vmap is None:
        ex = exact_kernels(xp)
        if ex is not None and ex.accepts(a, b, bias):
            return ex.blas.mm(a, b, add=bias)
    return matmul(xp, a, b) + bias


def var_std(xp: Any, x: Any, dim: Any, correction: float, keepdim: bool, take_sqrt: bool,
            fallback: Any) -> Any:
    """``torch.var`` / ``torch.std``: float32 and float64 as PyTorch's kernels compute them (in
    float64, one rounding); ``fallback(xp)`` for other arrays."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.var_std(x, dim, correction, keepdim, take_sqrt)
    return fallback(xp)


def vector_norm(xp: Any, x: Any, ord: float, dim: Any, keepdim: bool, fallback: Any) -> Any:
    """``torch.linalg.vector_norm``: float32 and float64 as PyTorch's norm kernel computes them
    (its order of additions, fused or not); ``fallback(xp)`` for other arrays."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.vector_norm(x, ord, _axes(dim), keepdim)
    return fallback(xp)


def bmm(xp: Any, a: Any, b: Any) -> Any:
    """``torch.bmm`` of 3-D arrays: float32 and float64 as ATen and MKL compute them."""
    ex = _exact(xp, a, b)
    if ex is not None:
        return ex.bmm(a, b)
    return xp.matmul(a, b)


def unary(xp: Any, name: str, x: Any) -> Any:
    """An elementwise function PyTorch leaves to a library (MKL's VML for exp, log, sqrt,
    tanh, sin, ...): ``name`` is its Array API name."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.mkl(name, x)
    return getattr(xp, name)(x)


def libm(xp: Any, name: str, *xs: Any) -> Any:
    """An elementwise function PyTorch takes from the C library or SLEEF (asinh, exp2, hypot,
    ...): ``name`` is its Array API name."""
    ex = _exact(xp, *xs)
    if ex is not None:
        return ex.library(name, *xs)
    if name == "exp2" and not hasattr(xp, "exp2"):  # not an Array API function
        return xp.pow(xp.asarray(2.0, dtype=xs[0].dtype), xs[0])
    return getattr(xp, name)(*xs)


def c_library(xp: Any, name: str, *xs: Any) -> Any:
    """A function a scalar-only kernel (``cpu_kernel``: xlogy's log) takes from the C library
    for every element; ``name`` is its C and Array API name."""
    ex = _exact(xp, *xs)
    if ex is not None:
        return ex.c_library(name, *xs)
    return getattr(xp, name)(*xs)


def logaddexp(xp: Any, a: Any, b: Any) -> Any:
    """``torch.logaddexp``: max(a, b) + log1p(exp(-|a - b|)), a where a = b = +-inf."""
    ex = _exact(xp, a, b)
    if ex is not None:
        return ex.logaddexp(a, b)
    out = xp.maximum(a, b) + xp.log1p(xp.exp(-xp.abs(a - b)))
    return xp.where((a == b) & (xp.abs(a) == math.inf), a, out)


def lerp(xp: Any, start: Any, end: Any, weight: Any) -> Any:
    """``torch.lerp``: ``start + weight * (end - start)`` for |weight| < 0.5, else
    ``end - (end - start) * (1 - weight)``, each one fused multiply-add (LerpKernel.cpp)."""
    diff = end - start
    if not hasattr(weight, "dtype"):  # a number: in the inputs' dtype, as the kernel's opmath
        weight = xp.asarray(weight, dtype=diff.dtype)
    small = xp.abs(weight) < 0.5
    coeff = xp.where(small, weight, weight - 1)
    base = xp.where(small, start, end)
    return madd(xp, base, coeff, diff)


def addcmul(xp: Any, self: Any, tensor1: Any, tensor2: Any, value: Any) -> Any:
    """``torch.addcmul``: ``self + value * tensor1 * tensor2``, the last step one fused
    multiply-add (the kernel's vector and scalar lambdas, contracted)."""
    if xp.isdtype(tensor1.dtype, "integral"):  # the value in the tensors' dtype
        value = int(value)
    return madd(xp, self, value * tensor1, tensor2)


def madd(xp: Any, base: Any, a: Any, b: Any) -> Any:
    """``base + a * b`` as a kernel's compiled code computes it: one fused multiply-add for
    float32 and float64 on AVX2 and AVX512, a multiply then an add on DEFAULT (and for other
    dtypes)."""
    dt = getattr(a, "dtype", None)
    if dt not in (xp.float32, xp.float64) or not machine.current().fma:
        return base + a * b
    if dt == xp.float32:
        return fused_add(xp, base, a, b)
    return _fma64(xp, base, a, b)


def expm1(xp: Any, x: Any) -> Any:
    """``torch.expm1`` (SLEEF)."""
    ex = _exact(xp, x)
    return ex.expm1(x) if ex is not None else xp.expm1(x)


def log1p(xp: Any, x: Any) -> Any:
    """``torch.log1p`` (SLEEF)."""
    ex = _exact(xp, x)
    return ex.log1p(x) if ex is not None else xp.log1p(x)


def smooth_l1_backward(xp: Any, grad: Any, x: Any, y: Any, norm: float, beta: float) -> Any:
    """smooth_l1_loss_backward (beta > 0): ``norm * sign(x - y)`` beyond beta, else ``norm *
    (x - y) / beta``, times the gradient; the vector lanes and the scalar tail as ATen's."""
    ex = _exact(xp, x, y)
    if ex is not None:
        return ex.smooth_l1_backward(grad, x, y, norm, beta)
    d = x - y
    return xp.where(d <= -beta, -norm * grad, xp.where(d >= beta, norm * grad,
                                                       norm * d * grad / beta))


def huber_backward(xp: Any, grad: Any, x: Any, y: Any, norm: float, delta: float) -> Any:
    """huber_loss_backward: ``norm * sign(x - y) * delta`` beyond delta, else ``norm * (x -
    y)``, times the gradient; the vector lanes and the scalar tail as ATen's."""
    ex = _exact(xp, x, y)
    if ex is not None:
        return ex.huber_backward(grad, x, y, norm, delta)
    d = x - y
    return xp.where(d <= -delta, -norm * grad * delta,
                    xp.where(d >= delta, norm * grad * delta, norm * d * grad))


def sigmoid(xp: Any, x: Any) -> Any:
    """``torch.sigmoid``: SLEEF in the vector lanes, glibc in each row's tail."""
    ex = _exact(xp, x)
    return ex.sigmoid(x) if ex is not None else 1.0 / (1.0 + xp.exp(-x))


def sigmoid_backward(xp: Any, grad: Any, y: Any) -> Any:
    """``sigmoid_backward``: (grad * (1 - y)) * y."""
    ex = _exact(xp, grad, y)
    return ex.sigmoid_backward(grad, y) if ex is not None else (grad * (1 - y)) * y


def tanh_backward(xp: Any, grad: Any, y: Any) -> Any:
    """``tanh_backward``: grad * (1 - y * y), with ``1 - y * y`` fused."""
    ex = _exact(xp, grad, y)
    return ex.tanh_backward(grad, y) if ex is not None else grad * (1 - y * y)


def threshold_backward(xp: Any, grad: Any, x: Any, threshold: float) -> Any:
    """``threshold_backward`` (relu's gradient): 0 where ``x <= threshold``, else ``grad``."""
    ex = _exact(xp, grad, x)
    if ex is not None:
        out = ex.threshold_backward(grad, x, threshold)
        if out is not None:
            return out
    return xp.where(x <= threshold, 0.0, grad)


def logsigmoid(xp: Any, x: Any) -> Any:
    """``F.logsigmoid``: min(x, 0) - log1p(exp(-|x|))."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.logsigmoid(x)
    return xp.minimum(x, 0.0) - xp.log1p(xp.exp(-xp.abs(x)))


def logsigmoid_backward(xp: Any, grad: Any, x: Any) -> Any:
    """``log_sigmoid_backward`` from the forward's exp(-|x|)."""
    ex = _exact(xp, grad, x)
    if ex is not None:
        return ex.logsigmoid_backward(grad, x)
    b = xp.exp(-xp.abs(x))
    max_deriv = xp.astype(x < 0, x.dtype)  # 1 where x < 0, else 0; the sign is then +-1
    return (max_deriv - (2 * max_deriv - 1) * (b / (1 + b))) * grad


def softplus(xp: Any, x: Any, beta: float, threshold: float) -> Any:
    """``F.softplus``: log1p(exp(x * beta)) / beta, x itself above the threshold."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.softplus(x, beta, threshold)
    scaled = x * beta
    return xp.where(scaled > threshold, x, xp.log1p(xp.exp(scaled)) / beta)


def softplus_backward(xp: Any, grad: Any, x: Any, beta: float, threshold: float) -> Any:
    """``softplus_backward``: grad * z / (z + 1), z = exp(x * beta)."""
    ex = _exact(xp, grad, x)
    if ex is not None:
        return ex.softplus_backward(grad, x, beta, threshold)
    z = xp.exp(x * beta)
    return xp.where(x * beta > threshold, grad, grad * z / (z + 1))


def elu(xp: Any, x: Any, alpha: float, scale: float, input_scale: float) -> Any:
    """``F.elu`` (selu, celu): x * scale above 0, expm1(x * input_scale) * alpha * scale."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.elu(x, alpha, scale, input_scale)
    return xp.where(x > 0, x * scale, xp.expm1(x * input_scale) * (alpha * scale))


def elu_backward(xp: Any, grad: Any, b: Any, alpha: float, scale: float, input_scale: float,
                 is_result: bool) -> Any:
    """``elu_backward`` from the input ``b`` (or from the result, in place)."""
    ex = _exact(xp, grad, b)
    if ex is not None:
        return ex.elu_backward(grad, b, alpha, scale, input_scale, is_result)
    if is_result:
        return xp.where(b > 0, grad * scale, grad * input_scale * (b + alpha * scale))
    return xp.where(b > 0, grad * scale,
                    grad * input_scale * (alpha * scale) * xp.exp(b * input_scale))


def silu(xp: Any, x: Any) -> Any:
    """``F.silu``: x / (1 + exp(-x))."""
    ex = _exact(xp, x)
    return ex.silu(x) if ex is not None else x / (1.0 + xp.exp(-x))


def silu_backward(xp: Any, grad: Any, x: Any) -> Any:
    """``silu_backward``: grad * s * (1 + x * (1 - s)), s = sigmoid(x)."""
    ex = _exact(xp, grad, x)
    if ex is not None:
        return ex.silu_backward(grad, x)
    s = 1.0 / (1.0 + xp.exp(-x))
    return grad * s * (1.0 + x * (1.0 - s))


def softshrink(xp: Any, x: Any, lambd: float) -> Any:
    """``F.softshrink``: x -+ lambd outside [-lambd, lambd], 0 inside."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.softshrink(x, lambd)
    return xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, x * 0.0))


_SQRT1_2 = math.sqrt(0.5)
_GELU_PDF = 1.0 / math.sqrt(2.0 * math.pi)


def gelu(xp: Any, x: Any) -> Any:
    """``F.gelu`` (approximate='none'): PyTorch's kernel on the NumPy backend (oneDNN's for a
    contiguous float32 input of more than one element, else ATen's: exact/__init__.py), x / 2
    * (1 + erf(x / sqrt(2))) with the series erf elsewhere."""
    ex = _exact(xp, x)
    if ex is not None:
        out = ex.gelu(x)
        if out is not None:
            return out
    return x * 0.5 * (1 + erf_series(xp, x * _SQRT1_2))


def gelu_backward(xp: Any, grad: Any, x: Any) -> Any:
    """``gelu_backward`` (approximate='none'): grad * (cdf + x * pdf), PyTorch's kernel on the
    NumPy backend as ``gelu``."""
    ex = _exact(xp, grad, x)
    if ex is not None:
        out = ex.gelu_backward(grad, x)
        if out is not None:
            return out
    cdf = 0.5 * (1 + erf(xp, x * _SQRT1_2))
    return grad * (cdf + x * (unary(xp, "exp", -0.5 * (x * x)) * _GELU_PDF))


_TANH_BETA = math.sqrt(2.0 / math.pi)
_TANH_KAPPA = 0.044715


def gelu_tanh(xp: Any, x: Any) -> Any:
    """``F.gelu(x, approximate='tanh')``: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 *
    x^3))), PyTorch's kernel on the NumPy backend (exact/unary.py)."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.gelu_tanh(x)
    inner = _TANH_BETA * (x + _TANH_KAPPA * (x * x * x))
    return 0.5 * x * (1 + xp.tanh(inner))


def gelu_tanh_backward(xp: Any, grad: Any, x: Any) -> Any:
    """``gelu_backward(grad, x, approximate='tanh')``: grad * (0.5 * (1 + t) + 0.5 * x * (1 -
    t^2) * sqrt(2 / pi) * (1 + 3 * 0.044715 * x^2)), t the forward's tanh; PyTorch's kernel as
    ``gelu_tanh``."""
    ex = _exact(xp, grad, x)
    if ex is not None:
        return ex.gelu_tanh_backward(grad, x)
    sq = x * x
    t = xp.tanh(_TANH_BETA * (x + _TANH_KAPPA * (sq * x)))
    right = (0.5 * x) * (1 - t * t) * (_TANH_BETA * (1 + 3 * _TANH_KAPPA * sq))
    return grad * (0.5 * (1 + t) + right)


def erf(xp: Any, x: Any) -> Any:
    """``torch.erf`` (MKL): the C library's erf where NumPy runs, a series elsewhere."""
    ex = _exact(xp, x)
    return ex.erf(x) if ex is not None else erf_series(xp, x)


def erf_series(xp: Any, x: Any) -> Any:
    """erf without a library function (the Array API has none): the everywhere-positive series
    erf(x) = 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)), summed for |x| <= 6;
    beyond, erf is +-1 to double precision.  Relative error about 1e-15."""
    a = xp.clip(xp.abs(x), max=6.0)
    x2 = a * a
    term = a
    total = a
    for n in range(1, 110):  # the terms peak near n = x^2 = 36 and fall below 1e-17 by 110
        term = term * (2.0 * x2 / (2 * n + 1))
        total = total + term
    value = (2.0 / math.sqrt(math.pi)) * xp.exp(-x2) * total
    return xp.sign(x) * xp.clip(value, max=1.0)


def power(xp: Any, x: Any, exponent: float) -> Any:
    """``x ** exponent`` for a Python number: PyTorch's special exponents (x * x, 1 / x,
    1 / sqrt(x) ...); 0.5 is ``torch.sqrt``."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.mkl("sqrt", x) if exponent == 0.5 else ex.pow_scalar(x, exponent)
    return x ** exponent


def softmax(xp: Any, x: Any, dim: int) -> Any:
    """``torch.softmax``."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.softmax(x, dim)
    if 0 in x.shape:  # nothing to normalise (and NumPy's max of nothing fails)
        return x + 0
    e = xp.exp(x - xp.max(x, axis=dim, keepdims=True))
    return e / xp.sum(e, axis=dim, keepdims=True)


def log_softmax(xp: Any, x: Any, dim: int) -> Any:
    """``torch.log_softmax``: (x - max) - log(sum(exp(x - max)))."""
    ex = _exact(xp, x)
    if ex is not None:
        return ex.log_softmax(x, dim)
    if 0 in x.shape:
        return x + 0
    shifted = x - xp.max(x, axis=dim, keepdims=True)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=dim, keepdims=True))


def softmax_backward(xp: Any, grad: Any, y: Any, dim: int) -> Any:
    """``_softmax_backward_data``: (grad - sum(grad * y)) * y."""
    ex = _exact(xp, grad, y)
    if ex is not None:
        return ex.softmax_backward(grad, y, dim)
    return (grad - xp.sum(grad * y, axis=dim, keepdims=True)) * y


def log_softmax_backward(xp: Any, grad: Any, y: Any, dim: int) -> Any:
    """``_log_softmax_backward_data``: grad - exp(y) * sum(grad)."""
    ex = _exact(xp, grad, y)
    if ex is not None:
        return ex.log_softmax_backward(grad, y, dim)
    return grad - xp.exp(y) * xp.sum(grad, axis=dim, keepdims=True)


# --- add(a, b, alpha=s): fused -----------------------------------------------------------------
_SPLIT = 134217729.0  # 2**27 + 1: Dekker's splitter for float64


def add_alpha(xp: Any, a: Any, b: Any, alpha: Any) -> Any:
    """``torch.add(a, b, alpha=alpha)`` (a in the result's dtype, b an array of it or a
    number): ATen's add kernel, ``a + alpha * b`` with alpha in that dtype, one fused
    multiply-add for float32 and float64 (add_scaled), integer arithmetic otherwise."""
    if not hasattr(b, "dtype"):
        b = xp.asarray(b, dtype=a.dtype)
    if a.dtype == xp.float32 or a.dtype == xp.float64:
        if tuple(b.shape) != tuple(a.shape):
            shape = tuple(xp.broadcast_arrays(a, b)[0].shape)
            a, b = xp.broadcast_to(a, shape), xp.broadcast_to(b, shape)
        return add_scaled(xp, a, float(alpha), b)
    return a + xp.asarray(alpha, dtype=a.dtype) * b


def add_scaled(xp: Any, a: Any, alpha: float, b: Any) -> Any:
    """``a + alpha * b`` rounded once, in ``a``'s dtype (float32 or float64)."""
    if not machine.current().fma:  # DEFAULT: vec::fmadd is a multiply then an add
        return a + xp.asarray(alpha, dtype=a.dtype) * b
    if a.dtype == xp.float32:
        return fused_add(xp, a, xp.asarray(alpha, dtype=xp.float32), b)
    return _fma64(xp, a, alpha, b)


def fused_add(xp: Any, base: Any, a: Any, b: Any) -> Any:
    """``base + a * b`` rounded once, for float32 ``base`` and float32 ``a``, ``b``."""
    ex = _exact(xp, base, a, b)
    if ex is not None:  # NumPy: rounded straight from float64 where no sum can double-round
        out = ex.fused_add(base, a, b)
        if out is not None:
            return out
    f64 = xp.float64
    return _round32(xp, xp.astype(xp.asarray(base), f64),
                    xp.astype(xp.asarray(a), f64) * xp.astype(xp.asarray(b), f64))


def _two_sum(x: Any, y: Any) -> tuple[Any, Any]:
    """``s = fl(x + y)`` and the exact error ``x + y - s`` (Knuth)."""
    s = x + y
    bb = s - x
    return s, (x - (s - bb)) + (y - bb)


def _round32(xp: Any, a64: Any, p: Any) -> Any:
    """``a64 + p`` (float64 values exact: float32 data and a product of two) rounded once to
    float32.  The one double rounding (a float64 sum exactly halfway between two float32
    values) is resolved by the sum's error term."""
    f64 = xp.float64
    s, err = _two_sum(a64, p)
    r = xp.astype(s, xp.float32)
    r64 = xp.astype(r, f64)
    toward = xp.astype(xp.nextafter(r, xp.astype(xp.where(s > r64, xp.inf, -xp.inf),
                                                  xp.float32)), f64)
    halfway = (r64 != s) & (s == (r64 + toward) / 2) & (err != 0)
    if not bool(xp.any(halfway)):
        return r
    # the exact sum lies beyond the midpoint on err's side: round to that side's neighbour
    up = xp.astype(xp.where((err > 0) == (toward > r64), toward, r64), xp.float32)
    return xp.where(halfway, up, r)


def _split(x: Any) -> tuple[Any, Any]:
    c = _SPLIT * x
    hi = c - (c - x)
    return hi, x - hi


def _fma64(xp: Any, a: Any, alpha: float, b: Any) -> Any:
    """float64 ``a + alpha * b`` rounded once: exact/fp.fma64 on NumPy arrays; for other
    arrays the exact product (Dekker) and sum (Knuth), added once, correctly rounded but in
    rare ties of the final addition (a sum on a midpoint whose error term the last addition
    rounds away)."""
    ex = _exact(xp, a, b)
    if ex is not None:
        return ex.fma64(alpha, b, a)
    b = xp.asarray(b)
    ah, al = _split(xp.asarray(alpha, dtype=b.dtype))
    bh, bl = _split(b)
    p = alpha * b
    ep = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s, es = _two_sum(xp.asarray(a), p)
    return s + (ep + es)


def lu_factor(xp: Any, a: Any) -> tuple[Any, Any]:
    """LAPACK's getrf on each matrix of ``a`` (..., n, n): L and U in one array and the 1-based
    pivot rows (int32), partial pivoting on the first largest magnitude of each column."""
    lu = xp.asarray(a, copy=True)
    n = a.shape[-1]
    rows = xp.arange(n)
    pivots = []
    for k in range(n):
        p = xp.argmax(xp.abs(lu[..., k:, k]), axis=-1) + k
        pivots.append(p + 1)
        pe = xp.expand_dims(p, axis=-1)
        perm = xp.where(rows == k, pe, xp.where(rows == pe, k, rows))
        lu = xp.take_along_axis(lu, xp.broadcast_to(xp.expand_dims(perm, axis=-1), lu.shape),
                                axis=-2)
        if k + 1 < n:
            pivot = lu[..., k:k + 1, k:k + 1]
            below = lu[..., k + 1:, k:k + 1] / pivot
            lu[..., k + 1:, k:k + 1] = below
            lu[..., k + 1:, k + 1:] = lu[..., k + 1:, k + 1:] - below * lu[..., k:k + 1, k + 1:]
    piv = xp.stack(pivots, axis=-1) if pivots else xp.zeros(a.shape[:-1], dtype=xp.int64)
    return lu, xp.astype(piv, xp.int32)


def det_from_lu(xp: Any, lu: Any, pivots: Any) -> Any:
    """The determinant: the product of U's diagonal, negated for each row swap."""
    n = lu.shape[-1]
    d = xp.ones(lu.shape[:-2], dtype=lu.dtype)
    for k in range(n):
        d = d * lu[..., k, k]
    swaps = xp.sum(xp.astype(pivots != xp.arange(1, n + 1, dtype=pivots.dtype), xp.int64),
                   axis=-1)
    return xp.where(swaps % 2 == 1, -d, d)


def kth_index(xp: Any, rows: Any, k: int, order: Any) -> Any:
    """kthvalue's index in each row of ``rows`` (2-D): the stable ``order``'s k-th, except in
    rows where that value is tied, which run PyTorch's quick-select."""
    picked = order[:, k]
    value = xp.take_along_axis(rows, xp.reshape(picked, (-1, 1)), axis=1)
    tied = xp.sum(xp.astype((rows == value) | (xp.isnan(rows) & xp.isnan(value)), xp.int64),
                  axis=1) > 1
    if not bool(xp.any(tied)):
        return picked
    host = to_host(rows)
    flags = to_host(tied).tolist()
    out = to_host(picked).tolist()
    for r, t in enumerate(flags):
        if t:
            out[r] = quick_select_index(host[r].tolist(), k)
    return xp.asarray(out, dtype=xp.int64)


def _tied_rows(xp: Any, rows: Any, stable: Any) -> list[int]:
    """The rows (of a 2-D array, with its stable ascending order) holding two equal values or
    two NaNs: where an unstable sort's order is its own."""
    s = xp.take_along_axis(rows, stable, axis=1)
    if rows.shape[1] < 2:
        return []
    same = s[:, 1:] == s[:, :-1]
    if xp.isdtype(rows.dtype, "real floating"):
        nan = xp.isnan(s)
        same = same | (nan[:, 1:] & nan[:, :-1])
    return [r for r, t in enumerate(to_host(xp.any(same, axis=1)).tolist()) if t]


def sort_rows(xp: Any, rows: Any, stable: Any, descending: bool) -> Any:
    """PyTorch's (not stable) CPU sort order of each row: the stable order where the values
    are distinct, libstdc++'s std::sort emulated where they are not."""
    order = xp.flip(stable, axis=1) if descending else stable  # right for distinct values
    tied = _tied_rows(xp, rows, stable)
    if not tied:
        return order
    host, out = to_host(rows), to_host(order).tolist()
    for r in tied:
        out[r] = sort_order(host[r].tolist(), descending)
    return xp.asarray(out, dtype=xp.int64)


def topk_rows(xp: Any, rows: Any, stable: Any, k: int, largest: bool, sorted_: bool) -> Any:
    """PyTorch's CPU topk positions in each row (partial_sort or nth_element then sort, as its
    kernel), emulated where values tie or the k values come unsorted."""
    n = rows.shape[1]
    order = xp.flip(stable, axis=1)[:, :k] if largest else stable[:, :k]
    exact = list(range(rows.shape[0])) if not sorted_ and k * 64 > n else \
        _tied_rows(xp, rows, stable)
    if not exact:
        return order
    host, out = to_host(rows), to_host(order).tolist()
    for r in exact:
        out[r] = topk_order(host[r].tolist(), k, largest, sorted_)
    return xp.reshape(xp.asarray(out, dtype=xp.int64), (rows.shape[0], k))


def mode_rows(xp: Any, rows: Any) -> Any:
    """PyTorch's CPU mode index of each row of ``rows`` (2-D, non-empty rows)."""
    return xp.asarray([mode_of(r)[1] for r in to_host(rows).tolist()], dtype=xp.int64)
