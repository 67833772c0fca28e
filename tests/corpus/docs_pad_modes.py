# Written for gradcli after the torch.nn.functional.pad docs: the same signal padded with
# zeros, reflected and replicated edges; where each mode sends the gradient of the border
# back; and a mode that does not exist.
import torch
import torch.nn.functional as F

signal = torch.tensor([[[1., 2., 3., 4.]]], requires_grad=True)
weights = torch.arange(1., 9.)
for mode in ("constant", "reflect", "replicate"):
    padded = F.pad(signal, (2, 2), mode=mode)
    (padded * weights).sum().backward()
    print(f"{mode:>9}: {padded.squeeze().tolist()} {padded.grad_fn.name()}")
    print(f"{'':>9}  grad {signal.grad.squeeze().tolist()}")
    signal.grad = None

image = torch.arange(9.).reshape(1, 1, 3, 3).requires_grad_()
out = F.pad(image, (1, 1, 1, 1), mode="reflect")
print(out)
out.pow(2).sum().backward()
print(image.grad)
print(F.pad(image, (0, 1, 2, 0), mode="replicate"))
F.pad(signal, (1, 1), mode="wrap")
