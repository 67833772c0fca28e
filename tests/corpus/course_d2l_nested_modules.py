# Source: Dive into Deep Learning, "Layers and Modules", "Parameter Management" and "Custom
# Layers" (PyTorch), https://d2l.ai/chapter_builders-guide/ (MIT-0); nn.Linear with its input
# size instead of nn.LazyLinear, seeded.
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
X = torch.rand(2, 20)

class NestMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(),
                                 nn.Linear(64, 32), nn.ReLU())
        self.linear = nn.Linear(32, 16)
    def forward(self, X):
        return self.linear(self.net(X))


chimera = nn.Sequential(NestMLP(), nn.Linear(16, 20), nn.ReLU())
print(chimera(X).shape, chimera)
net = nn.Sequential(nn.Linear(20, 8), nn.ReLU(), nn.Linear(8, 1))
print(net[2].state_dict())
print(type(net[2].bias), net[2].bias, net[2].bias.data, net[2].weight.grad == None)
print([(name, param.shape) for name, param in net.named_parameters()])

def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)


net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])

class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.Linear(8, 128), CenteredLayer())
print(net(torch.rand(4, 8)).mean())

class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))
    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight, linear(torch.rand(2, 5)), list(linear.state_dict()))
