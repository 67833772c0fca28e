# Source: the examples of torch.func.vmap's docstring (torch/_functorch/apis.py, PyTorch 2.13),
# BSD-3-Clause; sizes scaled down, prints and the errors of data-dependent control flow added.
import torch
from torch.func import vmap, grad

_ = torch.manual_seed(0)
x, y = torch.randn(2, 5), torch.randn(2, 5)
batched_dot = torch.func.vmap(torch.dot)  # [N, D], [N, D] -> [N]
print(batched_dot(x, y))

weights = torch.randn(3)


def model(feature_vec):
    print("feature_vec:", feature_vec.shape)  # runs once, with one sample's shape
    return feature_vec.dot(weights).relu()


examples = torch.randn(4, 3)
print(vmap(model)(examples))
print(vmap(torch.mv, in_dims=(None, 0))(torch.randn(2, 3), torch.randn(4, 3)).shape)
print(vmap(torch.mv, in_dims=(0, None))(torch.randn(4, 2, 3), torch.randn(3)).shape)
print(vmap(torch.sum, in_dims=1)(x))
print(vmap(lambda x: x ** 2, out_dims=1)(torch.arange(6.).reshape(2, 3)))
print(vmap(lambda x, *, scale: x * scale)(torch.randn(3), scale=4.0).shape)


def f(x):
    return x.sin().pow(2).sum()


x = torch.randn(3, 4)
print(torch.allclose(vmap(grad(f))(x), 2 * x.sin() * x.cos()))
batched_pow = vmap(torch.pow, in_dims=(0, None))
print(batched_pow(torch.arange(3.), 2))
for g in (lambda r: r if r.sum() > 0 else -r, lambda r: r * r.max().item()):
    try:
        vmap(g)(x)
    except RuntimeError as e:
        print(type(e).__name__, str(e)[:60])
print(vmap(lambda r: r + torch.rand(4), randomness="same")(torch.zeros(2, 4)))
vmap(torch.add)(torch.ones(3), torch.ones(4))
