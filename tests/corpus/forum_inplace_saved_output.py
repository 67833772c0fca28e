# Written for gradcli after https://discuss.pytorch.org/t/when-inplace-operation-are-allowed-and-when-not/169583
# (exp saves its output, so changing u is fine but changing exp(u) is not). Ends in an uncaught error.
import torch

t = torch.arange(3.0, requires_grad=True)
u = 2 * t  # (so it won't be a leaf variable)
uexp = u.exp()  # uexp is the gradient of u.exp()
loss = uexp.sum()  # (some dummy loss)
u[0] = 666  # inplace modification of u
loss.backward(retain_graph=True)  # okay
print(t.grad)
print(u, u._version)
uexp[0] = 666  # inplace modification of uexp
print(uexp._version, uexp.grad_fn)
loss.backward()
