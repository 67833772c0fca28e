# Written for gradcli after https://discuss.pytorch.org/t/how-computation-graph-in-pytorch-is-created-and-freed/3515
# (a second backward through a graph whose saved tensors were freed). Ends in an uncaught error.
import torch

a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = a * a
c = b.sum()
c.backward()
print(a.grad)
d = (a * 3).sum()  # a new graph: fine
d.backward()
print(a.grad)
c.backward()
print(a.grad)
