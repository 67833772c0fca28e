# Written for gradcli after torch/optim/optimizer.py: ``Optimizer.state`` is a
# defaultdict(dict), so a parameter the optimizer has not stepped reads as {} (and is added).
import torch

w = torch.zeros(2, requires_grad=True)
b = torch.ones(1, requires_grad=True)
opt = torch.optim.Adam([w, b], lr=0.1)
print(opt.state[w])
print(opt.state)
print(len(opt.state), type(opt.state).__name__)
(w * 3 + b).sum().backward()
opt.step()
print(sorted(opt.state[w].keys()), opt.state[w]["step"])
print(len(opt.state), opt.state.get(b)["exp_avg"])
sgd = torch.optim.SGD([w], lr=0.1, momentum=0.9)
print(sgd.state[w], "momentum_buffer" in sgd.state[w])
snapshot = opt.state.copy()
print(type(snapshot).__name__, len(snapshot), snapshot[torch.ones(1)], len(snapshot), len(opt.state))
