# Written for gradcli after PyTorch's torch/optim/adamw.py (Adam with decoupled weight decay)
# and adam.py's single-tensor code a CPU runs: AdamW with and without amsgrad over a small
# model, two param groups, a bias whose gradient is dropped on some steps.
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIGS = [
    lambda ps: torch.optim.AdamW(ps),
    lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1),
    lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.05, amsgrad=True),
    lambda ps: torch.optim.AdamW(ps, lr=3e-3, betas=(0.5, 0.9), eps=1e-4, amsgrad=True,
                                 maximize=True),
]
for k, make in enumerate(CONFIGS):
    torch.manual_seed(10 + k)
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3))
    X, y = torch.randn(20, 4), torch.randint(0, 3, (20,))
    opt = make([{"params": model[0].parameters()},
                {"params": model[2].parameters(), "lr": 0.02}])
    for step in range(30):
        loss = F.cross_entropy(model(X), y)
        opt.zero_grad()
        loss.backward()
        if step % 7 == 3:
            model[2].bias.grad = None
        opt.step()
        if step % 6 == 0:
            print(step, loss.item())
    print(k, type(opt).__name__, loss.item())
    for p in model.parameters():
        print(p.reshape(-1).tolist(), p._version)
    for key, value in opt.state[model[2].weight].items():
        print(key, value.reshape(-1).tolist(), value._version)
print(opt)
try:
    torch.optim.AdamW(model.parameters(), lr=-1.0)
except ValueError as e:
    print("ValueError:", e)
