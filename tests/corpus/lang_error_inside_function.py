# Written for gradcli after forum questions whose error comes from inside a helper function:
# the error is reported at the line in the function body.
import torch


def train_step(w, x):
    loss = (w * x).sum()
    loss.backward()
    loss.backward()
    return loss


w = torch.tensor([1.0, 2.0], requires_grad=True)
x = torch.tensor([3.0, 4.0])
print("start")
train_step(w, x)
print("never printed")
