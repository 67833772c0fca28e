# Source: https://discuss.pytorch.org/t/runtimeerror-cant-call-numpy-on-variable-that-requires-grad/20763 (the model output turned into NumPy for metrics)
import torch
import numpy as np

torch.manual_seed(0)
w = torch.randn(3, 1, requires_grad=True)
x = torch.randn(4, 3)
target = np.array([[0.5], [-1.0], [0.25], [2.0]], dtype=np.float32)

output = x @ w
err = output.detach().numpy() - target
print(err.shape, err.dtype)
print(np.abs(err).mean())
print(np.mean(err ** 2) == ((output.detach() - torch.from_numpy(target)) ** 2).mean().item())
print(output.detach().cpu().numpy().round(3))
print(output.numpy(force=True).sum())
mse = np.mean((output.numpy() - target) ** 2)
print(mse)
