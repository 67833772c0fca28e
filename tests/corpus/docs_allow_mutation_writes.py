# Source: PyTorch docs, torch.autograd.graph.allow_mutation_on_saved_tensors, and its
# _CloneArgBeforeMutateMode (a saved tensor is cloned before any op writes to its storage, found
# by data pointer and version): https://github.com/pytorch/pytorch/blob/main/torch/autograd/graph.py
# Licence: BSD-3-Clause. Written for gradcli after that code: the ways a program writes to a
# saved tensor (index assignment, zero_, copy_, a view's in-place op, fill_, under no_grad,
# through .data, an optimizer's step) and the gradients the backward then computes.
import torch
torch.manual_seed(0)
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    a = torch.randn(4, requires_grad=True)
    for how in range(7):
        b = a.clone()
        out = (b * b.exp()).sum()
        if how == 0:
            b[0] = 5.0
        elif how == 1:
            b.zero_()
        elif how == 2:
            b.copy_(torch.ones(4))
        elif how == 3:
            b[1:].mul_(2)
        elif how == 4:
            b.fill_(2)
        elif how == 5:
            with torch.no_grad():
                b.add_(1)
        elif how == 6:
            b.data.add_(1)
        out.backward()
        print(how, a.grad)
        a.grad = None
    w = torch.nn.Parameter(torch.randn(3))
    opt = torch.optim.SGD([w], lr=0.5)
    loss = (w * w).sum()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    w.grad = None
    loss.backward()
    print(w.grad)
