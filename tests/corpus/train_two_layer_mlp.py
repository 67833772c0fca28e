# Written for gradcli after CS231n assignment style "two-layer net": forward with relu, softmax
# loss, autograd gradients checked against hand-written backprop, seeded.
import torch

torch.manual_seed(0)
N, D, H, C = 5, 4, 6, 3
X = torch.randn(N, D)
y = torch.tensor([0, 2, 1, 1, 0])
W1 = (0.1 * torch.randn(D, H)).requires_grad_()
b1 = torch.zeros(H, requires_grad=True)
W2 = (0.1 * torch.randn(H, C)).requires_grad_()
b2 = torch.zeros(C, requires_grad=True)

h = (X.mm(W1) + b1).clamp(min=0)
scores = h.mm(W2) + b2
shifted = scores - scores.max(dim=1, keepdim=True).values
probs = shifted.exp() / shifted.exp().sum(dim=1, keepdim=True)
loss = -probs[torch.arange(N), y].log().mean()
loss.backward()
print("loss:", loss.item())

with torch.no_grad():
    dscores = probs.clone()
    dscores[torch.arange(N), y] -= 1
    dscores /= N
    dW2 = h.t().mm(dscores)
    dh = dscores.mm(W2.t())
    dh[h <= 0] = 0
    dW1 = X.t().mm(dh)
for name, auto, hand in [("W1", W1.grad, dW1), ("W2", W2.grad, dW2), ("b2", b2.grad, dscores.sum(0))]:
    err = (auto - hand).abs().max().item()
    print(f"{name}: max abs diff {err:.2e}, shape {tuple(auto.shape)}")
print(b1.grad)
