# Written for gradcli after a forum question ("why does my hand-written LayerNorm not match
# F.layer_norm?"): the biased variance, eps inside the square root, and the gradients of
# weight and bias, checked against F.layer_norm and nn.functional.normalize.
import torch
import torch.nn.functional as F

torch.manual_seed(42)
x = torch.randn(3, 5, requires_grad=True)
weight = torch.ones(5, requires_grad=True)
bias = torch.zeros(5, requires_grad=True)

y = F.layer_norm(x, (5,), weight, bias, eps=1e-5)
mean = x.mean(dim=-1, keepdim=True)
var = x.var(dim=-1, keepdim=True, unbiased=False)
by_hand = (x - mean) / torch.sqrt(var + 1e-5) * weight + bias
print(y)
print(torch.allclose(y, by_hand, atol=1e-6), (y - by_hand).abs().max() < 1e-5)
print(y.grad_fn.name(), [f[0].name() if f[0] is not None else None for f in y.grad_fn.next_functions])

target = torch.arange(15.).reshape(3, 5) / 10
loss = F.mse_loss(y, target)
loss.backward()
print(loss)
print(x.grad)
print(weight.grad, bias.grad)

# the same statistics without the affine part
print(F.layer_norm(x.detach(), x.shape[1:]))
unit = F.normalize(x, dim=1)
print(unit.norm(dim=1))
print(F.cosine_similarity(x[0], x[1], dim=0), F.cosine_similarity(x[:2], x[1:]))
print(F.pairwise_distance(x[:2], x[1:]))

# layer norm's gradient of a gradient
(gx,) = torch.autograd.grad((F.layer_norm(x, (5,)) * target).sum(), x, create_graph=True)
(gg,) = torch.autograd.grad((gx * gx).sum(), x)
print(gg)
