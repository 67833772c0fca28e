# Written for gradcli after scripts that validate their inputs with raise and assert:
# a caught assert, then an uncaught ValueError with its message.
import torch


def check_shapes(a, b):
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}")
    return a - b


try:
    assert torch.ones(2).sum() > 3, "sum too small"
except AssertionError as e:
    print("assertion:", e)
print(check_shapes(torch.ones(2), torch.zeros(2)))
check_shapes(torch.ones(2), torch.zeros(3))
