# Written for gradcli after older tutorials and forum answers that pass alpha first, as
# torch.add(a, 2, b) and a.sub(0.5, b): the deprecated (Number alpha, other) order of add and
# sub, functions and methods, warned once a process; the TypeErrors of the orders that are not.
import torch
a = torch.ones(3)
b = torch.tensor([1.0, 2.0, 3.0])
print(torch.add(a, 2, b))
print(torch.sub(a, 2, b), a.add(2, b), a.sub(0.5, b), a.add(2, 3))
c = a.clone()
c.add_(2, b)
c.sub_(2, 3)
print(c)
calls = [lambda: a.clone().sub_(2, b, alpha=1), lambda: a.add(2, b, alpha=3),
         lambda: torch.add(a, 2, b, alpha=2), lambda: torch.add(a, b, b), lambda: a.add(b, b),
         lambda: a.add_(b, b)]
for call in calls:
    try:
        print(call())
    except TypeError as e:
        print("TypeError:", e)
