# Source: PyTorch tutorial "A Gentle Introduction to torch.autograd",
# https://github.com/pytorch/tutorials/blob/main/beginner_source/blitz/autograd_tutorial.py
# Licence: BSD-3-Clause. The differentiation and DAG-exclusion parts, verbatim except:
# torch.manual_seed(0) added; the torchvision model part is left out.
import torch

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)

Q = 3*a**3 - b**2

external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)

# check if collected gradients are correct
print(9*a**2 == a.grad)
print(-2*b == b.grad)

torch.manual_seed(0)
x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)

a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")
print(Q)
print(a.grad_fn, b.grad_fn.name())
