# Source: PyTorch tutorial "Jacobians, Hessians, hvp, vhp, and more: composing function
# transforms", https://github.com/pytorch/tutorials/blob/main/intermediate_source/jacobians_hessians.py
# Licence: BSD-3-Clause. The batch Jacobian and batch Hessian sections, scaled down
# (batch of 4, Din = Dout = 3, no timing), with prints added.
import torch
import torch.nn.functional as F
from torch.func import jacrev, jacfwd, hessian, vmap

_ = torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


batch_size = 4
Din = 3
Dout = 3
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(batch_size, Din)

compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, x)
print(batch_jacobian0.shape)
print(batch_jacobian0[0])


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1)
print(torch.allclose(batch_jacobian0, batch_jacobian1))

compute_batch_jacfwd = vmap(jacfwd(predict, argnums=2), in_dims=(None, None, 0))
print(torch.allclose(compute_batch_jacfwd(weight, bias, x), batch_jacobian0, atol=1e-6))

compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
batch_hess = compute_batch_hessian(weight, bias, x)
print(batch_hess.shape)
print(batch_hess[1, 0])

jac_per_weight = vmap(jacrev(predict, argnums=0), in_dims=(None, None, 0))(weight, bias, x)
print(jac_per_weight.shape, jac_per_weight.sum(0)[2])
