# Written for gradcli after the PyTorch docs example of F.nll_loss on log_softmax output
# (https://pytorch.org/docs/stable/generated/torch.nn.functional.nll_loss.html), seeded.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
# input is of size N x C = 3 x 5
input = torch.randn(3, 5, requires_grad=True)
# each element in target has to have 0 <= value < C
target = torch.tensor([1, 0, 4])
output = F.nll_loss(F.log_softmax(input, dim=1), target)
output.backward()
print(output)
print(input.grad)
print(output.grad_fn, output.grad_fn.next_functions[0][0].name())
same = F.cross_entropy(input, target)
print(torch.allclose(output, same), (output - same).abs().item() < 1e-6)
