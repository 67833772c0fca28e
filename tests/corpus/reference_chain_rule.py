# Written for gradcli after the walk-through "autograd computation graph" (shared/reference):
# x3 = w1*x1, x4 = w1*x2, x5 = w2*x3 + w3*x4, L = 1 - x5; dL/dw1 = -w2*x1 - w3*x2 = -8.
import torch

x1 = torch.tensor(1.0)
x2 = torch.tensor(2.0)
w1 = torch.tensor(1.0, requires_grad=True)
w2 = torch.tensor(2.0, requires_grad=True)
w3 = torch.tensor(3.0, requires_grad=True)
x3 = w1 * x1
x4 = w1 * x2
x5 = w2 * x3 + w3 * x4
L = 1 - x5
print(L, L.grad_fn, L.grad_fn.next_functions)
L.backward()
print("dL/dw1 =", w1.grad.item(), "by hand:", -w2.item() * x1.item() - w3.item() * x2.item())
print(w2.grad, w3.grad)
