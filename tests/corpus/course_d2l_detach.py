# Source: Dive into Deep Learning, 2.5.3 "Detaching Computation" (PyTorch tab),
# https://github.com/d2l-ai/d2l-en/blob/master/chapter_preliminaries/autograd.md
# Licence: sample code MIT-0 (LICENSE-SAMPLECODE). Code verbatim, notebook echoes made prints.
import torch

x = torch.arange(4.0, requires_grad=True)

x.grad = None
y = x * x
u = y.detach()
z = u * x

z.sum().backward()
print(x.grad == u)

x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)
print(u, u.requires_grad, y.grad_fn)
