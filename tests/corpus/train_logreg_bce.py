# Written for gradcli after CS231n/fast.ai-style logistic regression notebooks
# (sigmoid, F.binary_cross_entropy, accuracy from thresholded predictions), seeded.
import torch
import torch.nn.functional as F

torch.manual_seed(3)
n = 40
X = torch.cat([torch.randn(n // 2, 2) + 1.5, torch.randn(n // 2, 2) - 1.5])
y = torch.cat([torch.ones(n // 2), torch.zeros(n // 2)])

w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for it in range(30):
    p = torch.sigmoid(X @ w + b)
    loss = F.binary_cross_entropy(p, y)
    loss.backward()
    with torch.no_grad():
        w -= 0.5 * w.grad
        b -= 0.5 * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if it % 10 == 0:
        acc = ((p > 0.5).float() == y).float().mean()
        print(f"iter {it:2d}  loss={loss.item():.4f}  acc={acc.item():.2%}")
print(w.detach(), b.detach())
print(p[:4])
