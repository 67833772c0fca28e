# Source: PyTorch docs, torch.Tensor.retain_grad / retains_grad and the leaf-tensor notes,
# https://pytorch.org/docs/stable/generated/torch.Tensor.retain_grad.html
# Written for gradcli after those pages: retain_grad on a non-leaf, grads replaced per backward.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.retain_grad()
print(y.retains_grad, x.retains_grad)
z = (y ** 2).sum()
z.backward(retain_graph=True)
print(y.grad)
print(x.grad)
z.backward()
print(y.grad)
print(x.grad)
print(y.is_leaf, y.requires_grad, y.grad_fn)
