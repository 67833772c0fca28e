# Written for gradcli after the training loops that clip gradients (the word-language-model
# example, torch.nn.utils.clip_grad_norm_'s docs): a small float32 network, each step's loss
# and total gradient norm printed in full, so every bit of the norm kernel shows; then the
# 1-, 3- and inf-norms, and F.normalize and torch.norm along each dimension of a weight.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
model = nn.Sequential(nn.Linear(5, 37), nn.Tanh(), nn.Linear(37, 19), nn.ReLU(), nn.Linear(19, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
X = torch.randn(64, 5)
y = torch.stack([X[:, 0] * 3 - X[:, 1], X[:, 2] * X[:, 3]], dim=1)
for step in range(12):
    opt.zero_grad()
    loss = F.mse_loss(model(X), y)
    loss.backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    print(step, loss.item(), total.item())
    opt.step()
for norm_type in (1.0, 3.0, float("inf")):
    opt.zero_grad()
    F.mse_loss(model(X), y).backward()
    print(norm_type, nn.utils.clip_grad_norm_(model.parameters(), 0.25, norm_type).item())
w = model[2].weight.detach()
print(w.norm().item(), w.norm(dim=0).tolist(), w.norm(dim=1).tolist())
print(F.normalize(w, dim=1)[0].tolist())
print(torch.linalg.vector_norm(w, 1, dim=0).tolist())
print(torch.norm(w.t(), dim=1).tolist())
