# Written for gradcli after the torch.linalg.vector_norm docs: ``dtype=`` converts the input
# before the reduction (a float32 tensor's norm computed and returned in float64), one
# LinalgVectorNormBackward0 node, the gradient back in the input's dtype; narrowing refused.
import torch

torch.manual_seed(0)
x = torch.randn(5, 7, requires_grad=True)
for ord in (2, 1, 3.5, float("inf"), 0.5):
    y = torch.linalg.vector_norm(x, ord=ord, dtype=torch.float64)
    print(ord, y, y.grad_fn.name(), type(y.grad_fn.next_functions[0][0]).__name__)
    (g,) = torch.autograd.grad(y, x)
    print(g.dtype, g[0], y.item(), g[0].tolist()[:3])
rows = torch.linalg.vector_norm(x, dim=1, keepdim=True, dtype=torch.float64)
print(rows.dtype, rows.shape, rows.squeeze())
rows.sum().backward()
print(x.grad[1], rows.squeeze().tolist(), x.grad[1].tolist()[:3])
print(torch.linalg.vector_norm(x, dtype=torch.float32).dtype)
print(x.norm(dtype=torch.float64), torch.norm(x, p=1, dim=0, dtype=torch.float64)[:3])
for bad in (torch.float16, torch.int64):
    try:
        torch.linalg.vector_norm(x, dtype=bad)
    except RuntimeError as e:
        print("RuntimeError:", e)
try:
    torch.linalg.vector_norm(x.double(), dtype=torch.float32)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.linalg.vector_norm(x, dtype=3)
except TypeError as e:
    print("TypeError:", e)
z = torch.randn(4, requires_grad=True)
n = torch.linalg.vector_norm(z, ord=3.0, dtype=torch.float64)
(gz,) = torch.autograd.grad(n, z, create_graph=True)
print(gz, gz.grad_fn.name())
gz.sum().backward()
print(z.grad.tolist())
