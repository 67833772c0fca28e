# Written for gradcli after the training loops of tutorials: a function returning a tuple,
# unpacking, a history dict, f-strings with format specs of tensors and items, % formatting.
import torch

xs = torch.tensor([1.0, 2.0, 3.0, 4.0])
ys = torch.tensor([3.0, 5.0, 7.0, 9.0])
w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)


def forward(x, params):
    weight, bias = params
    return weight * x + bias


def loss_and_grads(params, lr=0.05):
    pred = forward(xs, params)
    loss = ((pred - ys) ** 2).mean()
    loss.backward()
    return loss, tuple(p.grad for p in params)


history = {"loss": [], "w": []}
for step in range(6):
    loss, (gw, gb) = loss_and_grads((w, b))
    with torch.no_grad():
        w -= 0.05 * gw
        b -= 0.05 * gb
    w.grad.zero_()
    b.grad.zero_()
    history["loss"].append(round(loss.item(), 4))
    history["w"].append(float(f"{w.item():.3f}"))
    print(f"step {step:2d} | loss {loss:8.4f} | w {w.item():+.4f} | b={b.item():.3e}")
print("%s after %d steps: w=%.3f b=%.3f" % ("fit", step + 1, w.item(), b.item()))
print(history)
print(f"{loss!r}", f"{w=}".replace("\n", " "), sep=" || ")
best = min(range(len(history["loss"])), key=lambda i: history["loss"][i])
print("best step:", best, "losses:", [f"{v:.2f}" for v in history["loss"]])
