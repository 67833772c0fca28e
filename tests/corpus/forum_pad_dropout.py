# Written for gradcli after forum questions on F.pad ("how do I pad the last dimension on one
# side?") and F.dropout ("why is my output scaled at train time?"): constant padding, cropping
# with negative padding, and dropout's mask after manual_seed.
import torch
import torch.nn.functional as F

x = torch.arange(1., 7.).reshape(2, 3).requires_grad_()
p = F.pad(x, (0, 2))
print(p)
q = F.pad(x, (1, 1, 1, 0), value=-1.0)
print(q)
crop = F.pad(x, (-1, 0))
print(crop, crop.grad_fn)
(q * torch.arange(15.).reshape(3, 5)).sum().backward()
print(x.grad)

torch.manual_seed(0)
a = torch.ones(4, 5, requires_grad=True)
d = F.dropout(a, p=0.4)
print(d)
print((d == 0).sum().item(), "dropped of", d.numel())
d.sum().backward()
print(a.grad)
print(F.dropout(a, p=0.4, training=False) is a)
print(torch.rand(2))

b = a * 2
F.dropout(b, 0.5, inplace=True)
print(b.grad_fn, b)
