# Source: PyTorch docs, "Autograd mechanics" notes, section "Saved tensors",
# https://github.com/pytorch/pytorch/blob/main/docs/source/notes/autograd.rst
# Licence: BSD-3-Clause. Verbatim except torch.manual_seed(0) and the last four lines (added).
import torch

torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self))  # True
print(x is y.grad_fn._saved_self)  # True

x = torch.randn(5, requires_grad=True)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))  # True
print(y is y.grad_fn._saved_result)  # False

print(y.grad_fn._saved_result)
z = (x * 3).sin()
print(z.grad_fn._saved_self)
print(y.grad_fn.name(), z.grad_fn.name())
