# Written for gradcli after forum threads comparing grad.zero_() with grad = None
# (optimizer.zero_grad(set_to_none=True) is the default since PyTorch 2.0).
import torch
from torch import nn

p = nn.Parameter(torch.tensor([1.0, 2.0]))
opt = torch.optim.SGD([p], lr=0.5)
print(p)
(p * p).sum().backward()
print(p.grad)
(p * p).sum().backward()
print(p.grad)  # accumulated
p.grad.zero_()
print(p.grad)
(p ** 3).sum().backward()
opt.step()
print(p)
opt.zero_grad()
print(p.grad)
opt.zero_grad(set_to_none=False)
print(p.grad is None)
