"""Data-parallel training with torchlike.distributed, written as a PyTorch user writes it.

Each rank reads its share of the data through DistributedSampler, the model is
wrapped in DistributedDataParallel (BatchNorm converted to SyncBatchNorm), the
evaluation metrics are all-reduced, and rank 0 saves the checkpoint. The data
is a synthetic 3-class problem (no download).

    python -m torchlike.distributed.run --nproc_per_node 2 examples/train_ddp.py [--epochs 5]

or, without the launcher, `python examples/train_ddp.py --spawn 2`
(torchlike.multiprocessing.spawn with env:// rendezvous).
"""
import argparse
import os
import socket

import numpy as np

import torchlike as torch
import torchlike.distributed as dist
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.nn.parallel import DistributedDataParallel as DDP
from torchlike.utils.data import DataLoader, TensorDataset
from torchlike.utils.data.distributed import DistributedSampler


def make_data(n, seed):
    """Three Gaussian blobs in 16 dimensions (the same blobs for every seed)."""
    centers = np.random.default_rng(1234).standard_normal((3, 16))
    g = np.random.default_rng(seed)
    y = g.integers(0, 3, n)
    x = centers[y] + g.standard_normal((n, 16))
    return TensorDataset(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y.astype(np.int64)))


def train(args):
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)  # DDP broadcasts rank 0's weights anyway
    train_set, test_set = make_data(2048, 0), make_data(512, 1)
    sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
    test_loader = DataLoader(test_set, batch_size=256, sampler=DistributedSampler(test_set, shuffle=False))
    model = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 3))
    model = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(model))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        model.train()
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        model.eval()
        stats = torch.zeros(3, dtype=torch.float64)  # loss sum, correct, count
        with torch.no_grad():
            for x, y in test_loader:
                logits = model(x)
                stats += torch.tensor([F.cross_entropy(logits, y, reduction="sum").item(),
                                       (logits.argmax(1) == y).sum().item(), len(y)], dtype=torch.float64)
        dist.all_reduce(stats)
        if rank == 0:
            print(f"epoch {epoch}: test loss {stats[0] / stats[2]:.4f}, accuracy {stats[1] / stats[2]:.3f} "
                  f"({world} ranks)", flush=True)
    if rank == 0 and args.out:
        torch.save(model.module.state_dict(), args.out)
    dist.destroy_process_group()


def _spawned(rank, world, port, args):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    train(args)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="")
    p.add_argument("--spawn", type=int, default=0, help="start this many ranks with multiprocessing.spawn")
    args = p.parse_args(argv)
    if args.spawn:
        import torchlike.multiprocessing as mp
        with socket.socket() as s:
            s.bind(("", 0))
            port = s.getsockname()[1]
        mp.spawn(_spawned, args=(args.spawn, port, args), nprocs=args.spawn)
    else:
        train(args)


if __name__ == "__main__":
    main()
