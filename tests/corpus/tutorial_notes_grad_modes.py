# Source: PyTorch docs, "Autograd mechanics" notes, "Locally disabling gradient computation",
# https://github.com/pytorch/pytorch/blob/main/docs/source/notes/autograd.rst
# Written for gradcli after that section: grad mode, no-grad mode, set_grad_enabled, and an
# optimizer-style in-place update under no_grad.
import torch

w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
x = torch.tensor([2.0, 1.0, 4.0])

print(torch.is_grad_enabled())
with torch.no_grad():
    print(torch.is_grad_enabled())
    y = w * x
    with torch.enable_grad():
        y2 = w * x
print(y.requires_grad, y.grad_fn)
print(y2.requires_grad, y2.grad_fn)

for mode in (True, False):
    with torch.set_grad_enabled(mode):
        out = (w * x).sum()
    print(mode, out.requires_grad, out)

loss = ((w * x).sum() - 1.0) ** 2
loss.backward()
print(w.grad)
with torch.no_grad():
    w -= 0.01 * w.grad
print(w)
print(w.is_leaf, w.requires_grad, w._version)
