# Written for gradcli after a frequent forum error: a Linear layer whose in_features does not
# match the input's last dimension ("mat1 and mat2 shapes cannot be multiplied").
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 5), nn.ReLU(), nn.Linear(5, 1))
batch = torch.randn(8, 10)
print(model(batch).shape)

flat = torch.randn(8, 2, 5).flatten(1)
print(flat.shape)
out = model(flat[:, :6])
print(out)
