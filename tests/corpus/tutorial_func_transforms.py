# Written for gradcli after the PyTorch tutorials on torch.func ("Jacobians, Hessians, hvp, vhp,
# and more", "Neural Tangent Kernels", BSD-3-Clause): grad, grad_and_value, vjp, jvp and
# functional_call on a small model, composed, and their errors.
import torch
from torch.func import functional_call, grad, grad_and_value, jacrev, jvp, vjp

torch.manual_seed(0)
x = torch.randn(3)


def f(x):
    return (x.sin() * x).sum()


print(grad(f)(x))
print(grad(grad(lambda t: (t ** 3).sum()))(torch.tensor(2.0)))
print(grad_and_value(f)(x))
print(grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, x.exp()))
print(grad(lambda t: ((t ** 2).sum(), t.mean()), has_aux=True)(x))
out, fn = vjp(torch.sin, x)
print(out, fn(torch.ones(3)))
print(jvp(torch.exp, (x,), (torch.ones(3),)))
print(jacrev(jacrev(f))(x).diagonal())

model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
params = {k: v.detach() for k, v in model.named_parameters()}
inp = torch.randn(5, 3)
print(functional_call(model, params, (inp,)))


def loss(params, inp):
    return functional_call(model, params, (inp,)).pow(2).mean()


grads = grad(loss)(params, inp)
for name, g in grads.items():
    print(name, g)
print(model[0].weight.grad)

try:
    grad(torch.sin)(x)
except RuntimeError as e:
    print(e)
