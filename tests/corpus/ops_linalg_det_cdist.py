# Written for gradcli after the PyTorch docs of torch.linalg.det, torch.linalg.inv,
# torch.linalg.solve and torch.cdist (Jacobi's formula, least squares, pairwise distances).
import torch

torch.manual_seed(0)
A = torch.randn(3, 3, requires_grad=True)

# Jacobi's formula: d det(A) / dA = det(A) * inv(A)^T
d = torch.linalg.det(A)
d.backward()
print(d, d.grad_fn)
print(A.grad)
print(torch.allclose(A.grad, d.detach() * torch.linalg.inv(A.detach()).T))

# solve a small linear system and differentiate through it
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.linalg.solve(A, b)
print(x, x.grad_fn)
x.sum().backward()
print(b.grad)

# pairwise distances between points, and a loss that pulls them apart
pts = torch.randn(5, 2, requires_grad=True)
dist = torch.cdist(pts, pts)
print(dist)
loss = -dist.triu(diagonal=1).sum()
loss.backward()
print(loss, dist.grad_fn, pts.grad)
