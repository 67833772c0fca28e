# Source: PyTorch tutorial "Training a Classifier" (60 Minute Blitz),
# github.com/pytorch/tutorials/blob/main/beginner_source/blitz/cifar10_tutorial.py
# Licence: BSD-3-Clause. Network (last return joined), loss, optimizer, training and accuracy
# loops verbatim (comments, classes dropped); CIFAR-10 replaced by 24 seeded random images,
# the loss printed every 2 mini-batches instead of 2000, 3 epochs. The batches of 4 go through
# oneDNN's float32 convolutions in PyTorch: equal here at the printed precision.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
images, labels = torch.randn(24, 3, 32, 32), torch.randint(0, 10, (24,))
trainloader = DataLoader(TensorDataset(images, labels), batch_size=4, shuffle=True, num_workers=2)
testloader = DataLoader(TensorDataset(images[:8], labels[:8]), batch_size=4, shuffle=False)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)
net = Net()
print(net)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
for epoch in range(3):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 2 == 1:
            print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 2:.3f}')
            running_loss = 0.0
print('Finished Training')
correct = 0
total = 0
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
print(f'Accuracy of the network on the {total} test images: {100 * correct // total} %')
