# Written for gradcli after the deprecated (Number alpha, other) order of add and sub: what
# PyTorch says when a call has more positional arguments than any of its signatures takes
# (a method lists its signature, a function counts its positional arguments).
import torch
a = torch.ones(2)
b = torch.ones(2)
for call in [lambda: a.add_(1, 2, 3), lambda: a.add(1, 2, 3), lambda: torch.add(a, 1, 2, 3),
             lambda: a.sub(1, b, b), lambda: a.sub_(1.5, b, 2)]:
    try:
        call()
    except TypeError as e:
        print("TypeError:", e)
