# Written for gradcli after the torchviz-style graph walks in forum answers and the
# "computational graph" walk-throughs (grad_fn.next_functions, name(), AccumulateGrad.variable).
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b
d = c.sum() + a.mean()
print(d.grad_fn)
print(d.grad_fn.next_functions)


def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + fn.name())
    for child, _ in fn.next_functions:
        walk(child, depth + 1)


walk(d.grad_fn)
acc = c.grad_fn.next_functions[0][0]
print(acc.name(), acc.variable is a)
print(type(d.grad_fn).__name__)
print([f[1] for f in c.grad_fn.next_functions])
print(a.grad_fn, a.is_leaf)
