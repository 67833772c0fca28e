# Source: PyTorch docs, "Extending torch.autograd" (forward mode AD, in place and as-is outputs)
# and custom_function.cpp's _process_forward_mode_AD: https://github.com/pytorch/pytorch
# Licence: BSD-3-Clause. Written for gradcli after those rules.
import torch
import torch.autograd.forward_ad as fwAD


class Dbl(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
    @staticmethod
    def jvp(ctx, t):
        t.mul_(2)
        return t
class NotInplace(Dbl):
    jvp = staticmethod(lambda ctx, t: t * 2)
class NotAsIs(Dbl):
    jvp = staticmethod(lambda ctx, t: t.mul_(2).clone())
class Same(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g
    @staticmethod
    def jvp(ctx, t):
        return t.view_as(t)
class NoView(Same):
    jvp = staticmethod(lambda ctx, t: t * 3)
class OtherView(Same):
    jvp = staticmethod(lambda ctx, t: (t * 3).view_as(t))
class IntOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x.argmax()
    @staticmethod
    def backward(ctx, g, h):
        return g * 2
    @staticmethod
    def jvp(ctx, t):
        return t * 2, t.sum()

with fwAD.dual_level():
    for F in (Dbl, NotInplace, NotAsIs, Same, NoView, OtherView, IntOut):
        xd = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, -1.0]))
        try:
            y = F.apply(xd)
            print(F.__name__, fwAD.unpack_dual(y), fwAD.unpack_dual(xd).tangent, y is xd)
        except RuntimeError as e:
            print(F.__name__, e)
    x = torch.tensor([1.0, 2.0])
    y = Dbl.apply(x)
    print(fwAD.unpack_dual(y).tangent, y is x)
