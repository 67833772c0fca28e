# Written for gradcli after notebooks by NumPy users, which name dim and keepdim as NumPy does:
# x.sum(axis=1, keepdims=True), torch.max(x, axis=0); PyTorch's argument parser accepts both.
import torch
x = torch.arange(6.0).reshape(2, 3)
print(x.sum(axis=1, keepdims=True))
print(torch.sum(x, axis=0))
print(x.mean(axis=0, keepdims=True))
print(torch.max(x, axis=0))
print(x.argmax(axis=1))
print(torch.cat([x, x], axis=0).shape)
print(x.softmax(axis=-1))
print(torch.std(x, axis=1))
print(x.cumsum(axis=1))
print(x.max(axis=1, keepdims=True).values)
print(torch.amax(x, axis=1))
print(x.squeeze(axis=0).shape)
print(torch.stack([x, x], axis=1).shape)
print(torch.flip(x, [1]))
