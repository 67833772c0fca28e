# Written for gradcli after forum threads on "One of the differentiated Tensors appears to not have
# been used in the graph". Ends in an uncaught error.
import torch

a = torch.tensor(1.5, requires_grad=True)
b = torch.tensor(-2.0, requires_grad=True)
y = a ** 2 + 3 * a
ga, gb = torch.autograd.grad(y, [a, b], allow_unused=True, retain_graph=True)
print(ga, gb)
ga, gb = torch.autograd.grad(y, [a, b], allow_unused=True, materialize_grads=True, retain_graph=True)
print(ga, gb)
ga, gb = torch.autograd.grad(y, [a, b])
