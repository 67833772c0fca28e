# Written for gradcli after the makemore lecture's bigram model (Karpathy, "Neural Networks: Zero
# to Hero"): counts -> probabilities, names sampled with torch.multinomial from a seeded
# torch.Generator, the loss, then the same model as a one-hot linear layer trained by descent.
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper", "evelyn"]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)
pairs = [(ch1, ch2) for w in words for ch1, ch2 in zip("." + w, w + ".")]

N = torch.zeros((V, V), dtype=torch.int32)
for ch1, ch2 in pairs:
    N[stoi[ch1], stoi[ch2]] += 1
P = (N + 1).float()
P /= P.sum(1, keepdim=True)
print(P[0].sum(), P.shape)

g = torch.Generator().manual_seed(2147483647)


def sample(next_probs):
    out, ix = [], 0
    while True:
        ix = torch.multinomial(next_probs(ix), num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            return "".join(out)


for _ in range(5):
    print(sample(lambda ix: P[ix]))
nll = -sum(torch.log(P[stoi[a], stoi[b]]) for a, b in pairs) / len(pairs)
print(f"nll={nll:.4f}")

xs = torch.tensor([stoi[a] for a, _ in pairs])
ys = torch.tensor([stoi[b] for _, b in pairs])
num = xs.nelement()
W = torch.randn((V, V), generator=g, requires_grad=True)
for k in range(30):
    logits = F.one_hot(xs, num_classes=V).float() @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
    W.grad = None
    loss.backward()
    W.data += -10 * W.grad
    if k % 10 == 0:
        print(k, loss.item())
for _ in range(3):
    print(sample(lambda ix: F.softmax(F.one_hot(torch.tensor([ix]), V).float() @ W, dim=1)))
print(torch.multinomial(P[:3], 4, replacement=True, generator=g))
print(torch.multinomial(P[1], 3, generator=g))
