# Written for gradcli after d2l's control-flow example and scripts that keep counters:
# while with break and else, global inside a function, recursion, conditional expressions.
import torch

calls = 0


def f(a):
    global calls
    calls += 1
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    return b if b.sum() > 0 else 100 * b


a = torch.tensor(0.7, requires_grad=True)
d = f(a)
d.backward()
print(d, a.grad, a.grad == d / a, calls)


def power(t, n):
    return t if n == 1 else t * power(t, n - 1)


x = torch.tensor(1.5, requires_grad=True)
y = power(x, 4)
y.backward()
print(y, x.grad)
n = 0
while True:
    n += 1
    if n > 3:
        break
else:
    print("unreachable")
for k in range(3):
    if k == 5:
        break
else:
    print("loop finished", k, n)
print([("even" if i % 2 == 0 else "odd") for i in range(4)])
