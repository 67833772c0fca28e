# Written for gradcli after forum questions on "x.T" for a vector (PyTorch 2.x deprecation
# warning for tensors of dimension other than 2).
import torch

v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
M = torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]])
for i in range(2):
    vt = v.T
    print(i, vt)
y = M @ v.T
print(y)
y.sum().backward()
print(v.grad)
print(M.T, M.T.shape)
