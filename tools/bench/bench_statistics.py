"""quantile / histogram / logcumsumexp: torchlike vs NumPy vs PyTorch, ratios from one run.

    python tools/bench/bench_statistics.py

Ratio = other's time / torchlike's time (> 1 means torchlike is faster).
Both libraries use the same thread count (2 by default, TORCHLIKE_BENCH_THREADS).
NumPy is single-threaded; its column is there for scale.
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

THREADS = int(os.environ.get("TORCHLIKE_BENCH_THREADS", "2"))


def main():
    tl.set_num_threads(THREADS)
    if torch is not None:
        torch.set_num_threads(THREADS)
    rng = np.random.default_rng(0)
    mat = rng.standard_normal((1000, 1000)).astype(np.float32)
    v1m = rng.standard_normal(1 << 20).astype(np.float32)
    q3 = np.array([0.1, 0.5, 0.9], np.float32)
    cases = [
        ("quantile 1000x1000 dim=1 q=.5", mat, lambda m, x: m.quantile(x, 0.5, dim=1),
         lambda x: np.quantile(x, 0.5, axis=1)),
        ("quantile 1000x1000 dim=1 3 q", mat, lambda m, x: m.quantile(x, m.tensor(q3), dim=1),
         lambda x: np.quantile(x, q3, axis=1)),
        ("histogram 1M bins=100", v1m, lambda m, x: m.histogram(x, 100), lambda x: np.histogram(x, 100)),
        ("histogram 1M 33 edges", v1m, lambda m, x: m.histogram(x, m.linspace(-3, 3, 33)),
         lambda x: np.histogram(x, np.linspace(-3, 3, 33, dtype=np.float32))),
        ("logcumsumexp 1000x1000 dim=1", mat, lambda m, x: m.logcumsumexp(x, 1),
         lambda x: np.logaddexp.accumulate(x, axis=1)),
        ("logcumsumexp 1000x1000 dim=0", mat, lambda m, x: m.logcumsumexp(x, 0),
         lambda x: np.logaddexp.accumulate(x, axis=0)),
    ]
    print(f"CPU: {cpu_name()}; threads: {THREADS}; median of >= 15 repeats")
    print(f"{'case':32} {'torchlike ms':>13} {'numpy x':>8} {'torch x':>8}")
    for name, data, fn, npfn in cases:
        a = tl.tensor(data)
        t_tl = median_time(lambda: fn(tl, a))
        r_np = median_time(lambda: npfn(data)) / t_tl if npfn else float("nan")
        r_pt = float("nan")
        if torch is not None:
            b = torch.from_numpy(data)
            r_pt = median_time(lambda: fn(torch, b)) / t_tl
        print(f"{name:32} {t_tl * 1e3:13.3f} {r_np:8.2f} {r_pt:8.2f}")


if __name__ == "__main__":
    main()
