# PyTorch takes NumPy's names for dim and keepdim (axis=, keepdims=), as notebooks written
# by NumPy users call them.
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
