# Written for gradcli after the tutorials that decay the learning rate: StepLR on Adam,
# CosineAnnealingLR on SGD with momentum, LambdaLR, ExponentialLR and MultiStepLR on one optimizer,
# and the warning for a scheduler stepped before its optimizer.
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
X = torch.randn(20, 2)
y = (X[:, :1] * 2 - X[:, 1:])
loss_fn = nn.MSELoss()
for epoch in range(30):
    opt.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    opt.step()
    sched.step()
    if epoch % 10 == 0:
        print(epoch, round(loss.item(), 6), sched.get_last_lr(), sched.last_epoch)
w = torch.zeros(3, requires_grad=True)
sgd = torch.optim.SGD([w], lr=0.1, momentum=0.9)
cos = CosineAnnealingLR(sgd, T_max=7, eta_min=0.001)
lrs = []
for i in range(20):
    sgd.step()
    cos.step()
    lrs.append(cos.get_last_lr()[0])
print(lrs)
sgd2 = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=1.0)
lam = LambdaLR(sgd2, lr_lambda=lambda e: 0.95 ** e)
exp = torch.optim.lr_scheduler.ExponentialLR(sgd2, gamma=0.9)
ms = torch.optim.lr_scheduler.MultiStepLR(sgd2, milestones=[2, 4, 4], gamma=0.5)
for i in range(6):
    sgd2.step()
    lam.step(); exp.step(); ms.step()
    print(i, sgd2.param_groups[0]["lr"], lam.get_last_lr(), exp.get_last_lr(), ms.get_last_lr())
print(sgd2)
print(opt.param_groups[0]["initial_lr"], sched.base_lrs)
w = torch.zeros(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
sched.step()
opt.step()
sched.step()
print(sched.get_last_lr())
