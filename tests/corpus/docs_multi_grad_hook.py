# Source: PyTorch docs, torch.autograd.graph.register_multi_grad_hook docstring example and the
# "Backward Hooks execution" notes: https://github.com/pytorch/pytorch/blob/main/torch/autograd
# Licence: BSD-3-Clause. The doctest turned into a program; gradients, mode="any", errors added.
import torch
a = torch.rand(2, 3, requires_grad=True)
b = torch.rand(2, 3, requires_grad=True)
c = a * b
d = a * b


def fn(grads):
    print([g is not None for g in grads])


torch.autograd.graph.register_multi_grad_hook((a, b, c, d), fn)
c.sum().backward(retain_graph=True)
c.sum().backward(inputs=(a,), retain_graph=True)
# the gradients the hook receives
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
z = x * y
seen = []
handle = torch.autograd.graph.register_multi_grad_hook([x, y, z], seen.append)
(z * z).sum().backward(retain_graph=True)
print(len(seen), seen[0])
print(torch.autograd.grad((z * 2).sum(), [z]))  # z's node runs: x's and y's do not
print(len(seen), seen[1])
try:  # a leaf among autograd.grad's inputs: PyTorch cannot tell whether its hook will run
    torch.autograd.grad((x * y).sum(), [x])
except RuntimeError as e:
    print("RuntimeError:", e)
handle.remove()
(z * z).sum().backward()
print(len(seen))
# mode="any": once per backward, with the first gradient computed
order = []
h = torch.autograd.graph.register_multi_grad_hook((x, y, z), order.append, mode="any")
(x * y).sum().backward()
(x + y).sum().backward()
print(order)
h.remove()
(x * y).sum().backward()
print(len(order))
# each tensor's own hooks run with it, in registration order
w = torch.tensor([1.0, 2.0], requires_grad=True)
u = w * 2
u.register_hook(lambda g: print("u's hook", g))
torch.autograd.graph.register_multi_grad_hook((u, w), lambda gs: print("multi", gs))
w.register_hook(lambda g: print("w's hook", g))
u.sum().backward()
try:
    torch.autograd.graph.register_multi_grad_hook((x, y), fn, mode="some")
except ValueError as e:
    print("ValueError:", e)
try:
    torch.autograd.graph.register_multi_grad_hook((x, torch.ones(2)), fn)
except AssertionError as e:
    print("AssertionError:", e)
any_handle = torch.autograd.graph.register_multi_grad_hook((x, torch.ones(2)), fn, mode="any")
print(len(any_handle.handles))  # mode="any" skips a tensor that does not require grad
