# Written for gradcli after the PyTorch "Learning PyTorch with Examples" polynomial-fit tutorial
# (nn.Parameter, torch.optim.SGD, F.mse_loss), with math.pi and linspace.
import math
import torch
import torch.nn.functional as F
from torch import nn

x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)

a = nn.Parameter(torch.tensor(0.0))
b = nn.Parameter(torch.tensor(0.0))
c = nn.Parameter(torch.tensor(0.0))
d = nn.Parameter(torch.tensor(0.0))
optimizer = torch.optim.SGD([a, b, c, d], lr=1e-5)
print(a)

for t in range(2000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = F.mse_loss(y_pred, y, reduction='sum')
    if t % 500 == 499:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
print(loss)
