# Written for gradcli after the torch.linalg.norm docs: vector norms and the Frobenius norm
# go through linalg.vector_norm (one LinalgVectorNormBackward0); the documented errors.
import torch

torch.manual_seed(0)
a = torch.arange(9, dtype=torch.float) - 4
B = a.reshape((3, 3)).requires_grad_()
print(torch.linalg.norm(a), torch.linalg.norm(B), torch.linalg.norm(B, "fro"))
print(torch.linalg.norm(a, float("inf")), torch.linalg.norm(a, -float("inf")))
print(torch.linalg.norm(a, 1), torch.linalg.norm(a, -1), torch.linalg.norm(a, 3))
x = torch.randn(2, 3, 4, requires_grad=True)
n = torch.linalg.norm(x, dim=1)
print(n, n.grad_fn.name())
print(torch.linalg.norm(x, 3, dim=(2,), keepdim=True).squeeze())
f = torch.linalg.norm(x, "fro", dim=(1, 2))
print(f, torch.linalg.norm(x))
(f.sum() + torch.linalg.norm(B, dtype=torch.float64)).backward()
print(x.grad[0], B.grad)
for call in (lambda: torch.linalg.norm(x, 2), lambda: torch.linalg.norm(x, dim=(0, 1, 2)),
             lambda: torch.linalg.norm(a, "fro"), lambda: torch.linalg.norm(x, "bad", dim=(0, 1))):
    try:
        call()
    except RuntimeError as e:
        print("RuntimeError:", e)
