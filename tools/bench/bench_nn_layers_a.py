#!/usr/bin/env python3
"""nn layers of slice A (conv, norms, embeddings, fractional pooling) against
PyTorch, same run, 2 threads each. The small cases measure what the module layer
adds on top of the kernels (Python dispatch, argument handling, running-stat
bookkeeping); the larger ones a realistic layer call.

    python tools/bench/bench_nn_layers_a.py [--quick]

ratio = PyTorch time / torchlike time (>= 1.0 means torchlike is as fast or faster).

On a shared, oversubscribed machine run it with OMP_WAIT_POLICY=PASSIVE: otherwise
PyTorch's OpenMP workers spin between calls and fight the other library (and other
processes) for the cores, and the small cases swing by 100x.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402
from _timing import cpu_name, interleaved_median_times  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def _input(mod, shape, grad=False, seed=0):
    x = mod.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))
    return x.requires_grad_(grad)


def case_forward(mod, make_layer, shape, train=True):
    layer = make_layer(mod.nn)
    layer.train(train)
    x = _input(mod, shape)

    def step():
        with mod.no_grad():
            layer(x)
    return step


def case_embedding(mod, batch):
    layer = mod.nn.Embedding(1000, 64)
    idx = mod.from_numpy(np.random.default_rng(2).integers(0, 1000, batch))

    def step():
        layer(idx).sum().backward()
        layer.weight.grad = None
    return step


def case_cnn(mod, batch):
    nn = mod.nn
    layers = [nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.MaxPool2d(2),
              nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.AdaptiveAvgPool2d(1)]
    x = _input(mod, (batch, 1, 28, 28))
    params = [p for m in layers for p in m.parameters()]

    def step():
        h = x
        for m in layers:
            h = m(h)
            if isinstance(m, nn.BatchNorm2d):
                h = mod.relu(h)
        h.sum().backward()
        for p in params:
            p.grad = None
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    args = ap.parse_args()
    tl.set_num_threads(2)
    if torch is not None:
        torch.set_num_threads(2)
    batch = 8 if args.quick else 32
    cases = [
        ("Conv2d(3,8,3) fwd (1,3,8,8)", lambda m: case_forward(m, lambda nn: nn.Conv2d(3, 8, 3), (1, 3, 8, 8))),
        ("Conv2d reflect fwd (1,3,8,8)",
         lambda m: case_forward(m, lambda nn: nn.Conv2d(3, 8, 3, padding=1, padding_mode="reflect"), (1, 3, 8, 8))),
        ("BatchNorm2d(16) train fwd (8,16,8,8)", lambda m: case_forward(m, lambda nn: nn.BatchNorm2d(16), (8, 16, 8, 8))),
        ("BatchNorm2d(16) eval fwd (8,16,8,8)",
         lambda m: case_forward(m, lambda nn: nn.BatchNorm2d(16), (8, 16, 8, 8), train=False)),
        ("LayerNorm(64) fwd (32,64)", lambda m: case_forward(m, lambda nn: nn.LayerNorm(64), (32, 64))),
        ("Embedding(1000,64) fwd+bwd 256 idx", lambda m: case_embedding(m, 256)),
        ("FractionalMaxPool2d fwd (8,16,32,32)",
         lambda m: case_forward(m, lambda nn: nn.FractionalMaxPool2d(2, output_ratio=0.5), (8, 16, 32, 32))),
        (f"small CNN fwd+bwd ({batch},1,28,28)", lambda m: case_cnn(m, batch)),
    ]
    print(f"CPU: {cpu_name()}")
    print(f"{'case':42s} {'torchlike ms':>13s} {'torch ms':>10s} {'torch/tl':>9s}")
    for name, make in cases:
        if torch is None:
            (t_tl,) = interleaved_median_times([make(tl)])
            print(f"{name:42s} {t_tl * 1e3:13.3f} {'-':>10s} {'-':>9s}")
            continue
        t_tl, t_pt = interleaved_median_times([make(tl), make(torch)])
        print(f"{name:42s} {t_tl * 1e3:13.3f} {t_pt * 1e3:10.3f} {t_pt / t_tl:9.2f}x")


if __name__ == "__main__":
    main()
