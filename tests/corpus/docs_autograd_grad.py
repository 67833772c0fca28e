# Source: PyTorch docs, torch.autograd.grad (and the "Higher order gradients" use of create_graph),
# https://pytorch.org/docs/stable/generated/torch.autograd.grad.html
# Written for gradcli after that page.
import torch
from torch.autograd import grad

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3

(dy_dx,) = grad(y, x, create_graph=True)
print(dy_dx)
(d2y_dx2,) = grad(dy_dx, x)
print(d2y_dx2)

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
out = (a * b).sum() + a.pow(2).sum()
ga, gb = torch.autograd.grad(out, [a, b])
print(ga, gb)
print(a.grad, b.grad)

c = torch.tensor([1.0, -1.0], requires_grad=True)
grads = torch.autograd.grad((c * c * c).sum(), (c,))
print(type(grads).__name__, grads)
