# Written for gradcli after forum threads on gradient accumulation ("divide the loss by the number
# of accumulation steps, step every N batches"), with torch.optim.SGD and zero_grad.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
X = torch.randn(16, 3)
y = X @ torch.tensor([1.0, -2.0, 0.5]) + 0.3
w = nn.Parameter(torch.zeros(3))
b = nn.Parameter(torch.zeros(1))
opt = torch.optim.SGD([w, b], lr=0.1)
accum = 4

for step, (xb, yb) in enumerate(zip(X.split(2), y.split(2))):
    loss = F.mse_loss(xb @ w + b, yb) / accum
    loss.backward()
    if (step + 1) % accum == 0:
        print(f"step {step + 1}: grad w = {w.grad}")
        opt.step()
        opt.zero_grad()
print(w)
print(b.grad, b)
