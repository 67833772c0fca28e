# Source: PyTorch docs, torch.autograd.functional.vjp docstring examples,
# https://github.com/pytorch/pytorch/blob/main/torch/autograd/functional.py
# Licence: BSD-3-Clause. The doctests turned into a program (prints added), seeded.
import torch

torch.manual_seed(0)


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(4, 4)
v = torch.ones(4)
print(torch.autograd.functional.vjp(exp_reducer, inputs, v))


def adder(x, y):
    return 2 * x + 3 * y


inputs = (torch.rand(2), torch.rand(2))
v = torch.ones(2)
out, grads = torch.autograd.functional.vjp(adder, inputs, v)
print(out)
print(grads)
