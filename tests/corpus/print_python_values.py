# Written for gradcli after notebook-style printing seen across tutorials and forum posts:
# .item(), .tolist(), tuples, lists of tensors, f-string format specs, % formatting, sep/end.
import torch

t = torch.tensor([0.123456, 2.5, -3.0], requires_grad=True)
s = (t ** 2).sum()
print(s.item(), type(s.item()).__name__)
print(t.tolist())
print(f"{s.item():.4f} {s.item():10.2f}| {s.item():e} {s.item():.3g}")
print(f"{t[0].item():+.2%} {int(t[1].item()):03d} {'ok':>5}")
print("loss: %.3f, step: %d" % (s.item(), 7))
pair = (t.detach(), s.detach())
print(pair)
print([t[0], t[1]])
print(round(s.item(), 2), abs(-2), max(1, 3), min([4.0, 2.0]))
print(sum(v * v for v in t.tolist()))
print(*t.tolist(), sep=" | ", end=" <end>\n")
a, (b, c) = 1, (2, 3)
print(a, b, c)
d = {"loss": round(s.item(), 3), "n": len(t)}
print(d)
names = ["w", "b"]
for i, (n, v) in enumerate(zip(names, [t.sum(), t.mean()])):
    print(i, n, v)
squares = [k ** 2 for k in range(5) if k % 2 == 0]
print(squares, 7 // 2, 7 % 3, -7 // 2, 2 ** -1)
print(isinstance(t, torch.Tensor), t is t, None is None, 2.5 in t.tolist())
print(bool(t.sum() > 0), str(True), float("1e-3"))
