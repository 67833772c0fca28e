# Written for gradcli after Karpathy's "Let's build GPT" lecture and nanoGPT (karpathy/nanoGPT,
# model.py and train.py): token and position embeddings, causal self-attention heads
# (masked_fill, softmax, q @ k^T, bmm), LayerNorm, a GELU feed-forward (oneDNN's kernels in
# PyTorch), AdamW, clip_grad_norm_ and batches sliced at random tensor positions; six steps.
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(1337)
vocab, block, embd, heads = 27, 8, 32, 4


class Head(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.key = nn.Linear(embd, size, bias=False)
        self.query = nn.Linear(embd, size, bias=False)
        self.value = nn.Linear(embd, size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block, block)))

    def forward(self, x):
        k, q = self.key(x), self.query(x)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        wei = wei.masked_fill(self.tril[:x.shape[1], :x.shape[1]] == 0, float("-inf"))
        return F.softmax(wei, dim=-1) @ self.value(x)


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, embd), nn.Embedding(block, embd)
        self.heads = nn.ModuleList([Head(embd // heads) for _ in range(heads)])
        self.proj = nn.Linear(embd, embd)
        self.ffwd = nn.Sequential(nn.Linear(embd, 4 * embd), nn.GELU(), nn.Linear(4 * embd, embd))
        self.ln1, self.ln2, self.ln_f = nn.LayerNorm(embd), nn.LayerNorm(embd), nn.LayerNorm(embd)
        self.head = nn.Linear(embd, vocab)

    def forward(self, idx, targets):
        B, T = idx.shape
        x = self.tok(idx) + self.pos(torch.arange(T))
        x = x + self.proj(torch.cat([h(self.ln1(x)) for h in self.heads], dim=-1))
        x = x + self.ffwd(self.ln2(x))
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(B * T, vocab), targets.view(B * T))


data = torch.randint(0, vocab, (2000,))
model = GPT()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(6):
    ix = torch.randint(len(data) - block, (16,))
    xb = torch.stack([data[i:i + block] for i in ix])
    yb = torch.stack([data[i + 1:i + block + 1] for i in ix])
    loss = model(xb, yb)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(step, loss.item(), float(norm))
print(model.head.weight[0, :4])
print(model.ln1.weight.grad[:4])
