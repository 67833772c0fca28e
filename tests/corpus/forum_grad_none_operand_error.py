# Written for gradcli after forum threads on "TypeError: unsupported operand type(s) for *: ...
# and 'NoneType'" in a hand-written update step: .grad is None until a backward reaches the
# tensor, and a tensor's operators leave a None operand to Python. Ends in an uncaught error.
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)  # never used by the loss below
lr = torch.tensor(0.02)
x = torch.tensor([1.0, 2.0, 3.0])
print(w.grad, b.grad)

try:
    step = lr * w.grad
except TypeError as e:
    print("before backward:", e)
try:
    step = w.grad - lr
except TypeError as e:
    print(e)
try:
    step = w.grad ** 2
except TypeError as e:
    print(e)
try:
    with torch.no_grad():
        w -= w.grad
except TypeError as e:
    print(e)
try:
    print(w @ None)
except TypeError as e:
    print(e)
print(w == None, w != None, w.grad is None)

for epoch in range(3):
    loss = ((w * x).sum() - 1.0) ** 2
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        w.grad.zero_()
    print(epoch, loss.item())

with torch.no_grad():
    b -= lr * b.grad
