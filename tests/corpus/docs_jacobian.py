# Source: PyTorch docs, torch.autograd.functional.jacobian docstring examples,
# https://github.com/pytorch/pytorch/blob/main/torch/autograd/functional.py
# Licence: BSD-3-Clause. The doctests turned into a program (prints added), seeded.
import torch

torch.manual_seed(0)


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(2, 2)
print(torch.autograd.functional.jacobian(exp_reducer, inputs))


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.rand(2), torch.rand(2))
jac = torch.autograd.functional.jacobian(exp_adder, inputs)
print(jac)
print(type(jac).__name__, len(jac), jac[0].shape)
