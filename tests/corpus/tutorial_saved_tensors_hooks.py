# Source: PyTorch tutorial "Hooks for autograd saved tensors",
# https://github.com/pytorch/tutorials/blob/main/intermediate_source/autograd_saved_tensors_hooks_tutorial.py
# Licence: BSD-3-Clause. Scaled down (small tensors; the disk and GPU examples and the
# per-tensor register_hooks left out) with torch.manual_seed(0).
import torch

torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self))  # True
print(x is y.grad_fn._saved_self)  # True

x = torch.randn(5, requires_grad=True)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))  # True
print(y is y.grad_fn._saved_result)  # False


def pack_hook(x):
    print("Packing", x)
    return x


def unpack_hook(x):
    print("Unpacking", x)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b

y.sum().backward()
print(a.grad)

# packing a scaled copy: what backward sees is what unpack gives back
x = torch.randn(3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
    y = (x.sin() * x).sum()
y.backward()
print(x.grad)

with torch.autograd.graph.save_on_cpu(pin_memory=False):
    z = (x * x.tanh()).sum()
z.backward()
print(x.grad)

with torch.autograd.graph.disable_saved_tensors_hooks("saved tensors are off here"):
    print(a * b)
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            pass
    except RuntimeError as e:
        print(e)
