# Written for gradcli after the torch.autograd.functional docs and tutorials that pass lambdas
# and closures: lambda, closures over tensors, default and keyword-only arguments, *args.
import torch
from torch.autograd.functional import jacobian

x = torch.tensor([1.0, 2.0, 3.0])
print(jacobian(lambda v: v ** 2, x))


def make_scaled_square(scale):
    def f(v):
        return scale * v ** 2
    return f


f3 = make_scaled_square(3.0)
print(jacobian(f3, x))
print(f3(torch.tensor(2.0)), f3.__name__)


def weighted_sum(*tensors, weights=None, power=1):
    weights = weights or [1.0] * len(tensors)
    return sum(w * t ** power for w, t in zip(weights, tensors))


a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
s = weighted_sum(a, b, weights=[0.5, 2.0], power=2)
s.backward()
print(s, a.grad, b.grad)
compose = lambda g, h: (lambda t: g(h(t)))
sq_then_sum = compose(torch.sum, lambda t: t * t)
print(sq_then_sum(x), jacobian(sq_then_sum, x))
