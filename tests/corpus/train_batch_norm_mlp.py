# Written for gradcli after the "batch normalization from scratch" exercises (d2l.ai ch. 8.5,
# CS231n assignment 2): a two-layer net with F.batch_norm in training mode, its running
# statistics, then evaluation with them; layer_norm on the same activations for comparison.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(16, 4)
y = (X[:, 0] - 2 * X[:, 1] > 0).float()
W1 = (torch.randn(4, 8) * 0.5).requires_grad_()
gamma = torch.ones(8, requires_grad=True)
beta = torch.zeros(8, requires_grad=True)
W2 = (torch.randn(8, 1) * 0.5).requires_grad_()
running_mean, running_var = torch.zeros(8), torch.ones(8)

for epoch in range(5):
    h = F.batch_norm(X @ W1, running_mean, running_var, gamma, beta, training=True, momentum=0.1)
    out = (F.relu(h) @ W2).squeeze(1)
    loss = F.binary_cross_entropy_with_logits(out, y)
    loss.backward()
    with torch.no_grad():
        for p in (W1, gamma, beta, W2):
            p -= 0.5 * p.grad
            p.grad.zero_()
    print(f"epoch {epoch}: loss {loss.item():.4f}")

print(h.grad_fn.name(), h.grad_fn.next_functions[0][0].name())
print(running_mean)
print(running_var)
with torch.no_grad():
    h_eval = F.batch_norm(X @ W1, running_mean, running_var, gamma, beta, training=False)
    acc = (((F.relu(h_eval) @ W2).squeeze(1) > 0).float() == y).float().mean()
print("train accuracy", acc.item())
print(gamma, beta)
ln = F.layer_norm(X @ W1, (8,))
print(ln.mean(dim=1).abs().max() < 1e-5, ln.grad_fn)
