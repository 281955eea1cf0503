#!/usr/bin/env python3
"""DataLoader throughput: batches per second for 64 KB samples (16384 float32), batch 32, over
0 and 2 worker processes, torchlike against PyTorch in the same run.

One timed call = one epoch of 64 batches through a persistent-worker loader, so worker start-up
is paid once in the warm-up and the figure is steady-state throughput (including the transfer
of every batch from the workers to the main process)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import median_time  # noqa: E402

import torchlike  # noqa: E402
import torchlike.utils.data as tld  # noqa: E402

try:
    import torch
    import torch.utils.data as tud
except ImportError:
    torch = None

N_BATCHES, BATCH, SAMPLE = 64, 32, 16384  # 16384 float32 = 64 KB per sample


def make_dataset(lib, data_mod):
    class Samples(data_mod.Dataset):
        def __len__(self):
            return N_BATCHES * BATCH

        def __getitem__(self, i):
            return lib.full((SAMPLE,), float(i % 7))

    return Samples()


def epoch_fn(lib, data_mod, workers):
    kwargs = dict(num_workers=workers, persistent_workers=True, timeout=60) if workers else {}
    loader = data_mod.DataLoader(make_dataset(lib, data_mod), batch_size=BATCH, **kwargs)

    def run():
        n = 0
        for batch in loader:
            n += batch.shape[0]
        assert n == N_BATCHES * BATCH
    return run


def main():
    for workers in (0, 2):
        ours = median_time(epoch_fn(torchlike, tld, workers), repeat=15, warmup=2)
        line = f"workers={workers}: torchlike {N_BATCHES / ours:8.1f} batches/s"
        if torch is not None:
            ref = median_time(epoch_fn(torch, tud, workers), repeat=15, warmup=2)
            line += f"   torch {N_BATCHES / ref:8.1f} batches/s   time ratio {ours / ref:5.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
