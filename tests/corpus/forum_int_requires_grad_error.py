# Written for gradcli after forum threads on "Only Tensors of floating point and complex dtype can
# require gradients" (integer data from a label list). Ends in an uncaught error.
import torch

labels = [1, 0, 2]
t = torch.tensor(labels)
print(t, t.dtype)
f = torch.tensor(labels, dtype=torch.float32, requires_grad=True)
print(f)
g = torch.tensor(labels, requires_grad=True)
print(g)
