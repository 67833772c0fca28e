# Written for gradcli after forum threads on masked losses ("my loss is nan: how do I ignore the
# padded / missing targets?", "check that no gradient is nan before the step").
import torch

torch.manual_seed(0)
pred = torch.randn(3, 4, requires_grad=True)
target = torch.tensor([[0.5, float('nan'), 1.0, -2.0],
                       [float('nan'), 0.0, 0.3, 1.5],
                       [1.0, 2.0, float('nan'), float('nan')]])

valid = ~torch.isnan(target)
print(valid)
print("valid per row:", valid.sum(dim=1), torch.count_nonzero(valid, dim=1))
print("any missing:", torch.isnan(target).any().item(), "rows complete:", valid.all(dim=1))

diff = torch.where(valid, pred - torch.nan_to_num(target), torch.zeros_like(pred))
loss = (diff ** 2).sum() / valid.sum()
loss.backward()
print(loss)
print(pred.grad)
print("grad finite:", torch.isfinite(pred.grad).all(), "zero where missing:",
      torch.eq(pred.grad, 0).logical_and(~valid).sum().item())

# comparisons as masks: hinge on the positives only
scores = torch.tensor([0.2, -1.5, 3.0, 0.7], requires_grad=True)
labels = torch.tensor([1, 0, 1, 1])
positive = labels.eq(1)
below = torch.lt(scores, 1.0) & positive
print(positive, below, torch.logical_xor(positive, below), torch.bitwise_not(below))
hinge = ((1.0 - scores) * below).sum()
hinge.backward()
print(hinge, scores.grad)
print(torch.ge(scores, 0.5), scores.gt(0.5).logical_not(), torch.ne(labels, 0) | (scores < 0))
print(torch.any(scores > 2.5), torch.all(scores.detach() > -2), torch.isinf(scores / 0).all())
