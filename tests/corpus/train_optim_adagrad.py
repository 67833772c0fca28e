# Written for gradcli after PyTorch's torch/optim/adagrad.py (_single_tensor_adagrad, the code
# a CPU runs): Adagrad with learning-rate decay, weight decay, an initial accumulator and
# maximize; its state is made with the optimizer, before any step.
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIGS = [
    lambda ps: torch.optim.Adagrad(ps),
    lambda ps: torch.optim.Adagrad(ps, lr=0.1, lr_decay=0.05),
    lambda ps: torch.optim.Adagrad(ps, lr=0.05, weight_decay=0.1, initial_accumulator_value=0.5),
    lambda ps: torch.optim.Adagrad(ps, lr=0.02, lr_decay=0.01, weight_decay=0.01, eps=1e-6,
                                   maximize=True),
]
for k, make in enumerate(CONFIGS):
    torch.manual_seed(30 + k)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
    X = torch.randn(12, 3)
    y = (X[:, :1] > 0).float()
    opt = make(model.parameters())
    print(len(opt.state), opt.state[model[2].bias])
    for step in range(30):
        loss = F.binary_cross_entropy_with_logits(model(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 6 == 0:
            print(step, loss.item())
    print(k, type(opt).__name__, loss.item())
    for p in model.parameters():
        print(p.reshape(-1).tolist(), p._version)
    for key, value in opt.state[model[0].weight].items():
        print(key, value.reshape(-1).tolist(), value._version)
print(opt)
for bad in ({"lr": -1.0}, {"lr_decay": -0.1}, {"initial_accumulator_value": -1.0},
            {"eps": -1.0}):
    try:
        torch.optim.Adagrad(model.parameters(), **bad)
    except ValueError as e:
        print("ValueError:", e)
