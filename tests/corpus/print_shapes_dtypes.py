# Written for gradcli after the PyTorch "Tensors" tutorial prints
# (https://github.com/pytorch/tutorials/blob/main/beginner_source/basics/tensorqs_tutorial.py):
# tensor reprs in many shapes, dtypes and magnitudes.
import torch

print(torch.tensor(3.5))
print(torch.tensor([1, 2, 3]))
print(torch.tensor([True, False]))
print(torch.tensor([1.0, 2.5], dtype=torch.float64))
print(torch.zeros(2, 3, dtype=torch.int64))
print(torch.ones(2, 2, 2))
print(torch.tensor([1e-8, 1.0, 1e8]))
print(torch.tensor([0.1, 0.25, 100.0]))
print(torch.tensor([123456.0, 0.001]))
print(torch.tensor([-0.0, float('inf'), float('nan')]))
print(torch.arange(12).reshape(3, 4))
print(torch.arange(2000.0))
print(torch.linspace(0, 1, 7))
print(torch.eye(3, 4))
print(torch.zeros(0), torch.zeros(2, 0))
x = torch.arange(6.0, requires_grad=True).reshape(2, 3)
print(x)
print(x.shape, x.dtype, x.size(), x.size(1), x.dim(), x.numel())
print(x.double(), x.long())
print(torch.full((2, 2), 7.0), torch.full((2,), -1))
