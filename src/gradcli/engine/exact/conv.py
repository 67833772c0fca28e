"""2-d convolution as PyTorch's CPU "slow" kernels compute it (aten/src/ATen/native/
ConvolutionMM2d.cpp, Unfold2d.cpp): per sample, the input unfolded into columns (im2col), the
product with the weight by ``cpublas::gemm`` (MKL), the output starting from the bias (beta 1).
A 1-d convolution is the 2-d one over a (N, C, 1, L) view, and groups are convolved one by one
and concatenated, as Convolution.cpp does.

The backward is the same kernels': the input's gradient by a gemm into columns per sample, then
the columns added back into the image (``unfolded2d_acc``: kernel row, kernel column, output
position, in that order); the weight's gradient by one gemm per sample accumulated in order
(beta 1); the bias's by a sum over (N, H, W) (the caller's).

ATen runs the per-sample gemms of the forward and of the input's gradient inside
``at::parallel_for`` over the batch, where MKL runs single-threaded; they are called so here.
What this reproduces exactly is the slow path's: float64 always, float32 when ATen does not
pick oneDNN (``use_mkldnn``).  oneDNN's JIT kernels add a float32 product's terms in their own
blocked order, not reproduced: those results are within the bound of any order of the sum.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import blas, libmkl


def _unfold(x: Any, k: tuple, stride: tuple, padding: tuple, dilation: tuple,
            out: tuple) -> Any:
    """(N, C, H, W) -> (N, C * kh * kw, oh * ow): unfolded2d_copy's columns."""
    n, c = x.shape[:2]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow) = k, stride, padding, dilation, out
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    cols = np.empty((n, c, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = xp[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                                  j * dw: j * dw + sw * (ow - 1) + 1: sw]
    return cols.reshape(n, c * kh * kw, oh * ow)


def _fold_add(cols: Any, shape: tuple, k: tuple, stride: tuple, padding: tuple,
              dilation: tuple, out: tuple) -> Any:
    """unfolded2d_acc: the columns (N, C * kh * kw, oh * ow) added into a zero (N, C, H, W)
    image, kernel position by kernel position."""
    n, c, h, w = shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow) = k, stride, padding, dilation, out
    img = np.zeros((n, c, h + 2 * ph, w + 2 * pw), cols.dtype)
    cols = cols.reshape(n, c, kh, kw, oh, ow)
    for i in range(kh):
        for j in range(kw):
            img[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                j * dw: j * dw + sw * (ow - 1) + 1: sw] += cols[:, :, i, j]
    return np.ascontiguousarray(img[:, :, ph: ph + h, pw: pw + w])


def _serial_gemm(*args: Any) -> Any:
    """A gemm as ATen calls it inside at::parallel_for: MKL on one thread."""
    if libmkl.library() is None:
        return blas.gemm(*args)
    with libmkl.single_thread():
        return blas.gemm(*args)


def _out_size(x: Any, w: Any, stride: tuple, padding: tuple, dilation: tuple) -> tuple:
    return tuple((x.shape[2 + d] + 2 * padding[d] - dilation[d] * (w.shape[2 + d] - 1) - 1)
                 // stride[d] + 1 for d in range(2))


def _per_group(groups: int, x: Any, w: Any) -> list:
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    return [(x[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]) for g in range(groups)]


def conv2d(x: Any, w: Any, bias: Any, stride: tuple, padding: tuple, dilation: tuple,
           groups: int) -> Any:
    """The (N, O, oh, ow) output of slow_conv2d_forward."""
    out = _out_size(x, w, stride, padding, dilation)
    outs = []
    og = w.shape[0] // groups
    for g, (xg, wg) in enumerate(_per_group(groups, np.ascontiguousarray(x), w)):
        n, o = xg.shape[0], wg.shape[0]
        cols = _unfold(np.ascontiguousarray(xg), wg.shape[2:], stride, padding, dilation, out)
        w2 = np.ascontiguousarray(wg).reshape(o, -1)
        m, k = out[0] * out[1], w2.shape[1]
        y = np.zeros((n, o, m), x.dtype)
        if bias is not None:
            y[...] = bias[g * og:(g + 1) * og, None]
        serial = n > 1
        for t in range(n):
            args = (False, False, m, o, k, cols[t], m, w2, k, 1.0 if bias is not None else 0.0,
                    y[t], m)
            y[t] = _serial_gemm(*args) if serial else blas.gemm(*args)
        outs.append(y.reshape(n, o, *out))
    return outs[0] if groups == 1 else np.concatenate(outs, axis=1)


def conv2d_input_grad(grad: Any, x_shape: tuple, w: Any, stride: tuple, padding: tuple,
                      dilation: tuple, groups: int) -> Any:
    """slow_conv2d_backward's grad_input: columns by gemm per sample, folded back."""
    out = grad.shape[2:]
    og = w.shape[0] // groups
    cg = x_shape[1] // groups
    parts = []
    for g in range(groups):
        wg = np.ascontiguousarray(w[g * og:(g + 1) * og]).reshape(og, -1)
        gg = np.ascontiguousarray(grad[:, g * og:(g + 1) * og]).reshape(grad.shape[0], og, -1)
        n, m, kk = gg.shape[0], gg.shape[2], wg.shape[1]
        cols = np.zeros((n, kk, m), grad.dtype)
        for t in range(n):
            args = (False, True, m, kk, og, gg[t], m, wg, kk, 0.0, cols[t], m)
            cols[t] = _serial_gemm(*args) if n > 1 else blas.gemm(*args)
        parts.append(_fold_add(cols, (n, cg, *x_shape[2:]), w.shape[2:], stride, padding,
                               dilation, out))
    return parts[0] if groups == 1 else np.concatenate(parts, axis=1)


def conv2d_weight_grad(grad: Any, x: Any, w_shape: tuple, stride: tuple, padding: tuple,
                       dilation: tuple, groups: int) -> Any:
    """slow_conv2d_backward's grad_weight: one gemm per sample, accumulated in order."""
    out = grad.shape[2:]
    og = w_shape[0] // groups
    parts = []
    for g, (xg, _) in enumerate(_per_group(groups, np.ascontiguousarray(x),
                                           np.empty((w_shape[0], 0)))):
        cols = _unfold(np.ascontiguousarray(xg), w_shape[2:], stride, padding, dilation, out)
        gg = np.ascontiguousarray(grad[:, g * og:(g + 1) * og]).reshape(grad.shape[0], og, -1)
        kk, m = cols.shape[1], cols.shape[2]
        gw = np.zeros((og, kk), grad.dtype)
        for t in range(grad.shape[0]):
            gw = blas.gemm(True, False, kk, og, m, cols[t], m, gg[t], m, 1.0, gw, kk)
        parts.append(gw.reshape(og, *w_shape[1:]))
    return parts[0] if groups == 1 else np.concatenate(parts, axis=0)
