# Written for gradcli after forum threads on float/double mismatches
# ("expected m1 and m2 to have the same dtype"). Ends in an uncaught error.
import torch

x = torch.tensor([[1.0, 2.0]], dtype=torch.float64)
w = torch.tensor([[0.5], [0.25]], requires_grad=True)
print(x.dtype, w.dtype)
print(x * w.T)
print((x.float() @ w).dtype)
y = x @ w
