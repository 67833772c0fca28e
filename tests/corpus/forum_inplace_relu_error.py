# Written for gradcli after forum threads on "one of the variables needed for gradient computation
# has been modified by an inplace operation" (an activation's input changed in place).
# Ends in an uncaught error.
import torch

torch.manual_seed(0)
W = torch.randn(3, 3, requires_grad=True)
x = torch.randn(3)
h = W @ x
a = torch.sigmoid(h)
out = a * h
a.mul_(2)  # sigmoid saved its result: now it is stale
print(a._version)
out.sum().backward()
print(W.grad)
