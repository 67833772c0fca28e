# Source: PyTorch docs, torch.Tensor.register_hook docstring example,
# https://github.com/pytorch/pytorch/blob/main/torch/_tensor.py
# Licence: BSD-3-Clause. The doctest turned into a program (prints added); the second part,
# a hook on an intermediate tensor, is written for gradcli.
import torch

v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)
h.remove()  # removes the hook

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * a
seen = []


def spy(grad):
    seen.append(grad.clone())
    print("gradient reaching b:", grad)


b.register_hook(spy)
b.sum().backward()
print(a.grad)
print(len(seen), seen[0].shape)
