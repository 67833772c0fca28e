# Written for gradcli after PyTorch's "NLP From Scratch: Translation with a Sequence to Sequence
# Network and Attention" tutorial (https://pytorch.org/tutorials/intermediate/seq2seq_translation_tutorial.html):
# its asMinutes/timeSince helpers around a training loop timed with time.time(), and
# time.perf_counter for a step; what is printed does not depend on the machine's speed.
import math
import time

import torch
import torch.nn as nn


def asMinutes(s):
    m = math.floor(s / 60)
    s -= m * 60
    return "%dm %ds" % (m, s)


def timeSince(since, percent):
    now = time.time()
    s = now - since
    es = s / (percent)
    rs = es - s
    return "%s (- %s)" % (asMinutes(s), asMinutes(rs))


print(asMinutes(125), asMinutes(3601.5))
torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
start = time.time()
print_loss_total = 0.0
n_iters = 20
for iter in range(1, n_iters + 1):
    tick = time.perf_counter()
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    step_time = time.perf_counter() - tick
    print_loss_total += loss.item()
    if iter % 5 == 0:
        print("(%d %d%%) %.4f" % (iter, iter / n_iters * 100, print_loss_total / 5),
              step_time >= 0, isinstance(timeSince(start, iter / n_iters), str))
        print_loss_total = 0
elapsed = time.time() - start
print(elapsed >= 0, elapsed < 3600, type(time.time()).__name__)
