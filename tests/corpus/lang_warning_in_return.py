# Written for gradcli after forum threads on "UserWarning: Implicit dimension choice for
# softmax has been deprecated" met in small helper functions: Python's warnings module names
# the line that raised it, inside the helper (a return, a lambda), not the line calling it.
import torch
import torch.nn.functional as F


def probabilities(logits):
    return F.softmax(logits)


def flipped(m):
    return m.T


def as_number(t):
    value = t * 2
    return float(value)


log_probs = lambda z: F.log_softmax(z)

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(probabilities(x))
print(flipped(x))
print(as_number(x[1]))
print(log_probs(x) + probabilities(x * 2))
print([F.softmin(v) for v in [x, -x]])
