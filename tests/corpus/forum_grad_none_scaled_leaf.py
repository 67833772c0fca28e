# Written for gradcli after forum threads "grad is None" (a parameter made with randn(...,
# requires_grad=True) * 0.01 is not a leaf, so its .grad stays None).
import torch

torch.manual_seed(0)
W = torch.randn(2, 3, requires_grad=True) * 0.01
b = torch.zeros(2, requires_grad=True)
x = torch.ones(3)
y = (W @ x + b).sum()
y.backward()
print(W.is_leaf, b.is_leaf)
print(W.grad)
print(b.grad)

W = (torch.randn(2, 3) * 0.01).requires_grad_()
y = (W @ x + b).sum()
y.backward()
print(W.is_leaf)
print(W.grad)
