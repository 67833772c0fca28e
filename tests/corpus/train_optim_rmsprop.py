# Written for gradcli after PyTorch's torch/optim/rmsprop.py (_single_tensor_rmsprop, the code
# a CPU runs): RMSprop plain, centered, with momentum, weight decay and maximize, over a small
# model for 30 steps.
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIGS = [
    lambda ps: torch.optim.RMSprop(ps),
    lambda ps: torch.optim.RMSprop(ps, lr=3e-3, centered=True),
    lambda ps: torch.optim.RMSprop(ps, lr=1e-3, momentum=0.9),
    lambda ps: torch.optim.RMSprop(ps, lr=2e-3, alpha=0.9, weight_decay=0.1),
    lambda ps: torch.optim.RMSprop(ps, lr=1e-3, alpha=0.95, eps=1e-6, momentum=0.5,
                                   centered=True, weight_decay=0.01, maximize=True),
]
for k, make in enumerate(CONFIGS):
    torch.manual_seed(20 + k)
    model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
    X, y = torch.randn(16, 4), torch.randn(16, 2)
    opt = make(model.parameters())
    for step in range(30):
        loss = F.mse_loss(model(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 6 == 0:
            print(step, loss.item())
    print(k, type(opt).__name__, loss.item())
    for p in model.parameters():
        print(p.reshape(-1).tolist(), p._version)
    for key, value in opt.state[model[2].weight].items():
        print(key, value.reshape(-1).tolist(), value._version)
print(opt)
for bad in ({"lr": -1.0}, {"eps": -1e-8}, {"momentum": -0.5}, {"alpha": -0.1},
            {"weight_decay": -2}):
    try:
        torch.optim.RMSprop(model.parameters(), **bad)
    except ValueError as e:
        print("ValueError:", e)
