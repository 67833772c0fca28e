# Source: PyTorch docs, torch.autograd.graph.Node.register_hook and register_prehook docstring
# examples, https://github.com/pytorch/pytorch/blob/main/torch/autograd/graph.py
# Licence: BSD-3-Clause. The doctests turned into a program; the order of calls and errors added.
import torch

a = torch.tensor([0., 0., 0.], requires_grad=True)
b = a.clone()
handle = b.grad_fn.register_hook(lambda gI, gO: (gO[0] * 2,))
b.sum().backward(retain_graph=True)
print(a.grad)
handle.remove()
a.grad = None
b.sum().backward(retain_graph=True)
print(a.grad)

a = torch.tensor([0., 0., 0.], requires_grad=True)
b = a.clone()
handle = b.grad_fn.register_prehook(lambda gI: (gI[0] * 2,))
b.sum().backward(retain_graph=True)
print(a.grad)
handle.remove()
a.grad = None
b.sum().backward(retain_graph=True)
print(a.grad)

# the order: tensor hook, pre-hook, the node, post-hook (each sees what the last returned)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.grad_fn.register_hook(lambda gi, go: print("post", gi, go))
y.grad_fn.register_prehook(lambda go: print("pre", go) or (go[0] + 1,))
y.register_hook(lambda g: print("tensor", g) or g * 10)
y.grad_fn.register_prehook(lambda go: print("pre 2", go))
y.sum().backward()
print(x.grad)
w = torch.tensor([1.0, 2.0], requires_grad=True)
p = w * w
p.grad_fn.register_hook(lambda gi, go: (None, gi[1]))
p.sum().backward()
print(w.grad)
p = w * w
p.grad_fn.register_hook(lambda gi, go: (gi[0],))
try:
    p.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
