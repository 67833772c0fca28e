# Written for gradcli after CS231n-style shape-checking exercises: dot, mv, mm, bmm, @ and
# transposes, with the gradient shapes they produce.
import torch

torch.manual_seed(0)
A = torch.randn(2, 3, requires_grad=True)
B = torch.randn(3, 4, requires_grad=True)
v = torch.randn(3, requires_grad=True)
u = torch.tensor([1.0, 2.0, 3.0])
print(torch.dot(v, u), torch.mv(A, v))
C = torch.mm(A, B)
D = A @ B
print(torch.equal(C, D), C.shape, C.grad_fn, D.grad_fn)
batch = torch.randn(2, 2, 3)
E = torch.bmm(batch, B.unsqueeze(0).expand(2, 3, 4))
print(E.shape)
total = C.sum() + E.sum() + torch.mv(A, v).sum() + A.T.sum()
total.backward()
print(A.grad)
print(B.grad.shape, v.grad)
print(A.t().is_contiguous(), A.transpose(0, 1).shape)
