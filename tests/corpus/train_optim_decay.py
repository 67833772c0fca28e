# Written for gradcli after PyTorch's torch/optim/adam.py and sgd.py: gradients that stay zero
# after a few steps, so that Adam's first moment and SGD's momentum buffer decay geometrically
# through float32's subnormal range to zero (where a float64 sum may double-round).
import torch

for k in range(3):
    torch.manual_seed(k)
    w = torch.randn(300, requires_grad=True)
    v = torch.randn(7, 13, requires_grad=True)
    if k == 0:
        opt = torch.optim.Adam([w, v], lr=1e-3, betas=(0.6, 0.999))
    elif k == 1:
        opt = torch.optim.SGD([w, v], lr=0.01, momentum=0.6, nesterov=True)
    else:
        opt = torch.optim.Adam([w, v], lr=1e-3, betas=(0.5, 0.9), weight_decay=1e-2,
                               decoupled_weight_decay=True, amsgrad=True)
    for step in range(260):
        n = 300 if step < 10 else 5
        loss = (w[:n] ** 2).sum() + v[:, :3].sin().sum() * (1.0 if step < 20 else 0.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(k, loss.item(), w.tolist(), v.tolist())
    for p in (w, v):
        for key, value in opt.state[p].items():
            print(key, value.reshape(-1).tolist())
