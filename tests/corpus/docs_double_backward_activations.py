# Written for gradcli after the autograd notes on double backward: second and third
# derivatives through activations with create_graph=True, where each backward kernel is an op
# with its own node (TanhBackwardBackward0 ...), as in a gradient penalty (WGAN-GP) or a
# Hessian-vector product through a network. Values printed in full (tolist): every bit counts.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.3, -1.2, 0.7], [1.5, -0.4, 0.1]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]], dtype=torch.float64)
t = torch.tensor([[0.2, 0.9, 0.4], [0.6, 0.1, 0.8]], dtype=torch.float64)
activations = [
    ("tanh", torch.tanh), ("sigmoid", torch.sigmoid),
    ("softmax", lambda v: torch.softmax(v, 1)), ("log_softmax", lambda v: torch.log_softmax(v, 0)),
    ("relu", torch.relu), ("leaky_relu", F.leaky_relu), ("hardtanh", F.hardtanh),
    ("relu6", F.relu6), ("elu", F.elu), ("selu", F.selu), ("celu", F.celu),
    ("softplus", F.softplus), ("logsigmoid", F.logsigmoid),
]
for name, f in activations:
    y = f(x)
    g, = torch.autograd.grad((y * w).sum(), x, create_graph=True)
    h, = torch.autograd.grad((g * g).sum(), x, create_graph=True)
    print(name, type(g.grad_fn).__name__, type(h.grad_fn).__name__ if h.grad_fn else None)
    print(" ", g.tolist())
    print(" ", h.tolist())
    if h.requires_grad:
        third, = torch.autograd.grad((h * w).sum(), x, allow_unused=True, materialize_grads=True)
        print(" ", third.tolist())

# float32, as a network computes it
x32 = x.detach().float().requires_grad_()
for name in ("tanh", "sigmoid", "softmax", "log_softmax"):
    f = dict(activations)[name]
    g, = torch.autograd.grad((f(x32) * w.float()).sum(), x32, create_graph=True)
    h, = torch.autograd.grad((g * g).sum(), x32)
    print(name, g.grad_fn.name(), g.tolist(), h.tolist())

# a gradient penalty through a small tanh/relu network
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 8),
                          torch.nn.ReLU(), torch.nn.Linear(8, 1))
inp = torch.randn(5, 3, requires_grad=True)
out = net(inp)
grads, = torch.autograd.grad(out.sum(), inp, create_graph=True)
penalty = ((grads.pow(2).sum(dim=1) - 1) ** 2).mean()
penalty.backward()
print(grads.grad_fn)
print(penalty)
print(net[0].weight.grad)
print(net[2].bias.grad)
