# Source: PyTorch docs, "Modules" notes, Module Hooks (https://pytorch.org/docs/stable/notes/modules.html#module-hooks);
# plus the graph a full backward hook adds (BackwardHookFunctionBackward) and hooks on a class of ours.
import torch
from torch import nn
torch.manual_seed(1)

def forward_pre_hook(m, inputs):
  # Allows for examination and modification of the input before the forward pass.
  # Note that inputs are always wrapped in a tuple.
  input = inputs[0]
  return input + 1.

def forward_hook(m, inputs, output):
  # Residual computation a la ResNet.
  return output + inputs[0]

def backward_hook(m, grad_inputs, grad_outputs):
  # Allows for examination of grad_inputs / grad_outputs and modification of
  # grad_inputs used in the rest of the backwards pass.
  new_grad_inputs = [torch.ones_like(gi) * 42. for gi in grad_inputs]
  return new_grad_inputs

m = nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)
print('output with no forward hooks: {}'.format(m(x)))
forward_pre_hook_handle = m.register_forward_pre_hook(forward_pre_hook)
print('output with forward pre hook: {}'.format(m(x)))
forward_hook_handle = m.register_forward_hook(forward_hook)
print('output with both forward hooks: {}'.format(m(x)))
forward_pre_hook_handle.remove()
forward_hook_handle.remove()
print('output after removing forward hooks: {}'.format(m(x)))
m(x).sum().backward()
print('x.grad with no backwards hook: {}'.format(x.grad))
m.zero_grad()
x.grad.zero_()
m.register_full_backward_hook(backward_hook)
out = m(x)
print(out.grad_fn, out.grad_fn.next_functions[0][0].next_functions[0][0])
out.sum().backward()
print('x.grad with backwards hook: {}'.format(x.grad))

class Scale(nn.Module):
  def __init__(self, k):
    super().__init__()
    self.k = nn.Parameter(torch.tensor(k))
  def forward(self, a, b):
    return a * self.k, b - self.k

seen = []
s = Scale(2.0)
s.register_forward_hook(lambda mod, inp, out: seen.append(('fwd', len(inp), type(out).__name__)))
s.register_full_backward_pre_hook(lambda mod, go: seen.append(('pre', [g.shape if g is not None else None for g in go])))
s.register_full_backward_hook(lambda mod, gi, go: seen.append(('bwd', gi[0], go[1])))
p, q = s(x, torch.ones(2, 3, requires_grad=True))
(p.sum() + 3 * q.sum()).backward()
print(seen, s.k.grad, p.grad_fn.name())
