# A small CNN in the style of PyTorch's MNIST example, with Adam and StepLR.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR

from _common import parse_args, prepare, report


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


args = parse_args(12)
torch.manual_seed(args.seed)
rng = np.random.default_rng(args.seed)
data = torch.from_numpy(rng.standard_normal((32, 1, 28, 28)).astype(np.float32))
target = torch.from_numpy(rng.integers(0, 10, 32).astype(np.int64))
model = Net()
prepare(torch, model, args)
optimizer = optim.Adam(model.parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=5, gamma=0.7)
model.train()
for step in range(args.steps):
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
    scheduler.step()
    report(step, loss.item())
