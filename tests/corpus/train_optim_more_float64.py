# Written for gradcli after PyTorch's torch/optim/adamw.py, rmsprop.py and adagrad.py (the
# single-tensor code a CPU runs): AdamW, RMSprop and Adagrad in float64, where the step
# counters are float64 too.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)

CONFIGS = [
    lambda ps: torch.optim.AdamW(ps, lr=1e-2),
    lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1, amsgrad=True),
    lambda ps: torch.optim.RMSprop(ps, lr=1e-3, centered=True, momentum=0.8),
    lambda ps: torch.optim.RMSprop(ps, lr=2e-3, weight_decay=0.05),
    lambda ps: torch.optim.Adagrad(ps, lr=0.1, lr_decay=0.02, weight_decay=0.01),
    lambda ps: torch.optim.Adagrad(ps, lr=0.05, initial_accumulator_value=0.1),
]
for k, make in enumerate(CONFIGS):
    torch.manual_seed(40 + k)
    model = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
    X, y = torch.randn(18, 5), torch.randint(0, 3, (18,))
    opt = make(model.parameters())
    for step in range(30):
        loss = F.cross_entropy(model(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(step, loss.item())
    print(k, type(opt).__name__, loss.item())
    for p in model.parameters():
        print(p.reshape(-1).tolist())
    print(opt.state[model[2].bias])
