# Written for gradcli after standalone scripts with a main() guard, docstrings, type hints,
# a CPU device, and a decorator without parentheses.
import torch

device = torch.device("cpu")


def quadratic(x: torch.Tensor, a: float = 2.0) -> torch.Tensor:
    """a * x**2 summed."""
    return (a * x ** 2).sum()


@torch.no_grad
def evaluate(x: torch.Tensor) -> float:
    return quadratic(x).item()


def main() -> None:
    shape = (2, 3)
    x = torch.ones(*shape, device=device, requires_grad=True)
    loss: torch.Tensor = quadratic(x, a=0.5)
    loss.backward()
    print(f"device={device} shape={tuple(x.shape)} loss={loss.item():.2f}")
    print(x.grad, evaluate(x), evaluate(x * 2))
    assert x.grad.sum() == 6, "grad sum"
    print("{} has {} elements; grad mean {:.3f}".format("x", x.numel(), x.grad.mean()))


if __name__ == "__main__":
    main()
