# Source: PyTorch tutorial "Autograd: automatic differentiation" (60 Minute Blitz, Variable era),
# https://github.com/pytorch/tutorials/blob/main/beginner_source/blitz/autograd_tutorial.py
# Licence: BSD-3-Clause. Code verbatim except: torch.manual_seed(0) added, and
# torch.FloatTensor([...]) written as torch.tensor([...]).
import torch
from torch.autograd import Variable

torch.manual_seed(0)
x = Variable(torch.ones(2, 2), requires_grad=True)
print(x)

y = x + 2
print(y)

print(y.grad_fn)

z = y * y * 3
out = z.mean()

print(z, out)

out.backward()

print(x.grad)

x = torch.randn(3)
x = Variable(x, requires_grad=True)

y = x * 2
while y.data.norm() < 1000:
    y = y * 2

print(y)

gradients = torch.tensor([0.1, 1.0, 0.0001])
y.backward(gradients)

print(x.grad)
