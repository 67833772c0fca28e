# Written for gradcli after PyTorch's "Dynamic Parallelism in TorchScript" tutorial
# (https://pytorch.org/tutorials/advanced/torch-script-parallelism.html): functions annotated
# with typing's List, Tuple and Optional, an ensemble's outputs gathered in a List[Tensor]
# (run one after the other here) and stacked.
from typing import Callable, Dict, List, Optional, Tuple

import torch

torch.manual_seed(0)
Model = Callable[[torch.Tensor], torch.Tensor]


def make_model(w: torch.Tensor) -> Model:
    def forward(x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x @ w)
    return forward


def ensemble(x: torch.Tensor, models: List[Model]) -> Tuple[torch.Tensor, int]:
    futures: List[torch.Tensor] = []
    for model in models:
        futures.append(model(x))
    return torch.stack(futures).mean(0), len(futures)


def best(scores: Dict[str, float], floor: Optional[float] = None) -> Optional[str]:
    keep = {k: v for k, v in scores.items() if floor is None or v >= floor}
    return max(keep, key=keep.get) if keep else None


weights = [torch.randn(3, 2, requires_grad=True) for _ in range(4)]
x = torch.randn(5, 3)
out, n = ensemble(x, [make_model(w) for w in weights])
out.sum().backward()
print(out.shape, n, weights[0].grad)
print(best({"a": 0.5, "b": 0.9}), best({"a": 0.5}, floor=0.8))
print(List[torch.Tensor], Tuple[torch.Tensor, int], Optional[float], Model)
