# Written for gradcli after tab-indented training scripts as users paste them (a linear fit
# with nn.Linear, MSELoss and SGD, each block indented with tabs, the plot drawn by matplotlib).
import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
x = torch.rand(20, 1) * 10
y = 2.0 * x + 5.0 + torch.randn(20, 1)

model = nn.Linear(1, 1)
criterion = nn.MSELoss()
optimizer = optim.SGD(model.parameters(), lr=0.01)

for epoch in range(60):
	model.train()
	outputs = model(x)
	loss = criterion(outputs, y)

	optimizer.zero_grad()
	loss.backward()
	optimizer.step()

	if (epoch + 1) % 20 == 0:
		print(epoch + 1, "loss", round(loss.item(), 4))


def mse(y_true, y_pred):
	return ((y_true - y_pred) ** 2).mean()


model.eval()
with torch.no_grad():
	predicted = model(x)
	if predicted.shape == y.shape:
		print("MSE", mse(predicted, y))

plt.scatter(x, y, label="Original data")
plt.plot(x, predicted, label="Fitted line", color="red")
plt.legend()
plt.show()
print(model.weight, model.bias)
