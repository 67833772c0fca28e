# Written for gradcli after torch.autograd.grad examples: tuples of inputs and results
# unpacked, dict comprehensions over them, **kwargs passed on, keyword-only arguments.
import torch

x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
z = x ** 2 * y + y ** 3
gx, gy = torch.autograd.grad(z, (x, y), retain_graph=True)
print(gx, gy)
grads = dict(zip(["x", "y"], torch.autograd.grad(z, [x, y], create_graph=True)))
print({k: v.item() for k, v in grads.items()})
(hxx,) = torch.autograd.grad(grads["x"], x)
print(hxx)


def loss_fn(pred, target, *, reduction="mean", **extra):
    diff = (pred - target) ** 2
    scale = extra.get("scale", 1.0)
    return scale * (diff.mean() if reduction == "mean" else diff.sum())


opts = {"reduction": "sum", "scale": 0.5}
p = torch.tensor([1.0, 2.0], requires_grad=True)
t = torch.tensor([0.0, 0.0])
L = loss_fn(p, t, **opts)
L.backward()
print(L, p.grad, loss_fn(p, t))
