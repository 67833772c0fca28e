# Written for gradcli after the PyTorch docs' "Extending torch.autograd" (a Function computed
# with NumPy: .detach().numpy() in, torch.from_numpy out), the data tutorial's Dataset class
# (__len__/__getitem__ returning tensors made from NumPy arrays) and a module holding an array.
import numpy as np
import torch
from torch import nn


class NumpyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        result = torch.from_numpy(np.exp(input.detach().numpy()))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return torch.from_numpy(grad_output.numpy() * result.detach().numpy())


class ToyDataset:
    def __init__(self, n, seed=0):
        rng = np.random.default_rng(seed)
        self.x = rng.normal(size=(n, 2))
        self.y = (self.x[:, 0] + 2 * self.x[:, 1] > 0).astype(np.int64)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), torch.tensor(self.y[i])


class Scaled(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.weights = weights
        self.scale = nn.Parameter(torch.from_numpy(weights.copy()))
        self.register_buffer("offset", torch.as_tensor(np.arange(2.0)))

    def forward(self, x):
        return NumpyExp.apply(x * self.scale) + self.offset

    def extra_repr(self):
        return f"weights={self.weights}"


ds = ToyDataset(5)
model = Scaled(np.array([0.5, -1.0]))
print(len(ds), model, [n for n, _ in model.named_parameters()], list(model.state_dict()))
xs = torch.stack([ds[i][0] for i in range(len(ds))])
ys = torch.stack([ds[i][1] for i in range(len(ds))])
loss = torch.nn.functional.cross_entropy(model(xs), ys)
loss.backward()
print(loss, loss.grad_fn.next_functions[0][0], model.scale.grad)
print(torch.autograd.gradcheck(NumpyExp.apply, (xs.clone().requires_grad_(),)))
model.weights[0] = 3.0
print(model.weights, model.scale.detach().numpy(), type(model.weights).__name__)
