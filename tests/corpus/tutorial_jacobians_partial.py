# Written for gradcli after PyTorch's "Jacobians, Hessians, hvp, vhp, and more: composing
# function transforms" tutorial (https://pytorch.org/tutorials/intermediate/jacobians_hessians.html):
# predict(weight, bias, x) bound with functools.partial and differentiated with respect to x,
# here with torch.autograd.functional (the tutorial's torch.func.jacrev), row by row to compare.
from functools import lru_cache, partial, reduce

import torch
import torch.nn.functional as F
from torch.autograd.functional import hessian, jacobian

torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 4
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)  # feature vector

f = partial(predict, weight, bias)
jacobian_rows = []
xp = x.clone().requires_grad_()
out = f(xp)
for unit in torch.eye(D):
    (row,) = torch.autograd.grad(out, xp, unit, retain_graph=True)
    jacobian_rows.append(row)
jac_manual = torch.stack(jacobian_rows)
jac = jacobian(f, x)
print(jac.shape, torch.allclose(jac, jac_manual), f.func is predict, len(f.args))
print(jac[0])

numel = reduce(lambda a, b: a * b, weight.shape, 1)
print(numel, reduce(torch.add, [weight.sum(), bias.sum(), x.sum()]))


@lru_cache(maxsize=None)
def scaled_predict(scale):
    return partial(lambda w, b, v: predict(w * scale, b, v), weight, bias)


h = hessian(lambda v: scaled_predict(0.5)(v).sum(), x)
print(h.shape, torch.allclose(h, h.T), scaled_predict(0.5) is scaled_predict(0.5))
print(scaled_predict.cache_info())
