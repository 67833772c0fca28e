# Written for gradcli after forum threads about a first classification step: nn.CrossEntropyLoss
# on raw logits, Adam, and reading the gradients of the first layer.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
features = torch.randn(12, 4)
labels = torch.tensor([0, 1, 2, 1, 0, 2, 2, 1, 0, 0, 1, 2])

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

logits = model(features)
loss = criterion(logits, labels)
print("loss before:", loss)
print(loss.grad_fn, loss.grad_fn.next_functions[0][0])
optimizer.zero_grad()
loss.backward()
print("grad of first layer:", model[0].weight.grad.shape)
print(model[0].weight.grad)
print(model[2].bias.grad)
optimizer.step()

for step in range(20):
    optimizer.zero_grad()
    loss = criterion(model(features), labels)
    loss.backward()
    optimizer.step()
with torch.no_grad():
    logits = model(features)
    pred = logits.argmax(dim=1)
print("loss after:", round(F.cross_entropy(logits, labels).item(), 4))
print("predictions:", pred.tolist())
print("accuracy:", (pred == labels).float().mean().item())
print(F.softmax(logits[:2], dim=1))
