# Written for gradcli after the manual-update idioms of tutorials and forum threads:
# x.requires_grad = True, x.grad = None, w.data -= lr * w.grad, item assignment into tensors.
import torch

x = torch.tensor([1.0, 2.0, 3.0])
x.requires_grad = True
w = torch.tensor([0.5, -0.5, 1.0], requires_grad=True)
for step in range(3):
    loss = (w * x).sum() ** 2
    loss.backward()
    w.data -= 0.01 * w.grad
    print(step, loss.item(), w.data, w.grad)
    w.grad = None
print(w, w.grad, x.grad)
y = torch.zeros(4)
y[0] = 1.5
y[1:3] = torch.tensor([2.0, 3.0])
y[y > 2.5] = -1.0
print(y)
z = x * 2
z[0] += 10
print(z, z.grad_fn)
cfg = {"lr": 0.1, "steps": [1, 2]}
cfg["lr"] *= 0.5
cfg["steps"][0] = 7
cfg["momentum"] = 0.9
print(cfg)
