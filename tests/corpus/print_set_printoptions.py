# Source: PyTorch docs, torch.set_printoptions (its examples, then each option and profile),
# https://pytorch.org/docs/stable/generated/torch.set_printoptions.html
# Written for gradcli after that page.
import torch

torch.manual_seed(0)

# the page's examples
torch.set_printoptions(precision=2)
print(torch.tensor([1.12345]))
torch.set_printoptions(threshold=5)
print(torch.arange(10))
torch.set_printoptions(profile='default')
print(torch.tensor([1.12345]))
print(torch.arange(10))

w = torch.randn(4, 6, requires_grad=True)
loss = (w * w).sum()
loss.backward()

# each option alone
for options in [dict(precision=6), dict(precision=0), dict(sci_mode=True),
                dict(edgeitems=1, threshold=10), dict(linewidth=40)]:
    torch.set_printoptions(**options)
    print(options)
    print(w.grad)
    print(loss)
    torch.set_printoptions(profile="default")

# sci_mode is reset by a call that leaves it out
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-8, 1.0, 1e9]))
torch.set_printoptions(precision=3)
print(torch.tensor([1e-8, 1.0, 1e9]))

# the profiles
torch.set_printoptions(profile="short")
print(w)
big = torch.linspace(0, 1, 1200).reshape(40, 30)
print(big)
torch.set_printoptions(profile="full", linewidth=120)
print(big[:3])
print(torch.ones(1001).sum())
torch.set_printoptions(profile="default")
print(big)

# edgeitems=0 prints only "..." and the size
torch.set_printoptions(edgeitems=0, threshold=3)
print(torch.arange(8), w.detach())
torch.set_printoptions(profile="default")
print(f"{w.grad[0, 0]:.3f}", w.grad.shape)
