# Written for gradcli after PyTorch's torch.autograd.functional documentation (jacobian's and
# hessian's forward-mode strategies, BSD-3-Clause): Jacobians and Hessians by forward-mode AD,
# and the errors of the strategy's options.
import torch
from torch.autograd.functional import jacobian, hessian
torch.manual_seed(0)
def f(x, y):
    return (x.tanh() * y, (x * y).sum())
x = torch.randn(3); y = torch.randn(3)
print(jacobian(f, (x, y), vectorize=True, strategy="forward-mode"))
print(jacobian(lambda a: a.exp() * 2, x, vectorize=True, strategy="forward-mode"))
print(hessian(lambda a: (a.sin() * a).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode"))
print(hessian(lambda a: (a.tanh() ** 2).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode"))
for kw in [dict(strategy="forward-mode"), dict(strategy="fwd"), dict(strategy="forward-mode", vectorize=True, strict=True), dict(strategy="forward-mode", vectorize=True, create_graph=True)]:
    try:
        jacobian(lambda a: a * 2, x, **kw)
    except Exception as e:
        print(type(e).__name__, e)
