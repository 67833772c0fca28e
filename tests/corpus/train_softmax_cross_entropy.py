# Written for gradcli after the softmax-classifier notebooks of CS231n / d2l "softmax regression
# from scratch" (F.cross_entropy on integer labels, argmax accuracy, one_hot), seeded.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
num_classes = 3
X = torch.randn(12, 4)
labels = torch.tensor([0, 1, 2, 1, 0, 2, 2, 1, 0, 0, 1, 2])
W = torch.zeros(4, num_classes, requires_grad=True)
b = torch.zeros(num_classes, requires_grad=True)

for step in range(25):
    logits = X @ W + b
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    with torch.no_grad():
        for p in (W, b):
            p -= 0.5 * p.grad
            p.grad.zero_()
    if step % 8 == 0:
        acc = (logits.argmax(dim=1) == labels).float().mean().item()
        print(f"step {step}: loss {loss:.4f} accuracy {acc:.3f}")

onehot = F.one_hot(labels, num_classes)
print(onehot[:4], onehot.dtype)
probs = torch.softmax(X @ W + b, dim=1)
manual = -(onehot * probs.log()).sum(dim=1).mean()
print(manual, F.cross_entropy(X @ W + b, labels))
print(loss.grad_fn)
