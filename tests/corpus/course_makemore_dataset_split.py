# Written for gradcli after the makemore lecture's MLP (Karpathy, "Neural Networks: Zero to
# Hero", part 2): the words shuffled with a seeded random, split 80/10/10 into training,
# dev and test sets of (context, next character), embedded by a lookup table C.
import random

import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper",
         "evelyn", "abigail", "emily", "elizabeth", "mila", "ella", "avery"]
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
block_size = 3  # context length: how many characters do we take to predict the next one?


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]  # crop and append
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


random.seed(42)
random.shuffle(words)
n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))
print(words[:4], n1, n2)
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])
print("".join(itos[i.item()] for i in Xtr[5]), "->", itos[Ytr[5].item()])

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((len(stoi), 2), generator=g, requires_grad=True)
W = torch.randn((block_size * 2, len(stoi)), generator=g, requires_grad=True)
for step in range(3):
    ix = torch.randint(0, Xtr.shape[0], (8,), generator=g)
    emb = C[Xtr[ix]]
    logits = emb.view(-1, block_size * 2) @ W
    loss = F.cross_entropy(logits, Ytr[ix])
    C.grad = W.grad = None
    loss.backward()
    with torch.no_grad():
        C -= 0.1 * C.grad
        W -= 0.1 * W.grad
    print(step, round(loss.item(), 4), random.random() < 2)
