# Written for gradcli after forum threads on gradients through boolean masks and fancy indexing
# ("only the selected elements get a gradient").
import torch

x = torch.tensor([-1.5, 0.5, 2.0, -0.25, 3.0], requires_grad=True)
mask = x > 0
print(mask, mask.dtype)
pos = x[mask]
print(pos)
pos.sum().backward()
print(x.grad)

x.grad = None
idx = torch.tensor([0, 2, 2, 4])
sel = x[idx]
print(sel, sel.grad_fn)
(sel * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print(x.grad)

x.grad = None
y = torch.where(x > 1, x ** 2, -x)
y.sum().backward()
print(y)
print(x.grad)
print(x[[1, 3]], x[1:4:2])
