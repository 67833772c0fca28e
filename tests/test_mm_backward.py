"""mm's gradients take their products in the layout PyTorch's FunctionsManual takes them
(mm_mat1_backward / mm_mat2_backward): a column-major operand's gradient is computed transposed,
so MKL sums it in another order.  A transformer's key/query/value Linear layers (3-D input,
no bias: matmul folds it into mm with the weight's transpose, a column-major mat2) depend on it."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.api.namespace import import_module
from gradcli.engine.backend import get_backend
from gradcli.engine.context import RunContext, use
from gradcli.engine.exact import blas, libmkl


class _Module:
    def __init__(self, module):
        self.module = module

    def __getattr__(self, name):
        return self.module.get(name)


@pytest.fixture()
def torch():
    if libmkl.library() is None:
        pytest.skip("MKL is not installed here: NumPy's products (no layout to follow)")
    with use(RunContext(get_backend("numpy", "float32"))):
        yield _Module(import_module("torch"))


def test_a_column_major_mat2_gradient_is_the_transposed_product(torch):
    torch.manual_seed(0)
    x = torch.randn(128, 32).requires_grad_()
    w = torch.randn(8, 32).requires_grad_()
    g = torch.randn(128, 8)
    (x @ w.t()).backward(g)  # mat2 = w.t(): strides (1, 32), column-major
    expected = blas.mm(g.data.T, x.data)  # (grad.t() @ mat1).t(), seen through the t()
    other = blas.mm(x.data.T, g.data).T  # mat1.t() @ grad: other sums
    assert not np.array_equal(expected, other), "inputs where the two orders differ"
    assert w.grad.data.tobytes() == np.ascontiguousarray(expected).tobytes()
    assert x.grad.data.tobytes() == blas.mm(g.data, w.data).tobytes()  # grad @ mat2.t()


def test_a_column_major_mat1_gradient_is_the_transposed_product(torch):
    torch.manual_seed(1)
    base = torch.randn(32, 128).requires_grad_()
    w = torch.randn(32, 200).requires_grad_()
    g = torch.randn(128, 200)
    (base.t() @ w).backward(g)  # mat1 = base.t(): column-major
    # (mat2 @ grad.t()).t(), seen through the t(); MKL happens to sum grad @ mat2.t() in the
    # same order for these layouts (blas.mm computes a row-major result transposed)
    expected = blas.mm(w.data, g.data.T)
    assert base.grad.data.tobytes() == np.ascontiguousarray(expected).tobytes()
    assert w.grad.data.tobytes() == blas.mm(base.data, g.data).tobytes()  # mat1.t() @ grad
