# Written for gradcli after the PyTorch "Learning PyTorch with Examples" tutorial (nn and optim
# sections): a 2-layer MLP fits a noisy sine with nn.Sequential, nn.MSELoss and SGD.
import math
import torch
from torch import nn

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 64).unsqueeze(1)
y = torch.sin(x) + 0.1 * torch.randn(64, 1)

model = nn.Sequential(
    nn.Linear(1, 16),
    nn.Tanh(),
    nn.Linear(16, 1),
)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for t in range(100):
    y_pred = model(x)
    loss = loss_fn(y_pred, y)
    if t % 20 == 0:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print("final loss:", round(loss.item(), 4))
print(model)
print(model[2].bias)
