#!/usr/bin/env python3
"""Tensor misc (issue 10): in-place views, set_, resize_, fill_diagonal_. Time
per call against PyTorch (and NumPy where it has the operation), measured in
the same run (PyTorch only when installed).

    python tools/bench/bench_tensor_misc.py

The in-place views and set_ touch only metadata: these times are per-call
overhead (argument parsing, dispatch, autograd bookkeeping). Ratios are
torchlike time / reference time: < 1 means torchlike is faster.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402
from _timing import median_time  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def cases(m, src, big):
    """(name, setup -> state, call on state); m is torchlike or torch."""
    return [
        ("transpose_ x2 (64x64)", lambda: m.zeros(64, 64), lambda t: t.transpose_(0, 1).transpose_(0, 1)),
        ("unsqueeze_ + squeeze_", lambda: m.zeros(64, 64), lambda t: t.unsqueeze_(0).squeeze_(0)),
        ("as_strided_ (64x64)", lambda: m.zeros(64, 64), lambda t: t.as_strided_((64, 64), (64, 1), 0)),
        ("transpose_ x2, grad (non-leaf)", lambda: m.zeros(64, 64, requires_grad=True) * 1,
         lambda t: t.transpose_(0, 1).transpose_(0, 1)),
        ("set_(source)", lambda: m.zeros(1), lambda t: t.set_(src)),
        ("resize_ same size", lambda: m.zeros(64, 64), lambda t: t.resize_(64, 64)),
        ("fill_diagonal_ 1024x1024", lambda: big, lambda t: t.fill_diagonal_(1.0)),
    ]


def main():
    src_np = np.zeros((1024, 1024), np.float32)
    rows = []
    tl_cases = cases(tl, tl.zeros(64, 64), tl.tensor(src_np))
    th_cases = cases(torch, torch.zeros(64, 64), torch.tensor(src_np)) if torch is not None else [None] * len(tl_cases)
    print(f"torch={torch.__version__ if torch else 'not installed'}")
    print(f"{'case':<34} {'torchlike us':>13} {'torch us':>10} {'numpy us':>10} {'vs torch':>9} {'vs numpy':>9}")
    for (name, setup, call), th in zip(tl_cases, th_cases):
        state = setup()
        t_tl = median_time(lambda: call(state), number=200)
        t_th = None
        if th is not None:
            tstate = th[1]()
            t_th = median_time(lambda: th[2](tstate), number=200)
        t_np = None
        if name.startswith("fill_diagonal_"):
            t_np = median_time(lambda: np.fill_diagonal(src_np, 1.0), number=200)
        rows.append(name)
        fmt = lambda v: f"{v * 1e6:10.2f}" if v is not None else f"{'-':>10}"  # noqa: E731
        ratio = lambda v: f"{t_tl / v:9.2f}" if v else f"{'-':>9}"  # noqa: E731
        print(f"{name:<34} {t_tl * 1e6:13.2f} {fmt(t_th)} {fmt(t_np)} {ratio(t_th)} {ratio(t_np)}")


if __name__ == "__main__":
    main()
