# Source: PyTorch docs, torch.set_grad_enabled docstring example,
# https://github.com/pytorch/pytorch/blob/main/torch/autograd/grad_mode.py
# Licence: BSD-3-Clause. The doctest turned into a program (prints added), plus the decorator form.
import torch

x = torch.tensor([1.], requires_grad=True)
is_train = False
with torch.set_grad_enabled(is_train):
    y = x * 2
print(y.requires_grad)
_ = torch.set_grad_enabled(True)
y = x * 2
print(y.requires_grad)
_ = torch.set_grad_enabled(False)
y = x * 2
print(y.requires_grad)
_ = torch.set_grad_enabled(True)


@torch.set_grad_enabled(False)
def frozen(t):
    return t ** 2


w = frozen(x)
print(w.requires_grad, w.grad_fn)
print(torch.is_grad_enabled())
