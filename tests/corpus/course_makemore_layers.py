# Source: Karpathy, "Neural Networks: Zero to Hero", makemore part 3 (BatchNorm): layers as classes.
# Adapted: inline words, 60 steps, type(layer) for layer.__class__ (refused by gradcli's sandbox).
import torch
import torch.nn.functional as F
words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper"]
stoi = {s: i + 1 for i, s in enumerate(sorted(list(set(''.join(words)))))}; stoi['.'] = 0
X, Y = [], []
for w in words:
  context = [0] * 3
  for ch in w + '.':
    X.append(context); Y.append(stoi[ch]); context = context[1:] + [stoi[ch]]
X, Y = torch.tensor(X), torch.tensor(Y)
class Linear:
  def __init__(self, fan_in, fan_out, bias=True):
    self.weight = torch.randn((fan_in, fan_out), generator=g) / fan_in**0.5
    self.bias = torch.zeros(fan_out) if bias else None
  def __call__(self, x):
    self.out = x @ self.weight
    if self.bias is not None: self.out += self.bias
    return self.out
  def parameters(self):
    return [self.weight] + ([] if self.bias is None else [self.bias])
class BatchNorm1d:
  def __init__(self, dim, eps=1e-5, momentum=0.1):
    self.eps, self.momentum, self.training = eps, momentum, True
    self.gamma, self.beta = torch.ones(dim), torch.zeros(dim)
    self.running_mean, self.running_var = torch.zeros(dim), torch.ones(dim)
  def __call__(self, x):
    if self.training:
      xmean, xvar = x.mean(0, keepdim=True), x.var(0, keepdim=True)
    else:
      xmean, xvar = self.running_mean, self.running_var
    self.out = self.gamma * (x - xmean) / torch.sqrt(xvar + self.eps) + self.beta
    if self.training:
      with torch.no_grad():
        self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
        self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
    return self.out
  def parameters(self):
    return [self.gamma, self.beta]
class Tanh:
  def __call__(self, x):
    self.out = torch.tanh(x); return self.out
  def parameters(self): return []
g = torch.Generator().manual_seed(2147483647); C = torch.randn((len(stoi), 4), generator=g)
layers = [Linear(12, 16, bias=False), BatchNorm1d(16), Tanh(), Linear(16, len(stoi), bias=False), BatchNorm1d(len(stoi))]
parameters = [C] + [p for layer in layers for p in layer.parameters()]
for p in parameters: p.requires_grad = True
for i in range(60):
  ix = torch.randint(0, X.shape[0], (16,), generator=g)
  x = C[X[ix]].view(16, -1)
  for layer in layers: x = layer(x)
  loss = F.cross_entropy(x, Y[ix])
  for layer in layers: layer.out.retain_grad()
  for p in parameters: p.grad = None
  loss.backward()
  for p in parameters: p.data += -0.1 * p.grad
  if i % 20 == 0: print(f'{i:7d}: {loss.item():.4f}')
t = layers[2].out
print('layer %d (%10s): mean %+.2f, std %.2f, saturated: %.2f%%' % (2, type(layers[2]).__name__, t.mean(), t.std(), (t.abs() > 0.97).float().mean()*100), layers[1].running_mean[:3])
