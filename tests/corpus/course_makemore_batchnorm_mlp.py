# Written for gradcli after the makemore lecture on activations and batch normalisation
# (Karpathy): an MLP over character contexts with a hand-written batch norm (mean and std over
# the batch, running statistics under no_grad), trained on minibatches, evaluated and sampled.
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper"]
stoi = {s: i + 1 for i, s in enumerate(sorted(set("".join(words))))}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
V, block, n_embd, n_hidden = len(stoi), 3, 4, 20
X, Y = [], []
for w in words:
    context = [0] * block
    for ch in w + ".":
        X.append(context)
        Y.append(stoi[ch])
        context = context[1:] + [stoi[ch]]
X, Y = torch.tensor(X), torch.tensor(Y)
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((V, n_embd), generator=g)
W1 = torch.randn((n_embd * block, n_hidden), generator=g) * (5 / 3) / ((n_embd * block) ** 0.5)
W2 = torch.randn((n_hidden, V), generator=g) * 0.01
b2 = torch.randn(V, generator=g) * 0
bngain, bnbias = torch.ones((1, n_hidden)), torch.zeros((1, n_hidden))
bnmean_running, bnstd_running = torch.zeros((1, n_hidden)), torch.ones((1, n_hidden))
parameters = [C, W1, W2, b2, bngain, bnbias]
for p in parameters:
    p.requires_grad = True
for i in range(100):
    ix = torch.randint(0, X.shape[0], (16,), generator=g)
    hpreact = C[X[ix]].view(16, -1) @ W1
    bnmeani, bnstdi = hpreact.mean(0, keepdim=True), hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
    loss = F.cross_entropy(torch.tanh(hpreact) @ W2 + b2, Y[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    for p in parameters:
        p.data += -(0.1 if i < 50 else 0.01) * p.grad
    if i % 25 == 0:
        print(f"{i:4d}: {loss.item():.4f} {loss.log10().item():.6f}")
with torch.no_grad():
    hpreact = bngain * (C[X].view(X.shape[0], -1) @ W1 - bnmean_running) / bnstd_running + bnbias
    print("loss", F.cross_entropy(torch.tanh(hpreact) @ W2 + b2, Y).item())
    for _ in range(2):
        out, context = [], [0] * block
        while True:
            emb = C[torch.tensor([context])].view(1, -1)
            h = torch.tanh(bngain * (emb @ W1 - bnmean_running) / bnstd_running + bnbias)
            probs = F.softmax(h @ W2 + b2, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(itos[ix])
            if ix == 0:
                break
        print("".join(out))
