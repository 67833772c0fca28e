# Written for gradcli after forum answers on editing an nn.Sequential: replacing and appending
# layers, slicing, iterating, what parameters() returns, and assigning a non-module.
import torch
from torch import nn

torch.manual_seed(11)
model = nn.Sequential(nn.Linear(3, 4), nn.Sigmoid(), nn.Linear(4, 2))
print(model.parameters())
print(type(model.parameters()), len(list(model.parameters())))
print(model[0].forward)
model[1] = nn.GELU()
model.append(nn.Softmax(dim=-1))
print(model)
print(model[1:3], len(model[1:]))
for index, layer in enumerate(model):
    print(index, type(layer).__name__, isinstance(layer, nn.Linear))

x = torch.randn(2, 3)
probs = model(x)
print(probs, probs.sum(dim=1))
head = model[:2](x)
print(head.shape, head.grad_fn)

print(nn.Sequential(model[0], nn.ReLU())(x).grad_fn.next_functions)
print(model[0].weight is list(model.parameters())[0])
params = dict(model.named_parameters())
print(sorted(params), params["2.bias"])
try:
    model(x, x)
except TypeError as err:
    print("TypeError:", err)
model[3] = "softmax"
