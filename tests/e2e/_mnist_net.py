"""The small CNN of PyTorch's MNIST example and its fixed training batch,
shared by cnn.py and cnn_amp.py."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


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


def fixed_batch(seed):
    """32 MNIST-shaped images and labels, the same for every library (NumPy's stream)."""
    rng = np.random.default_rng(seed)
    data = torch.from_numpy(rng.standard_normal((32, 1, 28, 28)).astype(np.float32))
    target = torch.from_numpy(rng.integers(0, 10, 32).astype(np.int64))
    return data, target
