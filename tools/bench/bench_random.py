#!/usr/bin/env python3
"""Random distributions against PyTorch, same run, same thread count:

- multinomial over 1000 rows x 1000 categories, 100 samples per row, with
  replacement (running sums + binary search) and without (exponential race);
- normal(0, 1, size) and normal(Tensor mean, Tensor std) over 1M float32;
- poisson over 1M float32 rates (half 3: Knuth's product; half 40: PTRS);
- exponential_ over 1M float32.

    python tools/bench/bench_random.py [--quick] [--threads N]

ratio = PyTorch time / torchlike time (>= 1.0 means torchlike is as fast or
faster). The generators differ (counter-based Philox here, mt19937 in
PyTorch's CPU kernels), so only costs are compared, never the numbers. NumPy's
np.random.Generator (single-threaded) is listed where it has the same
sampler, as a second reference.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402
from _timing import median_time  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def make_cases(n, rows, cats, samples):
    """[(name, step(module) -> callable, numpy callable or None)]."""
    rng = np.random.default_rng(0)
    w = rng.random((rows, cats)).astype(np.float32) + 0.01
    rates = np.where(np.arange(n) % 2 == 0, 3.0, 40.0).astype(np.float32)
    mean = rng.standard_normal(n).astype(np.float32)
    std = (rng.random(n) + 0.5).astype(np.float32)
    g = np.random.default_rng(1)

    def multinomial(replacement):
        def step(m):
            p = m.tensor(w)
            return lambda: m.multinomial(p, samples, replacement)
        return step

    def normal_tt(m):
        a, b = m.tensor(mean), m.tensor(std)
        return lambda: m.normal(a, b)

    def poisson(m):
        r = m.tensor(rates)
        return lambda: m.poisson(r)

    def exponential(m):
        t = m.empty(n)
        return lambda: t.exponential_()

    return [
        (f"multinomial {rows}x{cats} {samples} repl", multinomial(True), None),
        (f"multinomial {rows}x{cats} {samples} no repl", multinomial(False), None),
        (f"normal(0, 1, ({n},))", lambda m: (lambda: m.normal(0.0, 1.0, (n,))), lambda: g.standard_normal(n, np.float32)),
        (f"normal(mean, std) {n}", normal_tt, lambda: g.normal(mean, std)),
        (f"poisson {n} (rates 3 and 40)", poisson, lambda: g.poisson(rates)),
        (f"exponential_ {n}", exponential, lambda: g.standard_exponential(n, np.float32)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    n = 1 << 16 if args.quick else 1 << 20
    rows = 100 if args.quick else 1000
    print(f"threads: {args.threads}")
    print(f"{'case':42s} {'torchlike ms':>13s} {'torch ms':>10s} {'torch/tl':>9s} {'numpy ms':>10s}")
    for name, step, np_fn in make_cases(n, rows, 1000, 100):
        t_tl = median_time(step(tl))
        t_pt = median_time(step(torch)) if torch is not None else None
        t_np = median_time(np_fn) if np_fn is not None else None
        pt = f"{t_pt * 1e3:10.2f} {t_pt / t_tl:8.2f}x" if t_pt else f"{'-':>10s} {'-':>9s}"
        npt = f"{t_np * 1e3:10.2f}" if t_np else f"{'-':>10s}"
        print(f"{name:42s} {t_tl * 1e3:13.2f} {pt} {npt}")


if __name__ == "__main__":
    main()
