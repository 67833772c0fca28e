# Written for gradcli after forum threads on "grad can be implicitly created only for scalar
# outputs" (backward on a vector loss). Ends in an uncaught error.
import torch

pred = torch.tensor([0.2, 0.7, 0.1], requires_grad=True)
target = torch.tensor([0.0, 1.0, 0.0])
per_item = (pred - target) ** 2
print(per_item)
per_item.mean().backward(retain_graph=True)
print(pred.grad)
per_item.backward()
