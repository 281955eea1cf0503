#!/usr/bin/env python3
"""nn layers part B (activation/loss/shape modules) against PyTorch, same run,
2 threads each:

- per-call overhead of small module calls (the module layer's cost on top of
  the functional: option lookup, hooks check, dispatch) on tiny inputs;
- LinearCrossEntropyLoss forward+backward, reference path and the
  batch-chunked options path, (1024, 128) inputs, 4096 classes, float32.

    python tools/bench/bench_nn_layers_b.py [--quick]

ratio = PyTorch time / torchlike time (>= 1.0 means torchlike is as fast or faster).
"""
import argparse
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402
from _timing import cpu_name, interleaved_median_times  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def small_call(lib, ctor, shapes, target=None):
    rng = np.random.default_rng(0)
    module = ctor(lib.nn)
    inputs = [lib.tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]
    if target is not None:
        inputs.append(lib.tensor(target))
    return lambda: module(*inputs)


def linear_ce(lib, rows, in_features, classes, chunked):
    rng = np.random.default_rng(1)
    options = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=256) if chunked else None
    module = lib.nn.LinearCrossEntropyLoss(in_features, classes, options=options)
    x = lib.tensor(rng.standard_normal((rows, in_features)).astype(np.float32)).requires_grad_(True)
    t = lib.tensor(rng.integers(0, classes, rows).astype(np.int64))

    def step():
        module(x, t).backward()
        x.grad = None
        module.linear.weight.grad = None
    return step


SMALL = [
    ("ReLU()(64)", lambda nn: nn.ReLU(), [(64,)], None),
    ("Hardtanh(-2,2)(64)", lambda nn: nn.Hardtanh(-2.0, 2.0), [(64,)], None),
    ("Flatten()(4,4,4)", lambda nn: nn.Flatten(), [(4, 4, 4)], None),
    ("MSELoss()(8,8)", lambda nn: nn.MSELoss(), [(8, 8), (8, 8)], None),
    ("CrossEntropyLoss()(8,10)", lambda nn: nn.CrossEntropyLoss(), [(8, 10)], np.arange(8) % 10),
    ("TripletMarginLoss()(8,4)", lambda nn: nn.TripletMarginLoss(), [(8, 4)] * 3, None),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if torch is None:
        print("PyTorch is not installed: nothing to compare against")
        return
    torch.set_num_threads(2)
    tl.set_num_threads(2)
    warnings.simplefilter("ignore")
    print(f"CPU: {cpu_name()}")
    number = 50 if args.quick else 200
    print(f"{'case':34s} {'torchlike':>12s} {'torch':>12s} {'ratio':>7s}")
    for name, ctor, shapes, target in SMALL:
        ours, theirs = interleaved_median_times([small_call(tl, ctor, shapes, target),
                                                 small_call(torch, ctor, shapes, target)], number=number)
        print(f"{name:34s} {ours * 1e6:10.2f}us {theirs * 1e6:10.2f}us {theirs / ours:7.2f}")
    rows, in_features, classes = (256, 64, 1024) if args.quick else (1024, 128, 4096)
    for chunked in (False, True):
        label = f"LinearCE fwd+bwd {'chunked' if chunked else 'reference'}"
        ours, theirs = interleaved_median_times([linear_ce(tl, rows, in_features, classes, chunked),
                                                 linear_ce(torch, rows, in_features, classes, chunked)])
        print(f"{label:34s} {ours * 1e3:10.2f}ms {theirs * 1e3:10.2f}ms {theirs / ours:7.2f}")


if __name__ == "__main__":
    main()
