# Written for gradcli after forum threads about the non-leaf .grad warning met in a helper:
# the warning names the line inside the function.
import torch


def report(t):
    g = t.grad
    return g is None


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.sum().backward()
print(report(x), report(y))
