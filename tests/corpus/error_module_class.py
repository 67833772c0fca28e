# Written for gradcli after the PyTorch docs' nn.Module reference: what PyTorch says when a
# Module subclass is misused (each error caught and printed), then an uncaught one.
import torch
from torch import nn
torch.manual_seed(0)

def show(fn):
    try:
        print(fn())
    except Exception as e:
        print(type(e).__name__ + ":", e)

class Net(nn.Module):
    def __init__(self, hidden=3):
        super().__init__()
        self.fc = nn.Linear(2, hidden)
        self.register_buffer("steps", torch.zeros(()))
        self.scale = nn.Parameter(torch.ones(1))
    def forward(self, x):
        self.steps += 1
        return self.fc(x) * self.scale

class Forgot(nn.Module):
    def __init__(self):
        self.fc = nn.Linear(2, 2)

class NoForward(nn.Module):
    pass

net = Net()
show(lambda: net.weight)
show(lambda: Forgot())
show(lambda: NoForward()(torch.ones(2)))
show(lambda: Net(3, 4))
show(lambda: Net(width=2))
show(lambda: setattr(net, "fc", 5))
show(lambda: setattr(net, "scale", torch.ones(1)))
show(lambda: setattr(net, "steps", [1]))
show(lambda: net.register_buffer("fc", torch.ones(1)))
show(lambda: net.register_parameter("w", torch.ones(1)))
show(lambda: net.add_module("a.b", nn.ReLU()))
sd = net.state_dict()
print(net, list(sd), sd["steps"])
show(lambda: net.load_state_dict({k: v for k, v in sd.items() if k != "scale"}))
show(lambda: net.load_state_dict({**sd, "fc.weight": torch.ones(2, 2), "extra": torch.ones(1)}))
print(net.load_state_dict(sd), net.load_state_dict({"scale": torch.ones(1) * 2}, strict=False))
out = net(torch.ones(1, 2))
print(out, net.steps, net.scale, [n for n, _ in net.named_buffers()], net.training)
net.eval()
print(net.training, net.fc.training, [type(m).__name__ for m in net.modules()])
net(torch.ones(3))
