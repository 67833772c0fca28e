# Source: Karpathy, nanoGPT model.py (https://github.com/karpathy/nanoGPT, MIT): GPTConfig as a
# dataclass, LayerNorm with an optional bias, the MLP block; a small config, no dropout, seeded.
import math
from dataclasses import dataclass, field, asdict, replace
import torch
import torch.nn as nn
from torch.nn import functional as F
torch.manual_seed(1337)

class LayerNorm(nn.Module):
    """ LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False """
    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None
    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc    = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu    = nn.GELU()
        self.c_proj  = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
    def forward(self, x):
        x = self.c_fc(x)
        x = self.gelu(x)
        x = self.c_proj(x)
        return x

@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304 # GPT-2 vocab_size of 50257, padded up to nearest multiple of 64 for efficiency
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True # True: bias in Linears and LayerNorms, like GPT-2. False: a bit better and faster
    tags: list = field(default_factory=list)

config = GPTConfig(block_size=8, n_layer=2, n_embd=4)
print(config, config == GPTConfig(block_size=8, n_layer=2, n_embd=4), asdict(replace(config, bias=False)))
blocks = nn.ModuleList([nn.ModuleDict(dict(ln=LayerNorm(config.n_embd, bias=config.bias), mlp=MLP(config))) for _ in range(config.n_layer)])
for pn, p in blocks.named_parameters():
    if pn.endswith('c_proj.weight'):
        torch.nn.init.normal_(p, mean=0.0, std=0.02/math.sqrt(2 * config.n_layer))
print(blocks, "number of parameters: %.2fK" % (sum(p.numel() for p in blocks.parameters())/1e3,))
x = torch.randn(2, config.block_size, config.n_embd)
for block in blocks:
    x = x + block['mlp'](block['ln'](x))
loss = x.pow(2).mean()
loss.backward()
print(loss, blocks[0].ln.weight.grad, blocks[1]['mlp'].c_proj.bias.grad)
