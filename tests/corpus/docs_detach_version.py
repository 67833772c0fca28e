# Source: PyTorch docs, torch.Tensor.detach ("Returned Tensor shares the same storage with the
# original one. In-place modifications on either of them will be seen"),
# https://pytorch.org/docs/stable/generated/torch.Tensor.detach.html
# Written for gradcli after that page: shared data and the version counter.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.detach()
print(b.requires_grad, b.is_leaf)
b.zero_()
print(a)
print(a._version, b._version)
c = a.detach().clone()
c += 5
print(a, c)
d = a.data
d.add_(1.0)
print(a, d.requires_grad)
print(a._version)
