# Written for gradcli after "Backprop demystified, part 2" (shared/reference): u = a*b,
# t = log(d), v = t*c, e = u + v; grad_fn, is_leaf and requires_grad of each node.
import torch

a = torch.tensor([2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = torch.tensor([5.0], requires_grad=True)
d = torch.tensor([10.0], requires_grad=True)
u = a * b
t = torch.log(d)
v = t * c
t.retain_grad()
e = u + v
for name, x in zip("abcdutve", (a, b, c, d, u, t, v, e)):
    print(name, x.grad_fn, x.is_leaf, x.requires_grad)
e.backward()
print(a.grad, b.grad, c.grad, d.grad, t.grad)
print(e.grad_fn.next_functions[0][0].next_functions)
