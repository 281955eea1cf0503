# A small CNN in the style of PyTorch's MNIST example, with Adam and StepLR.
import torch
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR

from _common import parse_args, prepare, report
from _mnist_net import Net, fixed_batch


args = parse_args(12)
torch.manual_seed(args.seed)
data, target = (t.to(args.device) for t in fixed_batch(args.seed))
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
