# Written for gradcli after forum questions on KLDivLoss ("input must be log-probabilities";
# "what is batchmean?") and SoftMarginLoss, with the regression losses' reductions.
import torch
import torch.nn.functional as F

torch.manual_seed(3)
logits = torch.randn(4, 5, requires_grad=True)
target = torch.softmax(torch.randn(4, 5), dim=1)
log_probs = F.log_softmax(logits, dim=1)
kl = F.kl_div(log_probs, target, reduction="batchmean")
print(kl, kl.grad_fn)
kl.backward()
print(logits.grad)
manual = (target * (target.log() - log_probs)).sum() / 4
print(torch.allclose(kl, manual))
print(F.kl_div(log_probs, target.log(), reduction="sum", log_target=True))
print(F.kl_div(log_probs, target))  # 'mean' warns

y = torch.tensor([1., -1., 1., -1.])
s = torch.tensor([0.8, -2.0, -0.3, 0.1], requires_grad=True)
for reduction in ("mean", "sum", "none"):
    loss = F.soft_margin_loss(s, y, reduction=reduction)
    print(reduction, loss)
F.soft_margin_loss(s, y).backward()
print(s.grad)

pred = torch.tensor([0.5, 2.0, -1.0, 3.5], requires_grad=True)
true = torch.tensor([0.0, 2.5, -1.0, 1.0])
for fn in (F.l1_loss, F.smooth_l1_loss, F.huber_loss):
    for reduction in ("mean", "sum", "none"):
        print(fn.__name__, reduction, fn(pred, true, reduction=reduction))
F.smooth_l1_loss(pred, true, beta=0.5).backward()
print(pred.grad)
