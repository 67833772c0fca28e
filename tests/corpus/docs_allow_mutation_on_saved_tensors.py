# Source: PyTorch docs, torch.autograd.graph.allow_mutation_on_saved_tensors docstring example:
# https://github.com/pytorch/pytorch/blob/main/torch/autograd/graph.py
# Licence: BSD-3-Clause. The doctest turned into a program; aliasing, a freed graph, the errors
# outside the context and of nested contexts added.
import torch
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    a = torch.ones(2, 3, requires_grad=True)
    b = a.clone()
    out = (b**2).sum()
    print(b.sin_())
    out.sum().backward()
    print(a.grad)
x = torch.tensor([0.5, 1.5, -2.0], requires_grad=True)
with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
    print(type(ctx))
    y = x * 1
    z = y.exp()
    w = (z * y).sum()
    y.mul_(3)
    z.add_(1)
    w.backward()
    print(x.grad)
    print(y, z)
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    b = a.clone()
    out = (b**2).sum()
    b.sin_()
try:
    out.backward()
except AssertionError as e:
    print(type(e).__name__, e)
try:
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            pass
except RuntimeError as e:
    print(type(e).__name__, e)
# without the context the mutation is an error
b = a.clone()
out = (b**2).sum()
b.sin_()
try:
    out.backward()
except RuntimeError as e:
    print("error:", str(e)[:60])
# a saved tensor freed by backward before the write
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    c = torch.randn(2, 3, requires_grad=True).clone()
    out = (c ** 2).sum()
    out.backward()
    c.sin_()
    print(c.shape)
    v = x.clone()
    u = v[1:]
    s = (u * u).sum()
    v.zero_()
    u2 = v[:2]
    s.backward()
    print(x.grad)
