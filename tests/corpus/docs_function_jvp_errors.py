# Source: PyTorch docs, "Extending torch.autograd" (forward mode AD: jvp, save_for_forward) and
# the checks of torch/csrc/autograd/custom_function.cpp: https://github.com/pytorch/pytorch
# Licence: BSD-3-Clause. Written for gradcli after those rules: a Function without jvp, a jvp
# giving the wrong count, size or type of tangents, ctx.saved_tensors in jvp, backward and vjp.
import torch
import torch.autograd.forward_ad as fwAD


class NoJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x.cos()


class WrongCount(NoJvp):
    jvp = staticmethod(lambda ctx, t: (t, t))


class WrongShape(NoJvp):
    jvp = staticmethod(lambda ctx, t: t.sum())


class NotTensor(NoJvp):
    jvp = staticmethod(lambda ctx, t: 7)


class NothingSaved(NoJvp):
    @staticmethod
    def jvp(ctx, t):
        print("saved in jvp:", ctx.saved_tensors)
        return t * 2


class Both(NoJvp):
    vjp = staticmethod(lambda ctx, g: g)


xr = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with fwAD.dual_level():
    xd = fwAD.make_dual(xr, torch.tensor([1.0, 0.0, 2.0]))
    print(NothingSaved.apply(xd))
    for F in (NoJvp, WrongCount, WrongShape, NotTensor):
        try:
            F.apply(xd)
        except (NotImplementedError, RuntimeError) as e:
            print(F.__name__, type(e).__name__, e)
    y = NoJvp.apply(xr)  # no input carries a tangent: jvp is not needed
    y.sum().backward()
    print(y, xr.grad)
Both.apply(xr).sum().backward()
