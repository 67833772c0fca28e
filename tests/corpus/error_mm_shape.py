# Written for gradcli after forum threads on "mat1 and mat2 shapes cannot be multiplied".
# Ends in an uncaught error.
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
W = torch.randn(3, 2, requires_grad=True)
h = x @ W
print(h.shape)
W2 = torch.randn(4, 2, requires_grad=True)
out = h @ W2
print(out)
