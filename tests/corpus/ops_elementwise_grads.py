# Written for gradcli after the calculus-check exercises of d2l / CS231n: derivatives of common
# elementwise functions compared with their closed forms.
import torch

x = torch.tensor([0.25, 0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
fns = {
    "exp": (torch.exp, lambda t: t.exp()),
    "log": (torch.log, lambda t: 1 / t),
    "sqrt": (torch.sqrt, lambda t: 0.5 / t.sqrt()),
    "tanh": (torch.tanh, lambda t: 1 - t.tanh() ** 2),
    "sigmoid": (torch.sigmoid, lambda t: t.sigmoid() * (1 - t.sigmoid())),
    "sin": (torch.sin, torch.cos),
}
for name, (fn, deriv) in fns.items():
    x.grad = None
    y = fn(x)
    y.sum().backward()
    ok = torch.allclose(x.grad, deriv(x.detach()))
    print(f"{name:8s} {y.grad_fn.name():16s} {ok}")
print(x.grad)
print(torch.relu(x - 1), torch.clamp(x, min=0.5, max=1.5), torch.abs(-x))
print(torch.maximum(x, torch.ones(4, dtype=torch.float64)))
