# Written for gradcli after the torch.nn.functional docs (non-linear activations): each
# activation's values, its gradient and the node autograd records, in place where F allows.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.linspace(-4, 4, 9, requires_grad=True)
acts = {
    "relu6": lambda t: F.relu6(t * 2),
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "softsign": F.softsign,
    "mish": F.mish,
    "selu": F.selu,
    "celu": lambda t: F.celu(t, alpha=0.5),
    "elu": F.elu,
    "softshrink": F.softshrink,
    "hardshrink": lambda t: F.hardshrink(t, lambd=1.0),
    "tanhshrink": F.tanhshrink,
    "threshold": lambda t: F.threshold(t, 0.5, -1.0),
    "silu": F.silu,
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
    "leaky_relu": lambda t: F.leaky_relu(t, 0.1),
}
for name, act in acts.items():
    y = act(x)
    (g,) = torch.autograd.grad(y.sum(), x)
    print(f"{name:>11}: {y.grad_fn.name():<22} y={[round(v, 4) for v in y.tolist()]}")
    print(f"{'':>11}  dy/dx={[round(v, 4) for v in g.tolist()]}")

h = torch.randn(2, 6, requires_grad=True)
print(F.glu(h), F.glu(h, dim=0).shape)
print(F.softmin(h, dim=1))
print(torch.logit(torch.sigmoid(h), eps=1e-6))

z = h * 1
F.selu(z, inplace=True)
print(z.grad_fn, z.grad_fn.next_functions)
z.sum().backward()
print(h.grad)

# second derivatives through the activations' backward formulas
u = torch.tensor([-1.5, -0.2, 0.3, 2.0], requires_grad=True)
for act in (F.silu, F.elu, F.selu, F.softplus, F.hardswish):
    (g,) = torch.autograd.grad(act(u).sum(), u, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), u)
    print(act.__name__, g.detach(), g2)
