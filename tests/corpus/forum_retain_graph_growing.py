# Written for gradcli after https://discuss.pytorch.org/t/how-computation-graph-in-pytorch-is-created-and-freed/3515
# (a graph rebuilt every iteration; retain_graph needed only when one part is shared).
import torch


def f(A, b, u):
    r = A @ u - b
    return (r ** 2).sum()


A = torch.tensor([[2.0, 0.0], [1.0, 3.0]])
b = torch.tensor([1.0, 2.0])
u = torch.zeros(2, requires_grad=True)
for k in range(5):
    loss = f(A, b, u)
    loss.backward()
    with torch.no_grad():
        u -= 0.05 * u.grad
    u.grad.zero_()
    print(k, f"{loss.item():.5f}", u.detach())

shared = (A @ u).tanh()
first = shared.sum()
second = (shared ** 2).sum()
first.backward(retain_graph=True)
second.backward()
print(u.grad)
