# Written for gradcli after the makemore "becoming a backprop ninja" lecture (Karpathy): a
# batch-norm MLP's loss backpropagated by hand, step by step, compared with autograd's grads
# (retain_grad on every intermediate), and the fused cross_entropy gradient.
import torch
import torch.nn.functional as F


def cmp(s, dt, t):
    ex = torch.all(dt == t.grad).item()
    app = torch.allclose(dt, t.grad)
    maxdiff = (dt - t.grad).abs().max().item()
    print(f"{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff}")  # noqa: RUF010


g = torch.Generator().manual_seed(2147483647)
n_embd, n_hidden, vocab_size, block_size, n = 10, 64, 27, 3, 32
C = torch.randn((vocab_size, n_embd), generator=g)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / 30 ** 0.5
W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.1
b2 = torch.randn(vocab_size, generator=g) * 0.1
bngain = torch.randn((1, n_hidden), generator=g) * 0.1 + 1.0
parameters = [C, W1, W2, b2, bngain]
for p in parameters:
    p.requires_grad = True
Xb = torch.randint(0, vocab_size, (n, block_size), generator=g)
Yb = torch.randint(0, vocab_size, (n,), generator=g)
hprebn = C[Xb].view(n, -1) @ W1
bndiff = hprebn - 1 / n * hprebn.sum(0, keepdim=True)
bnvar_inv = (1 / (n - 1) * (bndiff ** 2).sum(0, keepdim=True) + 1e-5) ** -0.5
h = torch.tanh(bngain * bndiff * bnvar_inv)
logits = h @ W2 + b2
norm_logits = logits - logits.max(1, keepdim=True).values
counts = norm_logits.exp()
counts_sum_inv = counts.sum(1, keepdims=True) ** -1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[range(n), Yb].mean()
for t in [logprobs, probs, counts, counts_sum_inv, norm_logits, logits, h]:
    t.retain_grad()
loss.backward()
print(loss.item())
dlogprobs = torch.zeros_like(logprobs)
dlogprobs[range(n), Yb] = -1.0 / n
dprobs = (1.0 / probs) * dlogprobs
dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
dcounts = counts_sum_inv * dprobs + torch.ones_like(counts) * (-counts_sum_inv ** 2 * dcounts_sum_inv)
dnorm_logits = counts * dcounts
dlogits = dnorm_logits.clone()
dlogits += F.one_hot(logits.max(1).indices, num_classes=vocab_size) * (-dnorm_logits).sum(1, keepdim=True)
for name, d, t in [("logprobs", dlogprobs, logprobs), ("probs", dprobs, probs), ("counts", dcounts, counts),
                   ("norm_logits", dnorm_logits, norm_logits), ("logits", dlogits, logits),
                   ("h", dlogits @ W2.T, h), ("W2", h.T @ dlogits, W2), ("b2", dlogits.sum(0), b2)]:
    cmp(name, d, t)
loss_fast = F.cross_entropy(logits, Yb)
print(loss_fast.item(), "diff:", (loss_fast - loss).item())
dlogits = F.softmax(logits, 1)
dlogits[range(n), Yb] -= 1
cmp("logits (fused)", dlogits / n, logits)
