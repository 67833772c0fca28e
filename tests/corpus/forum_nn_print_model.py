# Written for gradcli after the many "how do I inspect my model" forum questions: print(model),
# named_parameters, counting parameters, indexing a Sequential, module types.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(2, 3),
    nn.ReLU(),
    nn.Linear(3, 3, bias=False),
    nn.LeakyReLU(0.1),
    nn.Linear(3, 1),
    nn.Sigmoid(),
)
print(model)
print(len(model), type(model[0]), isinstance(model[1], nn.Module))
for name, param in model.named_parameters():
    print(name, tuple(param.shape), param.requires_grad)
total = sum(p.numel() for p in model.parameters())
print(f"{total} trainable parameters")
print(model[0])
print(model[0].weight)
print(model[0].bias.data)
print(model[-1], model[2].bias)
print(model[:2])
layer = model[4]
print(layer.in_features, layer.out_features, layer.weight.shape)
out = model(torch.tensor([[0.5, -1.0], [1.0, 2.0]]))
print(out)
print(out.grad_fn)
print(model.training, model.eval().training, model[0].training)
