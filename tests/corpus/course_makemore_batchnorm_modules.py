# Written for gradcli after the makemore lectures (Karpathy), part 3 and the WaveNet part's
# torch.nn version: the character MLP written with modules (nn.Embedding, nn.Flatten,
# nn.Linear, nn.BatchNorm1d, nn.Tanh in nn.Sequential), trained on minibatches, then evaluated.
import torch
from torch import nn
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper"]
stoi = {s: i + 1 for i, s in enumerate(sorted(set("".join(words))))}
stoi["."] = 0
V, block, n_embd, n_hidden = len(stoi), 3, 8, 32
X, Y = [], []
for w in words:
    context = [0] * block
    for ch in w + ".":
        X.append(context)
        Y.append(stoi[ch])
        context = context[1:] + [stoi[ch]]
X, Y = torch.tensor(X), torch.tensor(Y)
torch.manual_seed(42)
model = nn.Sequential(
    nn.Embedding(V, n_embd), nn.Flatten(),
    nn.Linear(n_embd * block, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
    nn.Linear(n_hidden, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
    nn.Linear(n_hidden, V),
)
with torch.no_grad():
    model[-1].weight *= 0.1
print(model)
print(sum(p.nelement() for p in model.parameters()), "parameters")
g = torch.Generator().manual_seed(2147483647)
for i in range(60):
    ix = torch.randint(0, X.shape[0], (20,), generator=g)
    loss = F.cross_entropy(model(X[ix]), Y[ix])
    for p in model.parameters():
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 40 else 0.01
    for p in model.parameters():
        p.data += -lr * p.grad
    if i % 10 == 0:
        print(f"{i:3d}: {loss.item():.4f}")
bn = model[3]
print(bn.running_mean[:4], bn.running_var[:4], bn.num_batches_tracked)
print(model[2].weight.grad[0, :4], bn.weight.grad[:4], bn.bias.grad[:4])
model.eval()
with torch.no_grad():
    logits = model(X)
    print("eval loss", F.cross_entropy(logits, Y).item())
    print(logits.argmax(1)[:12].tolist())
