#!/usr/bin/env python3
"""nn activations and losses against PyTorch, same run, 2 threads each:

- cross_entropy forward+backward over (4096, 1000) float32 logits
  (log_softmax + the fused nll_loss kernel; the log_softmax is the softmax
  family's kernel when torchlike has one, else x - logsumexp(x));
- relu and gelu (erf and tanh) forward+backward over 16M float32.

    python tools/bench/bench_act_loss.py [--quick]

ratio = PyTorch time / torchlike time (>= 1.0 means torchlike is as fast or faster).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402
import torchlike.nn.functional as TF  # noqa: E402
from _timing import median_time  # noqa: E402

try:
    import torch
    import torch.nn.functional as PF
except ImportError:  # pragma: no cover
    torch = None


def case_cross_entropy(mod, F, rows, cols):
    rng = np.random.default_rng(0)
    x = mod.tensor(rng.standard_normal((rows, cols)).astype(np.float32)).requires_grad_(True)
    t = mod.tensor(rng.integers(0, cols, rows).astype(np.int64))

    def step():
        F.cross_entropy(x, t).backward()
        x.grad = None
    return step


def case_act(mod, F, name, n, **kw):
    rng = np.random.default_rng(1)
    x = mod.tensor(rng.standard_normal(n).astype(np.float32)).requires_grad_(True)
    g = mod.tensor(rng.standard_normal(n).astype(np.float32))
    f = getattr(F, name)

    def step():
        f(x, **kw).backward(g)
        x.grad = None
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    args = ap.parse_args()
    tl.set_num_threads(2)
    if torch is not None:
        torch.set_num_threads(2)
    n = 1 << 20 if args.quick else 1 << 24
    rows = 512 if args.quick else 4096
    cases = [(f"cross_entropy fwd+bwd ({rows}, 1000)", lambda m, F: case_cross_entropy(m, F, rows, 1000)),
             (f"relu fwd+bwd {n}", lambda m, F: case_act(m, F, "relu", n)),
             (f"gelu fwd+bwd {n}", lambda m, F: case_act(m, F, "gelu", n)),
             (f"gelu(tanh) fwd+bwd {n}", lambda m, F: case_act(m, F, "gelu", n, approximate="tanh")),
             (f"silu fwd+bwd {n}", lambda m, F: case_act(m, F, "silu", n))]
    print(f"log_softmax: {'torchlike.log_softmax' if hasattr(tl, 'log_softmax') else 'x - logsumexp composite'}")
    print(f"{'case':40s} {'torchlike ms':>13s} {'torch ms':>10s} {'torch/tl':>9s}")
    for name, make in cases:
        t_tl = median_time(make(tl, TF))
        if torch is not None:
            t_pt = median_time(make(torch, PF))
            print(f"{name:40s} {t_tl * 1e3:13.2f} {t_pt * 1e3:10.2f} {t_pt / t_tl:9.2f}x")
        else:
            print(f"{name:40s} {t_tl * 1e3:13.2f} {'-':>10s} {'-':>9s}")


if __name__ == "__main__":
    main()
