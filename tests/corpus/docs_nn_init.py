# Written for gradcli after the torch.nn.init documentation: re-initialising a Linear layer's
# weight and bias in place under a seed, and the gains the initialisers use.
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 3)
print(layer.weight)

nn.init.xavier_uniform_(layer.weight)
nn.init.zeros_(layer.bias)
print(layer.weight)
print(layer.bias)

nn.init.kaiming_uniform_(layer.weight, nonlinearity="relu")
print(layer.weight.data)
nn.init.normal_(layer.weight, mean=0.0, std=0.02)
nn.init.constant_(layer.bias, 0.1)
print(layer.weight, layer.bias)
print(nn.init.calculate_gain("tanh"), nn.init.calculate_gain("leaky_relu", 0.2))

w = torch.empty(2, 5)
nn.init.uniform_(w, a=-0.5, b=0.5)
print(w)
nn.init.ones_(w)
print(w.sum())

out = layer(torch.ones(2, 4))
print(out)
out.sum().backward()
print(layer.weight.grad)
