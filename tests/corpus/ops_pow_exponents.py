# Source: torch.pow docs (https://pytorch.org/docs/stable/generated/torch.pow.html) and the
# "Learning PyTorch with Examples" polynomial programs (x ** 4, x ** 5): a tensor to the power
# of a number other than PyTorch's special exponents (2, 3, 0.5, -0.5, -1, -2) goes through
# SLEEF's powf in the vector lanes and the C library's pow in the tail. Values printed exactly.
import math

import torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
for k in (4, 5, 7, -3, 1.7, 4.5, 0.3):
    p = x.abs() ** k
    print(k, p.sum().item(), p[-20:].tolist()[:6], p[::250].tolist())

odd = torch.tensor([-2.0, -0.5, 0.0, -0.0, 1.0, float("inf"), float("-inf"), float("nan"), 1e-40, 3e38])
for k in (3.0, 4, 5, -3, 0.5, 2.5, -1.5, 0, 1e30, -1e30, float("inf"), float("-inf"), float("nan")):
    print(k, (odd ** k).tolist())

w = torch.randn(37, requires_grad=True)
y = (w.abs() + 0.5) ** 2.7
y.sum().backward()
print(y.grad_fn, y.grad_fn.next_functions[0][0])
print(w.grad[:5].tolist(), w.grad.sum().item())

d = torch.randn(9, dtype=torch.float64).abs() ** 1.3
print(d.tolist())
