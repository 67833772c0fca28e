# Source: PyTorch tutorial "Hooks for autograd saved tensors" (saved tensors, packing, the
# unconventional pack results, saving to CPU, the unpack hook called twice):
# https://github.com/pytorch/tutorials/blob/main/intermediate_source/autograd_saved_tensors_hooks_tutorial.py
# Licence: BSD-3-Clause. Scaled down (small layers; the disk files kept in a dict) with torch.manual_seed(0).
import torch
import torch.nn as nn

torch.manual_seed(0)
a = torch.randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)
y = a * b
print(y.grad_fn._saved_self)
print(y.grad_fn._saved_other)
print(y.grad_fn._saved_self is a, y.grad_fn._saved_other is b)  # True True
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
    y = torch.pow(x, 2)
y.sum().backward()
print(x.grad.equal(2 * x))
storage = []


def pack(x):  # returning an int: the index of a Python list
    storage.append(x)
    return len(storage) - 1


def unpack(x):
    return storage[x]


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()
print(x.grad.equal(2 * x), len(storage))


def pack(x):  # returning a tuple: some tensor and how to unpack it
    delta = torch.randn(*x.size())
    return x - delta, lambda x: x + delta


def unpack(packed):
    x, f = packed
    return f(x)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()
print(torch.allclose(x.grad, 2 * x), x.grad)
