# Source: Dive into Deep Learning, "Concise Implementation of Linear Regression" and the
# "Image Classification Dataset" chapter's loaders (https://d2l.ai, MIT-0): a synthetic dataset
# in a TensorDataset, shuffled minibatches from a DataLoader, a train/validation random_split,
# an nn.Module classifier trained with SGD; scaled down and seeded.
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split

torch.manual_seed(0)
n, d = 60, 4
X = torch.randn(n, d)
true_w = torch.tensor([2.0, -3.4, 1.5, 0.5])
y = (X @ true_w + 0.3 * torch.randn(n) > 0).long()
data = TensorDataset(X, y)
train, valid = random_split(data, [0.75, 0.25])
print(len(train), len(valid), valid.indices[:5])
train_loader = DataLoader(train, batch_size=8, shuffle=True)
valid_loader = DataLoader(valid, batch_size=16)
print(len(train_loader), len(valid_loader))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 2))

    def forward(self, x):
        return self.net(x)


model = Classifier()
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.3)
for epoch in range(4):
    model.train()
    total = 0.0
    for xb, yb in train_loader:
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(yb)
    model.eval()
    with torch.no_grad():
        correct = sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in valid_loader)
    print(f"epoch {epoch}: train loss {total / len(train):.4f}, valid acc {correct / len(valid):.3f}")


class Pairs(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i), i ** 0.5]), i % 2

for xb, yb in DataLoader(Pairs(5), batch_size=2, drop_last=True, num_workers=2):
    print(xb, yb)
