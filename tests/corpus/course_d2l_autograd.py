# Source: Dive into Deep Learning, 2.5 "Automatic Differentiation" (PyTorch tab),
# https://github.com/d2l-ai/d2l-en/blob/master/chapter_preliminaries/autograd.md
# Licence: sample code MIT-0 (LICENSE-SAMPLECODE). Code verbatim, notebook echoes made prints.
import torch

x = torch.arange(4.0)
print(x)

# Can also create x = torch.arange(4.0, requires_grad=True)
x.requires_grad_(True)
print(x.grad)  # The gradient is None by default

y = 2 * torch.dot(x, x)
print(y)

y.backward()
print(x.grad)

print(x.grad == 4 * x)

x.grad.zero_()  # Reset the gradient
y = x.sum()
y.backward()
print(x.grad)

x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))  # Faster: y.sum().backward()
print(x.grad)
