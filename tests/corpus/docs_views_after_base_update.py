# Written for gradcli after PyTorch's "Tensor Views" notes
# (https://pytorch.org/docs/stable/tensor_view.html): a view shares its base's data, so after an
# in-place update of the base autograd gives the view a new history, an as_strided of the base.
import torch

x = torch.arange(6.0).reshape(2, 3).requires_grad_()
base = x * 1
row = base[1]
col = base[:, 1]
t = base.t()
flat = base.view(6)
diag = base.diagonal()
wide = base[0:1].expand(3, 3)
print(row.grad_fn, col.grad_fn, t.grad_fn, flat.grad_fn, diag.grad_fn, wide.grad_fn)

base.mul_(2)  # every view sees the new values
for v in (row, col, t, flat, diag, wide):
    fn = v.grad_fn
    print(fn.name(), fn._saved_size, fn._saved_stride, fn._saved_storage_offset)
print(row, col, diag, sep="\n")
print(t.is_contiguous(), flat._version, base._version)

loss = row.sum() + (col * col).sum() + (t * 3).sum() + wide.sum()
loss.backward()
print(x.grad)

y = torch.ones(4, requires_grad=True)
z = y * 1
part = z[1:3]
z[0] = 5.0  # an update of the base through another view
print(part.grad_fn.name(), part.grad_fn._saved_storage_offset, z.grad_fn)
(part * torch.tensor([2.0, 3.0])).sum().backward()
print(y.grad)
