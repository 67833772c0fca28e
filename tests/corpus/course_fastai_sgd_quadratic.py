# Written for gradcli after the fast.ai course notebook "04_mnist_basics" (SGD on a quadratic:
# params with requires_grad_, loss, backward, step under .data, grad zeroing), seeded.
import torch

torch.manual_seed(42)
time = torch.arange(0, 20).float()
speed = torch.randn(20) * 3 + 0.75 * (time - 9.5) ** 2 + 1


def f(t, params):
    a, b, c = params
    return a * (t ** 2) + (b * t) + c


def mse(preds, targets):
    return ((preds - targets) ** 2).mean()


params = torch.randn(3).requires_grad_()
orig_params = params.clone()
lr = 1e-5


def apply_step(params, prn=True):
    preds = f(time, params)
    loss = mse(preds, speed)
    loss.backward()
    params.data -= lr * params.grad.data
    params.grad = None
    if prn:
        print(loss.item())
    return preds


for i in range(10):
    apply_step(params)
print(params, orig_params)
print(time[:5], speed.shape)
