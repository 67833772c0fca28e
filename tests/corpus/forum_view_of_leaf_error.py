# Written for gradcli after https://discuss.pytorch.org/t/inplace-operation-changes-is-leaf-attribute/120297
# (index assignment into a leaf that requires grad). Ends in an uncaught error.
import torch

c = torch.zeros(2, 3, requires_grad=True)
print(c.is_leaf)
d = c.detach()
d += 1  # no error, and still leaf
print(c, c.is_leaf)
e = c.clone()
e[0, 1] = 5.0  # fine: e is not a leaf
print(e)
c[0, 1] = 5.0
print(c)
