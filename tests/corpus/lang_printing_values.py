# Written for gradcli after notebook cells that print whatever they hold: tuples and dicts of
# tensors, grad_fn objects, types, shapes, dtypes, strings inside containers, repr and str.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
z = y.sum()
print((x, z), [y, None], {"loss": z, "n": 2})
print(type(x), type(z.item()), type(x.shape), x.shape, x.dtype, z.grad_fn.name())
print(["a", 'b"c', 1.0, 2, True, None], ("single",), (), {"k": ("v",)})
print(str("text"), repr("text"), f"{'text'!r}", f"{x!s}", f"{x.shape}", f"{z.item()!r}")
print(x.grad_fn, y.is_leaf, x.is_leaf, y.requires_grad, z.grad_fn.next_functions[0][0].name())
print(1e-7, 1e16, 0.1 + 0.2, 2 ** 64, -0.0, 3.0, float("inf"), 7 / 3)
print(*[1, 2, 3], sep=", ", end=".\n")
print("no newline", end="")
print(" ... joined")
print(torch.Size([2, 3]), len(torch.Size([2, 3])), torch.Size([2, 3])[1], torch.float64)
print(isinstance(x, torch.Tensor), isinstance(x.shape, tuple), x.dim(), x.ndim, x.numel())
