# Written for gradcli after the PyTorch docs of torch.logsumexp, torch.cumsum, torch.amax,
# torch.lerp and torch.addcmul, used as tutorials do: a stable log-likelihood, a running
# total, an exponential moving average of the weights and an Adam-like second moment.
import torch
import torch.nn.functional as F

torch.manual_seed(1)
logits = torch.randn(4, 3, requires_grad=True)
labels = torch.tensor([0, 2, 1, 2])

lse = torch.logsumexp(logits, dim=1)
log_probs = logits - lse.unsqueeze(1)
nll = -log_probs[torch.arange(4), labels].mean()
nll.backward()
print(lse)
print(nll, F.cross_entropy(logits.detach(), labels))
print(logits.grad)
print(lse.grad_fn, lse.grad_fn.next_functions)

x = torch.tensor([0.5, -1.0, 2.0, 0.25], requires_grad=True)
running = torch.cumsum(x, dim=0)
peak = torch.amax(running)
print(running, peak, torch.amin(x), torch.cumprod(x, 0))
(peak + running.sum()).backward()
print(x.grad)

w = torch.zeros(3)
ema = torch.zeros(3)
v = torch.zeros(3)
for step in range(3):
    g = torch.tensor([1.0, -2.0, 0.5]) * (step + 1)
    ema = torch.lerp(ema, g, 0.1)
    v.mul_(0.999).addcmul_(g, g, value=0.001)
    w = w - 0.01 * ema / (v.sqrt() + 1e-8)
print(ema)
print(v)
print(w)

a = torch.tensor([1.0, -1.0, -1.0, 1.0], requires_grad=True)
b = torch.tensor([1.0, 1.0, -1.0, -1.0], requires_grad=True)
angle = torch.atan2(b, a)
print(angle, angle * 180 / torch.pi)
angle.sum().backward()
print(a.grad, b.grad)
print(torch.diff(running), torch.dist(a, b))
