# Source: PyTorch docs, torch.Tensor.backward (gradient=, retain_graph=, inputs=),
# https://pytorch.org/docs/stable/generated/torch.Tensor.backward.html
# Written for gradcli after that page: accumulate only into the tensors named by inputs=.
import torch

w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([0.5, -0.5], requires_grad=True)
x = torch.tensor([1.0, -1.0])
out = w @ x + b
loss = out.pow(2).sum()

loss.backward(inputs=[b], retain_graph=True)
print(w.grad, b.grad)
loss.backward(inputs=[w])
print(w.grad)
print(b.grad)

y = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = y * y
v.backward(gradient=torch.tensor([1.0, 0.1, 0.01]))
print(y.grad)
