# A bigram character model as the "makemore" lecture builds it: counts -> probabilities,
# sampling names with torch.multinomial from a seeded torch.Generator, then the same model
# learned by gradient descent on a one-hot linear layer.
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper", "evelyn"]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)

N = torch.zeros((V, V), dtype=torch.int32)
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        N[stoi[ch1], stoi[ch2]] += 1

P = (N + 1).float()
P /= P.sum(1, keepdim=True)
print(P[0].sum(), P.shape)

g = torch.Generator().manual_seed(2147483647)
for _ in range(5):
    out = []
    ix = 0
    while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print("".join(out))

# the negative log likelihood of the training set
log_likelihood = 0.0
n = 0
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        log_likelihood += torch.log(P[stoi[ch1], stoi[ch2]])
        n += 1
print(f"nll={-log_likelihood / n:.4f}")

# the same model as a single linear layer trained by gradient descent
xs, ys = [], []
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
W = torch.randn((V, V), generator=g, requires_grad=True)
for k in range(30):
    xenc = F.one_hot(xs, num_classes=V).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
    W.grad = None
    loss.backward()
    W.data += -10 * W.grad
    if k % 10 == 0:
        print(k, loss.item())

for _ in range(3):
    out = []
    ix = 0
    while True:
        xenc = F.one_hot(torch.tensor([ix]), num_classes=V).float()
        p = (xenc @ W).exp()
        p = p / p.sum(1, keepdims=True)
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print("".join(out))
print(torch.multinomial(P[:3], 4, replacement=True, generator=g))
print(torch.multinomial(P[1], 3, generator=g))
