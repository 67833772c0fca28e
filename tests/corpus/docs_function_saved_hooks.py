# Source: PyTorch docs, "Autograd mechanics: hooks for saved tensors" (a custom Function's
# save_for_backward goes through the pack hook; ctx.saved_tensors unpacks):
# https://github.com/pytorch/pytorch/blob/main/docs/source/notes/autograd.rst
# Licence: BSD-3-Clause. Written for gradcli after that note: the order of pack and unpack calls.
import torch


def pack(t):
    print("pack", t)
    return t * 10


def unpack(t):
    print("unpack", t)
    return t / 10


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        r = x.exp() * w
        print("forward done")
        ctx.save_for_backward(r, w, None)
        return r

    @staticmethod
    def backward(ctx, g):
        print("backward")
        r, w, n = ctx.saved_tensors
        print(n)
        return g * r, g * r / w


x = torch.tensor([0.5, -1.0], requires_grad=True)
w = torch.tensor([2.0, 3.0])
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = Exp.apply(x, w)
    z = (y * y).sum()
print(y.grad_fn.saved_tensors[1] is w)
z.backward()
print(x.grad)
with torch.autograd.graph.disable_saved_tensors_hooks("no saving here"):
    y = Exp.apply(x, w)
    print(y)
try:
    y.grad_fn.saved_tensors
    y.sum().backward()
    y.grad_fn.saved_tensors
except RuntimeError as e:
    print(str(e)[:60])
