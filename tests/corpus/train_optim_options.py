# Written for gradcli after PyTorch's torch/optim/adam.py and sgd.py (the single-tensor code a
# CPU runs): every option of Adam and SGD over a small model, a frozen weight, a bias whose
# gradient is dropped on some steps, two param groups, and states changed between steps.
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIGS = [
    lambda ps: torch.optim.Adam(ps, lr=1e-2),
    lambda ps: torch.optim.Adam(ps, lr=1e-2, weight_decay=0.1),
    lambda ps: torch.optim.Adam(ps, lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True,
                                amsgrad=True),
    lambda ps: torch.optim.Adam(ps, lr=1e-3, betas=(0.3, 0.8), eps=1e-3, maximize=True),
    lambda ps: torch.optim.SGD(ps, lr=0.1),
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
    lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.5, nesterov=True, maximize=True),
]
for k, make in enumerate(CONFIGS):
    torch.manual_seed(k)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
    model[2].weight.requires_grad_(False)
    X, y = torch.randn(24, 5), torch.randint(0, 3, (24,))
    opt = make([{"params": model[0].parameters()},
                {"params": list(model[2].parameters()) + list(model[4].parameters()),
                 "lr": 0.02}])
    for step in range(12):
        loss = F.cross_entropy(model(X), y)
        opt.zero_grad()
        loss.backward()
        if step % 4 == 1:
            model[4].bias.grad = None
        opt.step()
        state = opt.state.get(model[0].weight, {})
        if step == 5 and "exp_avg" in state:
            state["exp_avg"].mul_(0.5)
        if step == 5 and "momentum_buffer" in state:
            state["momentum_buffer"].mul_(0.5)
        if step == 8:
            model[0].weight.data = model[0].weight.data * 1.5
    print(k, type(opt).__name__, loss.item())
    for p in model.parameters():
        print(p.reshape(-1).tolist(), p._version)
    for key, value in opt.state.get(model[4].weight, {}).items():
        print(key, value.reshape(-1).tolist(), value._version)
