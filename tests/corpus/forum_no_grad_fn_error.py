# Written for gradcli after forum threads on "element 0 of tensors does not require grad and does
# not have a grad_fn" (the loss was computed under no_grad). Ends in an uncaught error.
import torch

w = torch.tensor([0.5, -0.5], requires_grad=True)
x = torch.tensor([1.0, 3.0])
with torch.no_grad():
    pred = (w * x).sum()
loss = (pred - 1.0) ** 2
print(loss, loss.requires_grad, loss.grad_fn)
loss.backward()
print(w.grad)
