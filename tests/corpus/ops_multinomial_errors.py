# torch.multinomial and Tensor.exponential_: what each bad call raises, each caught and printed
# (a tutorial's sampling cell run with bad weights, counts and types).
import torch

torch.manual_seed(0)
try:
    r = torch.empty(3).exponential_(-1)
    print('torch.empty(3).exponential_(-1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.empty(3).exponential_(-1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.empty(3, dtype=torch.long).exponential_()
    print('torch.empty(3, dtype=torch.long).exponential_()', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.empty(3, dtype=torch.long).exponential_()', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.empty(3, dtype=torch.long).exponential_(-1)
    print('torch.empty(3, dtype=torch.long).exponential_(-1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.empty(3, dtype=torch.long).exponential_(-1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.empty(3).exponential_(float('inf'))
    print("torch.empty(3).exponential_(float('inf'))", '->', r)
except (RuntimeError, TypeError) as e:
    print("torch.empty(3).exponential_(float('inf'))", '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.empty(3).exponential_(float('nan'))
    print("torch.empty(3).exponential_(float('nan'))", '->', r)
except (RuntimeError, TypeError) as e:
    print("torch.empty(3).exponential_(float('nan'))", '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor(0.5), 1)
    print('torch.multinomial(torch.tensor(0.5), 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.tensor(0.5), 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(2, 2, 2), 1)
    print('torch.multinomial(torch.ones(2, 2, 2), 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(2, 2, 2), 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([1, 2]), 1)
    print('torch.multinomial(torch.tensor([1, 2]), 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.tensor([1, 2]), 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(3), 0)
    print('torch.multinomial(torch.ones(3), 0)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(3), 0)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(3), 4)
    print('torch.multinomial(torch.ones(3), 4)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(3), 4)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(3), 4, True)
    print('torch.multinomial(torch.ones(3), 4, True)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(3), 4, True)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([1., -1.]), 1)
    print('torch.multinomial(torch.tensor([1., -1.]), 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.tensor([1., -1.]), 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([1., float('nan')]), 1)
    print("torch.multinomial(torch.tensor([1., float('nan')]), 1)", '->', r)
except (RuntimeError, TypeError) as e:
    print("torch.multinomial(torch.tensor([1., float('nan')]), 1)", '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([1., float('inf')]), 1)
    print("torch.multinomial(torch.tensor([1., float('inf')]), 1)", '->', r)
except (RuntimeError, TypeError) as e:
    print("torch.multinomial(torch.tensor([1., float('inf')]), 1)", '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([0., 0.]), 1)
    print('torch.multinomial(torch.tensor([0., 0.]), 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.tensor([0., 0.]), 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([[1., 1.], [0., 0.]]), 1)
    print('torch.multinomial(torch.tensor([[1., 1.], [0., 0.]]), 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.tensor([[1., 1.], [0., 0.]]), 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([1., -1.]), 2, True)
    print('torch.multinomial(torch.tensor([1., -1.]), 2, True)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.tensor([1., -1.]), 2, True)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([1., float('nan')]), 2, True)
    print("torch.multinomial(torch.tensor([1., float('nan')]), 2, True)", '->', r)
except (RuntimeError, TypeError) as e:
    print("torch.multinomial(torch.tensor([1., float('nan')]), 2, True)", '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([float('nan'), 1.]), 2, True)
    print("torch.multinomial(torch.tensor([float('nan'), 1.]), 2, True)", '->', r)
except (RuntimeError, TypeError) as e:
    print("torch.multinomial(torch.tensor([float('nan'), 1.]), 2, True)", '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([1., float('inf')]), 2, True)
    print("torch.multinomial(torch.tensor([1., float('inf')]), 2, True)", '->', r)
except (RuntimeError, TypeError) as e:
    print("torch.multinomial(torch.tensor([1., float('inf')]), 2, True)", '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([0., 0.]), 2, True)
    print('torch.multinomial(torch.tensor([0., 0.]), 2, True)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.tensor([0., 0.]), 2, True)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(3), 1.5)
    print('torch.multinomial(torch.ones(3), 1.5)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(3), 1.5)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(3), 2, 1)
    print('torch.multinomial(torch.ones(3), 2, 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(3), 2, 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.ones(3).multinomial(2, 1)
    print('torch.ones(3).multinomial(2, 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.ones(3).multinomial(2, 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.ones(3).multinomial(2.0)
    print('torch.ones(3).multinomial(2.0)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.ones(3).multinomial(2.0)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(0), 1)
    print('torch.multinomial(torch.ones(0), 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(0), 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(2, 0), 1)
    print('torch.multinomial(torch.ones(2, 0), 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(2, 0), 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(0, 3), 1)
    print('torch.multinomial(torch.ones(0, 3), 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(0, 3), 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(3, requires_grad=True), 2)
    print('torch.multinomial(torch.ones(3, requires_grad=True), 2)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(3, requires_grad=True), 2)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([1, 2, 3.], dtype=torch.float16), 2)
    print('torch.multinomial(torch.tensor([1, 2, 3.], dtype=torch.float16), 2)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.tensor([1, 2, 3.], dtype=torch.float16), 2)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.ones(3), 2, generator=3)
    print('torch.multinomial(torch.ones(3), 2, generator=3)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.ones(3), 2, generator=3)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial([0.5, 0.5], 1)
    print('torch.multinomial([0.5, 0.5], 1)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial([0.5, 0.5], 1)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.ones(3).exponential_('a')
    print("torch.ones(3).exponential_('a')", '->', r)
except (RuntimeError, TypeError) as e:
    print("torch.ones(3).exponential_('a')", '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.multinomial(torch.tensor([[1., 2.], [1., -1.]]), 2, True)
    print('torch.multinomial(torch.tensor([[1., 2.], [1., -1.]]), 2, True)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.multinomial(torch.tensor([[1., 2.], [1., -1.]]), 2, True)', '!!', type(e).__name__, str(e).splitlines()[0])
torch.manual_seed(0)
try:
    r = torch.rand(3)
    print('torch.rand(3)', '->', r)
except (RuntimeError, TypeError) as e:
    print('torch.rand(3)', '!!', type(e).__name__, str(e).splitlines()[0])
print(torch.rand(2))
