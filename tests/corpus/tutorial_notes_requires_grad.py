# Source: PyTorch docs, "Autograd mechanics" notes, section "requires_grad",
# https://github.com/pytorch/pytorch/blob/main/docs/source/notes/autograd.rst
# Licence: BSD-3-Clause. The doctest turned into a program (prints added), seeded.
import torch

torch.manual_seed(0)
x = torch.randn(5, 5)  # requires_grad=False by default
y = torch.randn(5, 5)  # requires_grad=False by default
z = torch.randn((5, 5), requires_grad=True)
a = x + y
print(a.requires_grad)
b = a + z
print(b.requires_grad)
print(b)
print(a.is_leaf, b.is_leaf, z.is_leaf)
b.sum().backward()
print(z.grad)
print(a.grad, x.grad)
