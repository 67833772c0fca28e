# Written for gradcli after the PyTorch tutorial "Forward-mode Automatic Differentiation
# (Beta)" (intermediate_source/forward_ad_usage.py, BSD-3-Clause): torch.autograd.forward_ad's
# errors and edge cases, each printed as PyTorch words it.
import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0, 3.0])


def attempt(fn):
    try:
        print(fn())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", e)


attempt(lambda: fwAD.make_dual(x, torch.ones(3)))
attempt(lambda: fwAD.unpack_dual(x))
attempt(lambda: fwAD.exit_dual_level())
with fwAD.dual_level() as level:
    print(level)
    d = fwAD.make_dual(x, torch.ones(3))
    attempt(lambda: fwAD.make_dual(d, torch.ones(3)))
    attempt(lambda: fwAD.make_dual(x, torch.ones(1, 3)))
    attempt(lambda: fwAD.make_dual(x, torch.ones(3, dtype=torch.int64)))
    attempt(lambda: fwAD.make_dual(torch.tensor([1, 2]), torch.ones(2)))
    attempt(lambda: fwAD.make_dual(x, torch.ones(3), level=1))
    attempt(lambda: fwAD.make_dual(1.0, torch.ones(3)))
    attempt(lambda: fwAD.unpack_dual(2.0))
    attempt(lambda: fwAD.unpack_dual(d, level=0))
    attempt(lambda: fwAD.make_dual(x, torch.ones(3, dtype=torch.float64)) * 2)
    attempt(lambda: torch.cdist(d.view(1, 3), d.view(1, 3)))
    attempt(lambda: (d > 2).sum())
    attempt(lambda: d.detach())
    attempt(lambda: d.argmax())
    attempt(lambda: fwAD.unpack_dual(d.sum()).tangent)
    with torch.no_grad():
        attempt(lambda: d.exp())
    y = d.clone()
    y[1] = 5.0
    attempt(lambda: y)
    y.mul_(d)
    attempt(lambda: y)
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    attempt(lambda: (d * w).sigmoid_().clamp_(0.5, 0.9))
attempt(lambda: fwAD.unpack_dual(y))
print(fwAD.enter_dual_level())
attempt(lambda: fwAD.make_dual(x, torch.zeros(3)))
fwAD.exit_dual_level()
attempt(lambda: fwAD.unpack_dual(d))
