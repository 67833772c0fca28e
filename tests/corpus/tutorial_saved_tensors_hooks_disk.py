# Source: PyTorch tutorial "Hooks for autograd saved tensors" (saving tensors to disk: the
# incorrect version whose unpack hook deletes the file, and the threshold filter):
# https://github.com/pytorch/tutorials/blob/main/intermediate_source/autograd_saved_tensors_hooks_tutorial.py
# Licence: BSD-3-Clause. Scaled down: the disk is a dict of names (a counter for uuid4), the
# threshold 4 elements instead of 1000.
import torch
import torch.nn as nn

disk = {}


def pack_hook(tensor):
    name = f"temp/{len(disk)}"
    disk[name] = tensor.clone()
    return name


def unpack_hook(name):  # Incorrect version - HINT: Don't do this
    return disk.pop(name)


x = torch.ones(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2)
print(y.grad_fn._saved_self)
try:
    print(y.grad_fn._saved_self)
    print("Double access succeeded!")
except KeyError:
    print("Double access failed!")
SAVE_ON_DISK_THRESHOLD = 4


def pack_hook(x):  # only save on disk tensors that have size >= the threshold
    if x.numel() < SAVE_ON_DISK_THRESHOLD:
        return x
    return pack_hook_disk(x)


def pack_hook_disk(x):
    name = f"temp/{len(disk)}"
    disk[name] = x.clone()
    return name


def unpack_hook(tensor_or_name):
    if isinstance(tensor_or_name, torch.Tensor):
        return tensor_or_name
    return disk[tensor_or_name]


torch.manual_seed(0)
layer = nn.Linear(3, 5)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    out = layer(torch.randn(2, 3)).relu().sum()
out.backward()
print(sorted(disk), layer.weight.grad)
