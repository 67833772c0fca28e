# Written for gradcli after the PyTorch docs of torch.gather, torch.topk, torch.sort and
# scatter_add_, and forum questions on "which elements get a gradient after topk/gather".
import torch

torch.manual_seed(0)
scores = torch.randn(4, 5, requires_grad=True)
labels = torch.tensor([1, 0, 4, 2])

# pick each row's score at its label (as a hand-written NLL would)
picked = scores.gather(1, labels.unsqueeze(1)).squeeze(1)
print(picked)
print(picked.grad_fn, picked.grad_fn.next_functions[0][0])

# keep the two best classes per row
top = torch.topk(scores, k=2, dim=1)
print(top)
values, indices = top
loss = -picked.mean() + values.sum() * 0.1
loss.backward()
print(scores.grad)

# sorting is differentiable: the gradient goes back to where each value came from
x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
s, order = torch.sort(x, descending=True)
(s * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(s, order, x.grad)
print(torch.argsort(x), x.argsort(descending=True))

# index_select / masked_select and a histogram with scatter_add_
rows = torch.index_select(scores, 0, torch.tensor([0, 2]))
pos = torch.masked_select(scores, scores > 1.0)
print(rows.grad_fn, pos.grad_fn, pos.shape)
counts = torch.zeros(5).scatter_add_(0, labels, torch.ones(4))
print(counts)
print(torch.median(scores.detach(), dim=1))
print(torch.cummax(torch.tensor([1.0, 3.0, 2.0, 5.0]), dim=0))
