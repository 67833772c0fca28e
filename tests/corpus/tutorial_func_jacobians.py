# Source: PyTorch tutorial "Jacobians, Hessians, hvp, vhp, and more: composing function
# transforms", https://github.com/pytorch/tutorials/blob/main/intermediate_source/jacobians_hessians.py
# Licence: BSD-3-Clause. Scaled down (D = 4, no vmap, no timing) with prints added.
import torch
import torch.nn.functional as F
from torch.func import jacrev, jacfwd, hessian, jvp, vjp

_ = torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 4
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)  # feature vector


def compute_jac(xp):
    jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                     for vec in unit_vectors]
    return torch.stack(jacobian_rows)


xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)

jacobian = compute_jac(xp)

print(jacobian.shape)
print(jacobian[0])  # show first row

jacobian = jacrev(predict, argnums=2)(weight, bias, x)
expected = compute_jac(xp)
assert torch.allclose(jacobian, expected)
print(jacobian)

ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jac_weight.shape, ft_jac_bias.shape)
print(ft_jac_bias)

jacfwd_jac = jacfwd(predict, argnums=2)(weight, bias, x)
assert torch.allclose(jacfwd_jac, jacobian, atol=1e-6)

hess0 = hessian(predict, argnums=2)(weight, bias, x)
hess1 = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
hess2 = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
print(hess0.shape)
print(hess0[1])
print(torch.allclose(hess1, hess0, atol=1e-6), torch.allclose(hess2, hess0, atol=1e-6))


def hvp(f, primals, tangents):
    return jvp(lambda x: vjp(f, x)[1](torch.ones(D))[0], primals, tangents)[1]


print(hvp(lambda x: predict(weight, bias, x), (x,), (torch.ones(D),)))
