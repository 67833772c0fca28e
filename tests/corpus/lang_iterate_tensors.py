# Written for gradcli after tutorials that loop over tensors and parameter lists: iterating a
# tensor, zip and enumerate over parameters and grads, sum() of a generator, Python's max().
import torch

W = torch.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
v = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
for i, row in enumerate(W):
    print(i, row, row.sum().item())
total = sum(t * t for t in v)
print(total)
total.backward()
print(v.grad)
params = [W, v]
names = ["W", "v"]
for name, p in zip(names, params):
    print(f"{name}: shape={tuple(p.shape)} numel={p.numel()} grad={p.grad}")
largest = max(v, key=lambda t: t.item())
print(largest, float(largest), [round(t.item(), 2) for t in sorted(v, key=lambda t: -t.item())])
a, b, c = v.detach()
print(a, b, c, len(v), list(v.detach()))
rows = [r * 2 for r in W.detach()]
print(rows, sum(rows))
