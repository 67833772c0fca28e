# Written for gradcli after CS231n "Backpropagation, Intuitions" (f(x,y,z) = (x + y) z and the
# sigmoid neuron), https://cs231n.github.io/optimization-2/ : hand-derived gradients checked
# against autograd.
import math
import torch

x = torch.tensor(-2.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)
z = torch.tensor(-4.0, requires_grad=True)
q = x + y
f = q * z
f.backward()
print(f"f = {f.item()}, df/dx = {x.grad.item()}, df/dy = {y.grad.item()}, df/dz = {z.grad.item()}")
print(f"by hand: {z.item()}, {z.item()}, {q.item()}")

w = torch.tensor([2.0, -3.0, -3.0], requires_grad=True)
inp = torch.tensor([-1.0, -2.0])
dot = w[0] * inp[0] + w[1] * inp[1] + w[2]
out = 1.0 / (1 + torch.exp(-dot))
out.backward()
ddot = (1 - out.item()) * out.item()
print(round(out.item(), 4), [round(g, 4) for g in w.grad.tolist()])
print([round(ddot * v, 4) for v in (-1.0, -2.0, 1.0)])
print(math.isclose(w.grad[2].item(), ddot, rel_tol=1e-6))
print(dot.grad_fn, out.grad_fn)
