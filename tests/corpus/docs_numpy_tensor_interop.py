# Written for gradcli after the torch.from_numpy, torch.as_tensor and Tensor.numpy docs (https://pytorch.org/docs/stable/generated/torch.from_numpy.html) and the behaviour of tensors mixed with arrays
import numpy
import torch

a = numpy.array([1, 2, 3])
t = torch.from_numpy(a)
print(t)
t[0] = -1
print(a, t._version)
a[1] = 20
print(t, t._version)

b = numpy.array([1, 2, 3])
u = torch.as_tensor(b)
u[0] = -1
print(b)
v = torch.as_tensor(b, dtype=torch.float32)
v[1] = 0.5
print(b, v)
w = torch.tensor(b)
w[2] = 99
print(b, w)

print(torch.from_numpy(numpy.arange(6.0).reshape(2, 3).T).stride())
print(torch.tensor(numpy.float32(1.5)), torch.tensor(numpy.float64(1.5)))
print(torch.tensor([numpy.float64(0.5), 2.0]).dtype, torch.tensor(numpy.int32(3)).dtype)
print(torch.tensor([numpy.arange(2), numpy.arange(2)]))

x = torch.ones(3)
print(x * numpy.float64(2.5), numpy.float32(2) - x, x + numpy.array(1.0))
print(x + numpy.arange(3.0), numpy.sin(x), numpy.arange(3.0) / x)
print(x == numpy.ones(3), numpy.ones(3) == x)
s = torch.tensor(2.0)
n = s.numpy()
s.mul_(3)
print(n, type(n), n.dtype, s.numpy().shape)
print(x.numpy().sum(), numpy.allclose(x.numpy(), [1, 1, 1]))
y = numpy.ones(3) - x
