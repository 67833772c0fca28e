# Source: PyTorch tutorial "Neural Networks" (60 Minute Blitz),
# github.com/pytorch/tutorials/blob/main/beginner_source/blitz/neural_networks_tutorial.py
# Licence: BSD-3-Clause. Code verbatim (its earlier forward; comments and the manual update
# dropped, a print or two joined) + torch.manual_seed(0), a walk to ConvolutionBackward0, the
# loss after the update.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

net = Net()
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())
input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)
net.zero_grad()
out.backward(torch.randn(1, 10))
output = net(input)
target = torch.randn(10).view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)
print(loss.grad_fn)
print(loss.grad_fn.next_functions[0][0])
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])
node = output.grad_fn
while node.name() != "ConvolutionBackward0":
    node = [f for f, _ in node.next_functions if f and "Accumulate" not in f.name()][0]
print(node.name(), node._saved_stride, node._saved_padding, node._saved_weight.shape,
      [f.name() if f else None for f, _ in node.next_functions])
net.zero_grad()
print('conv1.bias.grad before backward', net.conv1.bias.grad)
loss.backward()
print('conv1.bias.grad after backward', net.conv1.bias.grad)
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
optimizer.zero_grad()
loss = criterion(net(input), target)
loss.backward()
optimizer.step()
print(criterion(net(input), target).item())
