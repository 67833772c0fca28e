# Source: PyTorch docs, torch.no_grad / torch.enable_grad docstring examples,
# https://github.com/pytorch/pytorch/blob/main/torch/autograd/grad_mode.py
# Licence: BSD-3-Clause. The doctests turned into a program (prints added).
import torch

x = torch.tensor([1.], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad)


@torch.no_grad()
def doubler(x):
    return x * 2


z = doubler(x)
print(z.requires_grad)


@torch.no_grad()
def tripler(x):
    return x * 3


z = tripler(x)
print(z.requires_grad)

with torch.no_grad():
    with torch.enable_grad():
        y = x * 2
print(y.requires_grad)
y.backward()
print(x.grad)


@torch.enable_grad()
def quadrupler(x):
    return x * 4


with torch.no_grad():
    z = quadrupler(x)
print(z.requires_grad, z)
