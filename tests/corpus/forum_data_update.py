# Written for gradcli after older forum answers that update weights through .data
# (w.data -= lr * w.grad.data), and what .data does to the graph.
import torch

torch.manual_seed(1)
x = torch.linspace(-1, 1, 5)
y_true = 3 * x - 1
w = torch.randn(1, requires_grad=True)
b = torch.randn(1, requires_grad=True)
for epoch in range(6):
    y = w * x + b
    loss = ((y - y_true) ** 2).mean()
    loss.backward()
    w.data -= 0.2 * w.grad.data
    b.data -= 0.2 * b.grad.data
    w.grad.data.zero_()
    b.grad.data.zero_()
    print("epoch %d loss %.4f w %.4f b %.4f" % (epoch, loss.item(), w.item(), b.item()))
print(w.data, w.data.requires_grad, w.requires_grad)
print(x)
