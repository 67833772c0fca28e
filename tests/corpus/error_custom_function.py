# Written for gradcli after the docs' "Extending PyTorch" notes: what PyTorch says when a custom
# autograd.Function is misused (each error caught and printed), then an uncaught one.
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable

def show(fn):
    try:
        print(fn())
    except Exception as e:
        print(type(e).__name__ + ":", e)

class Scale(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * k
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * ctx.k  # one gradient for two inputs

class Twice(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        return g * 2, None

class NoBackward(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(3)

x = torch.tensor([1.0, -2.0], requires_grad=True)
y = Scale.apply(x * 1, 3.0)
print(y, y.grad_fn.k, y.grad_fn.needs_input_grad, y.grad_fn.saved_tensors)
show(lambda: y.sum().backward())
show(lambda: Twice.apply(x).sum().backward())
v = torch.ones(2, requires_grad=True)
g, = torch.autograd.grad(Twice.apply(x), x, v, create_graph=True)
print(g, g.grad_fn)
show(lambda: g.sum().backward())
show(lambda: NoBackward.apply(x))
h = x * 1
z = NoBackward.apply(h)
print(z is h, z, h._version)
show(lambda: z.sum().backward())
show(lambda: Scale.apply(x))
s = Scale()
show(lambda: s(x))
a = x * 1
b = Scale.apply(a, 2.0)
a.add_(1)
b.sum().backward()
