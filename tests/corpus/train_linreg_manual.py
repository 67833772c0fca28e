# Written for gradcli after the common "linear regression from scratch" notebook pattern
# (manual parameter updates under torch.no_grad, then grad.zero_()), seeded.
import torch

torch.manual_seed(0)
X = torch.rand(50, 1) * 10
y = 2.5 * X + 1.0 + torch.randn(50, 1) * 0.5

w = torch.randn(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
learning_rate = 0.01

for epoch in range(100):
    y_pred = X * w + b
    loss = ((y_pred - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if epoch % 20 == 0 or epoch == 99:
        print(f"Epoch {epoch:3d} | loss {loss.item():.4f} | w {w.item():.4f} | b {b.item():.4f}")

print(f"Learned: y = {w.item():.3f}x + {b.item():.3f}")
print(w, b)
