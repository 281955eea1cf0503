"""float32 matmul throughput, torchlike vs PyTorch (and NumPy), same thread count.

    python tools/bench/bench_matmul.py [--threads N] [--sizes 1024 2048]

Prints GFLOP/s (best of several runs, 2*n^3 flops per product) and the
ratio torchlike / PyTorch measured in the same process.
"""
import argparse
import time

import numpy as np

from _timing import interleaved_median_times, median_time  # noqa: E402
import torchlike as tl




def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--sizes", type=int, nargs="*", default=[1024, 2048])
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
    nt = args.threads or tl.get_num_threads()
    tl.set_num_threads(nt)
    if torch is not None:
        torch.set_num_threads(nt)
    print(f"threads={nt}")
    for n in args.sizes:
        a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
        b = np.random.default_rng(1).standard_normal((n, n), dtype=np.float32)
        flops = 2.0 * n ** 3
        ta, tb = tl.tensor(a), tl.tensor(b)
        t_tl = median_time(lambda: tl.matmul(ta, tb), 1, args.reps)
        line = f"n={n:5d}  torchlike {flops / t_tl / 1e9:8.1f} GFLOP/s"
        if torch is not None:
            pa, pb = torch.from_numpy(a), torch.from_numpy(b)
            t_pt = median_time(lambda: torch.matmul(pa, pb), 1, args.reps)
            line += f"  torch {flops / t_pt / 1e9:8.1f} GFLOP/s  ratio {t_pt / t_tl:5.2f}x"
        t_np = median_time(lambda: a @ b, 1, args.reps)
        line += f"  numpy {flops / t_np / 1e9:8.1f} GFLOP/s"
        print(line, flush=True)
    # Batched: issue 10's bmm case (64 products of 128x128). A few ms per call,
    # so the three libraries are timed in turns, 41 rounds: measured one after
    # the other, a slow spell of the machine once read 0.67x and then 4.15x.
    a = np.random.default_rng(2).standard_normal((64, 128, 128), dtype=np.float32)
    flops = 2.0 * 64 * 128 ** 3
    ta = tl.tensor(a)
    fns = [lambda: tl.bmm(ta, ta), lambda: np.matmul(a, a)]
    if torch is not None:
        pa = torch.from_numpy(a)
        fns.append(lambda: torch.bmm(pa, pa))
    ts = interleaved_median_times(fns, 1, max(args.reps, 41))
    t_tl, t_np = ts[0], ts[1]
    line = f"bmm 64x128x128  torchlike {flops / t_tl / 1e9:8.1f} GFLOP/s"
    if torch is not None:
        t_pt = ts[2]
        line += f"  torch {flops / t_pt / 1e9:8.1f} GFLOP/s  ratio {t_pt / t_tl:5.2f}x"
    line += f"  numpy {flops / t_np / 1e9:8.1f} GFLOP/s"
    print(line, flush=True)


if __name__ == "__main__":
    main()
