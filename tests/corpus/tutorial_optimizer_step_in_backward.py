# Source: PyTorch tutorial "How to save memory by fusing the optimizer step into the backward
# pass", https://github.com/pytorch/tutorials/blob/main/intermediate_source/optimizer_step_in_backward_tutorial.py
# Licence: BSD-3-Clause. Scaled down (a small Linear model for the ViT, plain SGD per parameter)
# with torch.manual_seed(0); the hook's errors and removal added.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
optimizer_dict = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}
order = []


def optimizer_hook(parameter) -> None:
    order.append(tuple(parameter.shape))
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()


handles = [p.register_post_accumulate_grad_hook(optimizer_hook) for p in model.parameters()]
x = torch.randn(5, 4)
target = torch.randn(5, 1)
for step in range(3):
    loss = ((model(x) - target) ** 2).mean()
    loss.backward()
    print(step, loss.item(), order)
    order.clear()
for p in model.parameters():
    print(p.grad, p)

# the hook sees the leaf after its .grad was accumulated
w = torch.tensor([1.0, 2.0], requires_grad=True)
h1 = w.register_post_accumulate_grad_hook(lambda p: print("first", p.grad))
h2 = w.register_post_accumulate_grad_hook(lambda p: print("second", p.grad * 10))
(w * w).sum().backward()
h1.remove()
(w * 3).sum().backward()
print(w.grad)
# autograd.grad accumulates nothing: no hook runs
print(torch.autograd.grad((w * w).sum(), w))
h2.remove()
(w * w).sum().backward()
print(w.grad)

# PyTorch's errors
try:
    (w * 2).register_post_accumulate_grad_hook(lambda p: None)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(2).register_post_accumulate_grad_hook(lambda p: None)
except RuntimeError as e:
    print("RuntimeError:", e)
v = torch.ones(2, requires_grad=True)
v.register_post_accumulate_grad_hook(lambda p: p.grad)
try:
    v.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
