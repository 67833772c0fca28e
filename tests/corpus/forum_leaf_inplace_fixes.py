# Written for gradcli after https://discuss.pytorch.org/t/leaf-variable-was-used-in-an-inplace-operation/308
# (the two fixes: clone the leaf, or update it under torch.no_grad()).
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

x2 = x.clone()  # clone the variable
x2 += 1  # in-place operation
print(x2)
print(x2.grad_fn, x2._version)

with torch.no_grad():
    x += 1
    print(x)
    print(x.requires_grad)
print(x)
print(x.requires_grad, x.is_leaf, x._version)

x2.sum().backward()
print(x.grad)
