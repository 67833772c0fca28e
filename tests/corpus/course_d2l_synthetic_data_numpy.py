# Written for gradcli after d2l's synthetic_data and linear regression from scratch (https://d2l.ai/chapter_linear-regression/linear-regression-scratch.html), its data made with NumPy's Generator as NumPy users write it
import numpy as np
import torch

rng = np.random.default_rng(42)
true_w = np.array([2.0, -3.4])
true_b = 4.2
X = rng.normal(0, 1, (100, len(true_w)))
y = X @ true_w + true_b + rng.normal(0, 0.01, len(X))
print('features:', X[0], '\nlabel:', y[0])
print(X.shape, y.shape, X.dtype)

features = torch.from_numpy(X.astype(np.float32))
labels = torch.tensor(y, dtype=torch.float32).reshape(-1, 1)

w = torch.zeros((2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr, batch_size = 0.03, 10
indices = rng.permutation(len(X))
for epoch in range(3):
    for i in range(0, len(X), batch_size):
        batch = torch.tensor(indices[i:i + batch_size])
        Xb, yb = features[batch], labels[batch]
        l = ((Xb @ w + b - yb) ** 2 / 2).sum()
        l.backward()
        with torch.no_grad():
            w -= lr * w.grad / batch_size
            b -= lr * b.grad / batch_size
            w.grad.zero_()
            b.grad.zero_()
    with torch.no_grad():
        train_l = ((features @ w + b - labels) ** 2 / 2).mean()
    print(f'epoch {epoch + 1}, loss {float(train_l):f}')

print(f'error in estimating w: {true_w - w.detach().numpy().reshape(true_w.shape)}')
print(f'error in estimating b: {true_b - b.item()}')
np.set_printoptions(precision=3, suppress=True)
print(w.detach().numpy().T, np.round(b.detach().numpy(), 2))
