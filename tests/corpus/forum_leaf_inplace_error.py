# Written for gradcli after https://discuss.pytorch.org/t/leaf-variable-was-used-in-an-inplace-operation/308
# (a leaf that requires grad updated in place outside no_grad). Ends in an uncaught error.
import torch

w = torch.tensor([1.0, 2.0, 3.0])  # leaf variable
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # also leaf variable
y = x + 1  # not a leaf variable
print(w.is_leaf, x.is_leaf, y.is_leaf)

lr = 0.1
loss = (x * w).sum()
loss.backward()
print(x.grad)
x -= lr * x.grad
print(x)
