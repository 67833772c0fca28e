# Source: PyTorch tutorial "Hooks for autograd saved tensors" (saving tensors to CPU with hooks
# and save_on_cpu, a module that saves to CPU, an unpack hook that can be called twice):
# https://github.com/pytorch/tutorials/blob/main/intermediate_source/autograd_saved_tensors_hooks_tutorial.py
# Licence: BSD-3-Clause. Scaled down (small layers; the files on disk kept in a dict) with
# torch.manual_seed(0).
import torch
import torch.nn as nn

torch.manual_seed(0)


def pack_hook(x):
    return (x.device, x.cpu())


def unpack_hook(packed):
    device, tensor = packed
    return tensor.to(device)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x * x
y.sum().backward()
print(torch.allclose(x.grad, (2 * x)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5))

    def forward(self, x):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            return self.w * x


x = torch.randn(5)
model = Model()
loss = model(x).sum()
loss.backward()
print(model.w.grad.equal(x))


class SaveToCpu(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            return self.module(*args, **kwargs)


model = nn.Sequential(nn.Linear(4, 6), SaveToCpu(nn.Linear(6, 6)), nn.Linear(6, 2))
print(model)
x = torch.randn(4)
loss = model(x).sum()
loss.backward()
print(model[1].module.weight.grad)
