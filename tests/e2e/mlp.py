# An MNIST-style MLP classifier, as in PyTorch's basic tutorials, on synthetic data.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from _common import parse_args, prepare, report


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 512)
        self.fc2 = nn.Linear(512, 256)
        self.fc3 = nn.Linear(256, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return F.log_softmax(self.fc3(x), dim=1)


args = parse_args(20)
torch.manual_seed(args.seed)
rng = np.random.default_rng(args.seed)
images = torch.from_numpy(rng.standard_normal((512, 1, 28, 28)).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 10, 512).astype(np.int64))
loader = DataLoader(TensorDataset(images, labels), batch_size=128, shuffle=False)
model = Net()
prepare(torch, model, args)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
step = 0
while step < args.steps:
    for data, target in loader:
        data, target = data.to(args.device), target.to(args.device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        report(step, loss.item())
        step += 1
        if step == args.steps:
            break
