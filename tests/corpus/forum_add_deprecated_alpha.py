# Written for gradcli after the manual SGD step of older PyTorch tutorials and forum answers,
# p.data.add_(-learning_rate, p.grad.data): add_(Number alpha, Tensor other), deprecated
# (PyTorch warns once a process) and still run as add_(other, alpha=alpha).
import torch

torch.manual_seed(0)
x = torch.randn(20, 3)
y = x @ torch.tensor([1.5, -2.0, 0.25]) + 0.3
w = torch.zeros(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
learning_rate = 0.1
for step in range(30):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    for p in (w, b):
        p.data.add_(-learning_rate, p.grad.data)
        p.grad.data.zero_()
    if step % 10 == 0:
        print(step, loss.item())
v = torch.ones(3)
v.sub_(0.5, w.detach())
print(w, b, v)
