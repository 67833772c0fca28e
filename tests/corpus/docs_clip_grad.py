# Written for gradcli after the RNN and training-loop tutorials that clip gradients:
# torch.nn.utils.clip_grad_norm_ (2-, 1- and inf-norms, the norm before clipping returned)
# and clip_grad_value_, between backward() and the optimizer's step.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
X = torch.randn(20, 2)
y = X[:, :1] * 20 - X[:, 1:] * 5
for epoch in range(5):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    print(epoch, round(loss.item(), 3), total, model[2].weight.grad)
    opt.step()
torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
print(model[0].weight.grad)
w = torch.tensor([3.0, 4.0], requires_grad=True)
(w * w).sum().backward()
print(torch.nn.utils.clip_grad_norm_(w, 2.0, norm_type=1), w.grad)
print(torch.nn.utils.clip_grad_norm_([w], 100.0, norm_type=float("inf")), w.grad)
