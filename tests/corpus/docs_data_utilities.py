# Written for gradcli after the torch.utils.data documentation (pytorch.org/docs/stable/data):
# datasets (a subclass, Subset, ConcatDataset, +), random_split, DataLoader's shuffling on the
# global and its own generator, drop_last, samplers, default_collate of numbers/strings/dicts.
import torch
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Subset, TensorDataset, random_split

torch.manual_seed(3)
ds = TensorDataset(torch.arange(20.).reshape(10, 2), torch.arange(10))
print(len(ds), ds[3], ds[-1])
a, b, c = random_split(ds, [5, 3, 2], generator=torch.Generator().manual_seed(7))
print(a.indices, b.indices, c.indices, len(a), a[0], b[1])
s = Subset(ds, [9, 0, 4])
print(len(s), s[0], s)
loader = DataLoader(ds, batch_size=4, shuffle=True)
for epoch in range(2):
    for xb, yb in loader:
        print(epoch, yb.tolist(), xb.shape)
l2 = DataLoader(ds, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(1),
                drop_last=True)
print(len(l2), [yb.tolist() for _, yb in l2])
print(torch.rand(1))
for batch in DataLoader([(1, 2.5, "a"), (3, 4.5, "b"), (5, 6.5, "c")], batch_size=2):
    print(batch)
print(next(iter(DataLoader([{"x": torch.ones(2), "n": 1}, {"x": torch.zeros(2), "n": 2}],
                           batch_size=2))))
print(next(iter(DataLoader(ds, batch_size=None))))
print(random_split(range(10), [0.5, 0.3, 0.2])[2].indices)
print(random_split(range(7), [0.5, 0.5])[0].indices)
print(list(DataLoader(range(7), batch_size=3, shuffle=True)))
print(list(DataLoader(ds, batch_sampler=[[0, 1], [5]])), list(DataLoader(ds, sampler=[3, 1])))


class Squares(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return torch.tensor([i * 1.0]), i * i


both = ds + Squares(3)
print(len(both), both[11], both[-1], both[2], both.cumulative_sizes)
two = Squares(2) + Squares(3)
print(len(two), two[4], type(two).__name__, isinstance(two, Dataset))
print(list(DataLoader(two, batch_size=3)))
print([x for x in Squares(3)])
try:
    both[-20]
except ValueError as e:
    print("ValueError:", e)
for i, (xb, yb) in enumerate(DataLoader(ConcatDataset([ds, ds]), batch_size=6, shuffle=True)):
    print(i, yb)
print(torch.randn(2))
print([b[1] for b in DataLoader(Squares(4), batch_size=3, generator=torch.Generator())])
loader = DataLoader(Squares(4), batch_size=3, generator=3)  # not a torch.Generator
print(len(loader))
list(loader)
