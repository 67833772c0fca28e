# Source: Dive into Deep Learning, "Linear Regression Implementation from Scratch" (PyTorch),
# https://github.com/d2l-ai/d2l-en/blob/master/chapter_linear-regression/linear-regression-scratch.md
# Licence: sample code MIT-0. Adapted for gradcli: torch.normal -> randn, fixed mini-batches
# instead of random.shuffle, 200 examples, seeded.
import torch

torch.manual_seed(0)


def synthetic_data(w, b, num_examples):
    """Generate y = Xw + b + noise."""
    X = torch.randn(num_examples, len(w))
    y = torch.matmul(X, w) + b
    y += 0.01 * torch.randn(y.shape)
    return X, y.reshape((-1, 1))


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 200)
print('features:', features[0], '\nlabel:', labels[0])

w = torch.zeros((2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


lr, num_epochs, batch_size = 0.03, 3, 10
for epoch in range(num_epochs):
    for i in range(0, 200, batch_size):
        X, y = features[i:i + batch_size], labels[i:i + batch_size]
        l = squared_loss(linreg(X, w, b), y)
        l.sum().backward()
        sgd([w, b], lr, batch_size)
    with torch.no_grad():
        train_l = squared_loss(linreg(features, w, b), labels)
        print(f'epoch {epoch + 1}, loss {float(train_l.mean()):f}')

print(f'error in estimating w: {true_w - w.reshape(true_w.shape)}')
print(f'error in estimating b: {true_b - b}')
