# Source: PyTorch tutorial "Per-sample-gradients",
# https://github.com/pytorch/tutorials/blob/main/intermediate_source/per_sample_grads.py
# Licence: BSD-3-Clause. Scaled down (an MLP on 8 samples of 6 features, no CUDA), prints added.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, vmap, grad

_ = torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 5)
        self.fc2 = nn.Linear(5, 3)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


batch_size = 8
data = torch.randn(batch_size, 6)
targets = torch.randint(3, (batch_size,))
model = SimpleMLP()


def compute_grad(sample, target):
    prediction = model(sample.unsqueeze(0))  # prepend batch dimension for processing
    loss = loss_fn(prediction, target.unsqueeze(0))
    return torch.autograd.grad(loss, list(model.parameters()))


sample_grads = zip(*[compute_grad(data[i], targets[i]) for i in range(batch_size)])
per_sample_grads = [torch.stack(shards) for shards in sample_grads]
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    predictions = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return loss_fn(predictions, target.unsqueeze(0))


ft_compute_sample_grad = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
    print(ft_per_sample_grad.shape, torch.allclose(per_sample_grad, ft_per_sample_grad))
print(ft_per_sample_grads["fc2.bias"])
print(ft_per_sample_grads["fc1.weight"][5])
