# Written for gradcli after forum questions on freezing a layer: requires_grad_(False) on one
# module, which grads are None, zero_grad() and gradient accumulation across two backwards.
import torch
from torch import nn

torch.manual_seed(7)
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
net[0].requires_grad_(False)
print([p.requires_grad for p in net.parameters()])

x = torch.randn(5, 3)
target = torch.randn(5, 2)
loss = nn.functional.mse_loss(net(x), target)
loss.backward()
print("frozen weight grad:", net[0].weight.grad)
print("last layer grad:", net[2].weight.grad)
first = net[2].bias.grad.clone()

loss2 = nn.functional.mse_loss(net(x), target)
loss2.backward()
print("accumulated:", torch.allclose(net[2].bias.grad, 2 * first))

net.zero_grad()
print("after zero_grad:", net[2].weight.grad)

trainable = [p for p in net.parameters() if p.requires_grad]
opt = torch.optim.SGD(trainable, lr=0.5)
before = net[0].weight.clone()
loss3 = nn.functional.mse_loss(net(x), target)
loss3.backward()
opt.step()
print(torch.equal(before, net[0].weight), net[2].weight.grad is not None)
print(opt)
