# Source: PyTorch tutorial "Deep Learning with PyTorch" (NLP tutorials,
# https://pytorch.org/tutorials/beginner/nlp/deep_learning_tutorial.html): BoWClassifier; seeded.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(1)
data = [("me gusta comer en la cafeteria".split(), "SPANISH"),
        ("Give it to me".split(), "ENGLISH"),
        ("No creo que sea una buena idea".split(), "SPANISH"),
        ("No it is not a good idea to get lost at sea".split(), "ENGLISH")]
test_data = [("Yo creo que si".split(), "SPANISH"),
             ("it is lost on me".split(), "ENGLISH")]
word_to_ix = {}
for sent, _ in data + test_data:
    for word in sent:
        if word not in word_to_ix:
            word_to_ix[word] = len(word_to_ix)
print(word_to_ix)
VOCAB_SIZE, NUM_LABELS = len(word_to_ix), 2

class BoWClassifier(nn.Module):  # inheriting from nn.Module!
    def __init__(self, num_labels, vocab_size):
        super(BoWClassifier, self).__init__()
        self.linear = nn.Linear(vocab_size, num_labels)

    def forward(self, bow_vec):
        return F.log_softmax(self.linear(bow_vec), dim=1)

def make_bow_vector(sentence, word_to_ix):
    vec = torch.zeros(len(word_to_ix))
    for word in sentence:
        vec[word_to_ix[word]] += 1
    return vec.view(1, -1)

def make_target(label, label_to_ix):
    return torch.LongTensor([label_to_ix[label]])

model = BoWClassifier(NUM_LABELS, VOCAB_SIZE)
for param in model.parameters():
    print(param)
with torch.no_grad():
    bow_vector = make_bow_vector(data[0][0], word_to_ix)
    print(model(bow_vector))
label_to_ix = {"SPANISH": 0, "ENGLISH": 1}
loss_function = nn.NLLLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)
for epoch in range(100):
    for instance, label in data:
        model.zero_grad()
        loss = loss_function(model(make_bow_vector(instance, word_to_ix)),
                             make_target(label, label_to_ix))
        loss.backward()
        optimizer.step()
with torch.no_grad():
    for instance, label in test_data:
        print(model(make_bow_vector(instance, word_to_ix)))
print(next(model.parameters())[:, word_to_ix["creo"]])
