# Source: Dive into Deep Learning, "Layers and Modules" (model construction, PyTorch),
# https://d2l.ai/chapter_builders-guide/model-construction.html (MIT-0); nn.Linear with its
# input size instead of nn.LazyLinear, seeded.
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10))
X = torch.rand(2, 20)
print(net(X).shape)


class MLP(nn.Module):
    def __init__(self):
        # Call the constructor of the parent class nn.Module (the necessary initialization)
        super().__init__()
        self.hidden = nn.Linear(20, 256)
        self.out = nn.Linear(256, 10)
    # Define the forward propagation of the model, that is, how to return the
    # required model output based on the input X
    def forward(self, X):
        return self.out(F.relu(self.hidden(X)))


net = MLP()
print(net(X).shape, net)


class MySequential(nn.Module):
    def __init__(self, *args):
        super().__init__()
        for idx, module in enumerate(args):
            self.add_module(str(idx), module)
    def forward(self, X):
        for module in self.children():
            X = module(X)
        return X


net = MySequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10))
print(net(X).shape, net)


class FixedHiddenMLP(nn.Module):
    def __init__(self):
        super().__init__()
        # Random weight parameters that will not compute gradients: constant during training
        self.rand_weight = torch.rand((20, 20))
        self.linear = nn.Linear(20, 20)
    def forward(self, X):
        X = self.linear(X)
        X = F.relu(X @ self.rand_weight + 1)
        X = self.linear(X)  # Reuse the fully connected layer
        while X.abs().sum() > 1:  # Control flow
            X /= 2
        return X.sum()


print(FixedHiddenMLP()(X))
