# Written for gradcli after the sampling cells of tutorials (torch.multinomial over softmax
# probabilities, Tensor.exponential_) run with bad weights, counts and types: each error caught.
import torch

nan, inf = float("nan"), float("inf")
ones = torch.ones(3)
cases = [
    ("exponential_ rate -1", lambda: torch.empty(3).exponential_(-1)),
    ("exponential_ long", lambda: torch.empty(3, dtype=torch.long).exponential_()),
    ("exponential_ long rate -1", lambda: torch.empty(3, dtype=torch.long).exponential_(-1)),
    ("exponential_ rate inf", lambda: torch.empty(3).exponential_(inf)),
    ("exponential_ rate nan", lambda: torch.empty(3).exponential_(nan)),
    ("exponential_ rate str", lambda: ones.exponential_("a")),
    ("0-d weights", lambda: torch.multinomial(torch.tensor(0.5), 1)),
    ("3-d weights", lambda: torch.multinomial(torch.ones(2, 2, 2), 1)),
    ("long weights", lambda: torch.multinomial(torch.tensor([1, 2]), 1)),
    ("no samples", lambda: torch.multinomial(ones, 0)),
    ("4 of 3 without replacement", lambda: torch.multinomial(ones, 4)),
    ("4 of 3 with replacement", lambda: torch.multinomial(ones, 4, True)),
    ("negative", lambda: torch.multinomial(torch.tensor([1.0, -1.0]), 1)),
    ("nan", lambda: torch.multinomial(torch.tensor([1.0, nan]), 1)),
    ("inf", lambda: torch.multinomial(torch.tensor([1.0, inf]), 1)),
    ("all zero", lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1)),
    ("a zero row", lambda: torch.multinomial(torch.tensor([[1.0, 1.0], [0.0, 0.0]]), 1)),
    ("negative, replacement", lambda: torch.multinomial(torch.tensor([1.0, -1.0]), 2, True)),
    ("nan, replacement", lambda: torch.multinomial(torch.tensor([1.0, nan]), 2, True)),
    ("nan first, replacement", lambda: torch.multinomial(torch.tensor([nan, 1.0]), 2, True)),
    ("inf, replacement", lambda: torch.multinomial(torch.tensor([1.0, inf]), 2, True)),
    ("all zero, replacement", lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 2, True)),
    ("second row bad", lambda: torch.multinomial(torch.tensor([[1.0, 2.0], [1.0, -1.0]]), 2, True)),
    ("float count", lambda: torch.multinomial(ones, 1.5)),
    ("int replacement", lambda: torch.multinomial(ones, 2, 1)),
    ("method, int replacement", lambda: ones.multinomial(2, 1)),
    ("method, float count", lambda: ones.multinomial(2.0)),
    ("no categories", lambda: torch.multinomial(torch.ones(0), 1)),
    ("rows of no categories", lambda: torch.multinomial(torch.ones(2, 0), 1)),
    ("no rows", lambda: torch.multinomial(torch.ones(0, 3), 1)),
    ("weights that require grad", lambda: torch.multinomial(torch.ones(3, requires_grad=True), 2)),
    ("half weights", lambda: torch.multinomial(torch.tensor([1, 2, 3.0], dtype=torch.float16), 2)),
    ("generator=3", lambda: torch.multinomial(ones, 2, generator=3)),
    ("a list", lambda: torch.multinomial([0.5, 0.5], 1)),
]
for name, fn in cases:
    torch.manual_seed(0)
    try:
        print(name, "->", fn())
    except (RuntimeError, TypeError) as e:
        print(name, "!!", type(e).__name__, str(e).splitlines()[0])
print(torch.rand(2))
