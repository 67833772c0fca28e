# Written for gradcli after PyTorch's nn.LayerNorm and optim docs and the forum idiom
# p.add_(p.grad, alpha=-lr): a LayerNorm classifier trained by hand, then with AdamW; float32
# and float64 (layer_norm's moments and fused multiply-adds, add's fused alpha, softplus and
# BCE with logits, softmax over a leading dimension into a product).
import torch
import torch.nn as nn
import torch.nn.functional as F

for dtype in (torch.float32, torch.float64):
    torch.manual_seed(0)
    X = torch.randn(48, 10, dtype=dtype)
    y = (X[:, 0] - X[:, 1] > 0).to(dtype)
    net = nn.Sequential(nn.Linear(10, 33), nn.LayerNorm(33), nn.Tanh(), nn.Linear(33, 1))
    net.to(dtype)
    for step in range(15):
        logits = net(X).squeeze(1)
        loss = F.binary_cross_entropy_with_logits(logits, y) + 0.01 * F.softplus(logits).mean()
        net.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in net.parameters():
                p.add_(p.grad, alpha=-0.2)
        if step % 5 == 0:
            print(step, loss.item())
    opt = torch.optim.AdamW(net.parameters(), lr=0.01)
    for step in range(10):
        h = net[2](net[1](net[0](X)))
        attn = torch.softmax(h, dim=0)
        loss = F.binary_cross_entropy_with_logits(net[3](h).squeeze(1), y) + \
            (attn.t() @ h).pow(2).mean() * 1e-3
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(dtype, loss.item())
    print(net[1].weight.grad[:4])
    print(net[0].bias.detach()[:4])
