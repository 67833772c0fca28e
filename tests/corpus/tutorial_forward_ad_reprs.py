# Written for gradcli after the PyTorch tutorial "Forward-mode Automatic Differentiation
# (Beta)" (intermediate_source/forward_ad_usage.py, BSD-3-Clause): how dual tensors print when
# their values or tangents require grad, and a tangent differentiated by reverse mode.
import torch
import torch.autograd.forward_ad as fwAD

torch.manual_seed(0)
x = torch.randn(3)
w = torch.randn(3, requires_grad=True)
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.ones(3))
    print(d * w)
    print(w * d)
    print(d + w, d - w, d / w)
    print(torch.sin(d * w))
    print((d * w).sum())
    print(torch.tanh(d) * w)
    print(d @ w)
    print(torch.softmax(d * w, 0))
    print(torch.exp(w) * d)
    print(d.view(3, 1) * w)
    print(fwAD.unpack_dual(d * w))
    print(fwAD.unpack_dual(w))

    dw = fwAD.make_dual(w, torch.ones(3))
    z = (dw * dw).sum()
    print(z)
    t = fwAD.unpack_dual(z).tangent
    t.backward()
    print(w.grad)
print(d * w)


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        return torch.exp(foo)

    @staticmethod
    def backward(ctx, g):
        return g


with fwAD.dual_level():
    try:
        Fn.apply(fwAD.make_dual(x, torch.ones(3)))
    except NotImplementedError as e:
        print(e)
