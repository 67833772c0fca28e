# Written for gradcli after the PyTorch docs of torch.flip, torch.roll, torch.tril,
# torch.diag and torch.einsum, and tutorials that build attention masks and bilinear forms.
import torch

torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)

# causal mask: keep the lower triangle, fill the rest with -inf before a softmax
scores = torch.randn(4, 4, requires_grad=True)
mask = torch.tril(torch.ones(4, 4)) == 0
att = scores.masked_fill(mask, float("-inf")).softmax(dim=-1)
print(att)
att[:, 0].sum().backward()
print(scores.grad)

# reordering
f = torch.flip(x, [1])
r = torch.roll(x, shifts=1, dims=0)
n = x.narrow(1, 1, 2)
p = x.permute(1, 0)
print(f.grad_fn, r.grad_fn, n.grad_fn, p.grad_fn, torch.movedim(x, 0, 1).shape)
(f[:, 0].sum() + (r * 2).sum() + n.sum() + p[0].sum()).backward()
print(x.grad)

# diagonals and products
v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
D = torch.diag(v)
print(D, D.grad_fn)
print(torch.diag(x), torch.diagonal(x, offset=1), torch.triu(x, diagonal=1))
o = torch.outer(v, v)
print(o, o.grad_fn, o.grad_fn.next_functions)

# einsum: matrix product, trace, bilinear form
A = torch.randn(3, 3, requires_grad=True)
mm = torch.einsum("ij,jk->ik", A, A)
tr = torch.einsum("ii->", A)
bil = torch.einsum("i,ij,j->", v, A, v)
print(mm.grad_fn, tr, bil)
(mm.sum() + tr + bil).backward()
print(A.grad, v.grad)
print(torch.kron(torch.eye(2), torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
