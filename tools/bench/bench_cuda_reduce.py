#!/usr/bin/env python3
"""CUDA reductions and scans: effective bandwidth (input bytes read per
second) of torchlike against PyTorch's CUDA build, measured in the same run.
Needs a GPU (and, for the ratio, a PyTorch built with CUDA); says so and
exits otherwise.

    python tools/bench/bench_cuda_reduce.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torchlike  # noqa: E402
from _timing import interleaved_median_times  # noqa: E402

N = 8192
CASES = [
    # (label, shape, function of a tensor module and a tensor)
    ("sum, 8192^2 float32", (N, N), lambda m, x: x.sum()),
    ("sum(dim=1), 8192^2", (N, N), lambda m, x: x.sum(1)),
    ("sum(dim=0), 8192^2", (N, N), lambda m, x: x.sum(0)),
    ("amax(dim=1), 8192^2", (N, N), lambda m, x: x.amax(1)),
    ("argmax(dim=1), 8192^2", (N, N), lambda m, x: x.argmax(1)),
    ("var(dim=1), 8192^2", (N, N), lambda m, x: x.var(1)),
    ("norm, 64M", (1 << 26,), lambda m, x: x.norm()),
    ("cumsum(dim=1), 4096 x 8192", (4096, N), lambda m, x: x.cumsum(1)),
]


def main():
    if not torchlike.cuda.is_available():
        print("no CUDA device: nothing to measure")
        return
    try:
        import torch
        ref = torch if torch.cuda.is_available() else None
    except ImportError:
        ref = None
    print(f"device: {torchlike.cuda.get_device_name()}")
    print(f"{'case':32} {'torchlike GB/s':>15} {'PyTorch GB/s':>13} {'ratio':>6}")
    for label, shape, fn in CASES:
        x = torchlike.randn(*shape, device="cuda")
        fns = [lambda: (fn(torchlike, x), torchlike.cuda.synchronize())]
        if ref is not None:
            xt = ref.randn(*shape, device="cuda")
            fns.append(lambda: (fn(ref, xt), ref.cuda.synchronize()))
        times = interleaved_median_times(fns, number=5)
        gbs = [x.numel() * 4 / t / 1e9 for t in times]
        if ref is not None:
            print(f"{label:32} {gbs[0]:15.0f} {gbs[1]:13.0f} {gbs[0] / gbs[1]:6.2f}")
        else:
            print(f"{label:32} {gbs[0]:15.0f} {'-':>13} {'-':>6}")


if __name__ == "__main__":
    main()
