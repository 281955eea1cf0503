"""unique / unique_consecutive / mode: torchlike vs NumPy vs PyTorch, ratios from one run.

    python tools/bench/bench_unique_mode.py

Ratio = other's time / torchlike's time (> 1 means torchlike is faster).
Both libraries use the same thread count (2 by default, TORCHLIKE_BENCH_THREADS).
NumPy has no mode: its column uses scipy.stats.mode where SciPy is installed.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import cpu_name, median_time  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except ImportError:
    torch = None
try:
    from scipy import stats as sp_stats
except ImportError:
    sp_stats = None

THREADS = int(os.environ.get("TORCHLIKE_BENCH_THREADS", "2"))


def np_unique_all(x):
    return np.unique(x, return_inverse=True, return_counts=True)


def np_mode(x):
    return sp_stats.mode(x, axis=-1) if sp_stats is not None else None


def main():
    tl.set_num_threads(THREADS)
    if torch is not None:
        torch.set_num_threads(THREADS)
    rng = np.random.default_rng(0)
    i1m = rng.integers(0, 100_000, 1_000_000).astype(np.int64)      # ~100k distinct values: counted
    pool = rng.integers(-2**62, 2**62, 100_000)
    i1m_wide = pool[rng.integers(0, pool.size, 1_000_000)]          # as many, spread wide: sorted
    f1m = rng.standard_normal(1_000_000).astype(np.float32)          # all distinct
    u8 = rng.integers(0, 256, 1_000_000).astype(np.uint8)
    runs = np.repeat(rng.integers(0, 50, 200_000), 5).astype(np.int64)
    rows_i = rng.integers(0, 10, (1000, 1000)).astype(np.int64)
    rows_f = rng.integers(0, 100, (1000, 1000)).astype(np.float32)
    pairs = rng.integers(0, 30, (100_000, 2)).astype(np.int64)
    all3 = dict(return_inverse=True, return_counts=True)
    cases = [
        ("unique 1M int64 inv+counts", i1m, lambda m, x: m.unique(x, **all3), np_unique_all),
        ("unique 1M int64 wide inv+counts", i1m_wide, lambda m, x: m.unique(x, **all3), np_unique_all),
        ("unique 1M float32 inv+counts", f1m, lambda m, x: m.unique(x, **all3), np_unique_all),
        ("unique 1M int64 values", i1m, lambda m, x: m.unique(x), np.unique),
        ("unique 1M uint8 inv+counts", u8, lambda m, x: m.unique(x, **all3), np_unique_all),
        ("unique 100kx2 dim=0 inv+counts", pairs, lambda m, x: m.unique(x, dim=0, **all3),
         lambda x: np.unique(x, axis=0, return_inverse=True, return_counts=True)),
        ("unique_consecutive 1M int64", runs, lambda m, x: m.unique_consecutive(x, **all3), None),
        ("mode 1000x1000 int64 dim=-1", rows_i, lambda m, x: m.mode(x, -1), np_mode),
        ("mode 1000x1000 float32 dim=-1", rows_f, lambda m, x: m.mode(x, -1), np_mode),
    ]
    print(f"CPU: {cpu_name()}; threads: {THREADS}; median of >= 15 repeats")
    print(f"{'case':33} {'torchlike ms':>13} {'numpy x':>8} {'torch x':>8}")
    for name, data, fn, npfn in cases:
        a = tl.tensor(data)
        t_tl = median_time(lambda: fn(tl, a))
        r_np = float("nan")
        if npfn is not None and not (npfn is np_mode and sp_stats is None):
            r_np = median_time(lambda: npfn(data)) / t_tl
        r_pt = float("nan")
        if torch is not None:
            b = torch.from_numpy(data)
            r_pt = median_time(lambda: fn(torch, b)) / t_tl
        print(f"{name:33} {t_tl * 1e3:13.3f} {r_np:8.2f} {r_pt:8.2f}", flush=True)


if __name__ == "__main__":
    main()
