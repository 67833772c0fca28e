# Source: PyTorch docs, torch.Tensor.requires_grad_ docstring example,
# https://github.com/pytorch/pytorch/blob/main/torch/_tensor_docs.py
# Licence: BSD-3-Clause. Adapted: the tokenizer becomes a plain function, seeded, prints added.
import torch

torch.manual_seed(0)


def get_weights():
    return torch.randn(3, 2)


# Let's say we want to preprocess some saved weights and use
# the result as new weights.
saved_weights = [0.1, 0.2, 0.3, 0.25]
loaded_weights = torch.tensor(saved_weights)
weights = loaded_weights * 2

# Now, start to record operations done to weights
weights.requires_grad_()
out = weights.pow(2).sum()
out.backward()
print(weights.grad)

w = get_weights()
print(w.requires_grad)
w.requires_grad = True
print(w.requires_grad, w.is_leaf)
(w.relu() * 2).mean().backward()
print(w.grad)
