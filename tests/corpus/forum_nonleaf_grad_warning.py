# Written for gradcli after https://discuss.pytorch.org/t/loss-grad-is-constant-1/130964
# (reading .grad of a non-leaf warns and gives None; retain_grad() fixes it).
import torch

x = torch.tensor([[0.5, -1.0]], requires_grad=True)
w = torch.tensor([[2.0], [1.0]], requires_grad=True)
out = x @ w
loss = out ** 2
print(loss.grad)
loss.backward()
print(loss.grad)
print(x.grad, w.grad)

out2 = x @ w
out2.retain_grad()
loss2 = out2 ** 2
loss2.backward()
print(out2.grad)
print(x.is_leaf, out2.is_leaf, loss2.is_leaf)
