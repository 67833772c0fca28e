# Written for gradcli after the logistic-regression examples of course notebooks: nn.Linear(2, 1)
# with nn.BCEWithLogitsLoss and SGD with momentum on two separable blobs.
import torch
import torch.nn as nn

torch.manual_seed(42)
n = 50
a = torch.randn(n, 2) + torch.tensor([2.0, 2.0])
b = torch.randn(n, 2) - torch.tensor([2.0, 2.0])
X = torch.cat([a, b])
y = torch.cat([torch.ones(n, 1), torch.zeros(n, 1)])

model = nn.Linear(2, 1)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
print("initial weight:", model.weight.data, "bias:", model.bias.data)

for epoch in range(1, 101):
    optimizer.zero_grad()
    logits = model(X)
    loss = criterion(logits, y)
    loss.backward()
    optimizer.step()
    if epoch % 25 == 0:
        with torch.no_grad():
            acc = ((logits > 0).float() == y).float().mean()
        print(f"epoch {epoch:3d}  loss {loss.item()}  acc {acc.item():.2f}")

print(model.weight)
print(model.bias.grad)
with torch.no_grad():
    probs = torch.sigmoid(model(torch.tensor([[1.0, 1.0], [-1.0, -1.0], [0.0, 0.0]])))
print(probs)
