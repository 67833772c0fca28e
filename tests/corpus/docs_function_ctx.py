# Source: PyTorch docs, torch.autograd.function.FunctionCtx.mark_dirty, mark_non_differentiable and
# set_materialize_grads (https://pytorch.org/docs/stable/autograd.html#context-method-mixins); add_ for NumPy.
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable
class Inplace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        return grad_output
a = torch.tensor(1., requires_grad=True, dtype=torch.double).clone()
b = a * a
print(Inplace.apply(a), a._version, b.grad_fn.next_functions)
class Func(Function):
    @staticmethod
    def forward(ctx, x):
        sorted, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return sorted, idx
    @staticmethod
    @once_differentiable
    def backward(ctx, g1, g2):  # still need to accept g2
        x, idx = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        grad_input.index_add_(0, idx, g1)
        print("g2:", g2)
        return grad_input
x = torch.tensor([3., 1., 2.], requires_grad=True)
s, i = Func.apply(x)
print(s, i, i.requires_grad, s.grad_fn)
(s * torch.tensor([1., 10., 100.])).sum().backward()
print(x.grad)
class SimpleFunc(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x.clone(), x.clone()
    @staticmethod
    @once_differentiable
    def backward(ctx, g1, g2):  # g1 and g2 could be None
        x, = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        if g1 is not None:  # We must check for None now
            grad_input += g1
        if g2 is not None:
            grad_input += g2
        print("g1:", g1, "g2:", g2)
        return grad_input
a = torch.tensor(1., requires_grad=True)
b, _ = SimpleFunc.apply(a)
b.backward()  # this will call backward with g2 = None
print(a.grad)
b.backward()
