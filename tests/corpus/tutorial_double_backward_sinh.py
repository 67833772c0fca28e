# Source: PyTorch tutorial "Double Backward with Custom Functions"
# (https://pytorch.org/tutorials/intermediate/custom_function_double_backward_tutorial.html):
# saving intermediate results as outputs (Sinh), and a backward that is itself a Function (Cube).
import torch

torch.manual_seed(0)

class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx
    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input

def sinh(x):  # a wrapper that only returns the first output
    return Sinh.apply(x)[0]

x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(sinh, x), torch.autograd.gradgradcheck(sinh, x))
out = sinh(x)
grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
print(out.grad_fn.next_functions, grad_x.sum().grad_fn.next_functions[0][0].next_functions)

class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X):
        ctx.save_for_backward(X)
        return X**3
    @staticmethod
    def backward(ctx, grad_out):
        X, = ctx.saved_tensors
        return CubeBackward.apply(grad_out, X)

class CubeBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, grad_out, X):
        ctx.save_for_backward(X, grad_out)
        return grad_out * 3 * X**2
    @staticmethod
    def backward(ctx, grad_out):
        X, sav_grad_out = ctx.saved_tensors
        dX = grad_out * sav_grad_out * 6 * X
        dgrad_out = grad_out * 3 * X**2
        return dgrad_out, dX

x = torch.tensor(2., requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Cube.apply, x), torch.autograd.gradgradcheck(Cube.apply, x))
out = Cube.apply(x)
grad_x, = torch.autograd.grad(out, x, create_graph=True)
print(out, grad_x, grad_x.grad_fn)
