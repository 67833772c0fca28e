# Written for gradcli after forum threads on index assignment into a non-leaf (CopySlices),
# and the gradient it gives to the assigned value.
import torch

x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
v = torch.tensor(10.0, requires_grad=True)
y = x * 2
y[1] = v * 3
print(y)
print(y.grad_fn)
print(y.grad_fn.name())
y[[0, 3]] = 0.0
z = (y * y).sum()
z.backward()
print(x.grad)
print(v.grad)
m = torch.zeros(2, 3)
m[0] = torch.tensor([1.0, 2.0, 3.0])
m[:, 2] += 1
print(m)
