# Written for gradcli after the PyTorch docs example of F.binary_cross_entropy_with_logits
# (https://pytorch.org/docs/stable/generated/torch.nn.functional.binary_cross_entropy_with_logits.html), seeded.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
input = torch.randn(3, requires_grad=True)
target = torch.empty(3).random_(2)
loss = F.binary_cross_entropy_with_logits(input, target)
loss.backward()
print(target)
print(loss)
print(input.grad)
weighted = F.binary_cross_entropy_with_logits(input, target, pos_weight=torch.tensor([2.0, 1.0, 0.5]))
print(weighted)
s = torch.sigmoid(input)
manual = -(target * s.log() + (1 - target) * (1 - s).log()).mean()
print(f"{manual.item():.6f} {loss.item():.6f}")
