# Written for gradcli after the PyTorch "Autograd saved tensors" tutorial
# (https://pytorch.org/tutorials/intermediate/autograd_saved_tensors_hooks_tutorial.html):
# what each node saves, and that a backward frees it. Ends in an uncaught error.
import torch

x = torch.tensor([0.5, 1.5], requires_grad=True)
y = x.sin()
z = y * x
print(y.grad_fn._saved_self)
print(z.grad_fn._saved_self, z.grad_fn._saved_other)
w = torch.tensor([[1.0, 2.0]], requires_grad=True)
m = w.mm(torch.ones(2, 1))
print(m.grad_fn._saved_mat2)
z.sum().backward()
print(x.grad)
print(z.grad_fn._saved_self)
