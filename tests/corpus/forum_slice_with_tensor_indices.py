# Written for gradcli after nanoGPT's get_batch (karpathy/nanoGPT, train.py and the "Let's build
# GPT" lecture): random start positions drawn as a tensor, each one a 0-d int tensor slicing the
# data, data[i:i + block_size]; slice bounds take any integer or bool tensor of one element
# (Tensor.__index__), and anything else raises Python's or PyTorch's TypeError.
import numpy as np
import torch

torch.manual_seed(1337)
data = torch.randint(0, 65, (100,))
block_size, batch_size = 8, 4
ix = torch.randint(len(data) - block_size, (batch_size,))
x = torch.stack([data[i:i + block_size] for i in ix])
y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
print(ix)
print(x)
print(y)

r = torch.arange(10)
i = torch.tensor(2)
print(r[i:i + 3], r[torch.tensor([1]):5], r[True:3], r[np.int64(2):4], r[::torch.tensor(2)])
print(r[torch.tensor(True):3], [1, 2, 3][torch.tensor(True)], range(5)[torch.tensor(1)])
for bad in (torch.tensor(2.0), torch.tensor([1, 2]), 2.0, "a"):
    try:
        r[bad:5]
    except TypeError as e:
        print("TypeError:", e)
