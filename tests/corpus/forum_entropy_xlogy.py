# Written for gradcli after forum threads on "entropy is nan when a probability is 0" (use
# torch.xlogy), numerically stable log(exp(a) + exp(b)) with torch.logaddexp, and polar
# coordinates with torch.hypot / torch.atan2.
import torch

p = torch.tensor([0.5, 0.25, 0.25, 0.0], requires_grad=True)
naive = -(p * torch.log(p)).sum()
stable = -torch.xlogy(p, p).sum()
print(naive, stable)
stable.backward()
print(p.grad)
print(stable.grad_fn, stable.grad_fn.next_functions[0][0].next_functions)

a = torch.tensor([1000.0, -3.0, 0.5], requires_grad=True)
b = torch.tensor([999.0, -3.0, 2.0], requires_grad=True)
print(torch.log(torch.exp(a) + torch.exp(b)))
lse = torch.logaddexp(a, b)
print(lse)
lse.sum().backward()
print(a.grad, b.grad)

xy = torch.tensor([[3.0, 4.0], [-1.0, 1.0], [0.0, -2.0]], requires_grad=True)
r = torch.hypot(xy[:, 0], xy[:, 1])
theta = torch.atan2(xy[:, 1], xy[:, 0])
print(r, theta)
(r + theta).sum().backward()
print(xy.grad)

t = torch.tensor([-2.7, -0.5, 0.0, 1.25, 7.5])
print(torch.fmod(t, 2), torch.remainder(t, 2), t % 2)
print(torch.frac(t), torch.trunc(t), torch.fix(t), torch.sgn(t))
print(torch.copysign(torch.ones(5), t), torch.exp2(t), torch.float_power(t, 2))
print(torch.nan_to_num(torch.log(t)), torch.nan_to_num(torch.log(t), nan=0.0, neginf=-1.0))
w = torch.tensor([0.1, 0.9], requires_grad=True)
print(torch.tan(w), torch.asinh(w), torch.atanh(w), torch.acosh(w + 1), torch.arctan2(w, torch.tensor([1.0, -1.0])))
