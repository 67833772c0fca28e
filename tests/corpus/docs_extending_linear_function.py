# Source: PyTorch docs, "Extending PyTorch" notes (https://pytorch.org/docs/stable/notes/extending.html):
# LinearFunction with setup_context, the Linear module that applies it, gradcheck; seeded.
import torch
from torch import nn
from torch.autograd import Function, gradcheck
torch.manual_seed(0)

class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias=None):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output
    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias
class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter('bias', None)
        self.weight.data.uniform_(-0.1, 0.1)  # Not a very smart way to initialize weights
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)
    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)
    def extra_repr(self):  # printed by print(layer)
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None)


layer = Linear(3, 2)
out = layer(torch.randn(4, 3))
print(layer, Linear(3, 1, bias=False), out.grad_fn.name(), out, sep="\n")
out.sum().backward()
print(layer.weight.grad, layer.bias.grad, [n for n, _ in layer.named_parameters()])
linear = LinearFunction.apply
input = (torch.randn(6, 5, dtype=torch.double, requires_grad=True),
         torch.randn(4, 5, dtype=torch.double, requires_grad=True))
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)
