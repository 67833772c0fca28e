# Written for gradcli after tutorials on view/reshape/unsqueeze/squeeze/flatten and their
# grad_fn names (ViewBackward0, UnsqueezeBackward0, ...).
import torch

x = torch.arange(1.0, 7.0, requires_grad=True)
v = x.view(2, 3)
r = x.reshape(3, 2)
u = v.unsqueeze(0)
q = u.squeeze()
f = q.flatten()
t = v.t()
print(v, r.shape, u.shape, q.shape, f.shape, t.shape)
print(v.grad_fn, u.grad_fn, q.grad_fn, f.grad_fn, t.grad_fn)
out = (v * 1).sum() + (r ** 2).sum() + (t[0] * 3).sum() + f[-1]
out.backward()
print(x.grad)
print(v[1], v[:, 1], v[1, 2], v[-1, -2:])
print(v.sum(dim=0), v.mean(dim=1, keepdim=True), v.max(), v.min(dim=1))
