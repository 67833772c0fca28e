# Source: PyTorch docs, torch.autograd.function.FunctionCtx.save_for_forward docstring example
# (jvp and vjp of a custom Function): https://github.com/pytorch/pytorch/blob/main/torch/autograd/function.py
# Licence: BSD-3-Clause. The doctest turned into a program; several outputs with setup_context,
# an input without a tangent, and the tangent against central differences added.
import torch
import torch.autograd.forward_ad as fwAD


class Func(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, y: torch.Tensor, z: int):
        ctx.save_for_backward(x, y)
        ctx.save_for_forward(x, y)
        ctx.z = z
        return x * y * z
    @staticmethod
    def jvp(ctx, x_t, y_t, _):
        x, y = ctx.saved_tensors
        z = ctx.z
        print("jvp got", x_t, y_t, _)
        return z * (y * x_t + x * y_t)
    @staticmethod
    def vjp(ctx, grad_out):
        x, y = ctx.saved_tensors
        z = ctx.z
        return z * grad_out * y, z * grad_out * x, None

class Two(torch.autograd.Function):
    @staticmethod
    def forward(x):
        print("forward sees a tangent:", fwAD.unpack_dual(x).tangent is not None)
        return x * 2, x.exp()
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_forward(inputs[0])
    @staticmethod
    def vjp(ctx, g1, g2):
        return g1 * 2
    @staticmethod
    def jvp(ctx, t):
        x, = ctx.saved_tensors
        return t * 2, t * x.exp()

a = torch.tensor(1., requires_grad=True, dtype=torch.double)
t = torch.tensor(1., dtype=torch.double)
b = torch.tensor(2., requires_grad=True, dtype=torch.double)
c = 4
x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.double)
v = torch.tensor([1.0, 0.0, 2.0], dtype=torch.double)
with fwAD.dual_level():
    a_dual = fwAD.make_dual(a, t)
    d = Func.apply(a_dual, b, c)
    print(d, fwAD.unpack_dual(d).tangent)
    print(fwAD.unpack_dual(Func.apply(b, a_dual, 0.5)))
    p, q = Two.apply(fwAD.make_dual(x, v))
    print(fwAD.unpack_dual(p).tangent, fwAD.unpack_dual(q).tangent)
    fd = (Two.apply(x + 1e-6 * v)[1] - Two.apply(x - 1e-6 * v)[1]) / 2e-6
    print(torch.allclose(fwAD.unpack_dual(q).tangent, fd, atol=1e-6))
d.backward()
print(a.grad, b.grad)
