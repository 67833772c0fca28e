# Written for gradcli after PyTorch's "The Fundamentals of Autograd" tutorial
# (https://pytorch.org/tutorials/beginner/introyt/autogradyt_tutorial.html): sin(a) plotted
# with matplotlib (gradcli accepts the calls and draws nothing), its history, and its gradient
# plotted too; plotting a tensor that requires grad fails, hence the tutorial's detach().
import math

import matplotlib.pyplot as plt
import torch

a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
print(a)
b = torch.sin(a)
plt.plot(a.detach(), b.detach())
print(b)
c = 2 * b
print(c)
d = c + 1
print(d)
out = d.sum()
print(out)
print("d:")
print(d.grad_fn)
print(d.grad_fn.next_functions)
print(d.grad_fn.next_functions[0][0].next_functions)
print("\nc:")
print(c.grad_fn)
out.backward()
print(a.grad)
fig, ax = plt.subplots()
line, = ax.plot(a.detach(), a.grad.detach(), label="d(out)/da")
ax.set_xlabel("a")
ax.legend()
plt.show()
plt.plot(a, b)
