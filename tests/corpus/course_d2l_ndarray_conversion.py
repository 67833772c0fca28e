# Source: https://d2l.ai/chapter_preliminaries/ndarray.html ("Saving Memory" and "Conversion to Other Python Objects", PyTorch tab)
import torch

X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])

Z = torch.zeros_like(Y)
Z[:] = X + Y
X += Y
print(Z, X)

A = X.numpy()
B = torch.from_numpy(A)
print(type(A), type(B))

a = torch.tensor([3.5])
print(a, a.item(), float(a), int(a))

print(A)
B[0, 0] = -1.0
print(A[0], X[0], X._version, B._version)
A[1] = 0
print(X, B.sum())
