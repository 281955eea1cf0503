#!/usr/bin/env python3
"""Autograd engine overhead: a chain of 100 `y = y * 1.01 + 0.1` on a
100-element tensor, then `y.sum().backward()` (forward recording + backward),
timed against PyTorch in the same run. The tensors are tiny, so this measures
per-op graph recording and per-node engine cost, not arithmetic.

    python tools/bench/bench_autograd.py [--quick]

ratio = torchlike time / PyTorch time; target <= 0.6.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import torchlike as tl  # noqa: E402
from _timing import median_time  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def chain(x, n_ops):
    """The benchmarked forward: n_ops times y = y * 1.01 + 0.1 (2 graph nodes each)."""
    y = x
    for _ in range(n_ops):
        y = y * 1.01 + 0.1
    return y


def make_chain(mod, n_ops=100, numel=100):
    x = mod.ones(numel, requires_grad=True)

    def step():
        chain(x, n_ops).sum().backward()
        x.grad = None
    return step


def make_forward_only(mod, n_ops=100, numel=100):
    x = mod.ones(numel, requires_grad=True)
    return lambda: chain(x, n_ops)


def make_backward_only(mod, n_ops=100, numel=100):
    x = mod.ones(numel, requires_grad=True)

    def step():
        s = chain(x, n_ops).sum()
        t0 = time.perf_counter()
        s.backward()
        return time.perf_counter() - t0
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    number = 20 if args.quick else 100
    tl.set_num_threads(1) if hasattr(tl, "set_num_threads") else None
    if torch is not None:
        torch.set_num_threads(1)

    print(f"{'case':44s} {'torchlike':>12s} {'pytorch':>12s} {'ratio':>7s}")
    for name, maker in (("chain 100x(mul,add) + sum().backward()", make_chain),
                        ("  forward only (record 200 nodes)", make_forward_only)):
        ours = median_time(maker(tl), number)
        theirs = median_time(maker(torch), number) if torch is not None else float("nan")
        print(f"{name:44s} {ours * 1e6:10.1f}us {theirs * 1e6:10.1f}us {ours / theirs:7.2f}")
    # backward alone: time inside step
    for_mod = {}
    for label, mod in (("torchlike", tl), ("pytorch", torch)):
        if mod is None:
            continue
        step = make_backward_only(mod)
        step()
        for_mod[label] = min(min(step() for _ in range(number)) for _ in range(3))
    if len(for_mod) == 2:
        print(f"{'  backward only (201 nodes)':44s} {for_mod['torchlike'] * 1e6:10.1f}us "
              f"{for_mod['pytorch'] * 1e6:10.1f}us {for_mod['torchlike'] / for_mod['pytorch']:7.2f}")
    print("target: ratio <= 0.6 for the full chain")


if __name__ == "__main__":
    main()
