# Written for gradcli after the lab "dynamic computational graphs" (shared/reference): an RNN
# cell, requires_grad contagion, non-leaf grads, accumulation and zero_(), retain_grad, detach.
import torch

torch.manual_seed(0)
Wh = torch.randn(3, 3, requires_grad=True)
Wx = torch.randn(3, 2, requires_grad=True)
x = torch.randn(2, 1)
h = torch.randn(3, 1)
i2h = Wx.mm(x)
h2h = Wh.mm(h)
print('i2h:\n', i2h)
print('h2h:\n', h2h)
next_h = i2h + h2h
next_h = next_h.tanh()
out = next_h.sum()
print('out:\n', out)
for name, t in [('Wh', Wh), ('Wx', Wx), ('h', h), ('x', x), ('i2h', i2h), ('out', out)]:
    print(f'{name}: requires_grad =', t.requires_grad)
out.backward()
print('gradient of Wx:\n', Wx.grad)
print('\ngradient of Wh:\n', Wh.grad)
print('gradient of x:', x.grad)
print('gradient of i2h:', i2h.grad)

Wh = torch.ones(3, 3, requires_grad=True)
Wx = torch.ones(3, 2)
h = torch.ones(3, 1)


def forward():
    i2h = Wx.mm(x)
    h2h = Wh.mm(h)
    next_h = i2h + h2h
    next_h = next_h.tanh()
    return next_h.sum()


for i in range(3):
    out = forward()
    out.backward()
    print(f'Iter {i}:', Wh.grad.flatten())
Wh.grad.zero_()
print(Wh.grad.sum())
w1 = torch.tensor(2., requires_grad=True)
w2 = torch.tensor(2., requires_grad=True)
x = torch.tensor(4., requires_grad=True)
y = w1*x
y = w2*y
y.retain_grad()
out = y**2
out.backward()
print('dy=', y.grad, 'dw1=', w1.grad)

x = torch.ones(10, requires_grad=True)
y = x.detach()**2
z = x**3
out = (y + z).sum()
out.backward()
print(x.grad, y.requires_grad, z.grad_fn)
