"""DataLoader throughput: batches per second, torchlike against PyTorch in one run.

A map-style dataset of 64 KiB float32 samples (16384 floats), batch_size 32,
num_workers=2. One timed repeat is one epoch of EPOCH_BATCHES batches; the
figure is the median over >= 15 epochs after warm-up (tools/bench/_timing.py),
the two loaders timed in turns. Two set-ups:
  persistent  persistent_workers=True: steady-state throughput of the pipeline
  fresh       workers started and stopped every epoch (start-up included)
and, with persistent workers, the CPU time per batch of the main process and
of the workers (os.times / /proc), which a busy machine does not distort.

    python tools/bench/bench_dataloader.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from _timing import cpu_name, interleaved_median_times  # noqa: E402

import torchlike  # noqa: E402
import torchlike.utils.data as tl_data  # noqa: E402

try:
    import torch
    import torch.utils.data as torch_data
except ImportError:
    torch = None

SAMPLE_FLOATS = 16384  # 64 KiB of float32
BATCH = 32
WORKERS = 2
EPOCH_BATCHES = 40
SAMPLES = BATCH * EPOCH_BATCHES


def make_dataset(lib, data_module):
    class Samples(data_module.Dataset):
        """Pre-made samples (so the figure is the loader's cost, not the sample's)."""

        def __init__(self):
            self.rows = lib.rand(SAMPLES, SAMPLE_FLOATS)

        def __len__(self):
            return SAMPLES

        def __getitem__(self, i):
            return self.rows[i]

    return Samples()


def epoch_runner(loader):
    def run():
        n = 0
        for batch in loader:
            n += 1
        assert n == EPOCH_BATCHES
    return run


def _process_cpu_s(pid):
    """User + system CPU seconds a process has used (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_batch(loader, epochs=10):
    """CPU milliseconds per batch spent by the main process and by the workers
    together (persistent workers). Unlike batches/s this does not depend on
    how busy the machine is, which on a shared 2-core box swamps the wall clock."""
    for _ in loader:  # make sure the workers exist
        pass
    pids = [w.pid for w in loader._iterator._workers]
    main0, workers0 = os.times(), [_process_cpu_s(p) for p in pids]
    for _ in range(epochs):
        for _ in loader:
            pass
    main1 = os.times()
    main_s = (main1.user - main0.user) + (main1.system - main0.system)
    workers_s = sum(_process_cpu_s(p) - c for p, c in zip(pids, workers0))
    n = epochs * EPOCH_BATCHES
    return 1e3 * main_s / n, 1e3 * workers_s / n


def main():
    print(f"DataLoader throughput, {SAMPLE_FLOATS * 4 // 1024} KiB samples, batch {BATCH}, {WORKERS} workers, "
          f"{EPOCH_BATCHES} batches/epoch  [{cpu_name()}]")
    libs = [("torchlike", torchlike, tl_data)]
    if torch is not None:
        libs.append(("torch", torch, torch_data))
    for setup, persistent in (("persistent", True), ("fresh", False)):
        loaders = []
        for name, lib, dm in libs:
            ds = make_dataset(lib, dm)
            loaders.append(dm.DataLoader(ds, batch_size=BATCH, shuffle=True, num_workers=WORKERS,
                                         persistent_workers=persistent))
        times = interleaved_median_times([epoch_runner(dl) for dl in loaders], warmup=2)
        rates = [EPOCH_BATCHES / t for t in times]
        line = f"  {setup:10s} torchlike {rates[0]:8.1f} batches/s"
        if len(rates) > 1:
            line += f"   torch {rates[1]:8.1f} batches/s   ratio (torchlike/torch) {rates[0] / rates[1]:.2f}x"
        print(line)
        if persistent:
            for (name, _, _), dl in zip(libs, loaders):
                m, w = cpu_per_batch(dl)
                print(f"  {'cpu':10s} {name:9s} {m:5.2f} ms/batch main + {w:5.2f} ms/batch workers = {m + w:5.2f}")
        del loaders


if __name__ == "__main__":
    main()
