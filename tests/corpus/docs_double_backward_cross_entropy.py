# Written for gradcli after the autograd notes on double backward: the second and third
# derivatives of a float64 cross-entropy and log-softmax along rows (LogSoftmaxBackwardData-
# Backward0), where PyTorch's kernel calls SLEEF's double exp in its vector lanes.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.3, -1.2, 0.7], [1.5, -0.4, 0.1]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]], dtype=torch.float64)
for f in (lambda v: torch.log_softmax(v, 1), lambda v: F.cross_entropy(v, torch.tensor([0, 2])) * w):
    g, = torch.autograd.grad((f(x) * w).sum(), x, create_graph=True)
    h, = torch.autograd.grad((g * g).sum(), x, create_graph=True)
    third, = torch.autograd.grad((h * w).sum(), x)
    print(g.grad_fn.name(), h.grad_fn.name())
    print(g.tolist())
    print(h.tolist())
    print(third.tolist())
