# Written for gradcli after "Computational Graphs in PyTorch" (shared/reference): d and e share
# the graph a -> b -> c; retain_graph=True lets both backward, the last e.backward() fails.
import torch
from torch.autograd import Variable

torch.manual_seed(0)
a = Variable(torch.rand(1, 4), requires_grad=True)
b = a**2
c = b*2
d = c.mean()
e = c.sum()
d.backward(retain_graph=True)  # fine
print(a.grad)
e.backward(retain_graph=True)  # fine
print(a.grad)
d.backward()  # also fine
print(a.grad)
e.backward()  # error will occur!
