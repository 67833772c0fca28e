# Written for gradcli after the self-attention head of the "Let's build GPT" lecture: q @ k^T
# over (batch, heads) as matmul folds and batched products, a causal mask, softmax, and bmm.
import torch
import torch.nn.functional as F
torch.manual_seed(1337)
B, T, C, H = 2, 5, 8, 2
x = torch.randn(B, T, C)
Wq = torch.randn(C, C, requires_grad=True)
Wk = torch.randn(C, C, requires_grad=True)
Wv = torch.randn(C, C, requires_grad=True)
q = (x @ Wq).view(B, T, H, C // H).transpose(1, 2)
k = (x @ Wk).view(B, T, H, C // H).transpose(1, 2)
v = (x @ Wv).view(B, T, H, C // H).transpose(1, 2)
att = q @ k.transpose(-2, -1) * (1.0 / (C // H) ** 0.5)
tril = torch.tril(torch.ones(T, T))
att = att.masked_fill(tril == 0, float("-inf"))
att = F.softmax(att, dim=-1)
y = att @ v
y = y.transpose(1, 2).contiguous().view(B, T, C)
loss = (y ** 2).mean()
loss.backward()
print(y[0, :2])
print(loss, loss.grad_fn.name())
print(Wq.grad[:2], Wk.grad.norm(), Wv.grad.sum())
w = torch.randn(4, 16, 32, requires_grad=True)
z = torch.randn(4, 32, 20, requires_grad=True)
out = torch.bmm(w, z)
out.sum().backward()
print(out.sum(), w.grad.sum(), z.grad.abs().sum())
