# Source: Dive into Deep Learning, 2.5.4 "Gradients and Python Control Flow" (PyTorch tab),
# https://github.com/d2l-ai/d2l-en/blob/master/chapter_preliminaries/autograd.md
# Licence: sample code MIT-0 (LICENSE-SAMPLECODE). Verbatim, seeded; notebook echoes made prints.
import torch

torch.manual_seed(0)


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()

print(a.grad == d / a)
print(a, d, a.grad)
