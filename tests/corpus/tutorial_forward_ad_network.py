# Written for gradcli after the PyTorch tutorial "Forward-mode Automatic Differentiation
# (Beta)" (intermediate_source/forward_ad_usage.py, BSD-3-Clause): a small network's tangent
# beside the difference quotient, and forward AD's errors.
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn

torch.manual_seed(0)
primal = torch.randn(3, 3)
tangent = torch.randn(3, 3)

# The tangent of a small network, checked against the difference quotient
net = nn.Sequential(nn.Linear(5, 3), nn.Tanh(), nn.Linear(3, 1))
x = torch.randn(2, 5)
v = torch.randn(2, 5)
with fwAD.dual_level():
    y = net(fwAD.make_dual(x, v))
    y_p, y_t = fwAD.unpack_dual(y)
print(y_p)
print(y_t)
eps = 1e-3
print((net(x + eps * v) - net(x - eps * v)) / (2 * eps))
y_t.sum().backward()  # the tangent is differentiable: d(J v)/d(weights)
print(net[0].weight.grad)

# The functional Module API: dual parameters through functional_call
from torch.func import functional_call

params = {name: p for name, p in net.named_parameters()}
with fwAD.dual_level():
    dual_params = {name: fwAD.make_dual(p, torch.ones_like(p)) for name, p in params.items()}
    print(fwAD.unpack_dual(functional_call(net, dual_params, x)).tangent)

# Errors
try:
    fwAD.make_dual(primal, tangent)
except RuntimeError as e:
    print(e)
with fwAD.dual_level():
    try:
        fwAD.make_dual(primal, torch.ones(2))
    except RuntimeError as e:
        print(e)
    try:
        with fwAD.dual_level():
            pass
    except RuntimeError as e:
        print(e)
