#!/usr/bin/env python3
"""Shape ops (issue 10): time per call against NumPy and PyTorch, measured in
the same run (PyTorch only when installed).

    python tools/bench/bench_shape_ops.py [--threads N]

Ratios are torchlike time / reference time: < 1 means torchlike is faster.
"""
import argparse
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

# (case, torchlike/torch call on x, NumPy call on a or None); x is 1024x1024 float32.
CASES = [
    ("flip dim 0", lambda m, x: m.flip(x, (0,)), lambda a: np.flip(a, 0).copy()),
    ("flip dim 1", lambda m, x: m.flip(x, (1,)), lambda a: np.flip(a, 1).copy()),
    ("flip transposed, both dims", lambda m, x: m.flip(x.t(), (0, 1)), lambda a: np.flip(a.T).copy()),
    ("roll (17, 33)", lambda m, x: m.roll(x, (17, 33), (0, 1)), lambda a: np.roll(a, (17, 33), (0, 1))),
    ("rot90", lambda m, x: m.rot90(x), lambda a: np.rot90(a).copy(order="K")),
    # The transposed result made contiguous: mostly copy_'s transposing walk.
    ("rot90 + contiguous", lambda m, x: m.rot90(x).contiguous(), lambda a: np.ascontiguousarray(np.rot90(a))),
    ("tril", lambda m, x: m.tril(x), np.tril),
    ("triu_ (in place)", lambda m, x: x.triu_(), None),
    ("repeat (2, 2)", lambda m, x: x.repeat(2, 2), lambda a: np.tile(a, (2, 2))),
    ("repeat_interleave 2, dim 0", lambda m, x: m.repeat_interleave(x, 2, dim=0), lambda a: np.repeat(a, 2, 0)),
    ("diag_embed of a row (1024)", lambda m, x: m.diag_embed(x[0]), lambda a: np.diag(a[0])),
    ("hstack x2", lambda m, x: m.hstack([x, x]), lambda a: np.hstack([a, a])),
    ("tensor_split 8 (views)", lambda m, x: m.tensor_split(x, 8, 1), lambda a: np.array_split(a, 8, 1)),
    ("meshgrid 1024x1024 (views)", lambda m, x: m.meshgrid(x[0], x[1], indexing="ij"),
     lambda a: np.meshgrid(a[0], a[1], indexing="ij", copy=False)),
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    p.add_argument("--size", type=int, default=1024)
    a = p.parse_args()
    tl.set_num_threads(a.threads)
    if torch is not None:
        torch.set_num_threads(a.threads)
    n = a.size
    arr = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    x = tl.tensor(arr)
    xt = torch.tensor(arr) if torch is not None else None
    print(f"threads={a.threads} size={n}x{n} float32 torch={torch.__version__ if torch else 'not installed'}")
    print(f"{'case':<30} {'torchlike us':>13} {'numpy us':>10} {'torch us':>10} {'vs numpy':>9} {'vs torch':>9}")
    for name, fn, npfn in CASES:
        t_tl = median_time(lambda: fn(tl, x))
        t_np = median_time(lambda: npfn(arr)) if npfn else None
        t_th = median_time(lambda: fn(torch, xt)) if xt is not None else None
        cells = [f"{name:<30}", f"{t_tl * 1e6:13.1f}", f"{t_np * 1e6:10.1f}" if t_np else f"{'-':>10}",
                 f"{t_th * 1e6:10.1f}" if t_th else f"{'-':>10}",
                 f"{t_tl / t_np:8.2f}x" if t_np else f"{'-':>9}", f"{t_tl / t_th:8.2f}x" if t_th else f"{'-':>9}"]
        print(" ".join(cells))


if __name__ == "__main__":
    main()
