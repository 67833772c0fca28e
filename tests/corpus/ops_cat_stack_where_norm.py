# Written for gradcli after forum questions on gradients through torch.cat, torch.stack,
# torch.where and torch.norm.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0, 5.0], requires_grad=True)
c = torch.cat([a, b])
print(c)
s = torch.stack([a, a * 2], dim=1)
print(s, s.shape)
n = torch.norm(b)
print(n)
w = torch.where(c > 2.5, c, torch.zeros_like(c))
print(w)
loss = (c * torch.arange(5.0)).sum() + s.sum() + n + w.sum()
loss.backward()
print(a.grad)
print(b.grad)
print(c.grad_fn.name(), s.grad_fn.name(), n.grad_fn.name(), w.grad_fn.name())
print(torch.norm(torch.tensor([[3.0, 4.0], [6.0, 8.0]]), dim=1))
print(b.norm(p=1), b.norm(dim=0, keepdim=True))
