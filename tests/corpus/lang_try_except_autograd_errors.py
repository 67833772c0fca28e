# Written for gradcli after forum answers that show autograd errors with try/except and print
# them: the retain_graph error, a non-scalar backward, an in-place update of a leaf, finally.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("second backward:", str(e).split(".")[0])
try:
    (x * 2).backward()
except RuntimeError as e:
    print(type(e).__name__ + ":", e)
try:
    x += 1
except RuntimeError as e:
    print("in-place:", e)
else:
    print("no error")
finally:
    print("x is still", x)
errors = []
for attempt in ("sum", "none", "index"):
    try:
        if attempt == "sum":
            value = x.sum().item()
        elif attempt == "none":
            value = 0.1 * None
        else:
            value = [1, 2][5]
        print("ok", value)
    except (TypeError, IndexError) as err:
        errors.append((attempt, type(err).__name__, str(err)))
print(errors)
try:
    raise ValueError(f"bad value {x.sum().item():.1f}")
except Exception as err:
    print(repr(err), err.args)
