# Source: Dive into Deep Learning, "Concise Implementation of Linear Regression" (PyTorch),
# https://d2l.ai/chapter_linear-regression/linear-regression-concise.html (MIT-0); the d2l
# package's Module and Trainer written out (the optimizer made before the first forward, as
# d2l's Trainer makes it), scaled down and seeded.
import torch
from torch import nn

torch.manual_seed(0)


class LinearRegression(nn.Module):
    """The linear regression model implemented with high-level APIs."""
    def __init__(self, lr):
        super().__init__()
        self.lr = lr
        self.net = nn.LazyLinear(1)
        self.net.weight.data.normal_(0, 0.01)
        self.net.bias.data.fill_(0)

    def forward(self, X):
        return self.net(X)

    def loss(self, y_hat, y):
        fn = nn.MSELoss()
        return fn(y_hat, y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), self.lr)

    def get_w_b(self):
        return (self.net.weight.data, self.net.bias.data)


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features = torch.randn(64, 2)
labels = (features @ true_w + true_b + torch.randn(64) * 0.01).reshape(-1, 1)
model = LinearRegression(lr=0.03)
optim = model.configure_optimizers()  # before the first forward, as d2l's Trainer does
print(model)
for epoch in range(3):
    for i in range(0, 64, 16):
        loss = model.loss(model(features[i:i + 16]), labels[i:i + 16])
        optim.zero_grad()
        loss.backward()
        optim.step()
    print(f"epoch {epoch + 1}, loss {loss.item():f}")
print(model)
w, b = model.get_w_b()
print(f"error in estimating w: {true_w - w.reshape(true_w.shape)}")
print(f"error in estimating b: {true_b - b}")
print(optim.param_groups[0]["params"][0] is model.net.weight, model.net.weight.grad)
