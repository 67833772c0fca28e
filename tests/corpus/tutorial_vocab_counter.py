# Written for gradcli after PyTorch's text tutorials (the torchtext text classification
# tutorial's vocabulary from a Counter of tokens, the NLP tutorials' word_to_ix) and the
# nn.Sequential docs' OrderedDict form: a bag-of-words classifier over a small corpus.
from collections import Counter, OrderedDict, defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F

data = [("me gusta comer en la cafeteria", "SPANISH"), ("give it to me", "ENGLISH"),
        ("no creo que sea una buena idea", "SPANISH"), ("no it is not a good idea", "ENGLISH")]
counter = Counter()
for sent, _ in data:
    counter.update(sent.split())
print(counter.most_common(3), len(counter), counter["no"])
ordered = OrderedDict(sorted(counter.items(), key=lambda x: (-x[1], x[0])))
word_to_ix = {w: i for i, w in enumerate(ordered)}
print(list(ordered.items())[:3], word_to_ix["me"])
by_label = defaultdict(list)
for sent, label in data:
    by_label[label].append(len(sent.split()))
print(by_label, dict(Counter(label for _, label in data)))

torch.manual_seed(1)
label_to_ix = {"SPANISH": 0, "ENGLISH": 1}
model = nn.Sequential(OrderedDict([("linear", nn.Linear(len(word_to_ix), 2)),
                                   ("log_softmax", nn.LogSoftmax(dim=1))]))
print(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    total = 0.0
    for sent, label in data:
        vec = torch.zeros(1, len(word_to_ix))
        for word, n in Counter(sent.split()).items():
            vec[0, word_to_ix[word]] += n
        loss = F.nll_loss(model(vec), torch.tensor([label_to_ix[label]]))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(epoch, round(total, 4))
print(model[0].weight[:, word_to_ix["creo"]], model[1])
