"""sort / topk / kthvalue / median: torchlike vs NumPy vs PyTorch, ratios from one run.

    python tools/bench/bench_sorting.py

Ratio = other's time / torchlike's time (> 1 means torchlike is faster).
Both libraries use the same thread count (2 by default, TORCHLIKE_BENCH_THREADS).
torchlike and PyTorch calls alternate (one of each per repeat), so a burst of
load from other processes on a shared machine slows both alike.
"""
import statistics
import time
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import cpu_name, MIN_REPEATS, median_time  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

THREADS = int(os.environ.get("TORCHLIKE_BENCH_THREADS", "2"))


def interleaved_medians(fns, repeat=MIN_REPEATS, warmup=3):
    """Median seconds per call of each fn, calling them in turn each repeat."""
    for _ in range(warmup):
        for fn in fns:
            fn()
    times = [[] for _ in fns]
    for _ in range(max(repeat, MIN_REPEATS)):
        for fn, ts in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
    return [statistics.median(ts) for ts in times]


def main():
    tl.set_num_threads(THREADS)
    if torch is not None:
        torch.set_num_threads(THREADS)
    rng = np.random.default_rng(0)
    v1m = rng.standard_normal(1 << 20).astype(np.float32)
    i1m = rng.integers(-2**31, 2**31 - 1, 1 << 20).astype(np.int64)
    rows = rng.standard_normal((4096, 256)).astype(np.float32)
    cases = [
        ("sort 1M float32", v1m, lambda m, x: m.sort(x), lambda x: np.sort(x, kind="stable")),
        ("sort 1M int64", i1m, lambda m, x: m.sort(x), lambda x: np.sort(x, kind="stable")),
        ("sort 4096x256 dim=-1", rows, lambda m, x: m.sort(x, dim=-1), lambda x: np.sort(x, axis=-1)),
        ("argsort 1M float32 desc", v1m, lambda m, x: m.argsort(x, descending=True), None),
        ("topk 1M k=1000", v1m, lambda m, x: m.topk(x, 1000), None),
        ("topk 1M k=10", v1m, lambda m, x: m.topk(x, 10), None),
        ("topk 1M int64 k=100000", i1m, lambda m, x: m.topk(x, 100000), None),
        ("topk 4096x256 k=10", rows, lambda m, x: m.topk(x, 10), None),
        ("kthvalue 1M k=500000", v1m, lambda m, x: m.kthvalue(x, 500000), lambda x: np.partition(x, 499999)),
        ("median 4096x256 dim=1", rows, lambda m, x: m.median(x, 1), lambda x: np.median(x, axis=1)),
    ]
    print(f"CPU: {cpu_name()}; threads: {THREADS}; median of >= 15 repeats (torchlike/PyTorch interleaved)")
    print(f"{'case':28} {'torchlike ms':>13} {'numpy x':>8} {'torch x':>8}")
    for name, data, fn, npfn in cases:
        a = tl.tensor(data)
        r_pt = float("nan")
        if torch is not None:
            b = torch.from_numpy(data)
            t_tl, t_pt = interleaved_medians([lambda: fn(tl, a), lambda: fn(torch, b)], repeat=21)
            r_pt = t_pt / t_tl
        else:
            t_tl = median_time(lambda: fn(tl, a))
        r_np = median_time(lambda: npfn(data)) / t_tl if npfn else float("nan")
        print(f"{name:28} {t_tl * 1e3:13.3f} {r_np:8.2f} {r_pt:8.2f}")


if __name__ == "__main__":
    main()
