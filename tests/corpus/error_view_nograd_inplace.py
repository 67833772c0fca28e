# Written for gradcli after PyTorch's error for a view created in no_grad mode and modified in
# place with grad mode enabled (seen in forum threads about weight-initialisation code).
# Ends in an uncaught error.
import torch

weight = torch.zeros(2, 4, requires_grad=True)
with torch.no_grad():
    row = weight[0]
    row.fill_(1.0)
print(weight)
bias = torch.ones(4, requires_grad=True)
row.add_(bias)
print(weight)
