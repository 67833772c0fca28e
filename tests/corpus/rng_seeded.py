# Written for gradcli after the seeding advice in PyTorch's "Reproducibility" notes
# (https://pytorch.org/docs/stable/notes/randomness.html): the same seed gives the same numbers.
import torch

torch.manual_seed(0)
print(torch.rand(3))
print(torch.randn(2, 3))
print(torch.randint(0, 10, (5,)))
a = torch.empty(4).normal_(mean=1.0, std=0.5)
b = torch.empty(4).uniform_(-1, 1)
print(a, b)

torch.manual_seed(0)
print(torch.rand(3))

g = torch.Generator().manual_seed(123)
print(torch.randn(3, generator=g))
print(torch.rand(2, 2, dtype=torch.float64))
big = torch.randn(1000)
print(big.mean(), big.std(), big[:3])
w = torch.randn(3, requires_grad=True)
(w.exp() * torch.rand(3)).sum().backward()
print(w.grad)
