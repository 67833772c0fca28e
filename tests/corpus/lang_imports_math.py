# Written for gradcli after programs that mix math with torch: import math, aliases, math
# functions on items, and the functional API under F.
import math

import torch
import torch.nn.functional as F
from torch import nn

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
y = F.relu(x) * math.exp(1) + torch.sigmoid(x) * math.pi
y.sum().backward()
print(y, x.grad)
print(math.sqrt(16), math.sqrt(2.0), math.log(x.sum().item()), math.isclose(math.pi, 3.14159, rel_tol=1e-5))
w = nn.Parameter(torch.tensor([0.1, 0.2]))
print(w, isinstance(w, nn.Parameter), isinstance(w, torch.Tensor))
print(F.mse_loss(x, torch.zeros(3)), round(math.cos(0.0)), math.floor(-0.5), math.inf > 1e308)
