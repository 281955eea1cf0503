#!/usr/bin/env python3
"""Autocast speed, as ratios against PyTorch measured in the same run.

    python tools/bench/bench_autocast.py

- per-op overhead of a region: a small mm inside CPU autocast (the cast and
  the Autocast kernel's redispatch), and the same mm outside one;
- a bfloat16-autocast MLP training step (forward, backward, SGD update),
  the issue's target being <= 1.0x PyTorch's time.

time ratio = torchlike time / torch time (lower is better).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import torchlike as tl  # noqa: E402
from _timing import interleaved_median_times  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def small_mm(m, autocast):
    a, b = m.randn(8, 8), m.randn(8, 8)
    if not autocast:
        return lambda: m.mm(a, b)

    def run():
        with m.autocast("cpu"):
            return m.mm(a, b)
    return run


def small_mm_in_region(m):
    """The Autocast kernel alone: many mm calls inside one region."""
    a, b = m.randn(8, 8), m.randn(8, 8)

    def run():
        with m.autocast("cpu"):
            for _ in range(100):
                m.mm(a, b)
    return run


def mlp_step(m, width=512, batch=256, depth=3):
    m.manual_seed(0)
    layers = []
    for i in range(depth):
        layers += [m.nn.Linear(width, width), m.nn.ReLU()]
    model = m.nn.Sequential(*layers, m.nn.Linear(width, 10))
    opt = m.optim.SGD(model.parameters(), lr=0.01)
    x, y = m.randn(batch, width), m.randint(0, 10, (batch,))

    def run():
        opt.zero_grad()
        with m.autocast("cpu", dtype=m.bfloat16):
            loss = m.nn.functional.cross_entropy(model(x).float(), y)
        loss.backward()
        opt.step()
    return run


def mlp_784_step(m):
    """The training-stack issue's MLP (784-512-256-10, batch 128, SGD with
    momentum), its forward and loss under bfloat16 autocast."""
    m.manual_seed(0)
    nn = m.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = m.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = m.randn(128, 784), m.randint(0, 10, (128,))

    def run():
        opt.zero_grad()
        with m.autocast("cpu", dtype=m.bfloat16):
            loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return run


CASES = [
    ("mm 8x8, outside autocast", "us", lambda m: small_mm(m, False), 1),
    ("mm 8x8, enter region + mm", "us", lambda m: small_mm(m, True), 1),
    ("100x mm 8x8 inside one region", "us", small_mm_in_region, 100),
    ("bf16-autocast MLP step 3x512, b=256", "ms", mlp_step, 1),
    ("bf16-autocast MLP 784-512-256-10, b=128", "ms", mlp_784_step, 1),
]


def main():
    tl.set_num_threads(torch.get_num_threads() if torch else 2)
    print(f"threads={tl.get_num_threads()} torch={torch.__version__ if torch else '-'}")
    print(f"{'case':<40}{'unit':>6}{'torchlike':>12}{'torch':>12}{'vs torch':>10}")
    for name, unit, make, per in CASES:
        fns = [make(tl)] + ([make(torch)] if torch else [])
        times = interleaved_median_times(fns, repeat=15)
        scale = 1e6 / per if unit == "us" else 1e3
        tlv = times[0] * scale
        thv = times[1] * scale if torch else None
        ratio = f"{tlv / thv:9.2f}x" if thv else f"{'-':>10}"
        print(f"{name:<40}{unit:>6}{tlv:12.2f}{(thv or float('nan')):12.2f}{ratio}")


if __name__ == "__main__":
    main()
