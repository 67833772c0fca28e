# Written for gradcli after the forum thread "graph created and freed" (shared/reference): a loop
# builds a new graph each iteration from shared leaves; each backward frees its own graph.
import torch

torch.manual_seed(0)
A = torch.randn(3, 3)
input_b = torch.randn(3)
y = torch.randn(3, requires_grad=True)


def f(A, b, u):
    r = A @ u - b
    return (r**2).sum()


for k in range(5):
    f_eval = f(A, input_b, y)
    f_eval.backward()
    print(k, f_eval.item(), y.grad)
a = torch.randn(2, 3, requires_grad=True)
for i in range(3):
    s = torch.sum(a)
    s.backward()
print(a.grad)
