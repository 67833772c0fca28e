# Source: PyTorch tutorial "Double Backward with Custom Functions"
# (https://pytorch.org/tutorials/intermediate/custom_function_double_backward_tutorial.html);
# seeded, the torchviz drawings left out (their graphs printed as next_functions).
import torch

torch.manual_seed(0)


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # Because we are saving one of the inputs use `save_for_backward`
        # Save non-tensors and non-inputs/non-outputs directly on ctx
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        # A function support double backward automatically if autograd
        # is able to record the computations performed in backward
        x, = ctx.saved_tensors
        return grad_out * 2 * x


# Use double precision because finite differencing method magnifies errors
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Square.apply, x))
# Use gradcheck to verify second-order derivatives
print(torch.autograd.gradgradcheck(Square.apply, x))


class Exp(torch.autograd.Function):
    # Simple case where everything goes well
    @staticmethod
    def forward(ctx, x):
        # This time we save the output
        result = torch.exp(x)
        # Note that we should use `save_for_backward` here when
        # the tensor saved is an ouptut (or an input).
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return result * grad_out


x0 = torch.tensor(1., requires_grad=True, dtype=torch.double)
x = x0.clone()
# Validate our gradients using gradcheck
print(torch.autograd.gradcheck(Exp.apply, x))
print(torch.autograd.gradgradcheck(Exp.apply, x))
out = Exp.apply(x)
grad_x, = torch.autograd.grad(out, x, create_graph=True)
print(out, grad_x, grad_x.grad_fn.next_functions)
grad_x.backward()
print(x0.grad)
print(out.grad_fn.saved_tensors)  # freed by the backward: PyTorch's error
