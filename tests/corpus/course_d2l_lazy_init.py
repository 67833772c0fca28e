# Source: Dive into Deep Learning, "Lazy Initialization" (PyTorch),
# https://d2l.ai/chapter_builders-guide/lazy-init.html (MIT-0); with what the chapter says of
# the uninitialised parameters printed, seeded.
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
print(net[0].weight)
print(net)
print(type(net[0]).__name__, isinstance(net[0], nn.Linear), type(net[0].weight))
print(net.state_dict())
try:
    print(net[0].weight.shape)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    print(sum(p.numel() for p in net.parameters()))
except ValueError as e:
    print("ValueError:", str(e)[:60])

X = torch.rand(2, 20)
print(net(X).shape)
print(net[0].weight.shape, net[2].weight.shape, type(net[0]).__name__)
print(net)
print(sum(p.numel() for p in net.parameters()))


def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)


net.apply(init_normal)
print(net[0].weight.data[0, :4], net[0].bias.data[:4])
