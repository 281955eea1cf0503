# The small CNN of cnn.py trained with automatic mixed precision, written as
# PyTorch's AMP recipe does: autocast around the forward and the loss, and for
# float16 a GradScaler around backward and step.
#   --mode fp32      plain float32 (the reference curve)
#   --mode bf16      torch.autocast("cpu", dtype=torch.bfloat16)
#   --mode fp16      torch.autocast("cpu", dtype=torch.float16) + GradScaler("cpu"),
#                    started at a scale high enough that the first steps overflow
import argparse

import torch
import torch.nn.functional as F
import torch.optim as optim

from _common import prepare, report
from _mnist_net import Net, fixed_batch

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=12)
p.add_argument("--save-init")
p.add_argument("--load-init")
p.add_argument("--seed", type=int, default=0)
p.add_argument("--device", default="cpu")
p.add_argument("--mode", choices=("fp32", "bf16", "fp16"), default="bf16")
p.add_argument("--init-scale", type=float, default=2.0 ** 20)
args = p.parse_args()

torch.manual_seed(args.seed)
data, target = (t.to(args.device) for t in fixed_batch(args.seed))
model = Net()
prepare(torch, model, args)
optimizer = optim.Adam(model.parameters(), lr=1e-3)
use_amp = args.mode != "fp32"
amp_dtype = torch.float16 if args.mode == "fp16" else torch.bfloat16
device_type = torch.device(args.device).type
scaler = torch.amp.GradScaler(device_type, init_scale=args.init_scale, growth_interval=3,
                              enabled=args.mode == "fp16")
model.train()
for step in range(args.steps):
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=amp_dtype, enabled=use_amp):
        output = model(data)
        loss = F.nll_loss(output, target)
    if use_amp and device_type == "cpu":
        # the last linear layer runs in the low precision, log_softmax passes it
        # through (not on CPU's fp32 list), nll_loss is on it
        assert output.dtype == amp_dtype and loss.dtype == torch.float32
    scaler.scale(loss).backward()
    assert model.fc1.weight.grad.dtype == torch.float32  # grads land in the leaves' dtype
    scaler.step(optimizer)
    scaler.update()
    report(step, loss.item())
    print(f"scale {step} {scaler.get_scale() if scaler.is_enabled() else 1.0}", flush=True)
