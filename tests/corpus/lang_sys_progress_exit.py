# Written for gradcli after training scripts that read their arguments from sys.argv, report
# progress on one line with sys.stdout.write and stop early with sys.exit once the loss is
# small enough (the script's exit status is 0, as Python's).
import sys

import torch

args = sys.argv[1:]
epochs = int(args[0]) if args else 200
print("arguments:", args, "epochs:", epochs)

torch.manual_seed(0)
x = torch.linspace(-1, 1, 20).unsqueeze(1)
y = 3 * x - 0.5
w = torch.zeros(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([w, b], lr=0.3)


def report(epoch, loss):
    sys.stdout.write(f"\repoch {epoch:3d} loss {loss:.6f}")
    sys.stdout.flush()


for epoch in range(epochs):
    loss = ((x @ w + b - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        report(epoch, loss.item())
    if loss.item() < 1e-4:
        sys.stdout.write("\n")
        print(f"converged at epoch {epoch}: w={w.item():.4f} b={b.item():.4f}")
        try:
            sys.exit(0)
        finally:
            print("leaving")
print("not reached")
