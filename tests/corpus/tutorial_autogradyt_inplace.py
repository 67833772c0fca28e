# Written for gradcli after PyTorch's "The Fundamentals of Autograd" tutorial, section "Autograd
# and In-place Operations" (https://pytorch.org/tutorials/beginner/introyt/autogradyt_tutorial.html):
# torch.<op>_ on a tensor inside a graph works, on a leaf that requires grad it is refused.
# Ends in an uncaught error, as the tutorial says it does.
import math

import torch

a = torch.linspace(0., 2. * math.pi, steps=5, requires_grad=True)
b = a * 1  # not a leaf: it may change in place
torch.sin_(b)
print(b)
print(b.grad_fn, b.grad_fn._saved_self)
c = b * 2
torch.relu_(c)
print(c.grad_fn, c._version)
e = c - 1
torch.exp_(e)
e.sum().backward()
print(a.grad)

d = torch.linspace(0., 1., steps=3).requires_grad_() * 1
torch.clamp_(d, min=0.25, max=0.75)
torch.sigmoid_(d)
d.sum().backward()
print(d, d.grad_fn)

a.grad = None
torch.sin_(a)
