# Source: PyTorch tutorial "Forward-mode Automatic Differentiation (Beta)",
# https://github.com/pytorch/tutorials/blob/main/intermediate_source/forward_ad_usage.py
# Licence: BSD-3-Clause. Scaled down (smaller tensors, the functorch and custom Function parts
# left out) with torch.manual_seed(0) and prints added so that the values show.
import torch
import torch.autograd.forward_ad as fwAD

torch.manual_seed(0)
primal = torch.randn(3, 3)
tangent = torch.randn(3, 3)


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    print(dual_input)

    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent

    plain_tensor = torch.randn(3, 3)
    dual_output = fn(dual_input, plain_tensor)

    jvp = fwAD.unpack_dual(dual_output).tangent
    print(jvp)
    print(fwAD.unpack_dual(dual_output))

assert fwAD.unpack_dual(dual_output).tangent is None
print(dual_output)

# Usage with Modules
import torch.nn as nn

model = nn.Linear(5, 5)
input = torch.randn(4, 5)

params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}

with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))

    out = model(input)
    jvp = fwAD.unpack_dual(out).tangent
    print(out)
print(jvp)
