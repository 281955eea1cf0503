"""ctc_loss forward+backward (through log_softmax): torchlike vs PyTorch, ratios from one run.

    python tools/bench/bench_ctc.py

Ratio = PyTorch time / torchlike time (> 1 means torchlike is faster), 2 threads each.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import median_time  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def case(mod, T, N, C, S):
    rng = np.random.default_rng(0)
    x = mod.tensor(rng.standard_normal((T, N, C)).astype(np.float32)).requires_grad_(True)
    targets = mod.tensor(rng.integers(1, C, (N, S)).astype(np.int64))
    in_len = [T - (i % 5) for i in range(N)]
    tg_len = [S - (i % 3) for i in range(N)]

    def step():
        mod.nn.functional.ctc_loss(x.log_softmax(2), targets, in_len, tg_len).backward()
        x.grad = None
    return step


def main():
    tl.set_num_threads(2)
    if torch is not None:
        torch.set_num_threads(2)
    print(f"{'case':40s} {'torchlike ms':>13s} {'torch ms':>10s} {'torch/tl':>9s}")
    for T, N, C, S in ((50, 16, 20, 10), (200, 32, 40, 30), (500, 8, 100, 100)):
        name = f"ctc_loss fwd+bwd T{T} N{N} C{C} S{S}"
        t_tl = median_time(case(tl, T, N, C, S))
        if torch is not None:
            t_pt = median_time(case(torch, T, N, C, S))
            print(f"{name:40s} {t_tl * 1e3:13.2f} {t_pt * 1e3:10.2f} {t_pt / t_tl:9.2f}x")
        else:
            print(f"{name:40s} {t_tl * 1e3:13.2f} {'-':>10s} {'-':>9s}")


if __name__ == "__main__":
    main()
